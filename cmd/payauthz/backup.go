package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/internal/durable"
	"github.com/payauthz/payauthz/projections/logtree"
)

// backupFormat names the file format of payauthz backup: JSON lines, a
// header, one line per event with its payload as stored (secrets
// included), and a trailer with the SHA-256 of every line before it.
const backupFormat = backupFormatName + "1"

// backupFormatName is what every version of the format begins with.
const backupFormatName = "payauthz-backup/"

type backupHeader struct {
	Format   string    `json:"format"`
	Backend  string    `json:"backend"`
	Position uint64    `json:"position"` // the log's last position the backup covers
	Created  time.Time `json:"created"`
}

type backupEvent struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Stream        string          `json:"stream"`
	Version       uint64          `json:"version"`
	Position      uint64          `json:"position"`
	Index         int             `json:"index"`
	CommitSize    int             `json:"commitSize"`
	Time          time.Time       `json:"time"`
	Actor         string          `json:"actor,omitempty"`
	CorrelationID string          `json:"correlationId,omitempty"`
	Data          json.RawMessage `json:"data"`
}

type backupTrailer struct {
	Events uint64 `json:"events"`
	SHA256 string `json:"sha256"`
}

func backupCmd() *cobra.Command {
	ac := &auditConfig{}
	var to string
	cmd := &cobra.Command{
		Use:   "backup --to FILE",
		Short: "Copy the event log (secrets included) to FILE (mode 0600) with a SHA-256 checksum",
		Long: `backup copies every event of the log up to its last position at the start of the copy
(a consistent cut: the log is append-only) into FILE, written to a temporary file, fsynced
and renamed (its directory fsynced), mode 0600: it holds password hashes and secrets like the
log does. The log is read like the audit tools read it: the embedded log in --data-dir (while
the service runs, through the read-only loopback access its embedded NATS server writes into the
data dir), an external NATS server or cluster (--nats-url), or a KurrentDB (--store).`,
		Args: cobra.NoArgs,
		RunE: withEnv(func(cmd *cobra.Command, _ []string) error {
			if to == "" {
				return usageErrorf("--to is required")
			}
			n, pos, sum, err := backup(cmd.Context(), ac, to)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "backed up %d events up to log position %d into %s\nsha256 %s\n", n, pos, to, sum)
			return nil
		}),
	}
	ac.bindFlags(cmd.Flags())
	cmd.Flags().StringVar(&to, "to", "", "backup file to write (replaced atomically)")
	return cmd
}

func backup(ctx context.Context, ac *auditConfig, to string) (n uint64, pos events.Position, sum string, err error) {
	store, err := ac.open(ctx)
	if err != nil {
		return 0, 0, "", err
	}
	defer store.Close()
	last, err := store.LastPosition(ctx)
	if err != nil {
		return 0, 0, "", fmt.Errorf("read the log: %w", err)
	}
	tmp, err := durable.Create(to, 0o600)
	if err != nil {
		return 0, 0, "", fmt.Errorf("backup file: %w", err)
	}
	defer tmp.Cleanup()
	h := sha256.New()
	w := bufio.NewWriter(io.MultiWriter(tmp, h))
	enc := json.NewEncoder(w)
	if err := enc.Encode(backupHeader{Format: backupFormat, Backend: store.Backend(), Position: uint64(last), Created: time.Now().UTC()}); err != nil {
		return 0, 0, "", err
	}
	errCut := errors.New("past the cut")
	err = store.Read(ctx, 0, func(_ context.Context, env events.Envelope) error {
		if env.Position > last {
			return errCut
		}
		n++
		return enc.Encode(backupEvent{ID: env.ID, Name: env.Name, Stream: env.Stream, Version: uint64(env.Version),
			Position: uint64(env.Position), Index: env.Index, CommitSize: env.CommitSize, Time: env.Time,
			Actor: env.Actor, CorrelationID: env.CorrelationID, Data: env.Data})
	})
	if err != nil && !errors.Is(err, errCut) {
		return 0, 0, "", fmt.Errorf("read the log: %w", err)
	}
	if err := w.Flush(); err != nil {
		return 0, 0, "", err
	}
	sum = hex.EncodeToString(h.Sum(nil))
	if err := json.NewEncoder(tmp).Encode(backupTrailer{Events: n, SHA256: sum}); err != nil {
		return 0, 0, "", err
	}
	if err := tmp.Commit(); err != nil {
		return 0, 0, "", err
	}
	return n, last, sum, nil
}

