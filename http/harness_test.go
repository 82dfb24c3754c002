package httpapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/http/pkitest"
	"github.com/payauthz/payauthz/projections"
	"github.com/payauthz/payauthz/projections/logtree"
)

// The harness starts the real service for a test: an embedded NATS
// JetStream log in a temp dir, the projections driven by their Watermill
// router, the bootstrapped administrator, and the HTTP server on loopback
// with a plain listener and a TLS listener whose certificates (server and
// client CA) are generated here.

const (
	adminUser = "admin"
	adminPass = "admin-password-1"
)

type harnessConfig struct {
	spidProxies     []netip.Prefix
	maxBody         int64
	consistencyWait time.Duration
	decisionLogger  *slog.Logger
	decisionOff     bool
	decisionSubject string
	natsURLs        []string // an external cluster instead of the embedded server
	replicas        int      // stream replicas on that cluster
	dataDir         string   // a data dir that outlives the replica (restart tests)
	bodyTimeout     time.Duration
	requestTimeout  time.Duration
	captchaChecks   int
	throttle        bool   // the default failed-login throttles instead of none
	snapshotDir     string // start the read models from the snapshot there
	verifiableLog   bool   // keep the verifiable log (projections/logtree), signing on demand
	beforeAppend    func(stream string, recs []events.Record)
	afterAppend     func(stream string, pos events.Position, err error) (events.Position, error)
	secureCookies   bool             // Config.SecureCookies: a proxy terminates TLS
	sessionClock    func() time.Time // Config.SessionClock (nil: time.Now)
	wrapLog         func(events.LogReader) events.LogReader
	gate            *projectionGate
	serviceLog      slog.Handler // the service log's handler instead of a discarding one
	verifications   int          // Limits.PasswordVerifications (0: the default)
	behind          bool         // return before the read models applied the log as of start-up
}

// withBeforeAppend calls hook before every append of the service's
// commands (the fixtures' writes included), in the goroutine of the
// request that appends: a test places another writer's commit between a
// request's decision and its own commit. hook must be safe for concurrent
// use; an append it makes through the harness's commands reaches it too.
func withBeforeAppend(hook func(stream string, recs []events.Record)) harnessOption {
	return func(c *harnessConfig) { c.beforeAppend = hook }
}

// withAfterAppend passes every append's answer of the service's commands
// through hook, which answers in its place: a test loses the store's
// answer to an append the store made (an outage between the write and
// its acknowledgement).
func withAfterAppend(hook func(stream string, pos events.Position, err error) (events.Position, error)) harnessOption {
	return func(c *harnessConfig) { c.afterAppend = hook }
}

// hookedStore is the commands' store with withBeforeAppend's and
// withAfterAppend's hooks (either may be nil).
type hookedStore struct {
	events.StreamStore
	before func(stream string, recs []events.Record)
	after  func(stream string, pos events.Position, err error) (events.Position, error)
}

func (s hookedStore) Append(ctx context.Context, stream string, expected events.Expected, recs ...events.Record) (events.Position, error) {
	if s.before != nil {
		s.before(stream, recs)
	}
	pos, err := s.StreamStore.Append(ctx, stream, expected, recs...)
	if s.after != nil {
		return s.after(stream, pos, err)
	}
	return pos, err
}

// logCaughtUp waits until the verifiable log's tree holds the whole log
// (withVerifiableLog): a checkpoint is listed, and a proof can reach an
// event, once its own event came back through the log.
func (h *harness) logCaughtUp(t testing.TB) {
	t.Helper()
	if err := h.log.WaitFor(context.Background(), h.logEnd(t)); err != nil {
		t.Fatal(err)
	}
}

