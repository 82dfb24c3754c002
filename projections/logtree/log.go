package logtree

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/payauthz/payauthz/events"
)

// maxFound bounds the checkpoints a Log remembers (a day and more at the
// default interval); `audit prove` reads older ones from the log.
const maxFound = 4096

// ErrDiverged reports that the log no longer matches a checkpoint this
// service signed: the service refuses to sign any further checkpoint.
var ErrDiverged = errors.New("the log does not match a checkpoint signed with this service's key")

// Found is a checkpoint event seen in the log. Verified: it is the
// service's own, its signature verified and the log's first events at its
// size hash to its root (another signer's is recorded as it claims to be,
// not verified).
type Found struct {
	Signed
	Position  events.Position `json:"posizione"`
	LeafIndex uint64          `json:"indiceFoglia"`
	Verified  bool            `json:"verificato"`
}

// Log is the service's verifiable log: a Tree kept up to date by Follow,
// reading the log on its own subscription (nothing on the write path waits
// for it), and the checkpoints it signs. It is safe for concurrent use.
type Log struct {
	tree   *Tree
	store  events.Store
	signer note.Signer
	vkey   string
	own    note.Verifiers
	logger *slog.Logger

	mu          sync.Mutex // guards the fields below
	applied     events.Position
	contentSize uint64  // the tree's size after its last event that is not a checkpoint
	lastSigned  uint64  // the largest size this signer signed, as seen in the log
	found       []Found // the newest maxFound checkpoints seen
	diverged    error
	ready       bool            // the tree has reached the log's end as it was when Follow started
	target      events.Position // that end
	lastIndex   int             // the index in its commit of the last event in the tree

	feedMu   sync.Mutex        // guards pending and caughtUp, and serialises Feed's appends
	pending  []events.Envelope // fed while CatchUp reads what came before
	caughtUp bool
}

// NewLog returns the verifiable log of store, signing with signer whose
// verifier key is vkey.
func NewLog(store events.Store, signer note.Signer, vkey string, logger *slog.Logger) (*Log, error) {
	own, err := Verifiers(vkey)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Log{tree: NewTree(store), store: store, signer: signer, vkey: vkey, own: own, logger: logger}, nil
}

// Tree returns the log's tree.
func (l *Log) Tree() *Tree { return l.tree }

// VerifierKey returns the verifier key of the service's signer.
func (l *Log) VerifierKey() string { return l.vkey }

// Signer returns the signer's name.
func (l *Log) Signer() string { return l.signer.Name() }

// Diverged returns ErrDiverged (wrapped, with where) once the log read
// back does not match one of this signer's checkpoints, else nil.
func (l *Log) Diverged() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.diverged
}

// Applied returns the position of the last event in the tree.
func (l *Log) Applied() events.Position {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.applied
}

// Checkpoints returns the newest checkpoints seen in the log (between
// maxFound and twice as many once there are more), oldest first.
func (l *Log) Checkpoints() []Found {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Found(nil), l.found...)
}

// Follow appends every event of the log to the tree, from the start, until
// ctx ends. It checks each of the signer's own checkpoints it passes
// against the tree, so a service replaying a rewritten log notices it.
// Follow is the tree's own consumer of the log, a seam for tests and tools
// that have no read model to feed the tree: the service uses Feed and
// CatchUp, so that the log has one consumer.
func (l *Log) Follow(ctx context.Context) error {
	target, err := l.store.LastPosition(ctx)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.ready = target == 0
	l.mu.Unlock()
	// A leaf hashes the event as stored: the payloads need no decoding.
	subscribe := l.store.Subscribe
	if raw, ok := l.store.(events.RawSubscriber); ok {
		subscribe = raw.SubscribeRaw
	}
	l.mu.Lock()
	l.target = target
	l.mu.Unlock()
	return subscribe(ctx, 0, func(ctx context.Context, env events.Envelope) error {
		l.add(ctx, env)
		return nil
	})
}

// Feed makes the tree follow the log through the envelopes a caller
// already receives in log order (the projections' own subscription, by
// ReadModel.OnApplied), so that the log has no consumer of its own: a
// second consumer costs the appends more than the tree does. What came
// before the first envelope fed is read once by CatchUp; until it has,
// fed envelopes are held. Use Feed and CatchUp, or Follow, not both.
func (l *Log) Feed(env events.Envelope) {
	l.feedMu.Lock()
	defer l.feedMu.Unlock()
	if !l.caughtUp {
		l.pending = append(l.pending, env)
		return
	}
	l.add(context.Background(), env)
}

// CatchUp reads the log from its start up to its end as it is now, without
// decoding payloads, into the tree, then the envelopes fed meanwhile; from
// then on Feed appends directly.
func (l *Log) CatchUp(ctx context.Context) error {
	target, err := l.store.LastPosition(ctx)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.ready, l.target = target == 0, target
	l.mu.Unlock()
	read := l.store.Read
	if raw, ok := l.store.(events.RawReader); ok {
		read = raw.ReadRaw
	}
	if err := read(ctx, 0, func(ctx context.Context, env events.Envelope) error {
		l.add(ctx, env)
		return nil
	}); err != nil {
		return err
	}
	l.feedMu.Lock()
	defer l.feedMu.Unlock()
	for _, env := range l.pending {
		l.add(ctx, env)
	}
	l.pending, l.caughtUp = nil, true
	return nil
}

