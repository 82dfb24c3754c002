package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/kurrentdb"
	httpapi "github.com/payauthz/payauthz/http"
	"github.com/payauthz/payauthz/http/console"
	"github.com/payauthz/payauthz/internal/durable"
	"github.com/payauthz/payauthz/projections"
	"github.com/payauthz/payauthz/projections/logtree"
)

func serveCmd() *cobra.Command {
	cfg := defaultConfig()
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the service",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			if err := cfg.Validate(); err != nil {
				return usageErrorf("%w", err)
			}
			return serve(cmd.Context(), cfg, newLogger(cfg.LogLevel))
		},
	}
	cfg.bindFlags(cmd.Flags())
	return cmd
}

// openStore opens the configured event store: KurrentDB / EventStoreDB
// when --store is one of its connection strings, JetStream otherwise.
func openStore(ctx context.Context, cfg Config, logger *slog.Logger) (events.Store, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	if kurrentdb.IsConnectionString(cfg.Store) {
		return kurrentdb.Open(ctx, kurrentdb.Config{URL: cfg.Store, StoreOptions: events.StoreOptions{Logger: logger}})
	}
	return jetstream.Open(ctx, jetstream.Config{
		DataDir:      cfg.DataDir,
		URLs:         cfg.natsURLs(),
		Replicas:     cfg.StreamReplicas,
		LocalReader:  cfg.LiveLogAccess, // backup and the audit tools read the live embedded log
		StoreOptions: events.StoreOptions{Logger: logger},
	})
}

