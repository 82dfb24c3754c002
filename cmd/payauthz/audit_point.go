package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// errFirstFound stops a read after its first event.
var errFirstFound = errors.New("first event found")

// checkPoint refuses a point of history the log does not hold: a position
// beyond its end, or a time before its first event. Answering at another
// point instead would put words in the log's mouth. Both are usage errors.
func checkPoint(ctx context.Context, store events.Store, u projections.Until) error {
	if u.IsEnd() {
		return nil
	}
	last, err := store.LastPosition(ctx)
	if err != nil {
		return fmt.Errorf("read the log: %w", err)
	}
	if u.Position > last {
		return usageErrorf("position %d is beyond the end of the log (its last position is %d)", uint64(u.Position), uint64(last))
	}
	if u.Time.IsZero() {
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
	if first.IsZero() {
		return usageErrorf("--at %s: the log is empty", u.Time.Format(time.RFC3339))
	}
	if u.Time.Before(first) {
		return usageErrorf("--at %s is before the log's first event (%s)", u.Time.Format(time.RFC3339Nano), first.Format(time.RFC3339Nano))
	}
	return nil
}