// logEnd is the log's last position: a test compares it before and after
// a request to tell whether anything was written.
func (h *harness) logEnd(t testing.TB) events.Position {
	t.Helper()
	last, err := h.store.LastPosition(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return last
}

// withVerifiableLog keeps the service's verifiable log, with a signing key
// generated in the test; h.log signs checkpoints when a test asks.
func withVerifiableLog() harnessOption { return func(c *harnessConfig) { c.verifiableLog = true } }

// withLoginThrottle keeps the server's default failed-login throttles;
// other harnesses let every failed login through to the budget, since the
// tests send many wrong passwords from 127.0.0.1.
func withLoginThrottle() harnessOption { return func(c *harnessConfig) { c.throttle = true } }

// withBodyTimeout sets the server's body (whole-request read) deadline.
func withBodyTimeout(d time.Duration) harnessOption {
	return func(c *harnessConfig) { c.bodyTimeout = d }
}

// withDecisionLog sends the decision log to logger; nil turns it off.
func withDecisionLog(logger *slog.Logger) harnessOption {
	return func(c *harnessConfig) { c.decisionLogger, c.decisionOff = logger, logger == nil }
}

// withDecisionSubject also publishes decisions on subject over the log's
// NATS connection.
func withDecisionSubject(subject string) harnessOption {
	return func(c *harnessConfig) { c.decisionSubject = subject }
}

// onCluster runs the replica on an external NATS cluster with a stream of
// the given replicas, instead of its own embedded server.
func onCluster(urls []string, replicas int) harnessOption {
	return func(c *harnessConfig) { c.natsURLs, c.replicas = urls, replicas }
}

// withDataDir keeps the replica's data dir (session key, certificates)
// at dir, so that a restarted replica finds it again.
func withDataDir(dir string) harnessOption { return func(c *harnessConfig) { c.dataDir = dir } }

// fromSnapshot starts the replica's read models from the snapshot in dir
// (it must load) instead of empty ones, as a restarted service does.
func fromSnapshot(dir string) harnessOption { return func(c *harnessConfig) { c.snapshotDir = dir } }

type harnessOption func(*harnessConfig)

// withSPIDProxies replaces the trusted spid proxies (default 127.0.0.1/32).
func withSPIDProxies(p ...netip.Prefix) harnessOption {
	return func(c *harnessConfig) { c.spidProxies = p }
}

func withCaptchaChecks(n int) harnessOption { return func(c *harnessConfig) { c.captchaChecks = n } }

func withMaxBody(n int64) harnessOption { return func(c *harnessConfig) { c.maxBody = n } }

// withLogReader gives the server the log reader wrap returns around the
// store (the commands and projections keep the store itself).
func withLogReader(wrap func(events.LogReader) events.LogReader) harnessOption {
	return func(c *harnessConfig) { c.wrapLog = wrap }
}

// servingBehind returns the replica as soon as it serves, before its read
// models applied the log as of start-up (with withProjectionGate, held
// behind it): a replica still catching up.
func servingBehind() harnessOption { return func(c *harnessConfig) { c.behind = true } }

// withProjectionGate runs the replica's projections behind g: while g is
// shut, the events the log delivers wait, and the replica stays behind
// the log (a replica that lags).
func withProjectionGate(g *projectionGate) harnessOption {
	return func(c *harnessConfig) { c.gate = g }
}

// projectionGate holds a replica's projections behind the log while shut.
type projectionGate struct {
	mu   sync.Mutex
	open chan struct{} // closed while the gate is open
}

func newProjectionGate() *projectionGate {
	g := &projectionGate{open: make(chan struct{})}
	close(g.open)
	return g
}

// shut holds every event delivered from now on until reopen.
func (g *projectionGate) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = make(chan struct{})
}

func (g *projectionGate) reopen() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

// gatedStore is the projections' store behind a projectionGate.
type gatedStore struct {
	events.Store
	gate *projectionGate
}

