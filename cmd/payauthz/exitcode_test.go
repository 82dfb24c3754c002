package main

import (
	"crypto/rand"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/mod/sumdb/note"
)

// TestExitCodes: explain exits 0 allowed, 3 denied, 2 on a usage error
// (every audit tool: a missing or bad flag value);
// the audit tools refuse a point of history the log does not hold.
func TestExitCodes(t *testing.T) {
	l := newAuditLog(t)
	dd := "--data-dir=" + l.dir
	pos := func(p uint64) string { return strconv.FormatUint(p, 10) }
	createD1 := []string{"--api", "PENDENZE", "--operation", "create", "--dominio", "11111111111", "--tipo", "TARI"}
	explain := append([]string{"audit", "explain", dd, "--principal", "app1"}, createD1...)
	beyond := pos(uint64(l.last) + 1000)
	for _, c := range []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"explain_allowed", append(explain, "--position", pos(uint64(l.granted))), 0, ""},
		{"explain_denied", append(explain, "--position", pos(uint64(l.revoked))), exitDenied, ""},
		{"explain_unknown_principal_denied", append([]string{"audit", "explain", dd, "--principal", "nobody"}, createD1...), exitDenied, ""},
		{"explain_unknown_operation_usage", []string{"audit", "explain", dd, "--principal", "app1", "--api", "PENDENZE", "--operation", "fly"}, exitUsage, "fly"},
		{"explain_unknown_flag_usage", append(explain, "--bogus"), exitUsage, "unknown flag"},
		{"explain_missing_resource_flag_usage", []string{"audit", "explain", dd, "--principal", "app1", "--api", "PENDENZE", "--operation", "read", "--ida2a", "app1"}, exitUsage, "idPendenza is required"},
		{"who_can_missing_resource_flag_usage", []string{"audit", "who-can", dd, "--api", "PENDENZE", "--operation", "read"}, exitUsage, "idA2A is required"},
		{"explain_position_beyond_end", append(explain, "--position", beyond), exitUsage,
			"position " + beyond + " is beyond the end of the log (its last position is " + pos(uint64(l.last)) + ")"},
		{"who_can_position_beyond_end", append([]string{"audit", "who-can", dd, "--position", beyond}, createD1...), exitUsage, "beyond the end of the log"},
		{"replay_to_beyond_end", []string{"audit", "replay", dd, "--to", beyond}, exitUsage, "beyond the end of the log"},
		{"what_can_position_beyond_end", []string{"audit", "what-can", dd, "--principal", "app1", "--position", beyond}, exitUsage, "beyond the end of the log"},
		{"explain_position_zero_usage", append(explain, "--position", "0"), exitUsage, "--position 0: a log position is a whole number from 1"},
		{"who_can_position_zero_usage", append([]string{"audit", "who-can", dd, "--position", "0"}, createD1...), exitUsage, "--position 0"},
		{"replay_to_zero_usage", []string{"audit", "replay", dd, "--to", "0"}, exitUsage, "--to 0"},
		{"what_can_position_zero_usage", []string{"audit", "what-can", dd, "--principal", "app1", "--position", "0"}, exitUsage, "--position 0"},
		{"what_can_last_position_accepted", []string{"audit", "what-can", dd, "--principal", "app1", "--position", pos(uint64(l.last))}, 0, ""},
		{"explain_at_before_start", append(explain, "--at", "2000-01-01T00:00:00Z"), exitUsage, "is before the log's first event"},
		{"replay_at_before_start", []string{"replay", dd, "--at", "2000-01-01T00:00:00Z"}, exitUsage, "is before the log's first event"},
		{"explain_at_zero_time", append(explain, "--at", "0001-01-01T00:00:00Z"), exitUsage, "--at 0001-01-01T00:00:00Z is before the log's first event"},
		{"what_can_at_zero_time", []string{"audit", "what-can", dd, "--principal", "app1", "--at", "0001-01-01T00:00:00Z"}, exitUsage, "is before the log's first event"},
		{"replay_to_last_accepted", []string{"replay", dd, "--to", pos(uint64(l.last))}, 0, ""},
		{"explain_at_now_accepted", append(explain, "--at", time.Now().Add(time.Minute).UTC().Format(time.RFC3339)), 0, ""},
		{"explain_extra_argument_usage", append(explain, "extra"), exitUsage, `unknown command "extra"`},
		{"unknown_command_usage", []string{"nosuchcmd"}, exitUsage, `unknown command "nosuchcmd" for "payauthz"`},
		{"unknown_audit_command_usage", []string{"audit", "nosuchcmd", dd}, exitUsage, `unknown command "nosuchcmd" for "payauthz audit"`},
		{"serve_extra_argument_usage", []string{"serve", "extra"}, exitUsage, `unknown command "extra"`},
		{"verify_without_verifier_key_usage", []string{"audit", "verify", dd}, exitUsage, "--verifier-key is required"},
		{"verify_bad_verifier_key_usage", []string{"audit", "verify", dd, "--verifier-key", "nonsense"}, exitUsage, "verifier key"},
		// A log of events and no checkpoint (signing never on, or its
		// checkpoints removed) verifies nothing: a failure, not an OK.
		{"verify_without_checkpoints_failure", []string{"audit", "verify", dd, "--verifier-key", verifierKey(t)}, exitFailure,
			"nothing is verified: the log holds events and no checkpoint"},
		{"check_proof_without_verifier_key_usage", []string{"audit", "check-proof", "p.proof"}, exitUsage, "--verifier-key is required"},
		{"prove_without_what_usage", []string{"audit", "prove", dd}, exitUsage, "give one of --position, --consistency and --consistency-note"},
		{"what_can_without_principal_usage", []string{"audit", "what-can", dd}, exitUsage, "--principal is required"},
		{"what_can_bad_resources_usage", []string{"audit", "what-can", dd, "--principal", "app1", "--resources", "PENDENZE"}, exitUsage, "want API/OPERATION"},
		{"what_can_unknown_resources_operation_usage", []string{"audit", "what-can", dd, "--principal", "app1", "--resources", "PENDENZE/fly"}, exitUsage, "fly"},
		{"what_can_resources_bad_service_usage", []string{"audit", "what-can", dd, "--principal", "app1", "--resources", "BACKOFFICE/servizio", "--servizio", "Pendenz"}, exitUsage, "Pendenz"},
		{"what_can_resources_negative_limit_usage", []string{"audit", "what-can", dd, "--principal", "app1", "--resources", "PENDENZE/read", "--limit", "-1"}, exitUsage, "--limit -1"},
		{"what_can_resources_of_no_resource_usage", []string{"audit", "what-can", dd, "--principal", "app1", "--resources", "PENDENZE/create"}, exitUsage, "acts on no stored"},
		{"events_bad_format_usage", []string{"audit", "events", dd, "--format", "xml"}, exitUsage, "--format"},
		{"events_unknown_type_usage", []string{"audit", "events", dd, "--type", "NoSuchEvent"}, exitUsage, "unknown event type"},
		{"audit_bad_store_usage", []string{"audit", "events", dd, "--store", "mysql"}, exitUsage, "--store"},
		{"healthcheck_no_timeout_usage", []string{"healthcheck", "--url", "http://" + freePort(t) + "/readyz", "--timeout", "0"}, exitUsage, "--timeout"},
		{"serve_http_addr_without_port_usage", []string{"serve", "--data-dir", t.TempDir(), "--http-addr", "8080"}, exitUsage,
			`--http-addr "8080": want host:port`},
		{"serve_bad_value_usage", []string{"serve", "--data-dir", t.TempDir(), "--stream-replicas", "2", "--log-level", "loud"}, exitUsage,
			"--stream-replicas must be 1 or 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := run(t, c.args...)
			if got := exitCode(err); (err == nil && c.code != 0) || (err != nil && got != c.code) {
				t.Fatalf("exit code %d (%v), want %d", got, err, c.code)
			}
			if c.message != "" && (err == nil || !strings.Contains(err.Error(), c.message)) {
				t.Fatalf("error %v, want one saying %q", err, c.message)
			}
		})
	}
}