// serve runs until ctx is cancelled (SIGINT/SIGTERM), then shuts down in
// order: stop accepting requests and finish those in flight, stop the
// projections, close the store (which flushes and stops an embedded server;
// every acknowledged append is already fsynced).
//
// Start-up writes nothing until everything that can fail without writing
// has been checked: the flags (Validate), the TLS files, the admin
// password file, the data dir's lock, the listeners, which are bound
// before the log is opened, the decision log file and the log signing key. "payauthz serving" is logged once they are
// bound and served, "payauthz ready" once the projections caught up.
//
// A signal before the server serves (while the log opens, its end is read,
// the snapshot is checked, the bootstrap runs) interrupts the start-up:
// the step waiting on ctx gives up, what start-up opened is closed again
// (the deferred closes), and serve returns nil after one line, "payauthz
// start-up interrupted", as after a shutdown. Nothing is left half-written:
// the bootstrap, once begun, completes (its password file never names an
// administrator the log lacks) and is then interrupted.
func serve(ctx context.Context, cfg Config, logger *slog.Logger) (err error) {
	defer func() { // registered first: runs once everything opened is closed
		if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
			logger.Info("payauthz start-up interrupted")
			err = nil
		}
	}()
	if err := httpapi.CheckTLS(httpapi.Config{HTTPSAddr: cfg.HTTPSAddr, TLSCert: cfg.TLSCert, TLSKey: cfg.TLSKey,
		ClientCA: cfg.ClientCA}); err != nil {
		return err
	}
	givenPassword, err := readAdminPasswordFile(cfg)
	if err != nil {
		return err
	}
	lock, err := lockDataDir(cfg.DataDir)
	if err != nil {
		return err
	}
	defer lock.unlock()
	if len(cfg.natsURLs()) == 0 && !kurrentdb.IsConnectionString(cfg.Store) {
		if err := checkRestoreComplete(cfg.DataDir); err != nil { // the embedded log
			return err
		}
	}
	if err := removeStaleLiveLogFile(cfg.DataDir); err != nil {
		return err
	}
	httpLn, httpsLn, err := bindListeners(cfg)
	if err != nil {
		return err
	}
	defer func() { // the server closed them already when it served them
		for _, ln := range []net.Listener{httpLn, httpsLn} {
			if ln != nil {
				_ = ln.Close()
			}
		}
	}()
	dlog, closeDecisionLog, err := decisionLogger(cfg)
	if err != nil {
		return err
	}
	defer closeDecisionLog()
	signer, vkey, err := signingKey(cfg, logger)
	if err != nil {
		return err
	}

	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			logger.Error("closing the event store", "error", err)
		}
	}()

	removeLiveLogFile, err := writeLiveLogFile(cfg.DataDir, store)
	if err != nil {
		return err
	}
	defer removeLiveLogFile() // before the store closes (defers run last first)

	startLast, err := store.LastPosition(ctx)
	if err != nil {
		return fmt.Errorf("read the log: %w", err)
	}
	model, err := loadModel(ctx, cfg, store, startLast, logger)
	if err != nil {
		return err
	}
	cmds := commands.NewHandler(store, model, logger)
	// Not "the log is empty": a first start that failed between the
	// bootstrap's two appends left the role alone, and the next start
	// completes it.
	needed, err := cmds.BootstrapNeeded(ctx)
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if needed {
		password, generated := givenPassword, ""
		if password == "" {
			if password, generated, err = generateAdminPassword(cfg); err != nil {
				return err
			}
		}
		// Once begun, the bootstrap completes whatever the signal: a
		// password it generated is then always the administrator's.
		did, err := cmds.Bootstrap(context.WithoutCancel(ctx), cfg.AdminPrincipal, password)
		if err != nil {
			return fmt.Errorf("bootstrap: %w", err)
		}
		switch {
		case generated != "" && did:
			fmt.Fprintf(os.Stderr, "payauthz: first start: generated the password of operator %q into %s (mode 0600)\n", cfg.AdminPrincipal, generated)
			logger.Info("generated admin password", "principal", cfg.AdminPrincipal, "file", generated)
		case generated != "":
			// Another replica starting on the same empty log created the
			// administrator first: this password opens nothing.
			_ = os.Remove(generated)
			logger.Warn("another replica created the administrator first; its password is in that replica's data dir", "principal", cfg.AdminPrincipal)
		}
		if startLast, err = store.LastPosition(ctx); err != nil {
			return fmt.Errorf("read the log: %w", err)
		}
	}

	var publisher httpapi.Publisher
	if js, ok := store.(*jetstream.Store); ok && cfg.DecisionLogSubject != "" {
		publisher = js.Conn()
	}

	vlog, err := logtree.NewLog(store, signer, vkey, logger)
	if err != nil {
		return err
	}
	// The tree follows the log through the projections' subscription: a
	// consumer of its own would cost every append (README, "For auditors").
	model.OnApplied = vlog.Feed
	logCtx, stopLog := context.WithCancel(context.WithoutCancel(ctx))
	logDone := make(chan struct{})
	go func() { defer close(logDone); runLog(logCtx, vlog, cfg.CheckpointInterval, logger) }()
	defer func() { stopLog(); <-logDone }()

	// The projections ending by themselves (the read models stopped at a
	// commit they cannot apply) end the serving too: the replica stops,
	// exit status 1, rather than answer from models behind the log.
	serveCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	projCtx, stopProjections := context.WithCancel(context.WithoutCancel(ctx))
	projDone := make(chan struct{})
	var projErr error
	go func() {
		defer close(projDone)
		projErr = model.Run(projCtx, store, logger)
		if projCtx.Err() == nil {
			logger.Error("the projections stopped; stopping the service", "error", projErr)
			stopServing()
		}
	}()
	snapCtx, stopSnapshots := context.WithCancel(context.WithoutCancel(ctx))
	snapDone := make(chan struct{})
	go func() {
		defer close(snapDone)
		projections.Snapshotter{Dir: snapshotDir(cfg), Interval: cfg.SnapshotInterval, MinEvents: cfg.SnapshotMinEvents,
			Logger: logger, Final: true}.Run(snapCtx, model)
	}()

	srv, err := httpapi.New(httpapi.Config{
		Build:              readBuildInfo().http(),
		HTTPAddr:           cfg.HTTPAddr,
		HTTPSAddr:          cfg.HTTPSAddr,
		TLSCert:            cfg.TLSCert,
		TLSKey:             cfg.TLSKey,
		ClientCA:           cfg.ClientCA,
		SPIDTrustedProxies: cfg.trustedProxies(),
		ConsistencyWait:    cfg.ConsistencyWait,
		MaxBodyBytes:       cfg.MaxBodyBytes,
		SessionKeyFile:     filepath.Join(cfg.DataDir, "session.key"),
		SessionTTL:         cfg.SessionTTL,
		ReadyAt:            startLast,
		DecisionLogger:     dlog,
		DisableDecisionLog: cfg.DecisionLog == "off",
		DecisionPublisher:  publisher,
		DecisionSubject:    cfg.DecisionLogSubject,
		SnapshotDir:        snapshotsUsed(cfg),
		SecureCookies:      cfg.SecureCookies || cfg.ConsoleSecureCookies,

		Limits:        cfg.Limits,
		HTTPListener:  httpLn,
		HTTPSListener: httpsLn,
		Console: console.Config{Disabled: !cfg.Console, IdleTimeout: cfg.ConsoleIdleTimeout,
			MaxAge: cfg.ConsoleMaxAge},
		Log: vlog,
	}, store, model, cmds, logger)
	if err != nil {
		stopProjections()
		<-projDone
		stopSnapshots()
		<-snapDone
		return err
	}
	logger.Info("payauthz serving", "http", addrOf(httpLn), "https", addrOf(httpsLn), "log_position", uint64(startLast))
	go func() {
		if err := model.WaitFor(ctx, startLast); err == nil {
			logger.Info("payauthz ready", "log_position", uint64(model.AppliedPosition()))
		}
	}()
	serveErr := srv.Serve(serveCtx) // returns after a graceful shutdown once serveCtx ends
	finalCheckpoint(store, vlog, logger)
	stopProjections()
	<-projDone
	stopSnapshots() // after the projections stopped: the final snapshot is exact
	<-snapDone
	if projErr != nil && !errors.Is(projErr, context.Canceled) {
		return projErr
	}
	if serveErr != nil && !errors.Is(serveErr, context.Canceled) {
		return serveErr
	}
	logger.Info("payauthz stopped")
	return nil
}