// readBackup reads and verifies a backup file: format, checksum, event
// count, and commits whole and in order. The header is read first, so
// that a backup cut short (no trailer after its last line) or of another
// format version is told as such, not as a file that is no backup.
func readBackup(path string) (backupHeader, []backupEvent, error) {
	var hd backupHeader
	b, err := os.ReadFile(path)
	if err != nil {
		return hd, nil, err
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	if err := json.Unmarshal(first, &hd); err != nil || !strings.HasPrefix(hd.Format, backupFormatName) {
		return hd, nil, fmt.Errorf("not a payauthz backup: it does not begin with a %s header", backupFormat)
	}
	if hd.Format != backupFormat {
		return hd, nil, fmt.Errorf("backup format %s: this build reads %s; restore it with a build that reads it", hd.Format, backupFormat)
	}
	body, trailerLine, ok := cutLastLine(b)
	var tr backupTrailer
	if !ok || json.Unmarshal(trailerLine, &tr) != nil || tr.SHA256 == "" {
		return hd, nil, fmt.Errorf("the backup is cut short: it ends without its checksum trailer (%d bytes; a copy that stopped, a full disk?); use a whole copy", len(b))
	}
	if got := sha256.Sum256(body); hex.EncodeToString(got[:]) != tr.SHA256 {
		return hd, nil, errors.New("backup checksum mismatch: the file is damaged or was changed")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&hd); err != nil {
		return hd, nil, fmt.Errorf("backup header: %w", err)
	}
	var evs []backupEvent
	for dec.More() {
		var e backupEvent
		if err := dec.Decode(&e); err != nil {
			return hd, nil, fmt.Errorf("event %d: %w", len(evs)+1, err)
		}
		evs = append(evs, e)
	}
	if uint64(len(evs)) != tr.Events {
		return hd, nil, fmt.Errorf("backup holds %d events, its trailer says %d", len(evs), tr.Events)
	}
	return hd, evs, nil
}

// cutLastLine splits b (newline-terminated lines) before its last line.
func cutLastLine(b []byte) (body, last []byte, ok bool) {
	b = bytes.TrimSuffix(b, []byte("\n"))
	i := bytes.LastIndexByte(b, '\n')
	if i < 0 {
		return nil, nil, false
	}
	return b[:i+1], b[i+1:], true
}

func restoreCmd() *cobra.Command {
	var from, dataDir string
	cmd := &cobra.Command{
		Use:   "restore --from FILE --data-dir DIR",
		Short: "Write a backup's events into an empty embedded log (the service stopped)",
		Long: `restore verifies the backup's checksum, then appends its commits in order, each with its
original event ids, times, actors, stream versions and payloads as stored (byte for byte), into
the embedded log under --data-dir, which must be empty. The positions of the restored log are those of the original when it comes
from JetStream (its positions are dense); a KurrentDB log's are renumbered, and restore then says
what becomes of the log checkpoints signed before the move (they hash the old positions). Every
event is decoded before anything is written, and a restore that fails part way removes what it
wrote. Until its last commit is written, DIR holds the file restore-incomplete: serve, backup and
the audit tools refuse DIR while it is there (a restore killed part way leaves it), and restore run
again removes the partial log and starts over.
Start the service on DIR afterwards: it rebuilds its read models. When the backup holds log
checkpoints, restore names their signers: the service signs further checkpoints only with a key
that signed them (copy its log-signing.key into DIR) or with a key of another name (--log-signer
NAME); a key generated at first start is named payauthz-<hostname>, and when that is a signer's
name the service finds the log rewritten and signs no further checkpoint. The backup holds no
session.key: copy it into DIR to keep the sessions begun before (their cookies are 401 otherwise).`,
		Args: cobra.NoArgs,
		RunE: withEnv(func(cmd *cobra.Command, _ []string) error {
			if from == "" || dataDir == "" {
				return usageErrorf("--from and --data-dir are required")
			}
			r, err := restore(cmd.Context(), from, dataDir)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "restored %d events into %s\n", r.events, dataDir)
			r.noteCheckpoints(cmd.OutOrStdout(), from, dataDir)
			return nil
		}),
	}
	cmd.Flags().StringVar(&from, "from", "", "backup file written by payauthz backup")
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "data dir of the embedded log to restore into (must hold no events)")
	fromEnv(cmd.Flags(), "data-dir")
	return cmd
}

