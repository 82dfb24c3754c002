package projections_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections"
)

// TestRebuildFromSnapshotHistoryEqualsFullReplay: a question about a past
// position starts from the newest snapshot at or before it and replays
// only the rest, and gets the same read models as a replay from the start.
func TestRebuildFromSnapshotHistoryEqualsFullReplay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := jetstreamtest.OpenFilled(t, 400)
	dir := t.TempDir()
	for _, p := range []events.Position{100, 200, 300} {
		m, _, err := projections.Rebuild(ctx, s, projections.Until{Position: p}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.WriteSnapshot(dir); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name     string
		at       events.Position
		wantFrom events.Position
	}{
		{"before_every_snapshot_replays_from_the_start", 50, 0},
		{"exactly_at_a_snapshot", 200, 200},
		{"between_snapshots_starts_from_the_older", 250, 200},
		{"after_the_newest", 390, 300},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := projections.Until{Position: c.at}
			got, st, err := projections.RebuildWithSnapshots(ctx, s, dir, u, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := projections.Rebuild(ctx, s, u, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.From != c.wantFrom || st.Events != uint64(c.at-c.wantFrom) {
				t.Fatalf("started from %d applying %d events, want from %d applying %d", st.From, st.Events, c.wantFrom, c.at-c.wantFrom)
			}
			if got.AppliedPosition() != c.at || got.PendenzeCount() != int(c.at) ||
				!reflect.DeepEqual(got.Pendenze(projections.PendenzeFilter{}), want.Pendenze(projections.PendenzeFilter{})) {
				t.Fatalf("models differ: position %d, %d pendenze", got.AppliedPosition(), got.PendenzeCount())
			}
		})
	}

	t.Run("a_snapshot_ahead_of_the_log_is_never_used", func(t *testing.T) {
		// 300 is ahead of a log ending at 250; 200 qualifies.
		m, err := projections.SnapshotAtOrBefore(dir, projections.Until{}, 250)
		if err != nil || m.AppliedPosition() != 200 {
			t.Fatalf("snapshot for a log ending at 250: %v at %d", err, m.AppliedPosition())
		}
	})
	t.Run("a_damaged_snapshot_falls_back_to_an_older_one", func(t *testing.T) {
		hist := filepath.Join(dir, projections.HistoryDir)
		des, err := os.ReadDir(hist)
		if err != nil || len(des) != 3 {
			t.Fatalf("history: %v, %d entries", err, len(des))
		}
		damaged := t.TempDir()
		if err := os.MkdirAll(filepath.Join(damaged, projections.HistoryDir), 0o700); err != nil {
			t.Fatal(err)
		}
		for i, de := range des {
			raw, err := os.ReadFile(filepath.Join(hist, de.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if i == 2 { // the newest (names sort by position)
				raw[len(raw)-1] ^= 0xff
			}
			if err := os.WriteFile(filepath.Join(damaged, projections.HistoryDir, de.Name()), raw, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		m, err := projections.SnapshotAtOrBefore(damaged, projections.Until{Position: 390}, 400)
		if err != nil || m.AppliedPosition() != 200 {
			t.Fatalf("with the newest damaged: %v", err)
		}
	})
}

func TestSnapshotHistoryKeepsTheNewest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := projections.SnapshotHistory + 4
	s := jetstreamtest.OpenFilled(t, n)
	dir := t.TempDir()
	for p := 1; p <= n; p++ {
		m, _, err := projections.Rebuild(ctx, s, projections.Until{Position: events.Position(p)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.WriteSnapshot(dir); err != nil {
			t.Fatal(err)
		}
	}
	des, err := os.ReadDir(filepath.Join(dir, projections.HistoryDir))
	if err != nil || len(des) != projections.SnapshotHistory {
		t.Fatalf("history holds %d snapshots (%v), want %d", len(des), err, projections.SnapshotHistory)
	}
	if m, err := projections.SnapshotAtOrBefore(dir, projections.Until{Position: 3}, events.Position(n)); err == nil {
		t.Fatalf("a pruned snapshot was found at %d", m.AppliedPosition())
	}
	if m, err := projections.SnapshotAtOrBefore(dir, projections.Until{}, events.Position(n)); err != nil || m.AppliedPosition() != events.Position(n) {
		t.Fatalf("newest: %v", err)
	}
}

// Two replicas whose clocks differ by a couple of minutes write the log,
// so commit times are not monotonic. A question about the past by date
// (audit --data, POST /autorizzazioni/verifica with "data") must get the
// same answer whether or not a snapshot of the history is at hand, and
// the snapshot still serves the dates it can answer.
func TestTimeCutSameWithAndWithoutSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := jetstreamtest.Open(t)
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	app := func(id string) events.Event {
		return events.ApplicationRegistered{IDA2A: id, Principal: id, Enabled: true, Roles: []string{}}
	}
	for _, c := range []struct {
		stream string
		e      events.Event
		at     time.Time
	}{
		{events.StreamApplicazione + "first", app("first"), t0},
		{events.StreamApplicazione + "late", app("late"), t0.Add(5 * time.Minute)},   // replica B, clock ahead
		{events.StreamApplicazione + "third", app("third"), t0.Add(3 * time.Minute)}, // replica A
	} {
		if _, err := s.Append(ctx, c.stream, events.ExpectNoStream(), events.Record{ID: c.stream, Event: c.e, Time: c.at}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	m, _, err := projections.Rebuild(ctx, s, projections.Until{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.WriteSnapshot(dir); err != nil { // the periodic snapshot after position 3
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		at       time.Time
		wantPos  events.Position
		wantFrom events.Position
	}{
		{"before_a_commit_the_snapshot_holds_replays_from_the_start", t0.Add(4 * time.Minute), 1, 0},
		{"after_every_commit_the_snapshot_holds_starts_from_it", t0.Add(6 * time.Minute), 3, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := projections.Until{Time: c.at}
			without, _, err := projections.Rebuild(ctx, s, u, nil)
			if err != nil {
				t.Fatal(err)
			}
			with, st, err := projections.RebuildWithSnapshots(ctx, s, dir, u, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, lateWithout := without.Application("late")
			_, lateWith := with.Application("late")
			if lateWith != lateWithout || with.AppliedPosition() != without.AppliedPosition() {
				t.Errorf("as of %s: without a snapshot position %d (application late: %v); with the snapshot (from %d) position %d (application late: %v)",
					u, without.AppliedPosition(), lateWithout, st.From, with.AppliedPosition(), lateWith)
			}
			if without.AppliedPosition() != c.wantPos || st.From != c.wantFrom {
				t.Errorf("as of %s: position %d from %d, want %d from %d", u, without.AppliedPosition(), st.From, c.wantPos, c.wantFrom)
			}
		})
	}
}

// TestCheckPointRefusesWhatTheLogDoesNotHold: a position beyond the log's
// last, or a time before its first event (any time on an empty log), is a
// *PointError; the log's end, its last position and its first event's own
// time are held. The audit CLI and the Backoffice API ask this one rule.
func TestCheckPointRefusesWhatTheLogDoesNotHold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	empty := jetstreamtest.Open(t)
	s := jetstreamtest.Open(t)
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for i, id := range []string{"first", "second", "third"} {
		e := events.ApplicationRegistered{IDA2A: id, Principal: id, Enabled: true, Roles: []string{}}
		if _, err := s.Append(ctx, events.StreamApplicazione+id, events.ExpectNoStream(),
			events.Record{ID: id, Event: e, Time: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		store events.LogReader
		u     projections.Until
		want  string // the refusal, as Describe("position", "--at") says it; "" when held
	}{
		{"end_of_the_log_held", s, projections.Until{}, ""},
		{"end_of_an_empty_log_held", empty, projections.Until{}, ""},
		{"last_position_held", s, projections.Until{Position: 3}, ""},
		{"first_position_held", s, projections.Until{Position: 1}, ""},
		{"position_beyond_the_end_refused", s, projections.Until{Position: 4}, "position 4 is beyond the end of the log (its last position is 3)"},
		{"position_on_an_empty_log_refused", empty, projections.Until{Position: 1}, "position 1 is beyond the end of the log (its last position is 0)"},
		{"time_of_the_first_event_held", s, projections.Until{Time: t0}, ""},
		{"time_after_the_end_held", s, projections.Until{Time: t0.Add(time.Hour)}, ""},
		{"time_before_the_first_event_refused", s, projections.Until{Time: t0.Add(-time.Nanosecond)},
			"--at 2026-11-20T09:59:59.999999999Z is before the log's first event (2026-11-20T10:00:00Z)"},
		{"time_on_an_empty_log_refused", empty, projections.Until{Time: t0}, "--at 2026-11-20T10:00:00Z: the log is empty"},
		{"held_position_with_a_time_before_the_first_event_refused", s, projections.Until{Position: 2, Time: t0.Add(-time.Minute)}, "is before the log's first event"},
		{"position_beyond_the_end_with_a_held_time_refused", s, projections.Until{Position: 9, Time: t0}, "position 9 is beyond the end of the log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := projections.CheckPoint(ctx, c.store, c.u)
			if c.want == "" {
				if err != nil {
					t.Fatalf("CheckPoint(%s) = %v, want it held", c.u, err)
				}
				return
			}
			pe, ok := errors.AsType[*projections.PointError](err)
			if !ok || !errors.Is(err, projections.ErrPointNotInLog) {
				t.Fatalf("CheckPoint(%s) = %v, want a *PointError", c.u, err)
			}
			if got := pe.Describe("position", "--at"); !strings.Contains(got, c.want) {
				t.Fatalf("CheckPoint(%s) says %q, want %q", c.u, got, c.want)
			}
		})
	}
}

// TestAtPosition: a position a caller names is from 1; 0 would read as
// the log's end, so it is refused, and a time set before stays.
func TestAtPosition(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	if u, err := (projections.Until{}).At(t0).AtPosition(0); !errors.Is(err, projections.ErrNoPosition) || u.Position != 0 {
		t.Fatalf("AtPosition(0) = %v, %v; want ErrNoPosition", u, err)
	}
	u, err := (projections.Until{}).At(t0).AtPosition(7)
	if err != nil || u.Position != 7 || !u.Time.Equal(t0) || u.IsEnd() {
		t.Fatalf("AtPosition(7) = %v, %v; want position 7 at %s", u, err, t0)
	}
}

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
