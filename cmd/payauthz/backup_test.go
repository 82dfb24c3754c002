package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/projections"
	"github.com/payauthz/payauthz/projections/logtree"
)

// readAll returns every envelope of the log in dir.
func readAll(t *testing.T, dir string) []events.Envelope {
	t.Helper()
	var out []events.Envelope
	withDataDir(t, dir, true, func(s *jetstream.Store) {
		if err := s.Read(context.Background(), 0, func(_ context.Context, e events.Envelope) error {
			e.Event = nil
			out = append(out, e)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
	return out
}

// snapshotOf rebuilds every read model from the log in dir and returns
// their snapshot body.
func snapshotOf(t *testing.T, dir string) []byte { return snapshotAt(t, dir, projections.Until{}) }

// rebuilt is every read model rebuilt from the log in dir up to u.
func rebuilt(t *testing.T, dir string, u projections.Until) (m *projections.ReadModel) {
	t.Helper()
	withDataDir(t, dir, true, func(s *jetstream.Store) {
		var err error
		if m, _, err = projections.Rebuild(context.Background(), s, u, nil); err != nil {
			t.Fatal(err)
		}
	})
	return m
}

// snapshotAt is snapshotOf up to a point of the log.
func snapshotAt(t *testing.T, dir string, u projections.Until) []byte {
	t.Helper()
	m := rebuilt(t, dir, u)
	out := t.TempDir()
	if _, err := m.WriteSnapshot(out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, projections.SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameLog fails unless got holds want's events with their ids, names,
// streams, versions, positions, times, actors and payloads.
func sameLog(t *testing.T, want, got []events.Envelope) {
	t.Helper()
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("restored %d events, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.ID != g.ID || w.Name != g.Name || w.Stream != g.Stream || w.Version != g.Version || w.Position != g.Position ||
			!w.Time.Equal(g.Time) || w.Actor != g.Actor || w.CorrelationID != g.CorrelationID || !bytes.Equal(w.Data, g.Data) {
			t.Fatalf("event %d differs:\n got  %+v\n want %+v", i, g, w)
		}
	}
}

// TestBackupAndRestore: a backup is a 0600 file with a checksum; restored
// into an empty data dir it gives the same log (ids, times, positions,
// versions, payloads) and the same read models; a damaged backup or a
// data dir that already holds a log is refused.
func TestBackupAndRestore(t *testing.T) {
	l := newAuditLog(t)
	file := filepath.Join(t.TempDir(), "payauthz.backup")
	out := mustRun(t, "backup", "--data-dir", l.dir, "--to", file)
	if !strings.Contains(out, "sha256 ") {
		t.Fatalf("backup output: %s", out)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", fi, err)
	}
	raw, _ := os.ReadFile(file)
	if !bytes.Contains(raw, []byte("$argon2id$")) {
		t.Fatalf("the backup lacks the password hashes (secrets must be included)")
	}

	restored := filepath.Join(t.TempDir(), "data")
	mustRun(t, "restore", "--from", file, "--data-dir", restored)
	sameLog(t, readAll(t, l.dir), readAll(t, restored))
	if !bytes.Equal(snapshotOf(t, l.dir), snapshotOf(t, restored)) {
		t.Fatal("the read models rebuilt from the restored log differ from the original's")
	}

	t.Run("refuses_a_log_that_is_not_empty", func(t *testing.T) {
		if _, _, err := run(t, "restore", "--from", file, "--data-dir", restored); err == nil || !strings.Contains(err.Error(), "empty data dir") {
			t.Fatalf("restore onto a log: %v", err)
		}
	})
	t.Run("refuses_a_damaged_backup", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad")
		if err := os.WriteFile(bad, bytes.Replace(raw, []byte("Comune"), []byte("Comuna"), 1), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := run(t, "restore", "--from", bad, "--data-dir", filepath.Join(t.TempDir(), "d")); err == nil || !strings.Contains(err.Error(), "checksum") {
			t.Fatalf("damaged backup: %v", err)
		}
	})
	t.Run("usage", func(t *testing.T) {
		if _, _, err := run(t, "backup", "--data-dir", l.dir); exitCode(err) != exitUsage {
			t.Fatalf("backup without --to: %v", err)
		}
	})
}

// TestBackupOfARunningService: backup and the audit tools read the
// embedded log of a running service through the loopback reader access
// it writes into its data dir (mode 0600, its secret in no log), while
// the service keeps writing; the backup restored into an empty data dir
// gives the log and every read model as of the backup's position. A wrong
// or absent secret is refused; the access file is removed at a clean
// shutdown, and one left by a kill -9 does not stop a backup of the
// stopped service.
func TestBackupOfARunningService(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	conf := tempFile(t, "payauthz.yaml", adminConfigYAML)
	mustRun(t, "admin", "--config", cfg, "apply", "-f", conf)

	accessFile := filepath.Join(a.data, liveLogFileName)
	fi, err := os.Stat(accessFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("live log access file: %v %v", fi, err)
	}
	accessJSON, _ := os.ReadFile(accessFile)
	var access jetstream.ReaderAccess
	if err := json.Unmarshal(accessJSON, &access); err != nil || access.Password == "" {
		t.Fatalf("live log access file: %v %s", err, accessJSON)
	}
	if strings.Contains(a.stderr.String(), access.Password) {
		t.Fatal("the service logged the reader secret")
	}

	// A writer keeps registering entities until told to stop; wrote
	// receives each write's number.
	stop, wrote, writerDone := make(chan struct{}), make(chan int, 1000), make(chan error, 1)
	go func() {
		for i := 1; ; i++ {
			select {
			case <-stop:
				writerDone <- nil
				return
			default:
			}
			req, _ := http.NewRequest("PUT", fmt.Sprintf("%s/backoffice/rs/basic/v1/domini/%011d", a.url, 30000000000+i),
				strings.NewReader(`{"ragioneSociale":"Comune in corsa","abilitato":true}`))
			req.SetBasicAuth("admin", "admin-pass-1")
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				writerDone <- err
				return
			}
			res.Body.Close()
			if res.StatusCode != 201 {
				writerDone <- fmt.Errorf("write %d: status %d", i, res.StatusCode)
				return
			}
			select { // never blocked on a full wrote once told to stop
			case wrote <- i:
			case <-stop:
				writerDone <- nil
				return
			}
		}
	}()
	<-wrote
	file := filepath.Join(t.TempDir(), "live.backup")
	out, errOut, err := run(t, "backup", "--data-dir", a.data, "--to", file)
	if err != nil || !strings.Contains(out, "sha256 ") { // the service holds the lock: only the live access can read
		t.Fatalf("backup of a running service: %v\n%s%s", err, out, errOut)
	}
	if strings.Contains(out+errOut, access.Password) {
		t.Fatal("backup printed the reader secret")
	}
	// The audit tools read the live log the same way.
	who := mustRun(t, "audit", "who-can", "--data-dir", a.data, "--api", "PENDENZE", "--operation", "create",
		"--dominio", "11111111111", "--tipo", "TARI")
	if !strings.Contains(who, "gestionale") {
		t.Fatalf("audit who-can on the live log:\n%s", who)
	}
	hd, _, err := readBackup(file)
	if err != nil {
		t.Fatal(err)
	}
	for a.position(t) <= float64(hd.Position) { // the writes go on past the backup's cut
		<-wrote
	}
	close(stop)
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}

	t.Run("restore_refuses_a_running_services_data_dir", func(t *testing.T) {
		if _, _, err := run(t, "restore", "--from", file, "--data-dir", a.data); err == nil || !strings.Contains(err.Error(), "locked by another payauthz process") {
			t.Fatalf("restore onto a running service: %v", err)
		}
	})
	t.Run("wrong_or_absent_secret_is_refused", func(t *testing.T) {
		wrong := "x" + access.Password[1:]
		if wrong == access.Password {
			wrong = "y" + access.Password[1:]
		}
		for name, content := range map[string]string{
			"wrong_secret": strings.Replace(string(accessJSON), access.Password, wrong, 1),
			"no_secret":    strings.Replace(string(accessJSON), access.Password, "", 1),
			"no_user":      strings.Replace(string(accessJSON), `"user":"`+access.User+`"`, `"user":"payauthz-service"`, 1),
		} {
			if err := os.WriteFile(accessFile, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, errOut, err := run(t, "backup", "--data-dir", a.data, "--to", filepath.Join(t.TempDir(), "b"))
			if err == nil || !strings.Contains(err.Error(), "Authorization Violation") || strings.Contains(err.Error()+errOut, access.Password[1:]) {
				t.Fatalf("%s: %v\n%s", name, err, errOut)
			}
		}
		if err := os.Remove(accessFile); err != nil {
			t.Fatal(err)
		}
		if _, _, err := run(t, "backup", "--data-dir", a.data, "--to", filepath.Join(t.TempDir(), "b")); err == nil ||
			!strings.Contains(err.Error(), "locked by another payauthz process") || !strings.Contains(err.Error(), "offers no live access") {
			t.Fatalf("no access file: %v", err)
		}
		if err := os.WriteFile(accessFile, accessJSON, 0o600); err != nil {
			t.Fatal(err)
		}
	})

	a.stop(t)
	if _, err := os.Stat(accessFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the access file outlived a clean shutdown: %v", err)
	}

	restored := filepath.Join(t.TempDir(), "data")
	mustRun(t, "restore", "--from", file, "--data-dir", restored)
	var want []events.Envelope
	for _, e := range readAll(t, a.data) {
		if uint64(e.Position) <= hd.Position {
			want = append(want, e)
		}
	}
	if uint64(lastPosition(t, a.data)) <= hd.Position {
		t.Fatalf("no write after the backup's cut at %d", hd.Position)
	}
	sameLog(t, want, readAll(t, restored))
	if !bytes.Equal(snapshotAt(t, a.data, projections.Until{Position: events.Position(hd.Position)}), snapshotOf(t, restored)) {
		t.Fatal("the read models rebuilt from the restored log differ from the original's at the backup's position")
	}

	t.Run("live_log_access_off", func(t *testing.T) {
		data := filepath.Join(t.TempDir(), "data")
		startChild(t, data, freePort(t), "--live-log-access=false")
		if _, err := os.Stat(filepath.Join(data, liveLogFileName)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("an access file without live access: %v", err)
		}
		if _, _, err := run(t, "backup", "--data-dir", data, "--to", filepath.Join(t.TempDir(), "b")); err == nil ||
			!strings.Contains(err.Error(), "offers no live access") {
			t.Fatalf("backup of a service without live access: %v", err)
		}
	})
	t.Run("stale_access_file_after_a_crash", func(t *testing.T) {
		c := startChild(t, a.data, freePort(t))
		c.kill(t)
		if _, err := os.Stat(accessFile); err != nil {
			t.Fatalf("kill -9 left no access file (the case this test is about): %v", err)
		}
		out, errOut, err := run(t, "backup", "--data-dir", a.data, "--to", filepath.Join(t.TempDir(), "b"))
		if err != nil {
			t.Fatalf("backup of a crashed service's data dir: %v\n%s%s", err, out, errOut)
		}
	})
}

// rewriteBackup rewrites the backup file from into a new file through
// header (nil: the header is kept) and change, one event line at a time,
// and gives it a trailer whose checksum matches: a backup that passes the
// checksum, that restore must refuse on its content or restore as another
// backend's.
func rewriteBackup(t *testing.T, from string, header func(hd *backupHeader), change func(i int, e *backupEvent)) string {
	t.Helper()
	hd, evs, err := readBackup(from)
	if err != nil {
		t.Fatal(err)
	}
	if header != nil {
		header(&hd)
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	if err := enc.Encode(hd); err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		change(i, &evs[i])
		if err := enc.Encode(evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	sum := sha256.Sum256(body.Bytes())
	if err := enc.Encode(backupTrailer{Events: uint64(len(evs)), SHA256: hex.EncodeToString(sum[:])}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rewritten.backup")
	if err := os.WriteFile(path, body.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// backedUpLog is newAuditLog's log, its backup file and the backup's
// events as read back.
func backedUpLog(t *testing.T) (l *auditLog, file string, evs []backupEvent) {
	t.Helper()
	l = newAuditLog(t)
	file = filepath.Join(t.TempDir(), "payauthz.backup")
	mustRun(t, "backup", "--data-dir", l.dir, "--to", file)
	_, evs, err := readBackup(file)
	if err != nil {
		t.Fatal(err)
	}
	return l, file, evs
}

// TestRestoreFailureLeavesNoLog: a restore that fails part way leaves no
// log in the data dir, neither the commits before the one it could not
// restore nor an empty stream: a service started there would serve an
// older state as if it were whole, and a second restore would be refused
// as onto a log. A commit this build cannot decode is found before anything
// is written; one the log places elsewhere than the backup (a gap in the
// positions) only once the commits before it are written, which are then
// removed. The good backup then restores into the same data dir.
func TestRestoreFailureLeavesNoLog(t *testing.T) {
	l, good, evs := backedUpLog(t)
	lastEvent := len(evs) - 1
	for _, c := range []struct {
		name, want string
		change     func(i int, e *backupEvent)
	}{
		{"unknown_event_in_the_last_commit", "NoSuchEvent", func(i int, e *backupEvent) {
			if i == lastEvent {
				e.Name = "NoSuchEvent"
			}
		}},
		{"gap_before_the_last_commit", "was restored at", func(i int, e *backupEvent) {
			if e.Position == evs[lastEvent].Position {
				e.Position += 10
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := rewriteBackup(t, good, nil, c.change)
			dir := filepath.Join(t.TempDir(), "data")
			if _, _, err := run(t, "restore", "--from", bad, "--data-dir", dir); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("restore of a backup with a bad last commit: %v, want an error saying %q", err, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "jetstream")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a failed restore left a log behind: %v", err)
			}
			mustRun(t, "restore", "--from", good, "--data-dir", dir)
			sameLog(t, readAll(t, l.dir), readAll(t, dir))
		})
	}
}

// TestRestoreRefusesADataDirWithSnapshots: a data dir that holds read-model
// snapshots but no log (its log removed, or another deployment's dir
// reused) is not empty: the service started on the restored log would
// load a snapshot of the other log whenever its position is not beyond the
// restored log's end, and serve that log's principals and grants. restore
// refuses it and writes nothing.
func TestRestoreRefusesADataDirWithSnapshots(t *testing.T) {
	other := newAuditLog(t)
	l := newAuditLog(t)
	file := filepath.Join(t.TempDir(), "payauthz.backup")
	mustRun(t, "backup", "--data-dir", l.dir, "--to", file)

	dir := filepath.Join(t.TempDir(), "data")
	m := rebuilt(t, other.dir, projections.Until{})
	if _, err := m.WriteSnapshot(filepath.Join(dir, "snapshots")); err != nil {
		t.Fatal(err)
	}
	if m.AppliedPosition() > l.last {
		t.Fatalf("the other log's snapshot (%d) is beyond the backup's end (%d): it would be ignored anyway", m.AppliedPosition(), l.last)
	}
	if _, _, err := run(t, "restore", "--from", file, "--data-dir", dir); err == nil || !strings.Contains(err.Error(), "snapshots") ||
		!strings.Contains(err.Error(), "empty data dir") {
		t.Fatalf("restore into a data dir holding snapshots: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "jetstream")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused restore wrote a log: %v", err)
	}
}

// TestRestoreCutShortByACrash: a restore killed part way (kill -9, a power
// cut: its own clean-up never runs) leaves part of the backup in the data
// dir. Neither the service nor the tools may take that part for the whole
// log, and running the restore again completes it.
func TestRestoreCutShortByACrash(t *testing.T) {
	src := filepath.Join(t.TempDir(), "data")
	withDataDir(t, src, false, func(s *jetstream.Store) {
		for i := range 3000 {
			id := fmt.Sprintf("%011d", i)
			if _, err := s.Append(t.Context(), events.StreamDominio+id, events.ExpectNoStream(), events.Record{
				Event: events.CreditorEntityRegistered{IDDominio: id, RagioneSociale: "Comune", Enabled: true}}); err != nil {
				t.Fatal(err)
			}
		}
	})
	file := filepath.Join(t.TempDir(), "payauthz.backup")
	mustRun(t, "backup", "--data-dir", src, "--to", file)

	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	rs := spawn(t, "restore", "--from", file, "--data-dir", data)
	// Kill it as soon as it has written some of the log: a message block
	// that is not empty.
	deadline := time.Now().Add(20 * time.Second)
	for !logWritten(filepath.Join(data, "jetstream")) {
		if time.Now().After(deadline) {
			t.Fatal("the restore wrote no log")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := rs.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := rs.cmd.Wait(); err == nil {
		t.Fatal("the restore completed before it was killed: a larger backup is needed")
	}
	if last := lastPosition(t, data); last == 0 || last >= 3000 {
		t.Fatalf("the killed restore wrote up to position %d, want part of 3000", last)
	}

	// The tools refuse the part: a backup of it would look whole.
	if _, _, err := run(t, "backup", "--data-dir", data, "--to", filepath.Join(dir, "part.backup")); err == nil ||
		!strings.Contains(err.Error(), "restore") {
		t.Errorf("backup of a restore cut short: %v, want a refusal naming the restore", err)
	}
	// So does the service.
	srv := spawn(t, "serve", "--data-dir", data, "--http-addr", freePort(t),
		"--admin-password-file", adminPasswordFile(t, dir))
	if !srv.exitsWithin(20 * time.Second) {
		t.Fatalf("serve runs on a restore cut short:\n%s", srv.stderr)
	}
	if srv.cmd.ProcessState.Success() || !strings.Contains(srv.stderr.String(), "restore") {
		t.Errorf("serve on a restore cut short: %v, want a refusal naming the restore\n%s", srv.cmd.ProcessState, srv.stderr)
	}

	// Run again, the restore starts over and completes.
	mustRun(t, "restore", "--from", file, "--data-dir", data)
	sameLog(t, readAll(t, src), readAll(t, data))
	if _, _, err := run(t, "backup", "--data-dir", data, "--to", filepath.Join(dir, "whole.backup")); err != nil {
		t.Errorf("backup of the completed restore: %v", err)
	}
}

// logWritten reports whether the JetStream store under dir holds a message
// block that is not empty.
func logWritten(dir string) bool {
	written := false
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".blk") {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Size() > 0 {
			written = true
			return filepath.SkipAll
		}
		return nil
	})
	return written
}

// TestRestoreRefusesABackupOutOfOrder: restore writes a backup's lines in
// the file's order, so a file whose order is not the log's (two events of
// a commit exchanged, each keeping its place in the commit; a commit
// moved before an earlier one) would restore another log, with every
// position in place. It is refused before anything is written.
func TestRestoreRefusesABackupOutOfOrder(t *testing.T) {
	_, good, evs := backedUpLog(t)
	pair := -1 // the first event of a commit of two or more
	for i, e := range evs {
		if e.Index == 0 && e.CommitSize > 1 {
			pair = i
			break
		}
	}
	single := -1 // the first of two commits of one event each, in a row
	for i := range len(evs) - 1 {
		if evs[i].CommitSize == 1 && evs[i+1].CommitSize == 1 {
			single = i
			break
		}
	}
	if pair < 0 || single < 0 {
		t.Fatalf("the log has no commit of two events (%d) or no two commits of one (%d)", pair, single)
	}
	for _, c := range []struct {
		name, want string
		change     func(i int, e *backupEvent)
	}{
		{"events_of_a_commit_exchanged", "in place", func(i int, e *backupEvent) {
			switch i {
			case pair:
				*e = evs[pair+1]
			case pair + 1:
				*e = evs[pair]
			}
		}},
		{"commits_exchanged", "comes after", func(i int, e *backupEvent) {
			switch i {
			case single:
				*e = evs[single+1]
			case single + 1:
				*e = evs[single]
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := rewriteBackup(t, good, nil, c.change)
			dir := filepath.Join(t.TempDir(), "data")
			if _, _, err := run(t, "restore", "--from", bad, "--data-dir", dir); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("restore of a backup out of order: %v, want an error saying %q", err, c.want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the refused restore wrote into the data dir: %v", err)
			}
		})
	}
}

// TestRestoreFromAnotherBackendNotesItsCheckpoints: a leaf of the log's
// Merkle tree hashes its event's position, and a log restored from
// another backend (KurrentDB: its positions are byte offsets, with gaps)
// takes the embedded log's own positions, so the checkpoints signed
// before the move no longer verify. restore says so after what it
// restored, with their count and signer, what to keep, and what key the
// service must sign with; and it is so: audit verify fails on them with
// their key (root-mismatch) and without it (unknown-key), and the log
// diverges for the old key and for a new key of the old name, not for a
// key of another name. A backup restored at its own positions (the
// embedded log's, or another backend's that happen to be the same) keeps
// its checkpoints, and restore says they verify.
func TestRestoreFromAnotherBackendNotesItsCheckpoints(t *testing.T) {
	data, key, _ := signedService(t, 1)
	signer, _, _ := strings.Cut(key, "+")
	file := filepath.Join(t.TempDir(), "payauthz.backup")
	mustRun(t, "backup", "--data-dir", data, "--to", file)
	_, evs, err := readBackup(file)
	if err != nil {
		t.Fatal(err)
	}
	signed := 0
	for _, e := range evs {
		if e.Name == (events.LogCheckpointSigned{}).EventName() {
			signed++
		}
	}
	if signed == 0 {
		t.Fatal("the backup holds no checkpoint")
	}
	const notePrefix = "note: "
	restoreOK := func(t *testing.T, backup string) string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "data")
		out := mustRun(t, "restore", "--from", backup, "--data-dir", dir)
		if strings.Contains(out, "do not verify") || !strings.Contains(out, "they verify against the restored log") {
			t.Fatalf("restore at the backup's own positions:\n%s", out)
		}
		if out := mustRun(t, "audit", "verify", "--data-dir", dir, "--verifier-key", key); !strings.Contains(out, fmt.Sprintf("checkpoints: %d, %d verified", signed, signed)) {
			t.Fatalf("audit verify of the log restored at its own positions:\n%s", out)
		}
		return dir
	}
	t.Run("same_backend", func(t *testing.T) { restoreOK(t, file) })
	t.Run("another_backend_same_positions", func(t *testing.T) {
		restoreOK(t, rewriteBackup(t, file, func(hd *backupHeader) { hd.Backend = "kurrentdb" }, func(int, *backupEvent) {}))
	})

	// The log as a KurrentDB's backup would hold it: its commit positions
	// are byte offsets in its log, and its checkpoints are signed (with the
	// same key) over the tree of those positions.
	oldKey, err := os.ReadFile(filepath.Join(data, "log-signing.key"))
	if err != nil {
		t.Fatal(err)
	}
	oldSigner, _, err := logtree.ParseSigningKey(strings.TrimSpace(string(oldKey)))
	if err != nil {
		t.Fatal(err)
	}
	offset := func(p uint64) uint64 { return 4096 + 1733*p }
	tree := logtree.NewTree(nil) // small: its roots come from the leaves it keeps
	moved := rewriteBackup(t, file, func(hd *backupHeader) {
		hd.Backend, hd.Position = "kurrentdb", offset(hd.Position)
	}, func(_ int, e *backupEvent) {
		e.Position = offset(e.Position)
		if e.Name == (events.LogCheckpointSigned{}).EventName() {
			var ev events.LogCheckpointSigned
			if err := json.Unmarshal(e.Data, &ev); err != nil {
				t.Fatal(err)
			}
			cp, err := logtree.ParseCheckpoint(logtree.NoteText(ev.Note))
			if err != nil {
				t.Fatal(err)
			}
			if cp.Root, err = tree.RootAt(t.Context(), cp.Size); err != nil {
				t.Fatal(err)
			}
			if ev.Note, err = logtree.SignCheckpoint(cp, oldSigner); err != nil {
				t.Fatal(err)
			}
			ev.Root = base64.StdEncoding.EncodeToString(cp.Root)
			if e.Data, err = events.DefaultCodec.Encode(ev); err != nil {
				t.Fatal(err)
			}
		}
		tree.Append(events.Envelope{ID: e.ID, Name: e.Name, Stream: e.Stream, Position: events.Position(e.Position), Index: e.Index,
			Time: e.Time, Actor: e.Actor, CorrelationID: e.CorrelationID, Data: e.Data})
	})
	dir := filepath.Join(t.TempDir(), "data")
	out := mustRun(t, "restore", "--from", moved, "--data-dir", dir)
	restoredLine := fmt.Sprintf("restored %d events into %s\n", len(evs), dir)
	if !strings.HasPrefix(out, restoredLine+notePrefix) {
		t.Fatalf("restore from another backend: no note after the restored line:\n%s", out)
	}
	for _, want := range []string{
		fmt.Sprintf("log checkpoints in the backup signed before the move: %d, by %s. The backup comes from kurrentdb", signed, signer),
		"do not verify against the restored log",
		"root-mismatch with their verifier key, unknown-key without it",
		"Keep the backup file (" + moved + ") and the old log's payauthz audit verify report",
		"Start the service on " + dir + " with a new signing key, named otherwise than " + signer,
		"--log-signing-key FILE", "--log-signer NAME",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the note lacks %q:\n%s", want, out)
		}
	}

	// What the note says, so.
	out, _, err = run(t, "audit", "verify", "--data-dir", dir, "--verifier-key", key)
	if err == nil || strings.Count(out, "root-mismatch") != signed || !strings.Contains(out, fmt.Sprintf("checkpoints: %d, 0 verified", signed)) {
		t.Fatalf("audit verify of the moved log with the old key: %v\n%s", err, out)
	}
	_, otherKey, _ := note.GenerateKey(rand.Reader, "payauthz-other")
	out, _, err = run(t, "audit", "verify", "--data-dir", dir, "--verifier-key", otherKey)
	if err == nil || strings.Count(out, "unknown-key") != signed {
		t.Fatalf("audit verify of the moved log without the old key: %v\n%s", err, out)
	}
	// Only the positions differ: the restored events at the positions
	// they had (the restored log's are the original embedded log's)
	// hash to the signed roots.
	known, err := logtree.Verifiers(key)
	if err != nil {
		t.Fatal(err)
	}
	back, checked := logtree.NewTree(nil), 0
	for _, env := range readAll(t, dir) {
		env.Position = events.Position(offset(uint64(env.Position)))
		if env.Name == (events.LogCheckpointSigned{}).EventName() {
			var ev events.LogCheckpointSigned
			if err := json.Unmarshal(env.Data, &ev); err != nil {
				t.Fatal(err)
			}
			cp, err := logtree.OpenCheckpoint(ev.Note, known)
			if err != nil {
				t.Fatal(err)
			}
			if root, err := back.RootAt(t.Context(), cp.Size); err != nil || !bytes.Equal(root, cp.Root) {
				t.Fatalf("the checkpoint of %d events does not match the restored events at their old positions: %v", cp.Size, err)
			}
			checked++
		}
		back.Append(env)
	}
	if checked != signed {
		t.Fatalf("checked %d checkpoints, want %d", checked, signed)
	}

	sameName, _, _ := note.GenerateKey(rand.Reader, signer)
	newName, _, _ := note.GenerateKey(rand.Reader, "payauthz-after-the-move")
	for _, c := range []struct {
		name, key string
		diverges  bool
	}{{"old_key", string(oldKey), true}, {"new_key_old_name", sameName, true}, {"new_key_new_name", newName, false}} {
		t.Run(c.name, func(t *testing.T) {
			s, vkey, err := logtree.ParseSigningKey(strings.TrimSpace(c.key))
			if err != nil {
				t.Fatal(err)
			}
			withDataDir(t, dir, c.diverges, func(store *jetstream.Store) {
				l, err := logtree.NewLog(store, s, vkey, slog.New(slog.DiscardHandler))
				if err != nil {
					t.Fatal(err)
				}
				if err := l.CatchUp(t.Context()); err != nil {
					t.Fatal(err)
				}
				if got := l.Diverged(); (got != nil) != c.diverges {
					t.Fatalf("diverged: %v, want %v", got, c.diverges)
				}
				if !c.diverges {
					if _, ok, err := l.Checkpoint(t.Context()); err != nil || !ok {
						t.Fatalf("a key of a new name signs no checkpoint: %v %v", ok, err)
					}
				}
			})
		})
	}
}

// TestRestoredLogGoesOnBeingSigned: a JetStream backup restores at its own
// positions and its checkpoints verify, but a service on the restored data
// dir signs further checkpoints only with a key that signed them or one of
// another name: a data dir without log-signing.key generates one named
// payauthz-<hostname>, which on the same host (or a replacement named as
// it) is the old signer's name, and the service then takes the log for
// rewritten and signs nothing more. restore says so, naming the signers and
// both ways on; and each way signs, the first start as restore leaves the
// data dir does not.
func TestRestoredLogGoesOnBeingSigned(t *testing.T) {
	data, key, _ := signedService(t, 1)
	signer, _, _ := strings.Cut(key, "+")
	if signer != defaultSigner() {
		t.Fatalf("the signed service's key is named %s, not the default %s", signer, defaultSigner())
	}
	file := filepath.Join(t.TempDir(), "payauthz.backup")
	mustRun(t, "backup", "--data-dir", data, "--to", file)
	restoreInto := func(t *testing.T) (string, string) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "data")
		return dir, mustRun(t, "restore", "--from", file, "--data-dir", dir)
	}
	_, out := restoreInto(t)
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"note: log checkpoints in the backup: ", "signed by " + signer + "; they verify against the restored log",
		"copy log-signing.key", "--log-signing-key FILE", "--log-signer NAME",
		"a data dir without log-signing.key generates a key named " + signer,
		"signs no further checkpoint",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("restore of a backup holding checkpoints does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(flat, "do not verify against the restored log") {
		t.Errorf("restore at the backup's own positions says its checkpoints do not verify:\n%s", out)
	}

	// signs starts the service on dir, writes, and reports whether it
	// signs a checkpoint after the write (and whether it finds the log
	// rewritten).
	signs := func(t *testing.T, dir string, extra ...string) (bool, string) {
		t.Helper()
		c := startChild(t, dir, freePort(t), append([]string{"--checkpoint-interval", "50ms"}, extra...)...)
		defer c.stop(t)
		pos := putDominio(t, c, "00000000099")
		deadline := time.Now().Add(3 * time.Second)
		for {
			st := logState(t, c.url)
			if st.Diverged != "" {
				return false, st.Diverged
			}
			if n := len(st.Checkpoints); n > 0 && st.Checkpoints[n-1].Position > pos {
				return true, ""
			}
			if time.Now().After(deadline) {
				return false, ""
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Run("as_restored", func(t *testing.T) {
		dir, _ := restoreInto(t)
		if ok, diverged := signs(t, dir); ok || diverged == "" {
			t.Fatalf("a generated key of the signer's name: signs %v, diverged %q; want the log taken for rewritten", ok, diverged)
		}
	})
	t.Run("the_signers_key_copied", func(t *testing.T) {
		dir, _ := restoreInto(t)
		k, err := os.ReadFile(filepath.Join(data, "log-signing.key"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "log-signing.key"), k, 0o600); err != nil {
			t.Fatal(err)
		}
		if ok, diverged := signs(t, dir); !ok {
			t.Fatalf("the signer's own key signs no checkpoint on the restored log (diverged %q)", diverged)
		}
		if out := mustRun(t, "audit", "verify", "--data-dir", dir, "--verifier-key", key); !strings.Contains(out, "OK:") {
			t.Fatalf("audit verify of the restored log signed on:\n%s", out)
		}
	})
	t.Run("a_key_of_another_name", func(t *testing.T) {
		dir, _ := restoreInto(t)
		if ok, diverged := signs(t, dir, "--log-signer", "payauthz-restored"); !ok {
			t.Fatalf("a new key of another name signs no checkpoint on the restored log (diverged %q)", diverged)
		}
	})
}

// TestRestoreWritesPayloadsAsStored: restore wrote each event as this
// build encodes what it decodes of its payload, so a payload this build
// would write otherwise (a member it does not know, as a newer build's log
// holds; a member spelt in another case) was restored changed, silently:
// the restored log no longer hashed to its signed checkpoints, and audit
// verify reported it changed after it was signed. Every payload is now
// restored as the backup holds it, byte for byte (still decoded first).
func TestRestoreWritesPayloadsAsStored(t *testing.T) {
	_, good, evs := backedUpLog(t)
	last := len(evs) - 1
	for _, c := range []struct{ name, from, to string }{
		{"unknown_member", `{`, `{"campoDiUnaVersioneNuova":"x",`},
		{"member_in_another_case", `"id`, `"ID`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want []byte
			changed := rewriteBackup(t, good, nil, func(i int, e *backupEvent) {
				if i == last {
					if !bytes.Contains(e.Data, []byte(c.from)) {
						t.Fatalf("the last event's payload holds no %s: %s", c.from, e.Data)
					}
					e.Data = bytes.Replace(e.Data, []byte(c.from), []byte(c.to), 1)
					want = e.Data
				}
			})
			dir := filepath.Join(t.TempDir(), "data")
			mustRun(t, "restore", "--from", changed, "--data-dir", dir)
			got := readAll(t, dir)
			if len(got) != len(evs) || !bytes.Equal(got[last].Data, want) {
				t.Fatalf("restored payload %s, want %s", got[last].Data, want)
			}
		})
	}
}

// TestRestoreTellsWhatIsWrongWithTheFile: a backup cut short (a copy that
// stopped, a full disk), at a line's end or inside one, is told as cut
// short, not as "not a payauthz backup"; a backup of another format
// version names it; a file that is no backup says so. Nothing is written.
func TestRestoreTellsWhatIsWrongWithTheFile(t *testing.T) {
	_, good, _ := backedUpLog(t)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(raw, []byte("\n"))
	atLine := bytes.Join(lines[:len(lines)/2], nil)
	newer := bytes.Replace(raw, []byte(`"format":"`+backupFormat+`"`), []byte(`"format":"payauthz-backup/2"`), 1)
	for _, c := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"cut_at_a_line", atLine, "cut short"},
		{"cut_inside_a_line", raw[:len(atLine)+7], "cut short"},
		{"header_only", lines[0], "cut short"},
		{"another_format_version", newer, "format payauthz-backup/2"},
		{"not_a_backup", []byte("hello\nworld\n"), "not a payauthz backup"},
		{"empty", nil, "not a payauthz backup"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "b")
			if err := os.WriteFile(file, c.content, 0o600); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "data")
			_, _, err := run(t, "restore", "--from", file, "--data-dir", dir)
			if err == nil || !strings.Contains(err.Error(), c.want) || exitCode(err) != 1 {
				t.Fatalf("restore: %v (exit %d), want exit 1 saying %q", err, exitCode(err), c.want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the refused restore wrote into the data dir: %v", err)
			}
		})
	}
}
