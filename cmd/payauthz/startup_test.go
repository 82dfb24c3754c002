package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events/jetstream"
)

// TestDataDirLockRefusesASecondProcess: while a service runs on a data dir,
// a second serve and the embedded audit tools refuse it with a message
// naming the holder; once the service is killed (-9, no clean-up), the dir
// is free again.
func TestDataDirLockRefusesASecondProcess(t *testing.T) {
	dir := t.TempDir()
	c := startChild(t, dir, freePort(t))
	pid := strconv.Itoa(c.cmd.Process.Pid)

	_, _, err := run(t, "serve", "--data-dir", dir, "--http-addr", freePort(t))
	if err == nil || !strings.Contains(err.Error(), "locked by another payauthz process (pid "+pid+")") {
		t.Fatalf("second serve: %v", err)
	}
	// The read-only tools read the live log through the service's
	// loopback reader access (TestBackupOfARunningService) instead.
	for _, args := range [][]string{{"audit", "replay", "--data-dir", dir}, {"replay", "--data-dir", dir}} {
		out, _, err := run(t, args...)
		if err != nil || !strings.Contains(out, "OperatorRegistered") {
			t.Fatalf("%s on a live data dir: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(c.stderr.String(), "payauthz ready") {
		if time.Now().After(deadline) {
			t.Fatalf("no \"payauthz ready\" in the log:\n%s", c.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if i, j := strings.Index(c.stderr.String(), "payauthz serving"), strings.Index(c.stderr.String(), "payauthz ready"); i < 0 || i > j {
		t.Fatalf("want \"serving\" logged before \"ready\":\n%s", c.stderr)
	}

	c.kill(t)
	if _, _, err := run(t, "audit", "replay", "--data-dir", dir); err != nil {
		t.Fatalf("replay of a stopped service's data dir: %v", err)
	}
	startChild(t, dir, freePort(t))
}

// TestStartupFailsBeforeWritingAnything: bad TLS files, a bad admin
// password file, a busy port, a bad decision-log path or a bad log signing
// key stop the start-up before the event log or the admin password exist.
func TestStartupFailsBeforeWritingAnything(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	missing := filepath.Join(t.TempDir(), "missing")
	// Passwords an operator's PUT refuses: the administrator could never
	// log in with them (a basic header over 4 KiB, the console's 1 KiB).
	short := tempFile(t, "short", "seven77\n")
	long := tempFile(t, "long", strings.Repeat("p", 3200)+"\n")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"bad_tls_files", []string{"--https-addr", "127.0.0.1:0", "--tls-cert", missing, "--tls-key", missing}, "tls key pair"},
		{"bad_admin_password_file", []string{"--admin-password-file", missing}, "admin password file"},
		{"short_admin_password", []string{"--admin-password-file", short}, "admin password file"},
		{"long_admin_password", []string{"--admin-password-file", long}, "admin password file"},
		{"long_admin_principal", []string{"--admin-principal", strings.Repeat("a", 600)}, "--admin-principal"},
		{"admin_principal_with_a_newline", []string{"--admin-principal", "ad\nmin"}, "--admin-principal"},
		{"busy_port", []string{"--http-addr", busy.Addr().String()}, "listen --http-addr"},
		{"bad_decision_log", []string{"--decision-log", filepath.Join(missing, "decisions.log")}, "decision log"},
		{"bad_log_signing_key", []string{"--log-signing-key", short}, "log signing key"},
		{"log_signing_key_in_a_missing_dir", []string{"--log-signing-key", filepath.Join(missing, "log-signing.key")}, "log signing key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			args := append([]string{"serve", "--data-dir", dir, "--http-addr", "127.0.0.1:0"}, c.args...)
			_, _, err := run(t, args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("serve %v: %v, want an error about %s", c.args, err, c.want)
			}
			for _, f := range []string{"jetstream", "admin-password", "session.key"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s was written before the start-up failed", f)
				}
			}
		})
	}
}

// TestSignalDuringStartupStopsCleanly: a SIGINT or SIGTERM before the
// server serves (here before the log opens: serve's context has ended)
// stops the start-up as a shutdown stops the service: serve returns nil
// (exit 0) after one line saying so and no error, creates no
// administrator's password for an administrator it did not create, and
// leaves the data dir to the next start, which serves. It returned the
// step's "context canceled" (exit 1). A signal while the snapshot is
// checked against the log is no reason to ignore the snapshot: loadModel
// gives up without the warning that it replays the whole log.
func TestSignalDuringStartupStopsCleanly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := defaultConfig()
	cfg.DataDir, cfg.HTTPAddr = dir, "127.0.0.1:0"
	signalled, cancel := context.WithCancel(context.Background())
	cancel()
	var logged syncBuffer
	if err := serve(signalled, cfg, slog.New(slog.NewJSONHandler(&logged, nil))); err != nil {
		t.Fatalf("serve interrupted during its start-up: %v, want nil (exit 0)\n%s", err, &logged)
	}
	lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, `"msg":"payauthz start-up interrupted"`) ||
		strings.Count(logged.String(), "interrupted") != 1 || strings.Contains(logged.String(), `"level":"ERROR"`) ||
		strings.Contains(logged.String(), "payauthz serving") {
		t.Fatalf("want one last line saying the start-up was interrupted, no error, no serving:\n%s", &logged)
	}
	if _, err := os.Stat(filepath.Join(dir, "admin-password")); err == nil {
		t.Fatal("an interrupted start-up wrote an administrator's password")
	}

	c := startChild(t, dir, freePort(t))
	pw, err := os.ReadFile(filepath.Join(dir, "admin-password"))
	if err != nil {
		t.Fatalf("the next start: %v\n%s", err, c.stderr)
	}
	// A write after the start, so that the stop writes a final snapshot.
	if got := call(t, "PUT", c.url+"/backoffice/rs/basic/v1/domini/00000000001", "admin", strings.TrimSpace(string(pw)),
		`{"ragioneSociale":"E","abilitato":true}`); got != 201 {
		t.Fatalf("admin after the next start: %d\n%s", got, c.stderr)
	}
	c.stop(t)

	last := lastPosition(t, dir)
	withDataDir(t, dir, true, func(store *jetstream.Store) {
		logged = syncBuffer{}
		if m, err := loadModel(signalled, cfg, store, last, slog.New(slog.NewJSONHandler(&logged, nil))); !errors.Is(err, context.Canceled) || m != nil {
			t.Fatalf("snapshot check interrupted: %v, want context.Canceled\n%s", err, &logged)
		}
		if strings.Contains(logged.String(), "ignoring") {
			t.Fatalf("an interrupted snapshot check was taken for an unusable snapshot:\n%s", &logged)
		}
		m, err := loadModel(context.Background(), cfg, store, last, slog.New(slog.NewJSONHandler(&logged, nil)))
		if err != nil || m.AppliedPosition() == 0 {
			t.Fatalf("the snapshot: %v, want it loaded\n%s", err, &logged)
		}
	})
}
