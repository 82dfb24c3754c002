package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"
)

// WriteFile writes data to path durably with mode perm (less the umask,
// as os.WriteFile), replacing the file at path if there is one. The
// directory must exist. On an error the temporary file is removed; path
// holds its old content, or, when only the fsync of the directory failed,
// possibly the new one.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, (*File).Commit)
}

// WriteNew writes data to path durably with mode perm (less the umask),
// only if no file is at path: the new file is linked into place, which
// fails with an error matching fs.ErrExist when another got there first,
// and path then holds the other's content, untouched. Two processes
// generating the same file (a key) at once thus end up with one of them,
// the one both read. On any error no temporary file is left.
func WriteNew(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, (*File).commitNew)
}

// write writes data to a File for path and puts it in place with commit;
// the temporary file is removed whatever happened.
func write(path string, data []byte, perm os.FileMode, commit func(*File) error) (err error) {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Cleanup()) }()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return commit(f)
}

// File is a file being written that replaces its path only once Commit
// returns. Write, seek or write at offsets through the embedded *os.File,
// but never close it: Commit and Cleanup do. A File is not safe for
// concurrent use.
type File struct {
	*os.File
	pending *renameio.PendingFile
	path    string
	dir     string
}

// Create starts writing the file at path with mode perm (less the umask):
// a temporary file in path's directory, which must exist. The caller
// calls Commit once everything is written, and defers Cleanup so that a
// failure leaves no temporary file behind.
func Create(path string, perm os.FileMode) (*File, error) {
	dir := filepath.Dir(path)
	// WithTempDir keeps the temporary file next to path (renameio would
	// otherwise try os.TempDir first), so the directory fsynced is the
	// only one the rename touches.
	p, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithPermissions(perm))
	if err != nil {
		return nil, err
	}
	return &File{File: p.File, pending: p, path: path, dir: dir}, nil
}

// Commit fsyncs and closes the file, renames it over its path, and fsyncs
// the directory. After an error the file may already be in place (when
// only the directory's fsync failed); Cleanup then leaves it there.
func (f *File) Commit() error {
	if err := f.pending.CloseAtomicallyReplace(); err != nil {
		return err
	}
	return syncDir(f.dir)
}

// commitNew fsyncs the file and links it to its path, which fails with an
// error matching fs.ErrExist when a file is there; then it fsyncs the
// directory. Link, unlike rename, never replaces: the file appears at path
// whole or not at all. Cleanup removes the temporary name.
func (f *File) commitNew() error {
	if err := f.Sync(); err != nil {
		return err
	}
	if err := os.Link(f.Name(), f.path); err != nil {
		return err
	}
	return syncDir(f.dir)
}

// Cleanup closes and removes the temporary file unless Commit renamed it
// into place; after a successful Commit it does nothing. Its error is
// only worth reporting: nothing is left to undo.
func (f *File) Cleanup() error {
	return f.pending.Cleanup()
}

// Remove removes the file at path, if there is one, and fsyncs its
// directory, so that the removal survives a crash: a marker file whose
// absence says that a job completed is removed so, after the job's own
// writes are durable.
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// RemoveLeftovers removes the temporary files that writes of path left
// behind when their process died before Commit or Cleanup (a kill -9 in
// the middle of a large snapshot): the files next to path named as Create
// names them. Call it only while no write of path runs. It returns how
// many it removed.
func RemoveLeftovers(path string) (int, error) {
	dir, prefix := filepath.Dir(path), "."+filepath.Base(path)
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, de := range des {
		rest, ok := strings.CutPrefix(de.Name(), prefix)
		if !ok || rest == "" || !de.Type().IsRegular() || strings.Trim(rest, "0123456789") != "" {
			continue // renameio's temporary names are "." + base + a decimal number
		}
		if err := os.Remove(filepath.Join(dir, de.Name())); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// syncDir fsyncs the directory dir, so that a rename in it survives a
// crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		_ = d.Close()
		return err
	}
	return d.Close()
}
