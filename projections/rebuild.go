package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/payauthz/payauthz/events"
)

// Until is a point in the log's history: a position, a time, or (the zero
// value) the log's end as of the call.
type Until struct {
	// Position, when not zero, stops after the commit at this position.
	Position events.Position
	// Time, when not zero, stops before the first commit appended after it.
	Time time.Time
	// timeSet: Time was given with At, time.Time's zero instant included.
	timeSet bool
}

// At returns u stopping at t too. Any instant t is a time to stop at, the
// zero one (0001-01-01T00:00:00Z) included, which the field Time alone
// would read as no time at all, and so the log's end: an input that names
// it is a time before the log's first event (CheckPoint).
func (u Until) At(t time.Time) Until {
	u.Time, u.timeSet = t, true
	return u
}

// ErrNoPosition refuses position 0 as a point of history: log positions
// start at 1, and an Until's zero Position is the log's end.
var ErrNoPosition = errors.New("a log position is a whole number from 1")

// AtPosition returns u stopping after the commit at position p, from 1;
// ErrNoPosition for 0. It is the one check of a point of history a caller
// names by position (the Backoffice's audit posizione, the console's Audit
// form, the CLI's --position and --to); a checkpoint or an event looked up
// by position is not a point of history, and 0 finds none.
func (u Until) AtPosition(p uint64) (Until, error) {
	if p == 0 {
		return u, ErrNoPosition
	}
	u.Position = events.Position(p)
	return u, nil
}

// hasTime reports whether u stops at a time.
func (u Until) hasTime() bool { return u.timeSet || !u.Time.IsZero() }

// IsEnd reports whether u is the log's end.
func (u Until) IsEnd() bool { return u.Position == 0 && !u.hasTime() }

// String describes u for humans.
func (u Until) String() string {
	switch {
	case u.Position != 0 && u.hasTime():
		return fmt.Sprintf("position %d and %s", u.Position, u.Time.Format(time.RFC3339))
	case u.Position != 0:
		return fmt.Sprintf("position %d", u.Position)
	case u.hasTime():
		return u.Time.Format(time.RFC3339Nano)
	}
	return "end of the log"
}

// ErrPointNotInLog is matched (errors.Is) by every *PointError.
var ErrPointNotInLog = errors.New("projections: a point of history the log does not hold")

// PointError is a point of history the log does not hold: a position beyond
// its last one, or a time before its first event (any time, when the log is
// empty). Exactly one of Position and Time is set.
type PointError struct {
	// Position is the position asked, beyond Last, the log's last position.
	Position, Last events.Position
	// Time is the time asked, before First, the time of the log's first
	// event (zero: the log is empty).
	Time, First time.Time
}

// Codes of PointError (its Code), for a caller that words it itself (the
// console, in Italian) from its fields; Describe words each in English.
const (
	PointBeyondLog = "beyond-log" // Position, beyond Last
	PointLogEmpty  = "log-empty"  // Time, and the log is empty
	PointBeforeLog = "before-log" // Time, before First
)

// Code says which point the log does not hold: one of the Point* codes.
func (e *PointError) Code() string {
	switch {
	case e.Position != 0:
		return PointBeyondLog
	case e.First.IsZero():
		return PointLogEmpty
	}
	return PointBeforeLog
}

// Describe says what is wrong, naming the position and the time as the
// caller's input names them (a flag, a query parameter).
func (e *PointError) Describe(position, at string) string {
	switch e.Code() {
	case PointBeyondLog:
		return fmt.Sprintf("%s %d is beyond the end of the log (its last position is %d)", position, uint64(e.Position), uint64(e.Last))
	case PointLogEmpty:
		return fmt.Sprintf("%s %s: the log is empty", at, e.Time.Format(time.RFC3339))
	}
	return fmt.Sprintf("%s %s is before the log's first event (%s)", at, e.Time.Format(time.RFC3339Nano), e.First.Format(time.RFC3339Nano))
}

func (e *PointError) Error() string { return e.Describe("position", "time") }

// Unwrap makes a PointError match ErrPointNotInLog.
func (e *PointError) Unwrap() error { return ErrPointNotInLog }

// errFirstFound stops a read after its first event.
var errFirstFound = errors.New("projections: first event found")

