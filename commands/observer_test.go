package commands_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/commands/commandstest"
	"github.com/payauthz/payauthz/events"
)

// interleavingStore is a real store on which another writer slips the
// same events into the stream just before the first append after arm:
// that append then meets a real conflict.
type interleavingStore struct {
	events.Store
	mu    sync.Mutex
	armed bool
}

func (s *interleavingStore) Append(ctx context.Context, stream string, exp events.Expected, recs ...events.Record) (events.Position, error) {
	s.mu.Lock()
	armed := s.armed
	s.armed = false
	s.mu.Unlock()
	if armed {
		other := make([]events.Record, len(recs))
		for i, r := range recs {
			r.ID = uuid.NewString()
			other[i] = r
		}
		if _, err := s.Store.Append(ctx, stream, exp, other...); err != nil {
			return 0, err
		}
	}
	return s.Store.Append(ctx, stream, exp, recs...)
}

type countingObserver struct {
	mu                     sync.Mutex
	ok, conflicts, retries int
	other                  []error
	slowest                time.Duration
}

func (o *countingObserver) Appended(d time.Duration, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.slowest = max(o.slowest, d)
	switch {
	case err == nil:
		o.ok++
	case errors.Is(err, events.ErrConflict):
		o.conflicts++
	default:
		o.other = append(o.other, err)
	}
}

func (o *countingObserver) Retried() { o.mu.Lock(); o.retries++; o.mu.Unlock() }

// TestObserverSeesConflictsAndRetries: the observer is told of every
// append with its outcome, and of the retry a conflict causes.
func TestObserverSeesConflictsAndRetries(t *testing.T) {
	e := commandstest.Start(t)
	ctx := context.Background()
	// A second handler over the same log and read models, appending
	// through the interleaving store.
	store := &interleavingStore{Store: e.Store}
	h := commands.NewHandler(store, e.Model, slog.New(slog.NewTextHandler(io.Discard, nil)))
	admin := e.Admin

	obs := &countingObserver{}
	h.SetObserver(obs)
	if _, err := h.PutEntity(ctx, admin, commands.PutEntity{IDDominio: "11111111111", RagioneSociale: "A", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	store.mu.Lock()
	store.armed = true
	store.mu.Unlock()
	res, err := h.PutEntity(ctx, admin, commands.PutEntity{IDDominio: "22222222222", RagioneSociale: "B", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed {
		t.Fatalf("after the conflict the other writer's identical events stand: want no change, got %+v", res)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.ok != 1 || obs.conflicts != 1 || obs.retries != 1 || len(obs.other) != 0 || obs.slowest <= 0 {
		t.Fatalf("observed ok=%d conflicts=%d retries=%d other=%v slowest=%v; want 1, 1, 1, none, > 0",
			obs.ok, obs.conflicts, obs.retries, obs.other, obs.slowest)
	}
	h.SetObserver(nil)
	if _, err := h.PutEntity(ctx, admin, commands.PutEntity{IDDominio: "33333333333", RagioneSociale: "C", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if obs.ok != 1 {
		t.Fatalf("a removed observer was told: ok=%d", obs.ok)
	}
}
