package commands

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// MaxConflictRetries bounds how often a command re-loads and re-decides
// after a concurrent write to the same stream.
const MaxConflictRetries = 5

// Handler executes commands against a store, reading the read models for
// facts outside the aggregate (roles, entities, types, principals).
type Handler struct {
	store    events.StreamStore
	model    *projections.ReadModel
	logger   *slog.Logger
	observer atomic.Pointer[Observer]   // see SetObserver
	hashes   atomic.Pointer[HashBudget] // see SetHashBudget
}

// NewHandler returns a command handler.
func NewHandler(store events.StreamStore, model *projections.ReadModel, logger *slog.Logger) *Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return &Handler{store: store, model: model, logger: logger}
}

// Actor is who issues a command: the principal (for delegation and
// ownership decisions) and the request's correlation id.
type Actor struct {
	Principal     domain.Principal
	CorrelationID string
}

// System is the actor of bootstrap commands.
var System = Actor{Principal: domain.Principal{Kind: domain.KindOperator, Name: "system", Enabled: true}}

func (a Actor) name() string { return a.Principal.Name }

// Result tells what a command did.
type Result struct {
	Position events.Position // the position of its commit (or of the stream's last commit when nothing changed)
	Created  bool            // the aggregate did not exist before
	Changed  bool            // events were appended
}

// decideFunc folds the stream and returns the events to append (none for
// an idempotent repeat) or an error.
type decideFunc func(stream []events.Envelope) ([]events.Event, error)

// latest folds a stream of registrations (C) and updates (U, converted
// by update) into the current data, nil when the stream holds neither.
func latest[C, U any](stream []events.Envelope, update func(U) C) *C {
	var cur *C
	for _, env := range stream {
		switch e := env.Event.(type) {
		case C:
			cur = &e
		case U:
			c := update(e)
			cur = &c
		}
	}
	return cur
}

// recordOnce is the decision of a fact recorded once under its own id: it
// is appended to an empty stream; a repeat with the same content (same)
// changes nothing; other content under that id is a conflict.
func recordOnce[E events.Event](e E, same func(a, b E) bool, id string) decideFunc {
	return func(stream []events.Envelope) ([]events.Event, error) {
		if len(stream) == 0 {
			return []events.Event{e}, nil
		}
		if prev, ok := stream[0].Event.(E); ok && same(prev, e) {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: %s was recorded with different content", ErrConflict, id)
	}
}

// createOnce appends e to an empty stream and leaves a stream that holds
// anything as it is.
func createOnce(e events.Event) decideFunc {
	return func(stream []events.Envelope) ([]events.Event, error) {
		if len(stream) > 0 {
			return nil, nil
		}
		return []events.Event{e}, nil
	}
}

// based is decide for a write computed from the aggregate's state at base
// (0: not from a read state, decide as is): a stream whose latest commit is
// after base makes it a *StaleError, nothing appended, unless decide finds
// that the write changes nothing of the stream's state (it then writes
// nothing over that commit either: a form saved twice, a patch another
// write made already). A PATCH is such a
// write: the entry it patched, read from a read model that may not have
// applied the latest commit (another replica's, a concurrent request's),
// would otherwise be written back over that commit. So is the save of a
// console form: base is then the position of the read model's state the
// form was opened at (any position at or after the aggregate's latest
// commit it showed), and a later commit is one the form did not show.
func based(base events.Position, decide decideFunc) decideFunc {
	if base == 0 {
		return decide
	}
	return func(stream []events.Envelope) ([]events.Event, error) {
		out, err := decide(stream)
		if n := len(stream); n > 0 && stream[n-1].Position > base && (err != nil || len(out) > 0) {
			return nil, &StaleError{At: stream[n-1].Position}
		}
		return out, err
	}
}

// errUnconfirmed marks a failed append that the store did not answer (an
// outage mid-publish, a wait cancelled or timed out): it may have been
// stored all the same. A claim made for such a write is kept (see
// withPrincipal, PutPendenza): releasing it could free the identifier of
// a registration or a pendenza that was written.
var errUnconfirmed = errors.New("the append may have been stored")

// MayHaveWritten reports whether err, a command's failure, may have left
// its write in the log all the same (its append went unanswered): what
// the write binds to its caller, an anonymous session's cookie, must
// reach the caller as if it had succeeded.
func MayHaveWritten(err error) bool { return errors.Is(err, errUnconfirmed) }

// unanswered reports an append error after which the store may hold the
// commit: it was unavailable, or the caller stopped waiting.
func unanswered(err error) bool {
	return errors.Is(err, events.ErrUnavailable) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// execute runs load → decide → append, retrying on conflict. A failed
// append the store did not answer is errUnconfirmed.
func (h *Handler) execute(ctx context.Context, actor Actor, stream string, decide decideFunc) (Result, error) {
	for attempt := 0; ; attempt++ {
		envs, err := h.store.Load(ctx, stream)
		if err != nil {
			return Result{}, fmt.Errorf("load %s: %w", stream, err)
		}
		evs, err := decide(envs)
		if err != nil {
			return Result{}, err
		}
		expected := events.ExpectNoStream()
		var last events.Position
		if n := len(envs); n > 0 {
			expected = events.ExpectVersion(envs[n-1].Version)
			last = envs[n-1].Position
		}
		if len(evs) == 0 {
			return Result{Position: last}, nil
		}
		recs := make([]events.Record, len(evs))
		for i, e := range evs {
			recs[i] = events.Record{ID: uuid.NewString(), Event: e, Actor: actor.name(), CorrelationID: actor.CorrelationID}
		}
		start := time.Now()
		pos, err := h.store.Append(ctx, stream, expected, recs...)
		h.observeAppend(time.Since(start), err)
		if errors.Is(err, events.ErrConflict) && attempt < MaxConflictRetries {
			h.observeRetry()
			h.logger.Debug("append conflict; retrying", "stream", stream, "attempt", attempt+1)
			continue
		}
		if errors.Is(err, events.ErrConflict) {
			return Result{}, fmt.Errorf("%w: %s changed concurrently", ErrConflict, stream)
		}
		if unanswered(err) {
			return Result{}, fmt.Errorf("append %s: %w (%w)", stream, err, errUnconfirmed)
		}
		if err != nil {
			return Result{}, fmt.Errorf("append %s: %w", stream, err)
		}
		return Result{Position: pos, Created: len(envs) == 0, Changed: true}, nil
	}
}