// restored is what a restore wrote: its events, the checkpoints of the
// backup, and those of them that no longer verify.
type restored struct {
	events  int
	backend string // the backup's
	// signed counts the backup's checkpoint events; signers are the names
	// that signed them.
	signed  int
	signers []string
	// moved counts the checkpoint events that cover an event restored at
	// another position than the one it had (a log from another backend:
	// the embedded log numbers its own): a leaf hashes its position
	// (logtree.Leaf), so the restored log's roots at their sizes are not
	// the signed ones. movedSigners are the names that signed them.
	moved        int
	movedSigners []string
}

func restore(ctx context.Context, from, dataDir string) (_ restored, err error) {
	hd, evs, err := readBackup(from)
	if err != nil {
		return restored{}, err
	}
	commits, err := backupCommits(evs)
	if err != nil {
		return restored{}, err
	}
	// Like serve: no second embedded server on files a running one writes.
	lock, err := lockDataDir(dataDir)
	if err != nil {
		return restored{}, err
	}
	defer lock.unlock()
	// The service would start from a snapshot of another log (or of this
	// one's lost files) whenever it is not beyond the restored log's end.
	snaps := filepath.Join(dataDir, "snapshots")
	if _, err := os.Lstat(snaps); !errors.Is(err, os.ErrNotExist) {
		return restored{}, fmt.Errorf("%s holds read-model snapshots (%s): restore needs an empty data dir", dataDir, snaps)
	}
	// A restore that died part way (kill -9, a power cut: its clean-up
	// below never ran) left its marker and part of the backup: that part
	// is this restore's to remove, and it starts over.
	marker := filepath.Join(dataDir, restoreMarker)
	if _, err := os.Lstat(marker); err == nil {
		if err := os.RemoveAll(filepath.Join(dataDir, "jetstream")); err != nil {
			return restored{}, fmt.Errorf("removing the log of a restore that did not complete: %w", err)
		}
	}
	store, err := jetstream.Open(ctx, jetstream.Config{DataDir: dataDir})
	if err != nil {
		return restored{}, err
	}
	defer store.Close()
	if last, err := store.LastPosition(ctx); err != nil {
		return restored{}, err
	} else if last != 0 {
		return restored{}, fmt.Errorf("%s already holds a log (last position %d): restore needs an empty data dir", dataDir, last)
	}
	// The log is empty. Until the last commit is written the marker says
	// that what the data dir holds is part of a backup: serve and the tools
	// refuse it (checkRestoreComplete), even after a crash. A restore that
	// fails from here removes what it wrote, so that no service starts on
	// part of the backup as if it were the whole, and the restore can be
	// run again.
	if err := durable.WriteFile(marker, []byte(from+"\n"), 0o600); err != nil {
		return restored{}, fmt.Errorf("restore marker: %w", err)
	}
	defer func() {
		if err != nil {
			_ = store.Close()
			if rmErr := os.RemoveAll(filepath.Join(dataDir, "jetstream")); rmErr != nil {
				err = fmt.Errorf("%w; removing the partly restored log: %v", err, rmErr)
				return // the marker stays: the data dir holds part of the backup
			}
			_ = durable.Remove(marker)
		}
	}()
	// The version each stream had after its last restored commit: the
	// backup's own when it comes from this backend (positions and versions
	// are reproduced exactly), else read back.
	versions := map[string]events.Version{}
	sameBackend := hd.Backend == store.Backend()
	var leaves uint64                   // the events restored before c
	movedFrom := uint64(math.MaxUint64) // the first of them restored at another position
	for _, c := range commits {
		expected := events.ExpectNoStream()
		if v, ok := versions[c.stream]; ok {
			expected = events.ExpectVersion(v)
		}
		pos, err := store.Append(ctx, c.stream, expected, c.recs...)
		if err != nil {
			return restored{}, fmt.Errorf("restore the commit at position %d: %w", c.position, err)
		}
		if sameBackend {
			if uint64(pos) != c.position {
				return restored{}, fmt.Errorf("the commit at position %d was restored at %d", c.position, pos)
			}
			versions[c.stream] = c.version
		} else {
			envs, err := store.Load(ctx, c.stream)
			if err != nil || len(envs) == 0 {
				return restored{}, fmt.Errorf("read back stream %s: %v", c.stream, err)
			}
			versions[c.stream] = envs[len(envs)-1].Version
		}
		if uint64(pos) != c.position && movedFrom == math.MaxUint64 {
			movedFrom = leaves
		}
		leaves += uint64(len(c.recs))
	}
	// Every append was fsynced before it was acknowledged: the log is
	// whole once the server has stopped, and only then is the marker gone.
	if err := store.Close(); err != nil {
		return restored{}, err
	}
	if err := durable.Remove(marker); err != nil {
		return restored{}, fmt.Errorf("restore marker: %w", err)
	}
	r := restored{events: len(evs), backend: hd.Backend}
	r.signed, r.signers = checkpointsCovering(commits, 0)
	r.moved, r.movedSigners = checkpointsCovering(commits, movedFrom)
	return r, nil
}

