package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/projections"
)

// TestMain lets the test binary act as the payauthz binary, so the
// end-to-end tests run the real service in a child process they can kill.
func TestMain(m *testing.M) {
	if os.Getenv("PAYAUTHZ_E2E_CHILD") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type child struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
}

// syncBuffer is a bytes.Buffer the child's stderr copier and the test may
// use at the same time.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// kill stops the child as kill -9 does (a crash) and waits for it.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
}

// stop sends the child SIGTERM and waits for a clean exit.
func (c *child) stop(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, c.stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func startChild(t *testing.T, dir, addr string, extra ...string) *child {
	t.Helper()
	c := spawn(t, append([]string{"serve", "--data-dir", dir, "--http-addr", addr}, extra...)...)
	c.url = "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(c.url + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return c
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("service not ready: %v\n%s", err, c.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// spawn starts this binary with args as a child process (killed when the
// test ends), its standard error kept.
func spawn(t *testing.T, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PAYAUTHZ_E2E_CHILD=1")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return &child{cmd: cmd, stderr: stderr}
}

// exitsWithin waits up to d for the child to end by itself; false when it
// still runs (the test then fails, and its clean-up kills it).
func (c *child) exitsWithin(d time.Duration) bool {
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func call(t *testing.T, method, url, user, pass, body string) int {
	t.Helper()
	return callRes(t, method, url, user, pass, body).StatusCode
}

// callRes is call's response, its body closed (status and headers only).
func callRes(t *testing.T, method, url, user, pass, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(user, pass)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// adminGet GETs url as the bootstrap admin and returns the body; any
// answer but 200 fails the test.
func adminGet(t *testing.T, url string) []byte {
	t.Helper()
	return get(t, url, true)
}

// get GETs url, as the bootstrap admin or without credentials, and
// returns the body; any answer but 200 fails the test.
func get(t *testing.T, url string, asAdmin bool) []byte {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if asAdmin {
		req.SetBasicAuth("admin", "admin-pass-1")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, b)
	}
	return b
}

// adminPasswordFile writes the bootstrap password "admin-pass-1" to a file
// in dir and returns its path.
func adminPasswordFile(t *testing.T, dir string) string {
	t.Helper()
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte("admin-pass-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return pwFile
}

// TestKillNineKeepsEveryRegistration: acknowledged writes survive a
// kill -9 of the service (the embedded JetStream fsyncs every append).
func TestKillNineKeepsEveryRegistration(t *testing.T) {
	dir := t.TempDir()
	addr := freePort(t)
	pwFile := adminPasswordFile(t, dir)
	data := filepath.Join(dir, "data")
	c := startChild(t, data, addr, "--admin-password-file", pwFile)
	bo := c.url + "/backoffice/rs/basic/v1"
	for i := range 5 {
		id := fmt.Sprintf("%011d", i+1)
		if got := call(t, "PUT", bo+"/domini/"+id, "admin", "admin-pass-1", `{"ragioneSociale":"E","abilitato":true}`); got != 201 {
			t.Fatalf("PUT dominio: %d\n%s", got, c.stderr)
		}
	}
	if got := call(t, "PUT", bo+"/applicazioni/app1", "admin", "admin-pass-1",
		`{"principal":"app1","password":"app1-password","abilitato":true,"ruoli":[],"apiPendenze":true,"domini":["*"],"tipiPendenza":["*"]}`); got != 201 {
		t.Fatalf("PUT applicazione: %d", got)
	}
	c.kill(t)

	c2 := startChild(t, data, addr)
	for i := range 5 {
		if got := call(t, "GET", bo+"/domini/"+fmt.Sprintf("%011d", i+1), "admin", "admin-pass-1", ""); got != 200 {
			t.Fatalf("dominio %d after kill -9: %d", i+1, got)
		}
	}
	if got := call(t, "GET", c2.url+"/pendenze/rs/basic/v2/pendenze", "app1", "app1-password", ""); got != 200 {
		t.Fatalf("application after kill -9: %d", got)
	}
	// The restart did not bootstrap again: there is still exactly one operator.
	if got := call(t, "GET", bo+"/operatori/admin", "admin", "admin-pass-1", ""); got != 200 {
		t.Fatalf("admin after restart: %d", got)
	}

	// SIGTERM shuts down gracefully.
	c2.stop(t)
	if !strings.Contains(c2.stderr.String(), "payauthz stopped") {
		t.Fatalf("no orderly shutdown:\n%s", c2.stderr)
	}
}

// TestFirstStartGeneratesAdminPassword: the generated password is a 0600
// file, also when a file of that name was left in the data dir with
// another mode (a reset log's, copied with the umask's 0644): it is
// replaced, never rewritten in place keeping that mode.
func TestFirstStartGeneratesAdminPassword(t *testing.T) {
	dir := t.TempDir()
	addr := freePort(t)
	stale := filepath.Join(dir, "admin-password")
	if err := os.WriteFile(stale, []byte("an old password\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(stale, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	c := startChild(t, dir, addr)
	info, err := os.Stat(filepath.Join(dir, "admin-password"))
	if err != nil {
		t.Fatalf("no generated password: %v", err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("admin-password mode %v, want 0600", info.Mode().Perm())
	}
	pw, _ := os.ReadFile(filepath.Join(dir, "admin-password"))
	p := strings.TrimSpace(string(pw))
	if got := call(t, "GET", c.url+"/backoffice/rs/basic/v1/profilo", "admin", p, ""); got != 200 {
		t.Fatalf("generated password does not work: %d", got)
	}
	if strings.Contains(c.stderr.String(), p) {
		t.Fatal("the generated password was written to the logs")
	}
	if got := call(t, "GET", c.url+"/backoffice/rs/basic/v1/profilo", "admin", "wrong-password", ""); got != 401 {
		t.Fatalf("wrong password: %d", got)
	}
}

// withDataDir runs f on the log in the data dir of a service that is not
// running (read-only when readOnly), closed again when f returns.
func withDataDir(t *testing.T, dir string, readOnly bool, f func(s *jetstream.Store)) {
	t.Helper()
	s, err := jetstream.Open(context.Background(), jetstream.Config{DataDir: dir, ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f(s)
}

// appendToDataDir appends rec as a new stream of the log in the data dir
// of a service that is not running, as no command of ours would write it.
func appendToDataDir(t *testing.T, data, stream string, rec events.Record) {
	t.Helper()
	withDataDir(t, data, false, func(s *jetstream.Store) {
		if _, err := s.Append(t.Context(), stream, events.ExpectNoStream(), rec); err != nil {
			t.Fatal(err)
		}
	})
}

// A first start that appended the role Amministratore and failed before
// the operator leaves a log that the next start completes: its admin can
// log in.
func TestServeCompletesAnInterruptedBootstrap(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	acl := make([]events.ACLEntry, 0, len(domain.Services))
	for _, s := range domain.Services {
		acl = append(acl, events.ACLEntry{Service: s.String(), Rights: []string{"R", "W"}})
	}
	role := events.RoleDefined{IDRuolo: commands.AdminRole, ACL: acl, Domini: []string{"*"}, TipiPendenza: []string{"*"}}
	appendToDataDir(t, data, events.StreamRuolo+commands.AdminRole, events.Record{ID: "bootstrap-role", Event: role, Actor: "system"})
	c := startChild(t, data, freePort(t), "--admin-password-file", adminPasswordFile(t, dir))
	if got := call(t, "GET", c.url+"/backoffice/rs/basic/v1/profilo", "admin", "admin-pass-1", ""); got != 200 {
		t.Fatalf("admin after the second start: %d, want 200\n%s", got, c.stderr)
	}
}

// TestDecisionLogIgnoresTheLogLevel: --log-level warn quiets the service
// log, never the decision log it carries (--decision-log log, the default).
func TestDecisionLogIgnoresTheLogLevel(t *testing.T) {
	dir := t.TempDir()
	c := startChild(t, filepath.Join(dir, "data"), freePort(t), "--admin-password-file", adminPasswordFile(t, dir),
		"--log-level", "warn")
	if got := call(t, "GET", c.url+"/backoffice/rs/basic/v1/profilo", "admin", "admin-pass-1", ""); got != 200 {
		t.Fatalf("profilo: %d\n%s", got, c.stderr)
	}
	if got := call(t, "GET", c.url+"/backoffice/rs/basic/v1/profilo", "admin", "wrong-password", ""); got != 401 {
		t.Fatalf("wrong password: %d", got)
	}
	c.stop(t) // writes what the decision log holds
	logs := c.stderr.String()
	if strings.Contains(logs, `"msg":"payauthz serving"`) {
		t.Errorf("an info line of the service at --log-level warn:\n%s", logs)
	}
	for _, outcome := range []string{"allow", "unauthenticated"} {
		if !strings.Contains(logs, `"stream":"decision"`) || !strings.Contains(logs, `"outcome":"`+outcome+`"`) {
			t.Errorf("no %s decision in the log at --log-level warn:\n%s", outcome, logs)
		}
	}
}

func TestConfigValidateReportsEveryProblem(t *testing.T) {
	c := defaultConfig()
	c.DataDir, c.StreamReplicas, c.MaxBodyBytes, c.LogLevel = "", 2, 10, "loud"
	c.SPIDTrustedProxies = []string{"not-a-cidr"}
	c.SessionTTL = 30 * time.Second
	c.HTTPAddr, c.HTTPSAddr, c.TLSCert, c.TLSKey = "8080", "localhost", "cert.pem", "key.pem" // no ports
	err := c.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"--data-dir", "--stream-replicas", "--max-body-bytes", "--log-level", "--spid-trusted-proxies", "--session-ttl",
		`--http-addr "8080"`, `--https-addr "localhost"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s: %v", want, err)
		}
	}
	if err := defaultConfig().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
}

// TestTLSFilesNeedATLSListener: --tls-cert, --tls-key and --client-ca
// are served only on --https-addr; without it they would do nothing, and
// a deployment that meant to turn TLS on would serve plain HTTP alone, so
// each is refused (exit 2), as --client-ca always was.
func TestTLSFilesNeedATLSListener(t *testing.T) {
	for _, c := range []struct {
		name, httpsAddr, cert, key, ca string
		want                           string // in the error, "" when accepted
	}{
		{"tls_listener", "127.0.0.1:8443", "cert.pem", "key.pem", "ca.pem", ""},
		{"neither", "", "", "", "", ""},
		{"cert_and_key_alone", "", "cert.pem", "key.pem", "", "--tls-cert and --tls-key need --https-addr"},
		{"cert_alone", "", "cert.pem", "", "", "--tls-cert and --tls-key need --https-addr"},
		{"key_alone", "", "", "key.pem", "", "--tls-cert and --tls-key need --https-addr"},
		{"client_ca_alone", "", "", "", "ca.pem", "--client-ca needs --https-addr"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := defaultConfig()
			cfg.HTTPSAddr, cfg.TLSCert, cfg.TLSKey, cfg.ClientCA = c.httpsAddr, c.cert, c.key, c.ca
			err := cfg.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("Validate: %v, want %q", err, c.want)
			}
		})
	}
	t.Setenv("PAYAUTHZ_TLS_CERT", "cert.pem")
	t.Setenv("PAYAUTHZ_TLS_KEY", "key.pem")
	ch := spawn(t, "serve", "--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0")
	if !ch.exitsWithin(20 * time.Second) {
		t.Fatalf("serve with PAYAUTHZ_TLS_CERT and _KEY but no TLS listener serves plain HTTP:\n%s", ch.stderr)
	}
	if code := ch.cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(ch.stderr.String(), "--tls-cert and --tls-key need --https-addr") {
		t.Fatalf("serve with PAYAUTHZ_TLS_CERT and _KEY but no TLS listener: exit %d, want %d\n%s", code, exitUsage, ch.stderr)
	}
}

// TestDecisionLogSubjectNeedsANATSServer: decisions are published where a
// collector can subscribe, the --nats-url server; with the embedded server
// (no listener for collectors) or KurrentDB the flag would do nothing, so
// it is refused rather than silently ignored.
func TestDecisionLogSubjectNeedsANATSServer(t *testing.T) {
	for _, c := range []struct {
		name, natsURL, store string
		ok                   bool
	}{
		{"external_nats", "nats://127.0.0.1:4222", "jetstream", true},
		{"embedded", "", "jetstream", false},
		{"kurrentdb", "", "kurrentdb://localhost:2113?tls=false", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := defaultConfig()
			cfg.DecisionLogSubject, cfg.NATSURL, cfg.Store = "payauthz.decisions", c.natsURL, c.store
			err := cfg.Validate()
			if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "--decision-log-subject needs --nats-url") {
				t.Fatalf("Validate: %v, want ok=%v", err, c.ok)
			}
		})
	}
}

// TestDecisionLogSubjectRefusesReservedSubjects: the decision log publishes
// on its subject of the log's NATS server, so a subject the server gives
// a meaning refuses serve at start (exit 2): one under the event log's
// prefix would append decision JSON to the log (every replica's read
// models stop at it), a $-subject is the server's (JetStream API commands
// such as $JS.API.STREAM.PURGE.PAYAUTHZ, $SYS, $KV, $O), and _INBOX.
// holds the replies of requests.
func TestDecisionLogSubjectRefusesReservedSubjects(t *testing.T) {
	for _, c := range []struct {
		subject, why string // why: in the error, "" when accepted
	}{
		{"payauthz.decisions", ""},
		{"audit.payauthz.ev.x", ""},
		{"payauthz.evidence", ""},
		{"payauthz.ev.cGVuZGVuemE", "event log"},
		{"payauthz.ev.decisions", "event log"},
		{"$JS.API.STREAM.PURGE.PAYAUTHZ", "reserved"},
		{"$JS.API.STREAM.DELETE.PAYAUTHZ", "reserved"},
		{"$SYS.REQ.SERVER.PING", "reserved"},
		{"$KV.snapshots.x", "reserved"},
		{"$O.objects.x", "reserved"},
		{"_INBOX.abc", "reserved"},
		{"payauthz decisions", "not a NATS subject"},
		{"payauthz.*", "not a NATS subject"},
		{".payauthz", "not a NATS subject"},
	} {
		t.Run(c.subject, func(t *testing.T) {
			cfg := defaultConfig()
			cfg.DecisionLogSubject, cfg.NATSURL = c.subject, "nats://127.0.0.1:4222"
			err := cfg.Validate()
			if c.why == "" {
				if err != nil {
					t.Fatalf("Validate: %v, want accepted", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "--decision-log-subject") || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("Validate: %v, want a --decision-log-subject error saying %q", err, c.why)
			}
		})
	}
	dir := filepath.Join(t.TempDir(), "data")
	_, _, err := run(t, "serve", "--data-dir", dir, "--http-addr", "127.0.0.1:0", "--nats-url", "nats://127.0.0.1:1",
		"--decision-log-subject", "$JS.API.STREAM.PURGE.PAYAUTHZ")
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "--decision-log-subject") {
		t.Fatalf("serve --decision-log-subject $JS.API.STREAM.PURGE.PAYAUTHZ: exit %d (%v), want %d", exitCode(err), err, exitUsage)
	}
}

// TestStreamReplicasNeedANATSCluster: --stream-replicas 3 is a stream on an
// external cluster; the embedded server is one node and refuses such a
// stream only once its files are written, so serve refuses the flag first
// (exit 2, nothing written), as a bad value.
func TestStreamReplicasNeedANATSCluster(t *testing.T) {
	for _, c := range []struct {
		name, natsURL string
		replicas      int
		ok            bool
	}{
		{"embedded_1", "", 1, true},
		{"embedded_3", "", 3, false},
		{"external_3", "nats://a:4222,nats://b:4222,nats://c:4222", 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := defaultConfig()
			cfg.StreamReplicas, cfg.NATSURL = c.replicas, c.natsURL
			err := cfg.Validate()
			if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "--stream-replicas 3 needs --nats-url") {
				t.Fatalf("Validate: %v, want ok=%v", err, c.ok)
			}
		})
	}
	dir := filepath.Join(t.TempDir(), "data")
	_, _, err := run(t, "serve", "--data-dir", dir, "--http-addr", "127.0.0.1:0", "--stream-replicas", "3")
	if exitCode(err) != exitUsage {
		t.Fatalf("serve --stream-replicas 3 on the embedded server: exit %d (%v), want %d", exitCode(err), err, exitUsage)
	}
	if _, err := os.Stat(filepath.Join(dir, "jetstream")); err == nil {
		t.Fatal("the embedded log was written before --stream-replicas 3 was refused")
	}
}

// TestNATSFlagsNeedTheJetStreamStore: --nats-url and --stream-replicas
// configure the JetStream store; with a KurrentDB --store they would do
// nothing, and a deployment meaning to run on a NATS cluster would run on
// KurrentDB alone, so serve refuses either beside it (exit 2, nothing
// written), from flags or PAYAUTHZ_* variables alike.
func TestNATSFlagsNeedTheJetStreamStore(t *testing.T) {
	const kurrent = "kurrentdb://127.0.0.1:1?tls=false"
	for _, c := range []struct {
		name, store, natsURL string
		replicas             int
		want                 []string // in the error; none when accepted
	}{
		{"jetstream_external_3", "jetstream", "nats://a:4222", 3, nil},
		{"kurrentdb_alone", kurrent, "", 1, nil},
		{"kurrentdb_nats_url", kurrent, "nats://a:4222", 1, []string{"--nats-url needs --store jetstream"}},
		{"kurrentdb_replicas", kurrent, "", 3, []string{"--stream-replicas 3 needs --store jetstream"}},
		{"kurrentdb_both", kurrent, "nats://a:4222", 3, []string{"--nats-url needs --store jetstream", "--stream-replicas 3 needs --store jetstream"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := defaultConfig()
			cfg.Store, cfg.NATSURL, cfg.StreamReplicas = c.store, c.natsURL, c.replicas
			err := cfg.Validate()
			if len(c.want) == 0 && err != nil || len(c.want) > 0 && err == nil {
				t.Fatalf("Validate: %v, want %q", err, c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate: %v, want %q", err, w)
				}
			}
		})
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"flags", nil, []string{"--store", kurrent, "--nats-url", "nats://a:4222"}, "--nats-url needs --store jetstream"},
		{"variables", map[string]string{"PAYAUTHZ_STORE": kurrent, "PAYAUTHZ_STREAM_REPLICAS": "3"}, nil, "--stream-replicas 3 needs --store jetstream"},
		{"flag_and_variable", map[string]string{"PAYAUTHZ_NATS_URL": "nats://a:4222"}, []string{"--store", kurrent}, "--nats-url needs --store jetstream"},
	} {
		t.Run("serve_"+c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			dir := filepath.Join(t.TempDir(), "data")
			_, _, err := run(t, append([]string{"serve", "--data-dir", dir, "--http-addr", "127.0.0.1:0"}, c.args...)...)
			if exitCode(err) != exitUsage || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("serve: exit %d (%v), want %d saying %q", exitCode(err), err, exitUsage, c.want)
			}
			if _, err := os.Stat(dir); err == nil {
				t.Fatal("the data dir was written before the flags were refused")
			}
		})
	}
}

func TestConfigStoreSelection(t *testing.T) {
	cases := []struct {
		name  string
		store string
		ok    bool
	}{
		{"jetstream", "jetstream", true},
		{"kurrentdb_insecure", "kurrentdb://localhost:2113?tls=false", true},
		{"esdb_with_credentials", "esdb://admin:changeit@localhost:2113", true},
		{"kurrentdb_discover_cluster", "kurrentdb+discover://a:2113,b:2113,c:2113", true},
		{"unknown_backend", "postgres://localhost/payauthz", false},
		{"empty", "", false},
		{"kurrentdb_without_host", "kurrentdb://", false},
		{"kurrentdb_bad_setting", "kurrentdb://admin:hunter22@localhost:2113?tls=perhaps", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := defaultConfig()
			cfg.Store = c.store
			err := cfg.Validate()
			if (err == nil) != c.ok {
				t.Fatalf("Validate with --store %q: %v, want ok=%v", c.store, err, c.ok)
			}
			if err != nil && (!strings.Contains(err.Error(), "--store") || strings.Contains(err.Error(), "hunter22")) {
				t.Fatalf("error must name --store and never the password: %v", err)
			}
		})
	}
}

// TestServeSelectsKurrentDB: a kurrentdb:// --store is opened with the
// KurrentDB store (here a closed port: the error says which store could
// not be reached and that it is unavailable), never with JetStream.
func TestServeSelectsKurrentDB(t *testing.T) {
	port := freePort(t) // closed again when freePort returns
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.Store = "kurrentdb://" + port + "?tls=false"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	store, err := openStore(context.Background(), cfg, newLogger("error"))
	if err == nil {
		store.Close()
		t.Fatal("opened a store on a closed port")
	}
	if !errors.Is(err, events.ErrUnavailable) || !strings.Contains(err.Error(), "kurrentdb") {
		t.Fatalf("open error = %v, want a kurrentdb unavailable error", err)
	}
}

// TestRestartLoadsSnapshotAndReplaysTail: a replica restarts from its
// read-model snapshot plus the log's tail, and ignores a snapshot of
// another log or of an unknown format version (whole replay), serving its
// own log's data each time.
func TestRestartLoadsSnapshotAndReplaysTail(t *testing.T) {
	dir := t.TempDir()
	addr := freePort(t)
	pwFile := adminPasswordFile(t, dir)
	data := filepath.Join(dir, "data")
	snap := filepath.Join(data, "snapshots", "readmodels.snapshot")
	put := func(c *child, i int) {
		t.Helper()
		id := fmt.Sprintf("%011d", i)
		if got := call(t, "PUT", c.url+"/backoffice/rs/basic/v1/domini/"+id, "admin", "admin-pass-1", `{"ragioneSociale":"E","abilitato":true}`); got != 201 {
			t.Fatalf("PUT dominio %s: %d\n%s", id, got, c.stderr)
		}
	}
	allThere := func(c *child) {
		t.Helper()
		for i := 1; i <= 5; i++ {
			if got := call(t, "GET", c.url+"/backoffice/rs/basic/v1/domini/"+fmt.Sprintf("%011d", i), "admin", "admin-pass-1", ""); got != 200 {
				t.Fatalf("dominio %d after restart: %d\n%s", i, got, c.stderr)
			}
		}
		if got := call(t, "GET", c.url+"/backoffice/rs/basic/v1/domini/00000000009", "admin", "admin-pass-1", ""); got != 404 {
			t.Fatalf("unknown dominio: %d", got)
		}
	}

	c1 := startChild(t, data, addr, "--admin-password-file", pwFile, "--snapshot-interval", "50ms", "--snapshot-min-events", "1")
	for i := 1; i <= 3; i++ {
		put(c1, i)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(c1.stderr.String(), "snapshot written") {
		if time.Now().After(deadline) {
			t.Fatalf("no snapshot written:\n%s", c1.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c1.kill(t)

	// The tail: written by a replica that takes no snapshot.
	c2 := startChild(t, data, addr, "--snapshot-interval", "1h")
	put(c2, 4)
	put(c2, 5)
	c2.kill(t)

	c3 := startChild(t, data, addr, "--snapshot-interval", "1h")
	allThere(c3)
	if !strings.Contains(c3.stderr.String(), "loaded the read-model snapshot") || strings.Contains(c3.stderr.String(), `"tail":0`) {
		t.Fatalf("restart did not load the snapshot and replay a tail:\n%s", c3.stderr)
	}
	c3.kill(t)

	// Another log (its own first start, then more commits than the
	// snapshot covers) with this snapshot copied in: its position is
	// reached, its commit there is another, so it is replayed whole.
	other := filepath.Join(dir, "other")
	c5 := startChild(t, other, addr, "--admin-password-file", pwFile, "--snapshot-interval", "1h")
	for i := 6; i <= 12; i++ {
		put(c5, i)
	}
	c5.kill(t)
	raw, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(other, "snapshots"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "snapshots", "readmodels.snapshot"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	c6 := startChild(t, other, addr, "--snapshot-interval", "1h")
	if got := call(t, "GET", c6.url+"/backoffice/rs/basic/v1/domini/00000000001", "admin", "admin-pass-1", ""); got != 404 {
		t.Fatalf("another log's snapshot served its dominio: %d\n%s", got, c6.stderr)
	}
	if got := call(t, "GET", c6.url+"/backoffice/rs/basic/v1/domini/00000000012", "admin", "admin-pass-1", ""); got != 200 {
		t.Fatalf("this log's dominio after ignoring the snapshot: %d\n%s", got, c6.stderr)
	}
	if !strings.Contains(c6.stderr.String(), "another or a reset log") {
		t.Fatalf("a snapshot of another log was not ignored:\n%s", c6.stderr)
	}
	c6.kill(t)

	raw[len("PAYAUTHZ-SNAPSHOT\n")+3] = 99 // format version 99
	if err := os.WriteFile(snap, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	c4 := startChild(t, data, addr, "--snapshot-interval", "1h")
	allThere(c4)
	if !strings.Contains(c4.stderr.String(), "ignoring the read-model snapshot") {
		t.Fatalf("a snapshot of version 99 was not ignored:\n%s", c4.stderr)
	}
}

// TestServeStopsWhenTheProjectionsStop: a log holding a commit the read
// models cannot apply (a role of a service this build does not know, as
// a newer build writes) stops them there for good; serve then stops the
// process with exit status 1 and says why, rather than serve answers from
// models behind the log, and saves no snapshot of them.
func TestServeStopsWhenTheProjectionsStop(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	appendToDataDir(t, data, events.StreamRuolo+"future", events.Record{ID: "future-role",
		Event: events.RoleDefined{IDRuolo: "future", ACL: []events.ACLEntry{{Service: "Future", Rights: []string{"R"}}},
			Domini: []string{"*"}, TipiPendenza: []string{"*"}}})
	c := spawn(t, "serve", "--data-dir", data, "--http-addr", freePort(t),
		"--admin-password-file", adminPasswordFile(t, dir), "--snapshot-interval", "1s")
	if !c.exitsWithin(30 * time.Second) {
		t.Fatalf("serve still running on a log its projections cannot apply:\n%s", c.stderr)
	}
	if code := c.cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit status %d, want 1\n%s", code, c.stderr)
	}
	if out := c.stderr.String(); !strings.Contains(out, "the projections stopped") || !strings.Contains(out, "Future") {
		t.Errorf("stderr does not say the projections stopped at the role of service Future:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(data, "snapshots", projections.SnapshotFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a snapshot of the stopped models was written (stat: %v)", err)
	}
}

// TestSecondSignalEndsAStalledShutdown: the first SIGTERM starts the
// ordered shutdown, which waits for the requests in flight; a second one
// ends the process at once (killed by the signal) rather than being
// ignored while a request holds the shutdown up.
func TestSecondSignalEndsAStalledShutdown(t *testing.T) {
	dir := t.TempDir()
	addr := freePort(t)
	c := startChild(t, filepath.Join(dir, "data"), addr, "--admin-password-file", adminPasswordFile(t, dir),
		"--consistency-wait", "30s")
	// In flight for 30s: its token's position is never reached.
	go func() {
		req, _ := http.NewRequest("GET", c.url+"/backoffice/rs/basic/v1/profilo", nil)
		req.Header.Set("X-Consistency-Token", "jetstream:1000000")
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	time.Sleep(300 * time.Millisecond) // let it arrive
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the first signal is taken
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit after two SIGTERMs:\n%s", c.stderr)
	}
	ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("exit after a second SIGTERM: %v, want killed by SIGTERM\n%s", c.cmd.ProcessState, c.stderr)
	}
}

// TestDrainDeadlineCutsWhatIsLeft: a request still in flight when the
// shutdown's 10 s drain ends is cut then, and the log says so, before the
// projections and the store stop; the process still exits 0. It went on
// running, unsaid, while they stopped under it.
func TestDrainDeadlineCutsWhatIsLeft(t *testing.T) {
	dir := t.TempDir()
	c := startChild(t, filepath.Join(dir, "data"), freePort(t), "--admin-password-file", adminPasswordFile(t, dir),
		"--consistency-wait", "30s")
	cut := make(chan error, 1)
	go func() { // in flight for 30s: its token's position is never reached
		req, _ := http.NewRequest("GET", c.url+"/backoffice/rs/basic/v1/profilo", nil)
		req.Header.Set("X-Consistency-Token", "jetstream:1000000")
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
			err = fmt.Errorf("answered %d", res.StatusCode)
		}
		cut <- err
	}()
	time.Sleep(300 * time.Millisecond) // let it arrive
	c.stop(t)
	select {
	case err := <-cut:
		t.Logf("the request in flight: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the request in flight was still open after the process ended")
	}
	var warned bool
	for _, line := range strings.Split(c.stderr.String(), "\n") {
		switch {
		case strings.Contains(line, "cut the requests still in flight"):
			warned = strings.Contains(line, `"level":"WARN"`)
		case strings.Contains(line, "snapshot written") && !warned:
			t.Fatalf("the projections stopped before the requests in flight were cut:\n%s", c.stderr)
		}
	}
	if !warned {
		t.Fatalf("no warning that the drain's deadline cut a request:\n%s", c.stderr)
	}
}

// TestAdminPrincipalWithoutColon: the first-start administrator logs in
// with its password (basic), whose username ends at its first colon, so
// an --admin-principal holding ':' is refused (exit 2) as a bad value.
func TestAdminPrincipalWithoutColon(t *testing.T) {
	cfg := defaultConfig()
	cfg.AdminPrincipal = "ad:min"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--admin-principal") || !strings.Contains(err.Error(), "':'") {
		t.Fatalf("Validate with --admin-principal ad:min: %v, want an --admin-principal error naming ':'", err)
	}
	cfg.AdminPrincipal = "ad-min"
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate with --admin-principal ad-min: %v", err)
	}
}
