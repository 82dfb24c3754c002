package events

import "context"

// ConsumeFunc hands h every commit after from, up to until (0: forever);
// each backend has one and builds Read and Subscribe on it.
type ConsumeFunc func(ctx context.Context, from, until Position, h Handler) error

// ReadToLast is Read on top of a backend's LastPosition and ConsumeFunc:
// every commit after from up to the last position at the call, and nothing
// at all when there is nothing after from. Errors are those of last and
// consume.
func ReadToLast(ctx context.Context, last func(context.Context) (Position, error), consume ConsumeFunc, from Position, h Handler) error {
	end, err := last(ctx)
	if err != nil {
		return err
	}
	if from >= end {
		return nil
	}
	return consume(ctx, from, end, h)
}
