package eventstoretest

import (
	"context"
	"fmt"

	"github.com/payauthz/payauthz/events"
)

// SparseStep spaces the positions of a SparseLog.
const SparseStep = 10

// SparseLog is the log of the store under it as a store with sparse
// positions gives it (KurrentDB's are byte offsets), for the tests of
// readers that take a client's position: each commit is at SparseStep
// times its position below. As the KurrentDB server refuses a read from
// where no record starts, Read and Subscribe take only 0 or a commit's
// position, and ReadFrom, as the port allows such a store, only 0, a
// commit's position and one past it; any other position within the log is
// events.ErrInvalidPosition. It only reads: Append and Load are the store
// below's, with its own positions.
type SparseLog struct{ events.Store }

// LastPosition implements events.Store.
func (s SparseLog) LastPosition(ctx context.Context) (events.Position, error) {
	p, err := s.Store.LastPosition(ctx)
	return p * SparseStep, err
}

func spread(h events.Handler) events.Handler {
	return func(ctx context.Context, env events.Envelope) error {
		env.Position *= SparseStep
		return h(ctx, env)
	}
}

// after is the position below from, a position of the sparse log, to read
// after; a position where no commit is fails.
func (s SparseLog) after(ctx context.Context, from events.Position) (events.Position, error) {
	last, err := s.LastPosition(ctx)
	if err != nil {
		return 0, err
	}
	if from%SparseStep != 0 && from < last {
		return 0, fmt.Errorf("read $all after %d: %w", from, events.ErrInvalidPosition)
	}
	return (from + SparseStep - 1) / SparseStep, nil
}

// Read implements events.Store.
func (s SparseLog) Read(ctx context.Context, from events.Position, h events.Handler) error {
	below, err := s.after(ctx, from)
	if err != nil {
		return err
	}
	return s.Store.Read(ctx, below, spread(h))
}

// Subscribe implements events.Store.
func (s SparseLog) Subscribe(ctx context.Context, from events.Position, h events.Handler) error {
	below, err := s.after(ctx, from)
	if err != nil {
		return err
	}
	return s.Store.Subscribe(ctx, below, spread(h))
}

// ReadFrom implements events.Store.
func (s SparseLog) ReadFrom(ctx context.Context, at events.Position, h events.Handler) error {
	last, err := s.LastPosition(ctx)
	if err != nil {
		return err
	}
	switch {
	case at > last || at%SparseStep == 0:
		return s.Store.ReadFrom(ctx, (at+SparseStep-1)/SparseStep, spread(h))
	case at%SparseStep == 1:
		return s.Store.ReadFrom(ctx, at/SparseStep+1, spread(h))
	}
	return fmt.Errorf("read $all from %d: %w", at, events.ErrInvalidPosition)
}
