// Package commandstest runs the command handlers for tests: over the real
// embedded JetStream store, with the read models following its log.
package commandstest

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/projections"
)

// Start opens an embedded store in a temp dir of tb, runs read models
// following its log and the command handlers over both, and bootstraps
// the operator "admin" (password "admin-pass-1"), returned as an actor.
// Everything stops when tb ends; any failure ends tb.
func Start(tb testing.TB) (*jetstream.Store, *projections.ReadModel, *commands.Handler, commands.Actor) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	store, err := jetstream.Open(ctx, jetstream.Config{DataDir: tb.TempDir()})
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	model := projections.New()
	h := commands.NewHandler(store, model, logger)
	done := make(chan struct{})
	go func() { defer close(done); _ = model.Run(ctx, store, logger) }()
	tb.Cleanup(func() { cancel(); <-done; _ = store.Close() })
	if ok, err := h.Bootstrap(ctx, "admin", "admin-pass-1"); err != nil || !ok {
		tb.Fatalf("bootstrap: %v %v", ok, err)
	}
	Sync(tb, store, model)
	rec, ok := model.Lookup("admin")
	if !ok {
		tb.Fatal("admin not projected")
	}
	return store, model, h, commands.Actor{Principal: rec.Principal}
}

// Sync waits until model applied the whole log of store and returns its
// last position.
func Sync(tb testing.TB, store events.Positioner, model *projections.ReadModel) events.Position {
	tb.Helper()
	last, err := store.LastPosition(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if err := model.WaitFor(context.Background(), last); err != nil {
		tb.Fatal(err)
	}
	return last
}
