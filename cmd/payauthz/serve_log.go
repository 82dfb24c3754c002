package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections/logtree"
)

// defaultSigner names a generated signing key after the host, so that
// each replica's checkpoints name their signer.
func defaultSigner() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		return "payauthz"
	}
	host = strings.Map(func(r rune) rune {
		if r == '+' || r <= ' ' || r > '~' {
			return '-'
		}
		return r
	}, host)
	return "payauthz-" + host
}

// signingKeyFile is --log-signing-key, or <data-dir>/log-signing.key.
func signingKeyFile(cfg Config) string {
	if cfg.LogSigningKey != "" {
		return cfg.LogSigningKey
	}
	return filepath.Join(cfg.DataDir, "log-signing.key")
}

// signingKey opens the checkpoints' signing key (generating it on first
// start) and prints its verifier key. serve calls it before it opens the
// log: a bad --log-signing-key fails the start-up before anything is
// written.
func signingKey(cfg Config, logger *slog.Logger) (note.Signer, string, error) {
	path := signingKeyFile(cfg)
	signer, vkey, err := logtree.LoadOrCreateKey(path, cfg.LogSigner)
	if err != nil {
		return nil, "", err
	}
	fmt.Fprintf(os.Stderr, "payauthz: log checkpoints are signed by %s (key %s); verifier key: %s\n", signer.Name(), path, vkey)
	logger.Info("log checkpoint signer", "signer", signer.Name(), "verifier_key", vkey)
	return signer, vkey, nil
}

// runLog catches the tree up with the log (the projections then feed it
// what they apply, see logtree.Log.Feed) and signs checkpoints every
// interval until ctx ends. It returns when both have stopped.
func runLog(ctx context.Context, l *logtree.Log, interval time.Duration, logger *slog.Logger) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Until the tree has caught up, what the projections feed it is
		// held: a log that cannot be read now (NATS down at start) is read
		// again until it can, not given up on.
		for wait := time.Second; ; wait = min(2*wait, 30*time.Second) {
			err := l.CatchUp(ctx)
			if err == nil || ctx.Err() != nil {
				return
			}
			logger.Error("the log's Merkle tree could not read the log; trying again", "error", err, "retry_in_seconds", wait.Seconds())
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	}()
	if interval > 0 {
		l.RunCheckpoints(ctx, interval)
	} else {
		<-ctx.Done()
	}
	<-done
}

// finalCheckpoint signs the log as it is at shutdown, once the tree has
// caught up with it (waiting at most a few seconds).
func finalCheckpoint(store events.Store, l *logtree.Log, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	last, err := store.LastPosition(ctx)
	if err == nil {
		err = l.WaitFor(ctx, last)
	}
	if err == nil {
		_, _, err = l.Checkpoint(ctx)
	}
	if err != nil {
		logger.Error("the final log checkpoint", "error", err)
	}
}