// TestEnvironmentIsConfigurationOnly: a PAYAUTHZ_<NAME> variable sets the
// service's configuration and where the audit tools find the log, and a
// bad value there is a usage error as on the command line; it never sets
// an audit question or a point of history.
func TestEnvironmentIsConfigurationOnly(t *testing.T) {
	l := newAuditLog(t)
	t.Setenv("PAYAUTHZ_STREAM_REPLICAS", "abc")
	if _, _, err := run(t, "serve", "--data-dir", t.TempDir()); exitCode(err) != exitUsage || !strings.Contains(err.Error(), "PAYAUTHZ_STREAM_REPLICAS") {
		t.Fatalf("serve with a bad variable: exit %d (%v), want %d naming it", exitCode(err), err, exitUsage)
	}
	explain := []string{"audit", "explain", "--data-dir", l.dir, "--principal", "app1", "--api", "PENDENZE", "--operation", "create",
		"--dominio", "11111111111", "--tipo", "TARI"}
	wantOut, _, wantErr := run(t, explain...)
	t.Setenv("PAYAUTHZ_DATA_DIR", l.dir)
	t.Setenv("PAYAUTHZ_TO", "abc")
	t.Setenv("PAYAUTHZ_AT", "2000-01-01T00:00:00Z")
	if out, errOut, err := run(t, "replay"); err != nil || !strings.Contains(out, "position") {
		t.Fatalf("replay with PAYAUTHZ_DATA_DIR set and a stray PAYAUTHZ_TO: %v\n%s%s", err, out, errOut)
	}
	if out, _, err := run(t, explain...); exitCode(err) != exitCode(wantErr) || out != wantOut {
		t.Fatalf("explain with a stray PAYAUTHZ_AT: exit %d (%v) %q, want exit %d %q", exitCode(err), err, out, exitCode(wantErr), wantOut)
	}
}

