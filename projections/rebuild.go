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
}

// IsEnd reports whether u is the log's end.
func (u Until) IsEnd() bool { return u.Position == 0 && u.Time.IsZero() }

// String describes u for humans.
func (u Until) String() string {
	switch {
	case u.Position != 0 && !u.Time.IsZero():
		return fmt.Sprintf("position %d and %s", u.Position, u.Time.Format(time.RFC3339))
	case u.Position != 0:
		return fmt.Sprintf("position %d", u.Position)
	case !u.Time.IsZero():
		return u.Time.Format(time.RFC3339Nano)
	}
	return "end of the log"
}

// RebuildStats summarises a rebuild.
type RebuildStats struct {
	Events   uint64
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
func Rebuild(ctx context.Context, store events.Store, u Until, progress func(env events.Envelope)) (*ReadModel, RebuildStats, error) {
	start := time.Now()
	m := New()
	st := RebuildStats{ByType: map[string]uint64{}}
	last, err := store.LastPosition(ctx)
	if err != nil {
		return nil, st, fmt.Errorf("last position: %w", err)
	}
	st.Last = last
	var stopAt events.Position // a commit that must not be applied (time cut)
	err = store.Read(ctx, 0, func(ctx context.Context, env events.Envelope) error {
		if u.Position != 0 && env.Position > u.Position {
			return errReached
		}
		if !u.Time.IsZero() && env.Index == 0 && env.Time.After(u.Time) {
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
	st.Events = m.AppliedEvents()
	st.Position = m.AppliedPosition()
	st.Duration = time.Since(start)
	return m, st, nil
}
