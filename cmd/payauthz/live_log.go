package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/internal/durable"
)

// liveLogFileName is the file in --data-dir through which a running
// service's embedded NATS server lets the operators' tools (backup, audit)
// read its log: a loopback URL, a read-only user and its secret, mode 0600.
// Whoever may read it may read the data dir's log files anyway. serve
// writes it once the log is open and removes it on a clean shutdown; a
// file left by a crash is never trusted on its own: the tools read it only
// while the data dir's lock is held, and serve replaces it at its start.
const liveLogFileName = "live-log.json"

// writeLiveLogFile writes the reader access of an embedded store started
// with LocalReader into dir (durably, mode 0600) and returns the function
// that removes it.
func writeLiveLogFile(dir string, store events.Store) (remove func(), err error) {
	js, ok := store.(*jetstream.Store)
	if !ok {
		return func() {}, nil
	}
	access, ok := js.LocalReader()
	if !ok {
		return func() {}, nil
	}
	b, err := json.Marshal(access)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, liveLogFileName)
	if err := durable.WriteFile(path, b, 0o600); err != nil {
		return nil, fmt.Errorf("live log file: %w", err)
	}
	return func() { _ = os.Remove(path) }, nil
}

// removeStaleLiveLogFile removes the file a crashed service left; called
// by serve once it holds the data dir's lock, before it opens the log.
func removeStaleLiveLogFile(dir string) error {
	err := os.Remove(filepath.Join(dir, liveLogFileName))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("stale %s: %w", liveLogFileName, err)
	}
	return nil
}

// openLiveLog opens, read-only, the log of the service that holds dir's
// lock, through the reader access its embedded server wrote into dir.
func openLiveLog(ctx context.Context, dir string, logger *slog.Logger) (*jetstream.Store, error) {
	b, err := os.ReadFile(filepath.Join(dir, liveLogFileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("the process holding it offers no live access (%s is absent: the service is starting, "+
			"runs on an external NATS server or KurrentDB — then point --nats-url or --store at it —, or is not `payauthz serve`)", liveLogFileName)
	}
	if err != nil {
		return nil, fmt.Errorf("live log access: %w", err)
	}
	var access jetstream.ReaderAccess
	if err := json.Unmarshal(b, &access); err != nil || access.URL == "" || access.User == "" {
		return nil, fmt.Errorf("live log access: %s is not valid", liveLogFileName)
	}
	s, err := jetstream.Open(ctx, jetstream.Config{URLs: []string{access.URL}, User: access.User, Password: access.Password,
		ReadOnly: true, StoreOptions: events.StoreOptions{Logger: logger}})
	if err != nil {
		// The error names the URL and user, never the secret.
		return nil, fmt.Errorf("live log access at %s: %w", access.URL, err)
	}
	return s, nil
}
