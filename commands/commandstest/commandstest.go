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

// Env is a live command service without HTTP.
type Env struct {
	Store *jetstream.Store
	Model *projections.ReadModel // follows Store's log
	H     *commands.Handler
	Admin commands.Actor // the bootstrapped operator "admin"
}

// Start opens an embedded store in a temp dir of tb, runs read models
// following its log and the command handlers over both, and bootstraps
// the operator "admin" (password "admin-pass-1"). Everything stops when
// tb ends; any failure ends tb.
func Start(tb testing.TB) *Env {
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
	e := &Env{Store: store, Model: model, H: h}
	e.Sync(tb)
	rec, ok := model.Lookup("admin")
	if !ok {
		tb.Fatal("admin not projected")
	}
	e.Admin = commands.Actor{Principal: rec.Principal}
	return e
}

// Sync waits until the read models applied the whole log and returns its
// last position.
func (e *Env) Sync(tb testing.TB) events.Position {
	tb.Helper()
	last, err := e.Store.LastPosition(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.Model.WaitFor(context.Background(), last); err != nil {
		tb.Fatal(err)
	}
	return last
}
