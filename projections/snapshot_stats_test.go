package projections

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSnapshotStats: writes, failures, sizes and the load are recorded
// for the metrics.
func TestSnapshotStats(t *testing.T) {
	dir := t.TempDir()
	m := New()
	if _, err := m.WriteSnapshot(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := m.WriteSnapshot(filepath.Join(blocked, "sub")); err == nil {
		t.Fatal("a snapshot under a regular file was written")
	}
	st := m.SnapshotStats()
	if st.Writes != 1 || st.WriteFailures != 1 || st.LastSize != fi.Size() || st.LastWrite <= 0 || st.Load != 0 {
		t.Fatalf("after one write and one failure: %+v (file %d bytes)", st, fi.Size())
	}
	loaded, err := LoadSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ls := loaded.SnapshotStats(); ls.Load <= 0 || ls.LoadSize != fi.Size() || ls.Writes != 0 {
		t.Fatalf("loaded: %+v", ls)
	}
}
