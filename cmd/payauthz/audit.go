package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/kurrentdb"
	"github.com/payauthz/payauthz/projections"
)

// auditConfig is where the audit commands read the log. They only read it:
// the store is opened read-only and nothing is ever appended.
type auditConfig struct {
	DataDir  string
	NATSURL  string
	Store    string
	LogLevel string
	// NoSnapshots answers questions about the past by a replay from the
	// log's start instead of from the newest snapshot before the point.
	NoSnapshots bool
}

func (a *auditConfig) bindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&a.DataDir, "data-dir", "./data", "data dir of the embedded log (read, never written; a running service's log is read through its loopback reader access)")
	fs.StringVar(&a.NATSURL, "nats-url", "", "external NATS server or cluster holding the service's log (comma-separated URLs)")
	fs.StringVar(&a.Store, "store", "jetstream", "event store: jetstream, or the service's kurrentdb:// / esdb:// connection string")
	fs.BoolVar(&a.NoSnapshots, "no-snapshots", false, "replay from the log's start instead of from <data-dir>/snapshots/history")
	fs.StringVar(&a.LogLevel, "log-level", "warn", "log level of the tool itself")
	fromEnv(fs, "data-dir", "nats-url", "store", "no-snapshots", "log-level")
}

// auditCmd groups the auditors' tools: replay, who-can, explain, events.
func auditCmd() *cobra.Command {
	ac := &auditConfig{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Auditors' tools: replay the log, who could do what and why, at any point of its history",
		Long: `Auditors' tools. They read the same event log as the service — its embedded data dir (--data-dir; while the
service runs, through the read-only loopback access its embedded NATS server offers) or the NATS
server or cluster it uses (--nats-url) — and never write to it.
A point of history is a log position (--position, --to) or a time (--at, RFC 3339); none means now.`,
	}
	ac.bindFlags(cmd.PersistentFlags())
	cmd.AddCommand(newReplayCmd(ac, "replay"), whoCanCmd(ac), explainCmd(ac), eventsCmd(ac), operationsCmd())
	cmd.AddCommand(logAuditCmds(ac)...)
	return cmd
}

// replayCmd is `payauthz replay`, kept as an alias of `payauthz audit
// replay` (same code, same flags).
func replayCmd() *cobra.Command {
	ac := &auditConfig{}
	cmd := newReplayCmd(ac, "replay")
	cmd.Short = "Alias of `audit replay`: " + cmd.Short
	ac.bindFlags(cmd.Flags())
	return cmd
}

func (a *auditConfig) logger() *slog.Logger { return newLogger(a.LogLevel) }

// open opens the log read-only: the JetStream store in its read-only mode,
// a KurrentDB store behind readOnly.
func (a *auditConfig) open(ctx context.Context) (events.Store, error) {
	if err := errors.Join(checkStore(a.Store), checkNATSURL(a.NATSURL), checkNATSBeside(a.Store, a.NATSURL)); err != nil {
		return nil, usageErrorf("%w", err)
	}
	if kurrentdb.IsConnectionString(a.Store) {
		s, err := kurrentdb.Open(ctx, kurrentdb.Config{URL: a.Store, StoreOptions: events.StoreOptions{Logger: a.logger()}})
		if err != nil {
			return nil, err
		}
		return readOnly{s}, nil
	}
	if a.NATSURL != "" {
		fmt.Fprintln(os.Stderr, "payauthz audit: reading a live log through NATS; the answers are as of the moment each query reads it")
		return jetstream.Open(ctx, jetstream.Config{URLs: Config{NATSURL: a.NATSURL}.natsURLs(), ReadOnly: true, StoreOptions: events.StoreOptions{Logger: a.logger()}})
	}
	if _, err := os.Stat(filepath.Join(a.DataDir, "jetstream")); err != nil {
		return nil, fmt.Errorf("no event log in data dir %s", a.DataDir)
	}
	// The embedded server must not run on files a live server is writing.
	// A running service holds the lock: read its log through the
	// loopback reader access its embedded server offers.
	lock, err := lockDataDir(a.DataDir)
	if errors.Is(err, errDataDirInUse) {
		s, lerr := openLiveLog(ctx, a.DataDir, a.logger())
		if lerr != nil {
			return nil, fmt.Errorf("%w\n%v", err, lerr)
		}
		fmt.Fprintf(os.Stderr, "payauthz: reading the live log of the service running on %s; the answers are as of the moment each query reads it\n", a.DataDir)
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if err := checkRestoreComplete(a.DataDir); err != nil {
		lock.unlock()
		return nil, err
	}
	s, err := jetstream.Open(ctx, jetstream.Config{DataDir: a.DataDir, ReadOnly: true, StoreOptions: events.StoreOptions{Logger: a.logger()}})
	if err != nil {
		lock.unlock()
		return nil, err
	}
	return lockedStore{s, lock}, nil
}

// lockedStore holds the data dir's lock until the store is closed.
type lockedStore struct {
	events.Store
	lock *dataDirLock
}

func (s lockedStore) Close() error {
	defer s.lock.unlock()
	return s.Store.Close()
}

// pointFlags is a point of the log's history given on the command line.
type pointFlags struct {
	position uint64
	at       string
	// positionGiven: the position flag (positionFlag) was given, 0 too.
	positionGiven func() bool
	positionFlag  string
}

func (p *pointFlags) bind(fs *pflag.FlagSet, positionFlag string) {
	fs.Uint64Var(&p.position, positionFlag, 0, "log position to stop at (inclusive), from 1")
	fs.StringVar(&p.at, "at", "", "time to stop at, RFC 3339 (the last commit appended at or before it)")
	p.positionFlag = positionFlag
	p.positionGiven = func() bool { return fs.Changed(positionFlag) }
}

func (p *pointFlags) until() (projections.Until, error) {
	var u projections.Until
	if p.positionGiven() {
		var err error
		if u, err = u.AtPosition(p.position); err != nil {
			return u, usageErrorf("--%s %d: %v (leave it out for the end of the log)", p.positionFlag, p.position, err)
		}
	}
	if p.at != "" {
		t, err := time.Parse(time.RFC3339Nano, p.at)
		if err != nil {
			return u, usageErrorf("--at %q: want an RFC 3339 time such as 2026-11-22T10:00:00Z", p.at)
		}
		u = u.At(t)
	}
	return u, nil
}

// withEnv runs applyEnv before f, so PAYAUTHZ_DATA_DIR and the other
// variables of where the log is work.
func withEnv(f func(cmd *cobra.Command, args []string) error) func(cmd *cobra.Command, args []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := applyEnv(cmd.Flags()); err != nil {
			return err
		}
		return f(cmd, args)
	}
}

// modelAt rebuilds the read models from the log up to u, with no output.
func (a *auditConfig) modelAt(ctx context.Context, u projections.Until) (*projections.ReadModel, error) {
	store, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := checkPoint(ctx, store, u); err != nil {
		return nil, err
	}
	m, _, err := projections.RebuildWithSnapshots(ctx, store, a.snapshotDir(), u, nil)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// snapshotDir is the service's snapshot dir in the data dir ("" with
// --no-snapshots). Snapshots are only read, and a snapshot ahead of the
// log, of another log or of another format is never used.
func (a *auditConfig) snapshotDir() string {
	if a.NoSnapshots {
		return ""
	}
	return filepath.Join(a.DataDir, "snapshots")
}

// readOnly refuses every append: the auditors' tools never write.
type readOnly struct{ events.Store }

func (readOnly) Append(context.Context, string, events.Expected, ...events.Record) (events.Position, error) {
	return 0, events.ErrReadOnly
}