func (s gatedStore) Subscribe(ctx context.Context, from events.Position, h events.Handler) error {
	return s.Store.Subscribe(ctx, from, func(ctx context.Context, env events.Envelope) error {
		s.gate.mu.Lock()
		open := s.gate.open
		s.gate.mu.Unlock()
		select {
		case <-open:
			return h(ctx, env)
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// withSecureCookies sets Config.SecureCookies, as behind a proxy that
// terminates TLS.
// withServiceLog sends the service log (every component's logger) to h.
func withServiceLog(h slog.Handler) harnessOption { return func(c *harnessConfig) { c.serviceLog = h } }

// withPasswordVerifications sets the budget of argon2id runs at once.
func withPasswordVerifications(n int) harnessOption {
	return func(c *harnessConfig) { c.verifications = n }
}

func withSecureCookies() harnessOption { return func(c *harnessConfig) { c.secureCookies = true } }

// withSessionClock sets the clock of anonymous sessions' lifetimes
// (Config.SessionClock); now must be safe for concurrent use.
func withSessionClock(now func() time.Time) harnessOption {
	return func(c *harnessConfig) { c.sessionClock = now }
}

func withConsistencyWait(d time.Duration) harnessOption {
	return func(c *harnessConfig) { c.consistencyWait = d }
}

// withRequestTimeout sets Limits.RequestTimeout (--request-timeout).
func withRequestTimeout(d time.Duration) harnessOption {
	return func(c *harnessConfig) { c.requestTimeout = d }
}

type harness struct {
	store    events.Store
	model    *projections.ReadModel
	cmds     *commands.Handler
	srv      *Server
	httpURL  string
	httpsURL string
	ca       *pkitest.CA // the client CA the server trusts
	otherCA  *pkitest.CA // a CA the server does not trust
	serverCA *x509.CertPool
	log      *logtree.Log // with withVerifiableLog
	// startedAt is the position the read models started from: the
	// snapshot's with fromSnapshot, else 0.
	startedAt events.Position

	mu      sync.Mutex
	clients map[*tls.Certificate]*http.Client

	stopOnce sync.Once
	stopFn   func()
}

// stop shuts the replica down (HTTP server, projections, store
// connection); it is idempotent and also runs at cleanup.
func (h *harness) stop() { h.stopOnce.Do(h.stopFn) }

func newHarness(t testing.TB, opts ...harnessOption) *harness {
	t.Helper()
	cfg := harnessConfig{spidProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		maxBody: 1 << 20, consistencyWait: 2 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	dir := cfg.dataDir
	if dir == "" {
		dir = t.TempDir()
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("PAYAUTHZ_TEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if cfg.serviceLog != nil {
		logger = slog.New(cfg.serviceLog)
	}
	ctx, cancel := context.WithCancel(context.Background())

	store, err := jetstream.Open(ctx, jetstream.Config{DataDir: filepath.Join(dir, "data"), StoreOptions: events.StoreOptions{Logger: logger},
		URLs: cfg.natsURLs, Replicas: cfg.replicas})
	if err != nil {
		cancel()
		t.Fatalf("open store: %v", err)
	}
	model := projections.New()
	if cfg.snapshotDir != "" {
		if model, err = projections.LoadSnapshot(cfg.snapshotDir); err != nil {
			t.Fatalf("load snapshot: %v", err)
		}
	}
	startedAt := model.AppliedPosition()
	var cmdStore events.StreamStore = store
	if cfg.beforeAppend != nil || cfg.afterAppend != nil {
		cmdStore = hookedStore{StreamStore: store, before: cfg.beforeAppend, after: cfg.afterAppend}
	}
	cmds := commands.NewHandler(cmdStore, model, logger)
	if _, err := cmds.Bootstrap(ctx, adminUser, adminPass); err != nil { // a no-op on a log set up already
		t.Fatalf("bootstrap: %v", err)
	}
	last, err := store.LastPosition(ctx)
	if err != nil {
		t.Fatalf("last position: %v", err)
	}
	projDone := make(chan struct{})
	var projStore events.Store = store
	if cfg.gate != nil {
		projStore = gatedStore{Store: store, gate: cfg.gate}
	}
	go func() { defer close(projDone); _ = model.Run(ctx, projStore, logger) }()
	var vlog *logtree.Log
	logDone := make(chan struct{})
	if cfg.verifiableLog {
		signer, vkey, err := logtree.LoadOrCreateKey(filepath.Join(dir, "log-signing.key"), "payauthz-test")
		if err != nil {
			t.Fatal(err)
		}
		if vlog, err = logtree.NewLog(store, signer, vkey, logger); err != nil {
			t.Fatal(err)
		}
		go func() { defer close(logDone); _ = vlog.Follow(ctx) }()
	} else {
		close(logDone)
	}

	serverCA := pkitest.NewCA(t, "payauthz test server CA")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	serverKey, serverDER := serverCA.Sign(t, pkitest.Server())
	certFile, keyFile := pkitest.Write(t, dir, "server", serverDER, serverKey)
	clientCA := pkitest.NewCA(t, "payauthz test client CA")
	caFile := filepath.Join(dir, "client-ca.pem")
	if err := os.WriteFile(caFile, clientCA.PEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	var log events.LogReader = store
	if cfg.wrapLog != nil {
		log = cfg.wrapLog(store)
	}
	srv, err := New(Config{
		HTTPAddr: "127.0.0.1:0", HTTPSAddr: "127.0.0.1:0", TLSCert: certFile, TLSKey: keyFile, ClientCA: caFile,
		SPIDTrustedProxies: cfg.spidProxies, ConsistencyWait: cfg.consistencyWait, MaxBodyBytes: cfg.maxBody,
		SessionKeyFile: filepath.Join(dir, "session.key"), ReadyAt: last, SecureCookies: cfg.secureCookies,
		SessionClock: cfg.sessionClock, DecisionLogger: cfg.decisionLogger, DisableDecisionLog: cfg.decisionOff,
		DecisionPublisher: decisionPublisher(store, cfg.decisionSubject), DecisionSubject: cfg.decisionSubject,
		Log: vlog,
		Limits: Limits{BodyTimeout: cfg.bodyTimeout, RequestTimeout: cfg.requestTimeout, CaptchaChecks: cfg.captchaChecks, PasswordVerifications: cfg.verifications,
			FailedLoginsPerAddress: throttleBurst(cfg.throttle), FailedLoginsPerPrincipal: throttleBurst(cfg.throttle)},
	}, log, model, cmds, logger)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	serveDone := make(chan struct{})
	go func() { defer close(serveDone); _ = srv.Serve(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for len(srv.Addrs()) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("server did not start listening")
		}
		time.Sleep(5 * time.Millisecond)
	}
	addrs := srv.Addrs()
	h := &harness{store: store, model: model, cmds: cmds, srv: srv, startedAt: startedAt,
		httpURL: "http://" + addrs[0].String(), httpsURL: "https://" + addrs[1].String(),
		ca: clientCA, otherCA: pkitest.NewCA(t, "untrusted client CA"), serverCA: serverCA.Pool(),
		clients: map[*tls.Certificate]*http.Client{}, log: vlog}
	h.stopFn = func() {
		cancel()
		<-serveDone
		<-projDone
		<-logDone
		_ = store.Close()
	}
	t.Cleanup(h.stop)
	if cfg.behind {
		return h
	}
	if err := model.WaitFor(ctx, last); err != nil {
		t.Fatalf("projections: %v", err)
	}
	return h
}

func decisionPublisher(store *jetstream.Store, subject string) Publisher {
	if subject == "" {
		return nil
	}
	return store.Conn()
}

// --- requests ---

type request struct {
	method, path string
	body         []byte
	tls          bool
	cert         *tls.Certificate
	header       http.Header
	cookies      []*http.Cookie
	remoteLocal  string // dial from this local address (e.g. 127.0.0.2)
}

type reqOpt func(*request)

// asBasic authenticates with HTTP basic.
func asBasic(user, pass string) reqOpt {
	return func(r *request) { r.header.Set("Authorization", basicHeader(user, pass)) }
}

func asAdmin() reqOpt { return asBasic(adminUser, adminPass) }

// asCert sends the request over TLS with a client certificate.
func asCert(c tls.Certificate) reqOpt { return func(r *request) { r.tls, r.cert = true, &c } }

// viaTLS sends the request over TLS without a client certificate.
func viaTLS() reqOpt { return func(r *request) { r.tls = true } }

// asSPID sets the identity proxy's fiscal-code header.
func asSPID(code string) reqOpt { return func(r *request) { r.header.Set(spidHeader, code) } }

func withHeader(k, v string) reqOpt    { return func(r *request) { r.header.Set(k, v) } }
func withCookie(c *http.Cookie) reqOpt { return func(r *request) { r.cookies = append(r.cookies, c) } }
func fromLocalAddr(ip string) reqOpt   { return func(r *request) { r.remoteLocal = ip } }
func withToken(tok string) reqOpt      { return withHeader(ConsistencyHeader, tok) }

// alsoHeader adds a value of header k after those set before it.
func alsoHeader(k, v string) reqOpt { return func(r *request) { r.header.Add(k, v) } }

func basicHeader(user, pass string) string {
	return "Basic " + b64(user+":"+pass)
}

type response struct {
	Status  int
	Body    []byte
	Header  http.Header
	Cookies []*http.Cookie
}

// do sends a request; body may be nil, a string/[]byte (sent as is) or a
// value encoded as JSON.
func (h *harness) do(t testing.TB, method, path string, body any, opts ...reqOpt) *response {
	t.Helper()
	r := &request{method: method, path: path, header: http.Header{}}
	switch b := body.(type) {
	case nil:
	case string:
		r.body = []byte(b)
	case []byte:
		r.body = b
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("encode body: %v", err)
		}
		r.body = enc
	}
	for _, o := range opts {
		o(r)
	}
	base := h.httpURL
	if r.tls {
		base = h.httpsURL
	}
	var rd io.Reader
	if r.body != nil {
		rd = bytes.NewReader(r.body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Header = r.header
	if r.body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, c := range r.cookies {
		req.AddCookie(c)
	}
	res, err := h.client(r).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	checkAgainstOpenAPI(t, h, req, res.StatusCode, res.Header, data) // the document must not lie
	return &response{Status: res.StatusCode, Body: data, Header: res.Header, Cookies: res.Cookies()}
}

func (h *harness) client(r *request) *http.Client {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.remoteLocal != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(r.remoteLocal)}}
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 30 * time.Second}
	}
	if c, ok := h.clients[r.cert]; ok {
		return c
	}
	tc := &tls.Config{RootCAs: h.serverCA, MinVersion: tls.VersionTLS12}
	if r.cert != nil {
		tc.Certificates = []tls.Certificate{*r.cert}
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: tc, MaxIdleConnsPerHost: 16}, Timeout: 30 * time.Second}
	h.clients[r.cert] = c
	return c
}

// fault decodes the FaultBean of an error response.
func (r *response) fault(t testing.TB) FaultBean {
	t.Helper()
	var fb FaultBean
	if err := json.Unmarshal(r.Body, &fb); err != nil {
		t.Fatalf("status %d: body is not a FaultBean: %v: %s", r.Status, err, r.Body)
	}
	return fb
}

// expect asserts the status and, for errors, the FaultBean codice.
func (r *response) expect(t testing.TB, status int, codice string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, status, r.Body)
	}
	if codice != "" {
		if fb := r.fault(t); fb.Codice != codice {
			t.Fatalf("codice = %q, want %q; body: %s", fb.Codice, codice, r.Body)
		}
	}
	if status >= 400 && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("error Content-Type = %q, want application/json", r.Header.Get("Content-Type"))
	}
}