// TestHelpNamesEveryVariable: --help names, on the line of each flag a
// PAYAUTHZ_<NAME> variable sets (every flag of serve; where the log is for
// the audit, backup and restore tools; healthcheck's --http-addr), that
// variable, and setting the variable it names sets the flag; a flag no
// variable sets names none.
func TestHelpNamesEveryVariable(t *testing.T) {
	named := regexp.MustCompile(`\[\$(PAYAUTHZ_[A-Z0-9_]+)\]`)
	flagLine := regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9-]+)`)
	for _, args := range [][]string{{"serve"}, {"healthcheck"}, {"audit", "replay"}, {"audit", "explain"}, {"replay"}, {"backup"}, {"restore"}} {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			help := mustRun(t, append(args, "--help")...)
			lines := map[string]string{}
			for _, l := range strings.Split(help, "\n") {
				if m := flagLine.FindStringSubmatch(l); m != nil {
					lines[m[1]] = l
				}
			}
			cmd, _, err := rootCmd().Find(args)
			if err != nil {
				t.Fatal(err)
			}
			cmd.InheritedFlags() // merges the parents' persistent flags into cmd.Flags()
			reads := 0
			cmd.Flags().VisitAll(func(f *pflag.Flag) {
				line, ok := lines[f.Name]
				if !ok {
					t.Errorf("--help has no line for --%s:\n%s", f.Name, help)
					return
				}
				_, read := f.Annotations[envAnnotation]
				if args[0] == "serve" && !read && f.Name != "help" {
					t.Errorf("serve reads no variable for --%s", f.Name)
				}
				m := named.FindStringSubmatch(line)
				if !read {
					if m != nil {
						t.Errorf("--%s names %s, which sets nothing:\n%s", f.Name, m[1], line)
					}
					return
				}
				reads++
				if m == nil {
					t.Errorf("--%s names no variable:\n%s", f.Name, line)
					return
				}
				t.Setenv(m[1], "1")
				if err := applyEnv(cmd.Flags()); !f.Changed && (err == nil || !strings.Contains(err.Error(), m[1])) {
					t.Errorf("%s, named by --%s's help, set nothing (%v)", m[1], f.Name, err)
				}
				os.Unsetenv(m[1])
			})
			if reads == 0 {
				t.Fatalf("no flag of %s reads a variable", strings.Join(args, " "))
			}
		})
	}
}

// TestServeDefaultsAreTheContracts: the defaults of serve's flags are
// those of the table in API.md section 0, as --help shows them and serve
// gets them when neither the flag nor its variable is given.
func TestServeDefaultsAreTheContracts(t *testing.T) {
	cmd, _, err := rootCmd().Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	for flag, want := range map[string]string{
		"data-dir":             "./data",
		"http-addr":            ":8080",
		"https-addr":           "", // off
		"tls-cert":             "",
		"tls-key":              "",
		"client-ca":            "", // no ssl
		"spid-trusted-proxies": "[]",
		"admin-principal":      "admin",
		"admin-password-file":  "", // none: generated into <data-dir>/admin-password
		"nats-url":             "", // the embedded server
		"store":                "jetstream",
		"consistency-wait":     "2s",
		"max-body-bytes":       "1048576",
	} {
		f := cmd.Flags().Lookup(flag)
		if f == nil {
			t.Errorf("serve has no --%s", flag)
			continue
		}
		if f.DefValue != want {
			t.Errorf("--%s defaults to %q, want %q", flag, f.DefValue, want)
		}
	}
}

// TestVersion: version and --version name the module version, the commit
// and the Go version.
func TestVersion(t *testing.T) {
	out := mustRun(t, "version")
	flag := mustRun(t, "--version")
	if out != flag || !strings.HasPrefix(out, "payauthz ") || !strings.Contains(out, "commit ") || !strings.Contains(out, "go1.") {
		t.Fatalf("version %q, --version %q", out, flag)
	}
	js := mustRun(t, "version", "--format", "json")
	if !strings.Contains(js, `"goVersion": "go1.`) || !strings.Contains(js, `"commit": `) {
		t.Fatalf("version json: %s", js)
	}
	if _, _, err := run(t, "version", "--format", "xml"); exitCode(err) != exitUsage {
		t.Fatalf("bad format: %v", err)
	}
}

