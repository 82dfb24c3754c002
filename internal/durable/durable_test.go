package durable

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// entries lists dir's names, so that a test sees any temporary file left.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// assertOnlyFile checks that dir holds only the file name (no temporary
// file left), with content want and mode perm.
func assertOnlyFile(t *testing.T, dir, name, want string, perm os.FileMode) {
	t.Helper()
	if got := entries(t, dir); !reflect.DeepEqual(got, []string{name}) {
		t.Fatalf("dir holds %v, want only %s (no temporary file left)", got, name)
	}
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Fatalf("%s holds %q (%v), want %q", path, b, err, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != perm {
		t.Fatalf("%s mode %v, want %v", path, fi.Mode().Perm(), perm)
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		existing *os.FileMode // a file already at the path, with this mode
	}{
		{"new_file", nil},
		{"replaces_a_0644_file_with_perm", new(os.FileMode(0o644))},
		{"replaces_a_0600_file", new(os.FileMode(0o600))},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "secret")
			if c.existing != nil {
				if err := os.WriteFile(path, []byte("old content, longer than the new"), *c.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, *c.existing); err != nil { // whatever the umask
					t.Fatal(err)
				}
			}
			if err := WriteFile(path, []byte("new"), 0o600); err != nil {
				t.Fatal(err)
			}
			assertOnlyFile(t, dir, "secret", "new", 0o600)
		})
	}
	t.Run("missing_dir_fails_and_writes_nothing", func(t *testing.T) {
		t.Parallel()
		parent := t.TempDir()
		if err := WriteFile(filepath.Join(parent, "missing", "secret"), []byte("x"), 0o600); err == nil {
			t.Fatal("WriteFile into a missing dir succeeded")
		}
		if got := entries(t, parent); len(got) != 0 {
			t.Fatalf("parent holds %v, want nothing", got)
		}
	})
}

// create starts writing dir/name in a new dir, and cleans it up when the
// test ends, as a caller defers Cleanup.
func create(t *testing.T, name string) (f *File, dir string) {
	t.Helper()
	dir = t.TempDir()
	f, err := Create(filepath.Join(dir, name), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Cleanup() })
	return f, dir
}

func TestCreateAndCommit(t *testing.T) {
	t.Parallel()
	t.Run("commit_installs_what_was_written", func(t *testing.T) {
		t.Parallel()
		f, dir := create(t, "snapshot")
		// Streamed writers seek and write at offsets, as the snapshot's
		// header filled in last.
		if _, err := f.Seek(4, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(f, "body"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte("head"), 0); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "snapshot")); !os.IsNotExist(err) {
			t.Fatalf("the file is at its path before Commit: %v", err)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := f.Cleanup(); err != nil {
			t.Fatalf("Cleanup after Commit: %v", err)
		}
		assertOnlyFile(t, dir, "snapshot", "headbody", 0o600)
	})
	t.Run("abandoned_file_leaves_the_old_one", func(t *testing.T) {
		t.Parallel()
		f, dir := create(t, "backup")
		if err := WriteFile(filepath.Join(dir, "backup"), []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(f, "half a new"); err != nil {
			t.Fatal(err)
		}
		if err := f.Cleanup(); err != nil { // a failure before Commit
			t.Fatal(err)
		}
		assertOnlyFile(t, dir, "backup", "old", 0o600)
	})
	t.Run("commit_of_a_file_closed_by_mistake_fails_and_cleans_up", func(t *testing.T) {
		t.Parallel()
		f, dir := create(t, "key")
		_ = f.File.Close()
		if err := f.Commit(); err == nil {
			t.Fatal("Commit of a closed file succeeded")
		}
		_ = f.Cleanup()
		if got := entries(t, dir); len(got) != 0 {
			t.Fatalf("dir holds %v, want nothing", got)
		}
	})
}

func TestSyncDir(t *testing.T) {
	t.Parallel()
	if err := syncDir(t.TempDir()); err != nil {
		t.Fatalf("syncDir of a dir: %v", err)
	}
	if err := syncDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("syncDir of a missing dir succeeded")
	}
}

// TestWriteNew: a new file is written whole with its mode; where a file
// already is, WriteNew fails with fs.ErrExist and leaves it as it was; no
// temporary file is left either way.
func TestWriteNew(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "key")
	if err := WriteNew(path, []byte("first"), 0o600); err != nil {
		t.Fatalf("new file: %v", err)
	}
	assertOnlyFile(t, dir, "key", "first", 0o600)
	if err := WriteNew(path, []byte("second"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("over an existing file: %v, want fs.ErrExist", err)
	}
	assertOnlyFile(t, dir, "key", "first", 0o600)
	if err := WriteNew(filepath.Join(dir, "missing", "key"), []byte("x"), 0o600); err == nil {
		t.Fatal("a file in a directory that does not exist was written")
	}
	assertOnlyFile(t, dir, "key", "first", 0o600)
}

// TestRemoveLeftovers: the temporary files of writes that never finished
// (the process died between Create and Commit) are removed, and nothing
// else: not the file, nor names that only look alike.
func TestRemoveLeftovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "snap")
	if err := WriteFile(path, []byte("installed"), 0o600); err != nil {
		t.Fatal(err)
	}
	dead, err := Create(path, 0o600) // a write whose process died: no Commit, no Cleanup
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dead.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	_ = dead.File.Close()
	kept := []string{".snap", ".snapx1", "snap1", ".other1", "snap"}
	for _, name := range append([]string{".snap42"}, kept[:4]...) {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	n, err := RemoveLeftovers(path)
	if err != nil || n != 2 {
		t.Fatalf("removed %d (%v), want the dead write's file and .snap42", n, err)
	}
	got := entries(t, dir)
	slices.Sort(got)
	slices.Sort(kept)
	if !slices.Equal(got, kept) {
		t.Fatalf("dir holds %v, want %v", got, kept)
	}
	if n, err := RemoveLeftovers(filepath.Join(dir, "missing", "snap")); n != 0 || err != nil {
		t.Fatalf("a missing dir: %d, %v; want 0, nil", n, err)
	}
}

// TestRemove: the file goes, a missing one is no error, and a directory
// that does not exist is (its fsync fails).
func TestRemove(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "marker")
	if err := WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Remove(path); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Fatalf("dir holds %v, want nothing", got)
	}
	if err := Remove(path); err != nil {
		t.Fatalf("remove of a missing file: %v", err)
	}
	if err := Remove(filepath.Join(dir, "missing", "marker")); err == nil {
		t.Fatal("remove in a missing directory succeeded")
	}
}
