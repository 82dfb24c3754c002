package httpapi

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSessionKeyFile: a missing key file is generated (32 bytes, mode
// 0600, nothing else left in the dir) and read back by the next start, so
// its sessions survive a restart; a file too short to be a key (an empty
// one is what a crash while generating it used to leave) is refused with
// an error that names it and says what to do, and is left as it is.
func TestSessionKeyFile(t *testing.T) {
	t.Parallel()
	t.Run("generated_when_absent_and_kept_across_restarts", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		file := filepath.Join(dir, "session.key")
		s, err := newSessionSigner(file, DefaultSessionTTL, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(file)
		if err != nil || fi.Size() != 32 || fi.Mode().Perm() != 0o600 {
			t.Fatalf("session key: %v %v, want 32 bytes, mode 0600", fi, err)
		}
		des, _ := os.ReadDir(dir)
		if len(des) != 1 {
			t.Fatalf("data dir holds %d files, want only session.key (no temporary file left)", len(des))
		}
		cookie, hash, _, err := s.issue()
		if err != nil {
			t.Fatal(err)
		}
		restarted, err := newSessionSigner(file, DefaultSessionTTL, time.Now)
		if err != nil || !reflect.DeepEqual(restarted.key, s.key) {
			t.Fatalf("restart read another key (%v)", err)
		}
		if got, err := restarted.verify(cookie); err != nil || got != hash {
			t.Fatalf("a session of the previous start: %q, %v", got, err)
		}
	})
	t.Run("replicas_starting_at_once_share_one_key", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(t.TempDir(), "session.key")
		signers := make([]*sessionSigner, 8)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range signers {
			wg.Go(func() {
				<-start
				s, err := newSessionSigner(file, DefaultSessionTTL, time.Now)
				if err != nil {
					t.Error(err)
					return
				}
				signers[i] = s
			})
		}
		close(start)
		wg.Wait()
		inFile, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range signers {
			if s == nil || !reflect.DeepEqual(s.key, inFile) {
				t.Fatalf("replica %d signs with a key the file does not hold", i)
			}
		}
	})
	for _, c := range []struct {
		name    string
		content string
	}{
		{"empty_file_is_refused", ""},
		{"short_file_is_refused", "0123456789"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "session.key")
			if err := os.WriteFile(file, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := newSessionSigner(file, DefaultSessionTTL, time.Now)
			if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "want at least 32 bytes") ||
				!strings.Contains(err.Error(), "remove it") {
				t.Fatalf("newSessionSigner = %v, want it refused with the file's name and what to do", err)
			}
			if b, _ := os.ReadFile(file); string(b) != c.content {
				t.Fatalf("the refused file was changed to %q", b)
			}
		})
	}
	t.Run("missing_dir_fails_and_writes_nothing", func(t *testing.T) {
		t.Parallel()
		parent := t.TempDir()
		_, err := newSessionSigner(filepath.Join(parent, "missing", "session.key"), DefaultSessionTTL, time.Now)
		if err == nil || !strings.Contains(err.Error(), "write session key") {
			t.Fatalf("newSessionSigner = %v, want a write session key error", err)
		}
		if des, _ := os.ReadDir(parent); len(des) != 0 {
			t.Fatalf("parent holds %d entries, want none", len(des))
		}
	})
}
