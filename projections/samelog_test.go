package projections_test

import (
	"context"
	"errors"
	"testing"

	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections"
)

// TestSnapshotOfAnotherLogIsNotUsed: a snapshot is trusted only against
// the log it was taken from. Another log that reaches the snapshot's
// position (another --nats-url or --store, a log reset and written again)
// holds another commit there: SameLog refuses it, and a question about
// the past replays that log from its start instead of starting from the
// other log's state.
func TestSnapshotOfAnotherLogIsNotUsed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	taken := jetstreamtest.OpenFilled(t, 100)
	dir := t.TempDir()
	m, _, err := projections.Rebuild(ctx, taken, projections.Until{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.WriteSnapshot(dir); err != nil {
		t.Fatal(err)
	}
	snap, err := projections.LoadSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}

	if err := snap.SameLog(ctx, taken); err != nil {
		t.Fatalf("the log the snapshot was taken from: %v, want nil", err)
	}
	grown := jetstreamtest.OpenFilled(t, 150) // the same 100 commits, then more
	if err := snap.SameLog(ctx, grown); err != nil {
		t.Fatalf("the same log grown: %v, want nil", err)
	}
	other := jetstreamtest.Open(t)
	if err := jetstreamtest.FillFrom(ctx, other, 1000, 150); err != nil {
		t.Fatal(err)
	}
	if err := snap.SameLog(ctx, other); !errors.Is(err, projections.ErrSnapshotUnusable) {
		t.Fatalf("another log past the snapshot's position: %v, want ErrSnapshotUnusable", err)
	}
	if err := projections.New().SameLog(ctx, other); err != nil {
		t.Fatalf("empty read models: %v, want nil (nothing to compare)", err)
	}

	got, st, err := projections.RebuildWithSnapshots(ctx, other, dir, projections.Until{Position: 120}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.From != 0 || st.Events != 120 || got.AppliedPosition() != 120 {
		t.Fatalf("rebuild of another log: from %d applying %d to %d; want from 0 applying 120 to 120 (the snapshot not used)",
			st.From, st.Events, got.AppliedPosition())
	}
	got, st, err = projections.RebuildWithSnapshots(ctx, grown, dir, projections.Until{Position: 120}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.From != 100 || st.Events != 20 || got.AppliedPosition() != 120 {
		t.Fatalf("rebuild of the snapshot's log: from %d applying %d to %d; want from 100 applying 20 to 120",
			st.From, st.Events, got.AppliedPosition())
	}
}