// add appends env to the tree unless it is already there (the catch-up
// read and the feed overlap), checking it first when it is a checkpoint.
func (l *Log) add(ctx context.Context, env events.Envelope) {
	l.mu.Lock()
	seen := l.tree.Size() > 0 && (env.Position < l.applied || env.Position == l.applied && env.Index <= l.lastIndex)
	l.mu.Unlock()
	if seen {
		return
	}
	isCheckpoint := env.Name == (events.LogCheckpointSigned{}).EventName()
	if isCheckpoint {
		l.seeCheckpoint(ctx, env)
	}
	l.tree.Append(env)
	l.mu.Lock()
	l.applied, l.lastIndex = env.Position, env.Index
	l.ready = l.ready || env.Position >= l.target
	if !isCheckpoint {
		l.contentSize = l.tree.Size()
	}
	l.mu.Unlock()
}

func (l *Log) seeCheckpoint(ctx context.Context, env events.Envelope) {
	var ev events.LogCheckpointSigned
	if err := json.Unmarshal(env.Data, &ev); err != nil {
		l.logger.Warn("a checkpoint event that is not one", "position", uint64(env.Position), "error", err)
		return
	}
	f := Found{Position: env.Position, LeafIndex: l.tree.Size()}
	if SignerName(ev.Note) == l.signer.Name() {
		cp, err := OpenCheckpoint(ev.Note, l.own)
		if err != nil {
			l.diverge(fmt.Errorf("%w: the checkpoint at position %d does not verify: %v", ErrDiverged, env.Position, err))
			return
		}
		matches := l.tree.matches(ctx, cp.Checkpoint) == nil
		if !matches {
			l.diverge(fmt.Errorf("%w: the first %d events do not hash to the root signed at position %d", ErrDiverged, cp.Size, env.Position))
		}
		f.Signed, f.Verified = cp, matches
		l.mu.Lock()
		l.lastSigned = max(l.lastSigned, cp.Size)
		l.remember(f)
		l.mu.Unlock()
		return
	}
	// Another replica's: recorded as it claims to be, for proofs whose
	// checkers hold that replica's key.
	sig, err := ParseNote(ev.Note)
	if err != nil {
		return
	}
	f.Signed = sig
	l.mu.Lock()
	l.remember(f)
	l.mu.Unlock()
}

// remember adds f to the newest checkpoints. Called with l.mu held.
func (l *Log) remember(f Found) {
	if len(l.found) == 2*maxFound {
		l.found = append([]Found(nil), l.found[maxFound:]...)
	}
	l.found = append(l.found, f)
}

// NoteText is the body of a signed note (up to the blank line before its
// signatures), unverified; "" when there is none.
func NoteText(msg string) string {
	i := bytes.LastIndex([]byte(msg), []byte("\n\n"))
	if i < 0 {
		return ""
	}
	return msg[:i+1]
}

func (l *Log) diverge(err error) {
	l.logger.Error("the event log was rewritten: it no longer matches a signed checkpoint; no further checkpoint will be signed", "error", err)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.diverged == nil {
		l.diverged = err
	}
}

// WaitFor waits until the tree holds the log up to pos, or ctx ends.
func (l *Log) WaitFor(ctx context.Context, pos events.Position) error {
	for l.Applied() < pos {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// Checkpoint signs the tree as it is and appends the checkpoint event,
// unless the log has not grown (besides checkpoints) since this signer's
// last one or the tree has not caught up with the log yet. It refuses once the log diverged.
func (l *Log) Checkpoint(ctx context.Context) (Signed, bool, error) {
	l.mu.Lock()
	if l.diverged != nil {
		err := l.diverged
		l.mu.Unlock()
		return Signed{}, false, err
	}
	grown := l.ready && l.contentSize > l.lastSigned
	l.mu.Unlock()
	if !grown {
		return Signed{}, false, nil
	}
	size, root := l.tree.Root()
	cp := Checkpoint{Size: size, Root: root, Time: time.Now().UTC()}
	msg, err := SignCheckpoint(cp, l.signer)
	if err != nil {
		return Signed{}, false, err
	}
	ev := events.LogCheckpointSigned{Signer: l.signer.Name(), Size: size, Root: base64.StdEncoding.EncodeToString(root),
		Time: cp.Time.Format(time.RFC3339Nano), Note: msg}
	stream := events.StreamCheckpoint + l.signer.Name() + "/" + strconv.FormatUint(size, 10)
	if _, err := l.store.Append(ctx, stream, events.ExpectNoStream(), events.Record{Event: ev}); err != nil {
		if errors.Is(err, events.ErrConflict) {
			return Signed{}, false, nil // already signed at this size
		}
		return Signed{}, false, fmt.Errorf("append checkpoint: %w", err)
	}
	l.mu.Lock()
	l.lastSigned = max(l.lastSigned, size)
	l.mu.Unlock()
	l.logger.Info("signed a log checkpoint", "size", size, "signer", l.signer.Name())
	return Signed{Checkpoint: cp, Signer: l.signer.Name(), Note: msg}, true, nil
}

// RunCheckpoints signs a checkpoint every interval while the log grows,
// until ctx ends.
func (l *Log) RunCheckpoints(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, _, err := l.Checkpoint(ctx); err != nil && ctx.Err() == nil {
				l.logger.Error("log checkpoint", "error", err)
			}
		}
	}
}
