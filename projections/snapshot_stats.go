package projections

import (
	"os"
	"sync/atomic"
	"time"
)

// SnapshotStats describes the snapshot I/O of one ReadModel, for metrics.
type SnapshotStats struct {
	Writes        uint64        // snapshots written by this model
	WriteFailures uint64        // writes that failed (the previous snapshot stays)
	LastWrite     time.Duration // how long the last successful write took
	LastSize      int64         // its size in bytes
	Load          time.Duration // how long loading the snapshot this model started from took (0: none)
	LoadSize      int64         // that snapshot's size in bytes
}

// snapshotStats records SnapshotStats; every field is atomic, so metrics
// read it while the snapshotter writes.
type snapshotStats struct {
	writes, failures      atomic.Uint64
	lastWrite, lastSize   atomic.Int64
	loadNanos, loadedSize atomic.Int64
	// covered is how many applied events the newest snapshot this model
	// was loaded from or wrote holds (0: none): what the Snapshotter
	// compares with.
	covered atomic.Uint64
}

// SnapshotStats returns the model's snapshot figures.
func (m *ReadModel) SnapshotStats() SnapshotStats {
	s := &m.snapStats
	return SnapshotStats{
		Writes: s.writes.Load(), WriteFailures: s.failures.Load(),
		LastWrite: time.Duration(s.lastWrite.Load()), LastSize: s.lastSize.Load(),
		Load: time.Duration(s.loadNanos.Load()), LoadSize: s.loadedSize.Load(),
	}
}

func (s *snapshotStats) wrote(start time.Time, path string, err error) {
	if err != nil {
		s.failures.Add(1)
		return
	}
	s.lastWrite.Store(int64(time.Since(start)))
	if fi, err := os.Stat(path); err == nil {
		s.lastSize.Store(fi.Size())
	}
	s.writes.Add(1)
}

func (s *snapshotStats) loaded(start time.Time, path string, events uint64) {
	s.covered.Store(events)
	s.loadNanos.Store(int64(time.Since(start)))
	if fi, err := os.Stat(path); err == nil {
		s.loadedSize.Store(fi.Size())
	}
}