// decisionLogger returns the logger of the decision log: the service log
// (stderr, its format) at info whatever --log-level, since the level
// quiets the service and never a decision; or a JSON-lines file opened for
// appending (mode 0600).
func decisionLogger(cfg Config) (*slog.Logger, func(), error) {
	switch cfg.DecisionLog {
	case "log", "off":
		return newLogger("info"), func() {}, nil
	}
	f, err := os.OpenFile(cfg.DecisionLog, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("decision log: %w", err)
	}
	return slog.New(slog.NewJSONHandler(f, nil)), func() { _ = f.Close() }, nil
}

// snapshotsUsed is the snapshot dir when snapshots are on, else "".
func snapshotsUsed(cfg Config) string {
	if cfg.SnapshotInterval <= 0 {
		return ""
	}
	return snapshotDir(cfg)
}

// snapshotDir is where the read-model snapshots live.
func snapshotDir(cfg Config) string { return filepath.Join(cfg.DataDir, "snapshots") }

// loadModel returns the read models from the snapshot in the data dir when
// it is usable, not ahead of the log and taken from this very log
// (ReadModel.SameLog: not another or a reset log), else empty models; the
// projections then replay what follows. The error is ctx's, when it ended
// while the snapshot loaded or was checked against the log: the start-up
// is interrupted, and the snapshot was not found unusable.
func loadModel(ctx context.Context, cfg Config, log events.Reader, last events.Position, logger *slog.Logger) (*projections.ReadModel, error) {
	if cfg.SnapshotInterval <= 0 || last == 0 {
		return projections.New(), nil
	}
	start := time.Now()
	m, err := projections.LoadSnapshot(snapshotDir(cfg))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			logger.Warn("ignoring the read-model snapshot; replaying the whole log", "error", err)
		}
		return projections.New(), nil
	}
	if m.AppliedPosition() > last {
		logger.Warn("ignoring a read-model snapshot ahead of the log; replaying the whole log",
			"snapshot", uint64(m.AppliedPosition()), "log", uint64(last))
		return projections.New(), nil
	}
	err = m.SameLog(ctx, log)
	if ctx.Err() != nil { // a signal, while the snapshot loaded or was checked
		return nil, ctx.Err()
	}
	if err != nil {
		logger.Warn("ignoring the read-model snapshot; replaying the whole log", "error", err)
		return projections.New(), nil
	}
	logger.Info("loaded the read-model snapshot", "position", uint64(m.AppliedPosition()),
		"tail", uint64(last-m.AppliedPosition()), "took", time.Since(start))
	return m, nil
}

// readAdminPasswordFile reads and checks --admin-password-file; "" when
// none is given.
func readAdminPasswordFile(cfg Config) (string, error) {
	if cfg.AdminPasswordFile == "" {
		return "", nil
	}
	b, err := os.ReadFile(cfg.AdminPasswordFile)
	if err != nil {
		return "", fmt.Errorf("admin password file: %w", err)
	}
	p := strings.TrimRight(string(b), "\r\n")
	if p == "" {
		return "", errors.New("admin password file: it is empty")
	}
	if err := commands.CheckAdmin(cfg.AdminPrincipal, p); err != nil {
		return "", fmt.Errorf("admin password file: %w", err)
	}
	return p, nil
}

// generateAdminPassword generates a random password into
// <data-dir>/admin-password (mode 0600), written before the bootstrap
// appends it so that it is never lost, and returns it and the file.
// The bootstrap's append is fsynced, so the file is too, before: a crash
// must not keep the administrator's hash and lose its password. A file
// already there (a reset log's, perhaps copied with another mode) lends it
// neither its mode nor a half-written content (durable.WriteFile).
func generateAdminPassword(cfg Config) (password, path string, err error) {
	raw := make([]byte, 18)
	if _, err := rand.Read(raw); err != nil {
		return "", "", err
	}
	p := base64.RawURLEncoding.EncodeToString(raw)
	path = filepath.Join(cfg.DataDir, "admin-password")
	if err := durable.WriteFile(path, []byte(p+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("write %s: %w", path, err)
	}
	return p, path, nil
}

// bindListeners binds --http-addr and --https-addr (each when set), so that
// a busy port fails the start-up before anything is written.
func bindListeners(cfg Config) (httpLn, httpsLn net.Listener, err error) {
	if cfg.HTTPAddr != "" {
		if httpLn, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
			return nil, nil, fmt.Errorf("listen --http-addr %s: %w", cfg.HTTPAddr, err)
		}
	}
	if cfg.HTTPSAddr != "" {
		if httpsLn, err = net.Listen("tcp", cfg.HTTPSAddr); err != nil {
			if httpLn != nil {
				_ = httpLn.Close()
			}
			return nil, nil, fmt.Errorf("listen --https-addr %s: %w", cfg.HTTPSAddr, err)
		}
	}
	return httpLn, httpsLn, nil
}

// addrOf is a listener's bound address for the log ("" when off).
func addrOf(ln net.Listener) string {
	if ln == nil {
		return ""
	}
	return ln.Addr().String()
}