// TestHealthcheck: the healthcheck subcommand, as the images run it, exits
// 0 against a ready service and 1 where none answers.
func TestHealthcheck(t *testing.T) {
	dir := t.TempDir()
	addr := freePort(t)
	pw := adminPasswordFile(t, dir)
	startChild(t, filepath.Join(dir, "data"), addr, "--admin-password-file", pw)
	probe := func(env ...string) (int, string) {
		cmd := exec.Command(os.Args[0], "healthcheck")
		cmd.Env = append(append(os.Environ(), "PAYAUTHZ_E2E_CHILD=1"), env...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := probe("PAYAUTHZ_HTTP_ADDR=" + addr); code != 0 {
		t.Fatalf("ready service: exit %d %s", code, out)
	}
	_, port, _ := strings.Cut(addr, ":")
	if code, out := probe("PAYAUTHZ_HTTP_ADDR=:" + port); code != 0 {
		t.Fatalf("ready service on an unspecified host: exit %d %s", code, out)
	}
	if code, out := probe("PAYAUTHZ_HTTP_ADDR=" + freePort(t)); code != 1 || !strings.Contains(out, "not healthy") {
		t.Fatalf("no service: exit %d %s", code, out)
	}
}

// TestLogDurationsInSeconds: a duration in the service log is a float
// number of seconds under a key that says so, never raw nanoseconds.
func TestLogDurationsInSeconds(t *testing.T) {
	var buf strings.Builder
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: durationsInSeconds}))
	logger.Info("snapshot written", "took", 1500*time.Millisecond, "position", 3)
	if got := buf.String(); !strings.Contains(got, `"took_seconds":1.5`) || strings.Contains(got, `"took":`) {
		t.Fatalf("log line %s", got)
	}
}

// verifierKey is the verifier key of a new signing key.
func verifierKey(t *testing.T) string {
	t.Helper()
	_, key, err := note.GenerateKey(rand.Reader, "payauthz-test")
	if err != nil {
		t.Fatal(err)
	}
	return key
}
