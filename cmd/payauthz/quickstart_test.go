package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readmeBlock returns the shell block of README.md that follows the HTML
// comment marker "<!-- name -->".
func readmeBlock(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	marker := "<!-- " + name + " -->\n```sh\n"
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("README.md has no %q block", name)
	}
	s = s[i+len(marker):]
	j := strings.Index(s, "\n```")
	if j < 0 {
		t.Fatalf("README.md: the %q block is not closed", name)
	}
	return s[:j+1]
}

// expectedCodes are the "# → NNN" annotations of a README block, in order.
func expectedCodes(block string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`# → (\d{3})`).FindAllStringSubmatch(block, -1) {
		out = append(out, m[1])
	}
	return out
}

// runReadmeBlock runs block with bash in dir, where ./payauthz is this
// test binary acting as the payauthz binary, with no PAYAUTHZ_* variable
// of the caller's environment, and "localhost:8080" replaced by addr.
func runReadmeBlock(t *testing.T, dir, addr, block string) string {
	t.Helper()
	wrapper := fmt.Sprintf("#!/bin/sh\nPAYAUTHZ_E2E_CHILD=1 exec %q \"$@\"\n", os.Args[0])
	if err := os.WriteFile(filepath.Join(dir, "payauthz"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "set -u\n" + strings.ReplaceAll(block, "localhost:8080", addr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAYAUTHZ_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// Its own process group, so a failed run leaves no service behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "payauthz.log"))
		t.Fatalf("the README block failed: %v\n%s\nservice log:\n%s", err, out, log)
	}
	return string(out)
}

// TestReadmeQuickstart runs README.md's quickstart block as a user pasting
// it would, and checks every status code it promises.
func TestReadmeQuickstart(t *testing.T) {
	block := readmeBlock(t, "quickstart")
	want := expectedCodes(block)
	if len(want) < 5 {
		t.Fatalf("the quickstart promises only %d status codes", len(want))
	}
	dir := t.TempDir()
	out := runReadmeBlock(t, dir, freePort(t), block)
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			got = append(got, f[len(f)-1])
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		log, _ := os.ReadFile(filepath.Join(dir, "payauthz.log"))
		t.Fatalf("status codes: got %v, the README promises %v\noutput:\n%s\nservice log:\n%s", got, want, out, log)
	}
	if fi, err := os.Stat(filepath.Join(dir, "data", "admin-password")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("admin password file: %v %v", fi, err)
	}
}

// TestReadmeAdmin runs README.md's admin block: apply with its plan,
// idempotence, check with its exit codes, revoke, list and export.
func TestReadmeAdmin(t *testing.T) {
	block := readmeBlock(t, "admin")
	dir := t.TempDir()
	out := runReadmeBlock(t, dir, freePort(t), block)
	for _, want := range []string{"+ domini/01234567890", "would apply 3 changes", "applied 3 changes, 0 unchanged, 0 failed",
		"applied 0 changes, 3 unchanged, 0 failed", "ALLOW (rule granted)", "DENY", "exit 3", "revoked gestionale on PENDENZE", "gestionale"} {
		if !strings.Contains(out, want) {
			t.Errorf("the admin block's output lacks %q:\n%s", want, out)
		}
	}
	exported, err := os.ReadFile(filepath.Join(dir, "exported.yaml"))
	if err != nil || !strings.Contains(string(exported), "idA2A: gestionale") || strings.Contains(string(exported), "password") {
		t.Fatalf("exported.yaml: %v\n%s", err, exported)
	}
}
