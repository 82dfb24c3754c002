package main

import (
	"context"
	"errors"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// checkPoint refuses a point of history the log does not hold
// (projections.CheckPoint, the rule the Backoffice API applies too) as a
// usage error, naming the flags.
func checkPoint(ctx context.Context, store events.Store, u projections.Until) error {
	err := projections.CheckPoint(ctx, store, u)
	if pe, ok := errors.AsType[*projections.PointError](err); ok {
		return usageErrorf("%s", pe.Describe("position", "--at"))
	}
	return err
}
