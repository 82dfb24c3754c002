package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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