// checkpointsCovering counts the checkpoint events of commits that cover
// leaf from (their signed size is beyond it; 0: every checkpoint) and
// names their signers.
func checkpointsCovering(commits []backupCommit, from uint64) (n int, signers []string) {
	for _, c := range commits {
		for _, e := range c.decoded {
			ev, ok := e.(events.LogCheckpointSigned)
			if !ok {
				continue
			}
			if cp, err := logtree.ParseCheckpoint(logtree.NoteText(ev.Note)); err != nil || cp.Size <= from {
				continue
			}
			n++
			if name := logtree.SignerName(ev.Note); !slices.Contains(signers, name) {
				signers = append(signers, name)
			}
		}
	}
	return n, signers
}

// noteCheckpoints tells the operator, after a restore of a backup that
// holds log checkpoints, what key the service on the restored log must
// sign with, and after a restore from another backend what became of the
// checkpoints signed before the move.
func (r restored) noteCheckpoints(w io.Writer, from, dataDir string) {
	if r.moved > 0 {
		r.noteMovedCheckpoints(w, from, dataDir)
		return
	}
	if r.signed == 0 {
		return
	}
	names := strings.Join(r.signers, ", ")
	fmt.Fprintf(w, `note: log checkpoints in the backup: %d, signed by %s; they verify against the restored log.
The service on %s goes on signing checkpoints only with the key that signed them or with a key of
another name: copy log-signing.key from the data dir of the service that signed them into %s (or give
that file to --log-signing-key FILE), once that service no longer runs; or start it with --log-signer
NAME, a name other than %s, and a new key of that name is generated at first start.
`, r.signed, names, dataDir, dataDir, names)
	def := defaultSigner()
	if _, err := os.Lstat(filepath.Join(dataDir, "log-signing.key")); errors.Is(err, os.ErrNotExist) && slices.Contains(r.signers, def) {
		fmt.Fprintf(w, "Here, a data dir without log-signing.key generates a key named %s, one of those names.\n", def)
	}
	fmt.Fprint(w, `With another key of a signer's name, the service finds that the log does not match its checkpoints,
logs that the event log was rewritten, and signs no further checkpoint.
`)
}

// noteMovedCheckpoints tells the operator, after a restore from another
// backend, what became of the checkpoints signed before the move and what
// key the service on the restored log must sign with.
func (r restored) noteMovedCheckpoints(w io.Writer, from, dataDir string) {
	names := strings.Join(r.movedSigners, ", ")
	fmt.Fprintf(w, `note: log checkpoints in the backup signed before the move: %d, by %s. The backup comes from %s and the
restored log has positions of its own; a leaf of the log's Merkle tree hashes its event's position, so
those checkpoints do not verify against the restored log: payauthz audit verify on it reports them
root-mismatch with their verifier key, unknown-key without it, and fails, from now on.
Keep the backup file (%s) and the old log's payauthz audit verify report (run it before
retiring the old log): they are what those checkpoints still prove.
Start the service on %s with a new signing key, named otherwise than %s: a data dir without
log-signing.key gets one at first start (--log-signing-key FILE too, when FILE is absent), named by
--log-signer NAME. With the old key, or another key of that name, the service finds that the log does not
match its checkpoints and signs no further checkpoint.
`, r.moved, names, r.backend, from, dataDir, names)
}

