package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/http/console"
)

// jsonLog is the service log as the binary writes it (slog's JSON
// handler, every level), kept in memory: what an operator's log shipper
// would receive.
type jsonLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
	h   slog.Handler
}

func newJSONLog() *jsonLog {
	l := &jsonLog{}
	l.h = slog.NewJSONHandler(lockedWriter{l}, &slog.HandlerOptions{Level: slog.LevelDebug})
	return l
}

type lockedWriter struct{ l *jsonLog }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	return w.l.buf.Write(p)
}

func (l *jsonLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// records decodes every line; a line that is not one JSON object (a
// newline the caller smuggled in) fails t.
func (l *jsonLog) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(l.String(), "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %d is not one JSON record (%v): %q", i+1, err, line)
		}
		out = append(out, rec)
	}
	return out
}

// TestCallerSecretsStayOutOfLogsMetricsAndAnswers drives the service with
// credentials and capabilities that are each recognisable — right and
// wrong passwords, a password typed as the username, API keys, the
// session and console cookies and CSRF token, a CAPTCHA token and the
// siteverify secret, a fiscal code sent from an address not trusted for
// SPID, a notice's UUID link, a password in a write's body while the
// store fails (the 'request failed' lines) — and a username, a path and a
// header carrying newlines and terminal escapes. Then it reads everything
// the service wrote besides its answers' bodies of record: the service
// log and the decision log (as JSON lines, each one record), /metrics,
// and the answers' headers and error bodies. None of them holds a secret
// or a capability; a citizen's fiscal code is in the decision log only as
// the principal of its own spid requests (README, "Decision log").
func TestCallerSecretsStayOutOfLogsMetricsAndAnswers(t *testing.T) {
	log := newJSONLog()
	var failing atomic.Bool
	w := newWorld(t, withServiceLog(log.h), withAfterAppend(func(_ string, pos events.Position, err error) (events.Position, error) {
		if failing.Load() {
			return 0, events.ErrUnavailable
		}
		return pos, err
	}))
	const (
		wrongPass     = "wrong-pass-LEAK-1"
		typedAsUser   = "typed-as-user-LEAK-2"
		appKey        = "app-key-LEAK-3-0123456789"
		wrongKey      = "app-key-LEAK-4-0123456789"
		captchaToken  = "captcha-token-LEAK-5"
		wrongUUID     = "0123456789abcdef0123456789abcdef"
		bodyPass      = "body-pass-LEAK-6"
		consolePass   = "console-pass-LEAK-7"
		untrustedCode = "BNCGNN85C03L219Y" // sent by a caller SPID does not trust
		evilUser      = "evil\nFAKE level=ERROR msg=\"admin logged in\"\x1b[31m"
	)
	var answers []*response
	do := func(method, path string, body any, opts ...reqOpt) *response {
		t.Helper()
		r := w.do(t, method, path, body, opts...)
		answers = append(answers, r)
		return r
	}

	w.must(t, "PUT", bo+"/applicazioni/appK", map[string]any{"principal": "appK-user", "password": pw, "apiKey": appKey,
		"abilitato": true, "ruoli": []string{}, "autorizzazioniApi": []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})}})
	p := w.createPendenza(t, "appA", "leak-1", d1, t1, citizen1)
	avviso := pgPublic + "/avvisi/" + d1 + "/" + p.NumeroAvviso

	// Passwords and keys, right and wrong.
	do("GET", pe+"/pendenze/appA/leak-1", nil, as("appA")).expect(t, 200, "")
	do("GET", pe+"/pendenze/appA/leak-1", nil, asBasic("appA", wrongPass)).expect(t, 401, "401000")
	do("GET", pe+"/pendenze/appA/leak-1", nil, asBasic(typedAsUser, wrongPass)).expect(t, 401, "401000")
	do("GET", "/pendenze/rs/apikey/v2/pendenze", nil, asAPIKey("appK", appKey)).expect(t, 200, "")
	do("GET", "/pendenze/rs/apikey/v2/pendenze", nil, asAPIKey("appK", wrongKey)).expect(t, 401, "401000")
	do("GET", "/pendenze/rs/apikey/v2/pendenze", nil, asAPIKey(typedAsUser+"-id", wrongKey)).expect(t, 401, "401000")
	do("GET", pe+"/pendenze", nil, asBasic(evilUser, wrongPass)).expect(t, 401, "401000")

	// SPID: a fiscal code from an address not trusted names no one; from
	// the trusted proxy it is the citizen's principal.
	do("GET", "/pagamento/rs/spid/v2/pendenze", nil, asSPID(untrustedCode), fromLocalAddr("127.0.0.2")).expect(t, 401, "401000")
	do("GET", "/pagamento/rs/spid/v2/pendenze", nil, asSPID(citizen1), withHeader("X-Request-ID", "spid-own")).expect(t, 200, "")

	// The anonymous session: its cookie, sent back.
	pay := do("POST", pgPublic+"/pagamenti", noticeRef(p))
	pay.expect(t, 201, "")
	var session *http.Cookie
	for _, c := range pay.Cookies {
		if c.Name == SessionCookie {
			session = c
		}
	}
	if session == nil || session.Value == "" {
		t.Fatalf("an anonymous payment set no session cookie: %v", pay.Header)
	}
	do("GET", pgPublic+"/pagamenti", nil, withCookie(session)).expect(t, 200, "")

	// The UUID link, right and wrong, with the protection on and
	// siteverify unreachable: the wrong one asks for the CAPTCHA, whose
	// failed check is logged.
	w.protect(t, true, refusedURL(t), true, nil)
	do("GET", avviso+"?UUID="+p.UUID, nil).expect(t, 200, "")
	do("GET", avviso+"?UUID="+wrongUUID, nil, withHeader(commands.DefaultCaptchaParam, captchaToken)).expect(t, 403, "403000")
	do("GET", avviso+"?"+commands.DefaultCaptchaParam+"="+captchaToken, nil).expect(t, 403, "403000")
	w.protect(t, false, refusedURL(t), true, nil)

	// The console: a session cookie, a CSRF token, a failed login.
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	cc.get("/console/")
	csrf := cc.csrf
	u, _ := url.Parse(w.httpURL + "/console/")
	var consoleCookie string
	for _, c := range cc.c.Jar.Cookies(u) {
		if c.Name == console.CookieName {
			consoleCookie = c.Value
		}
	}
	if csrf == "" || consoleCookie == "" {
		t.Fatalf("console: csrf %q, cookie %q", csrf, consoleCookie)
	}
	w.consoleClient(t).tryLogin("opD1", consolePass)
	w.consoleClient(t).tryLogin(typedAsUser+"-console", consolePass)

	// Failures of the service: the store refuses every append, while
	// writes carry a password in their body, a capability in their query
	// and newlines and escapes in their path.
	failing.Store(true)
	do("PUT", bo+"/operatori/opLeak?UUID="+p.UUID, map[string]any{"ragioneSociale": "Leak", "password": bodyPass,
		"abilitato": true, "ruoli": []string{}}, asAdmin()).expect(t, 503, "503000")
	do("PUT", pe+"/pendenze/appA/x%0AFAKE%1B%5B31m?UUID="+p.UUID, pendenzaBodyFor(d1, t1, citizen2), as("appA"))
	do("PUT", pe+"/pendenze/appA/leak-2?UUID="+p.UUID, pendenzaBodyFor(d1, t1, citizen2), as("appA")).expect(t, 503, "503000")
	failing.Store(false)
	if n := strings.Count(log.String(), `"msg":"request failed"`); n == 0 {
		t.Fatal("no 'request failed' line: the failure path was not driven")
	}

	flushDecisions(t, w.srv)
	_, metrics := scrape(t, w.harness)

	secrets := map[string]string{"right password": pw, "wrong password": wrongPass, "API key": appKey, "wrong API key": wrongKey,
		"admin password": adminPass, "body password": bodyPass, "console password": consolePass,
		"session cookie": session.Value, "console cookie": consoleCookie, "CSRF token": csrf,
		"CAPTCHA token": captchaToken, "siteverify secret": svSecret, "notice UUID": p.UUID, "wrong UUID": wrongUUID,
		"basic credentials":     strings.TrimPrefix(basicHeader("appA", pw), "Basic "),
		"untrusted fiscal code": untrustedCode, "password typed as the username": typedAsUser, "payer's name": "Mario Rossi", "payer of a failed write": citizen2}
	logged := log.String()
	for what, s := range secrets {
		if strings.Contains(logged, s) {
			t.Errorf("the service log holds the %s %q", what, s)
		}
		if bytes.Contains(metrics, []byte(s)) {
			t.Errorf("/metrics holds the %s %q", what, s)
		}
	}
	for _, s := range []string{citizen1, p.NumeroAvviso, "leak-1", "/pendenze", "127.0.0.1"} {
		if bytes.Contains(metrics, []byte(s)) {
			t.Errorf("/metrics holds the identifier %q", s)
		}
	}
	// Answers: headers and error bodies name no secret of the caller's
	// (the session cookie is set by the answer that issued it, alone).
	for _, r := range answers {
		for what, s := range secrets {
			if what == "notice UUID" && r.Status < 300 {
				continue // the notice itself shows its UUID
			}
			hdr := r.Header.Clone()
			if r == pay {
				hdr.Del("Set-Cookie")
			}
			var b strings.Builder
			_ = hdr.Write(&b)
			if strings.Contains(b.String(), s) || (r.Status >= 400 && strings.Contains(string(r.Body), s)) {
				t.Errorf("an answer %d holds the %s %q: %s\n%s", r.Status, what, s, b.String(), r.Body)
			}
		}
	}

	// Every line is one JSON record: a newline or an escape the caller
	// sent is escaped, never written raw.
	recs := log.records(t)
	if strings.ContainsRune(logged, '\x1b') {
		t.Error("the service log holds a raw terminal escape")
	}
	// A citizen's fiscal code is the principal of its own spid decisions,
	// and nowhere else in the service log.
	for _, rec := range recs {
		line, _ := json.Marshal(rec)
		if !strings.Contains(string(line), citizen1) {
			continue
		}
		if rec["stream"] != "decision" || rec["principal"] != citizen1 || rec["auth"] != "spid" {
			t.Errorf("a log line other than the citizen's own spid decision holds its fiscal code: %s", line)
		}
	}
	var spid map[string]any
	for _, rec := range recs {
		if rec["request_id"] == "spid-own" {
			spid = rec
		}
	}
	if spid == nil || spid["principal"] != citizen1 || spid["kind"] != "CITIZEN" {
		t.Errorf("the citizen's spid decision: %v, want principal %s, kind CITIZEN", spid, citizen1)
	}
}