// expectDetail asserts the status, the FaultBean codice and its
// dettaglio.
func (r *response) expectDetail(t testing.TB, status int, codice, dettaglio string) {
	t.Helper()
	r.expect(t, status, codice)
	if d := r.fault(t).Dettaglio; d != dettaglio {
		t.Errorf("dettaglio = %q, want %q", d, dettaglio)
	}
}

// decode decodes a JSON body into v.
func (r *response) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// --- fixtures through the real API, as the administrator ---

// must asserts a 200 or 201 answer.
func (h *harness) must(t testing.TB, method, path string, body any, opts ...reqOpt) *response {
	t.Helper()
	if len(opts) == 0 {
		opts = []reqOpt{asAdmin()}
	}
	r := h.do(t, method, path, body, opts...)
	if r.Status != http.StatusOK && r.Status != http.StatusCreated {
		t.Fatalf("%s %s: status %d: %s", method, path, r.Status, r.Body)
	}
	return r
}

// listed GETs a GovPay list (as admin when no opts) and returns, sorted,
// the given field of each of its risultati: the ids a list shows.
func (h *harness) listed(t testing.TB, path, field string, opts ...reqOpt) []string {
	t.Helper()
	var page struct {
		Risultati []map[string]any `json:"risultati"`
	}
	h.must(t, "GET", path, nil, opts...).decode(t, &page)
	var ids []string
	for _, r := range page.Risultati {
		id, _ := r[field].(string)
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

const bo = "/backoffice/rs/basic/v1"

func (h *harness) putEntity(t testing.TB, idDominio string) {
	t.Helper()
	h.must(t, "PUT", bo+"/domini/"+idDominio, map[string]any{"ragioneSociale": "Ente " + idDominio, "abilitato": true})
}

func (h *harness) putType(t testing.TB, id string, spontaneous bool) {
	t.Helper()
	h.must(t, "PUT", bo+"/tipiPendenza/"+id, map[string]any{"descrizione": "Tipo " + id, "abilitato": true,
		"pagamentoSpontaneo": spontaneous})
}

// acl is a role's ACL in wire form.
type acl = []map[string]any

func aclOf(service string, rights ...string) map[string]any {
	return map[string]any{"servizio": service, "autorizzazioni": rights}
}

func (h *harness) putRole(t testing.TB, id string, entries acl, domini, tipi []string) {
	t.Helper()
	h.must(t, "PUT", bo+"/ruoli/"+id, map[string]any{"acl": entries, "domini": domini, "tipiPendenza": tipi})
}

func (h *harness) putOperator(t testing.TB, principal, password string, enabled bool, roles ...string) {
	t.Helper()
	if roles == nil {
		roles = []string{}
	}
	h.must(t, "PUT", bo+"/operatori/"+principal, map[string]any{"ragioneSociale": "Operatore " + principal,
		"password": password, "abilitato": enabled, "ruoli": roles})
}

// apiGrant is one entry of autorizzazioniApi.
func apiGrant(api string, domini, tipi []string) map[string]any {
	return map[string]any{"api": api, "domini": domini, "tipiPendenza": tipi}
}

// putApp registers an application with per-API grants (and no roles).
func (h *harness) putApp(t testing.TB, idA2A, principal, password string, enabled bool, grants ...map[string]any) {
	t.Helper()
	if grants == nil {
		grants = []map[string]any{}
	}
	body := map[string]any{"principal": principal, "abilitato": enabled, "ruoli": []string{},
		"autorizzazioniApi": grants}
	if password != "" {
		body["password"] = password
	}
	h.must(t, "PUT", bo+"/applicazioni/"+idA2A, body)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// throttleBurst is the harness's failed-login burst: the default when on,
// else one no test reaches.
func throttleBurst(on bool) int {
	if on {
		return 0
	}
	return 1 << 30
}
