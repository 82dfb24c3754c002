package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockFileName is the file in --data-dir whose flock marks the dir in use.
const lockFileName = "payauthz.lock"

// errDataDirInUse is returned when another process holds the data dir.
var errDataDirInUse = errors.New("data dir in use")

// dataDirLock is an exclusive flock on <data-dir>/payauthz.lock, held for
// the life of a process that writes the data dir or runs an embedded NATS
// server on it (serve, replay, the audit tools): two such processes on one
// dir would run two servers on one file store. The kernel drops the lock
// when the process dies, kill -9 included, so a stale lock file never
// blocks a restart.
type dataDirLock struct{ f *os.File }

// lockDataDir creates dir when missing and takes its lock, or fails at once
// with errDataDirInUse naming the holder's pid.
func lockDataDir(dir string) (*dataDirLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data dir lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid := strings.TrimSpace(string(holder))
			if pid == "" {
				pid = "unknown"
			}
			return nil, fmt.Errorf("%w: %s is locked by another payauthz process (pid %s); "+
				"stop it first, or give this one its own --data-dir", errDataDirInUse, dir, pid)
		}
		return nil, fmt.Errorf("data dir lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dataDirLock{f: f}, nil
}

// unlock releases the lock (closing the file releases the flock).
func (l *dataDirLock) unlock() {
	if l != nil && l.f != nil {
		_ = l.f.Close()
	}
}