// restoreMarker is the file in a data dir that a restore writes before its
// first commit and removes after its last one.
const restoreMarker = "restore-incomplete"

// checkRestoreComplete refuses a data dir whose embedded log is part of a
// backup: a restore into it began and did not complete. The service
// started on it, or a backup or an audit of it, would take the part for
// the whole log.
func checkRestoreComplete(dataDir string) error {
	if _, err := os.Lstat(filepath.Join(dataDir, restoreMarker)); errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	return fmt.Errorf("%s holds a restore that did not complete (%s): its log is part of a backup; "+
		"run payauthz restore --from FILE --data-dir %s again", dataDir, restoreMarker, dataDir)
}

// backupCommit is one commit of a backup, decoded: its stream, its
// position in the backed-up log, the stream's version after it.
type backupCommit struct {
	stream   string
	position uint64
	version  events.Version
	recs     []events.Record // to append: each payload as stored (storedEvent)
	decoded  []events.Event  // the same payloads, decoded
}

// storedEvent is an event of a backup as the log stored it: the store
// writes its payload as it is (json.Marshal of a payload the log holds,
// compact already, gives the same bytes), not as this build would encode
// what it decodes of it, which drops a member it does not know (a newer
// build's) and respells one matched without case: the restored log is the
// backed-up one, byte for byte, and hashes to its signed checkpoints.
type storedEvent struct {
	name string
	data json.RawMessage
}

func (e storedEvent) EventName() string { return e.name }

func (e storedEvent) MarshalJSON() ([]byte, error) { return e.data, nil }

// backupCommits groups a backup's events into their commits and decodes
// every payload, so that a backup restore cannot write (a commit cut short
// or not whole, its events or the commits out of order, an event this
// build does not know) is refused before anything is written. Restore
// writes the commits in the file's order and the events of each in its
// lines' order: a file whose order is not the log's (every event's place
// in its commit, commits at growing positions) would give another log,
// restored at once when it comes from another backend (no position to
// compare).
func backupCommits(evs []backupEvent) ([]backupCommit, error) {
	var out []backupCommit
	for i := 0; i < len(evs); {
		c := evs[i]
		size := max(c.CommitSize, 1)
		if size > len(evs)-i { // not i+size: a commitSize near the largest int would overflow it
			return nil, fmt.Errorf("the commit at position %d is cut short", c.Position)
		}
		if n := len(out); n > 0 && c.Position <= out[n-1].position {
			return nil, fmt.Errorf("the commit at position %d comes after the one at position %d", c.Position, out[n-1].position)
		}
		recs, decoded := make([]events.Record, size), make([]events.Event, size)
		for j := range size {
			e := evs[i+j]
			if e.Position != c.Position || e.Stream != c.Stream || e.CommitSize != c.CommitSize {
				return nil, fmt.Errorf("the commit at position %d is not whole", c.Position)
			}
			if e.Index != j {
				return nil, fmt.Errorf("the commit at position %d holds event %d of its commit in place %d", c.Position, e.Index, j)
			}
			ev, err := events.DefaultCodec.Decode(e.Name, e.Data)
			if err != nil {
				return nil, fmt.Errorf("event %s at position %d: %w", e.Name, e.Position, err)
			}
			decoded[j] = ev
			recs[j] = events.Record{ID: e.ID, Event: storedEvent{name: e.Name, data: e.Data}, Actor: e.Actor,
				CorrelationID: e.CorrelationID, Time: e.Time}
		}
		out = append(out, backupCommit{stream: c.Stream, position: c.Position,
			version: events.Version(evs[i+size-1].Version), recs: recs, decoded: decoded})
		i += size
	}
	return out, nil
}