// CheckPoint refuses, with a *PointError, a point of history the log does
// not hold as of the call: a position beyond its last one, or a time before
// its first event. Answering at another point instead (the end of the log,
// the empty state) would put words in the log's mouth. The log's end, its
// last position and any time from its first event's on (that event
// included) are held. Every entry point that answers at a point of history
// asks this first (the audit CLI and the Backoffice API). Other errors are
// the store's.
func CheckPoint(ctx context.Context, store events.LogReader, u Until) error {
	if u.IsEnd() {
		return nil
	}
	last, err := store.LastPosition(ctx)
	if err != nil {
		return fmt.Errorf("read the log: %w", err)
	}
	if u.Position > last {
		return &PointError{Position: u.Position, Last: last}
	}
	if !u.hasTime() {
		return nil
	}
	var first time.Time
	err = store.Read(ctx, 0, func(_ context.Context, env events.Envelope) error {
		first = env.Time
		return errFirstFound
	})
	if err != nil && !errors.Is(err, errFirstFound) {
		return fmt.Errorf("read the log: %w", err)
	}
	if first.IsZero() || u.Time.Before(first) {
		return &PointError{Time: u.Time, First: first}
	}
	return nil
}

// RebuildStats summarises a rebuild.
type RebuildStats struct {
	Events   uint64          // events applied by the rebuild (after From)
	From     events.Position // where the rebuild started: 0, or a snapshot's position
	Position events.Position // the last applied commit
	Last     events.Position // the log's last position when the rebuild started
	Duration time.Duration
	ByType   map[string]uint64 // events applied per event name
}

// EventsPerSecond is the rebuild's throughput.
func (s RebuildStats) EventsPerSecond() float64 {
	if s.Duration <= 0 {
		return 0
	}
	return float64(s.Events) / s.Duration.Seconds()
}

// errReached stops a Read once the requested point is passed.
var errReached = errors.New("projections: point reached")

// Rebuild folds the log from its start into fresh read models up to u (a
// cold, partial replay: the state the service had when it had applied
// exactly that much of the log). It only reads the store. progress, when
// not nil, is called after each applied event from the calling goroutine;
// it must be cheap. Rebuild never appends.
func Rebuild(ctx context.Context, store events.LogReader, u Until, progress func(env events.Envelope)) (*ReadModel, RebuildStats, error) {
	return RebuildFrom(ctx, store, New(), u, progress)
}

// RebuildFrom is Rebuild starting from m (fresh, or loaded from a snapshot
// that covers no more than u): only the log after m's position is read.
// Stats count the events this call applied.
func RebuildFrom(ctx context.Context, store events.LogReader, m *ReadModel, u Until, progress func(env events.Envelope)) (*ReadModel, RebuildStats, error) {
	start := time.Now()
	base := m.AppliedEvents()
	st := RebuildStats{ByType: map[string]uint64{}, From: m.AppliedPosition()}
	last, err := store.LastPosition(ctx)
	if err != nil {
		return nil, st, fmt.Errorf("last position: %w", err)
	}
	st.Last = last
	var stopAt events.Position // a commit that must not be applied (time cut)
	err = store.Read(ctx, m.AppliedPosition(), func(ctx context.Context, env events.Envelope) error {
		if u.Position != 0 && env.Position > u.Position {
			return errReached
		}
		if u.hasTime() && env.Index == 0 && env.Time.After(u.Time) {
			stopAt = env.Position
		}
		if stopAt != 0 && env.Position >= stopAt {
			return errReached
		}
		if err := m.Apply(env); err != nil {
			return err
		}
		st.ByType[env.Name]++
		if progress != nil {
			progress(env)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errReached) {
		return nil, st, fmt.Errorf("rebuild: %w", err)
	}
	st.Events = m.AppliedEvents() - base
	st.Position = m.AppliedPosition()
	st.Duration = time.Since(start)
	return m, st, nil
}

// RebuildWithSnapshots is Rebuild starting from the newest usable snapshot
// of snapshotDir's history that covers no more than u ("" or none usable:
// from the start of the log). This is how a question about the past is
// answered in about the time of one snapshot load plus a short replay.
func RebuildWithSnapshots(ctx context.Context, store events.LogReader, snapshotDir string, u Until, progress func(env events.Envelope)) (*ReadModel, RebuildStats, error) {
	m := New()
	if snapshotDir != "" {
		last, err := store.LastPosition(ctx)
		if err != nil {
			return nil, RebuildStats{}, fmt.Errorf("last position: %w", err)
		}
		if snap, err := SnapshotAtOrBefore(snapshotDir, u, last); err == nil && snap.SameLog(ctx, store) == nil {
			m = snap
		}
	}
	return RebuildFrom(ctx, store, m, u, progress)
}
