package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/projections"
)

// readAll returns every envelope of the log in dir.
func readAll(t *testing.T, dir string) []events.Envelope {
	t.Helper()
	s, err := jetstream.Open(context.Background(), jetstream.Config{DataDir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []events.Envelope
	if err := s.Read(context.Background(), 0, func(_ context.Context, e events.Envelope) error {
		e.Event = nil
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// snapshotOf rebuilds every read model from the log in dir and returns
// their snapshot body.
func snapshotOf(t *testing.T, dir string) []byte {
	t.Helper()
	s, err := jetstream.Open(context.Background(), jetstream.Config{DataDir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, _, err := projections.Rebuild(context.Background(), s, projections.Until{}, nil)
	if err != nil {
		t.Fatal(err)
	}
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
	want, got := readAll(t, l.dir), readAll(t, restored)
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
