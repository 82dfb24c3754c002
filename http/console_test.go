package httpapi

import (
	"crypto/x509/pkix"
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payauthz/payauthz/http/console"
)

// The console's handler tests drive the real server over loopback like a
// browser without JavaScript: a cookie jar, forms posted as
// application/x-www-form-urlencoded, redirects not followed so that each
// answer can be asserted.

type consoleClient struct {
	t    testing.TB
	base string
	c    *http.Client
	csrf string // the CSRF token of the last page read
	// version is the hidden field base of the last form read: the read
	// model's position its data was read at.
	version string
}

// consoleClient is a browser of the console; opts may send it over TLS
// (asCert, viaTLS) or from another local address (fromLocalAddr).
func (h *harness) consoleClient(t testing.TB, opts ...reqOpt) *consoleClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	r := &request{header: http.Header{}}
	for _, o := range opts {
		o(r)
	}
	base := h.httpURL
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if r.tls || r.remoteLocal != "" {
		tr = h.client(r).Transport.(*http.Transport).Clone()
	}
	if r.tls {
		base = h.httpsURL
	}
	return &consoleClient{t: t, base: base, c: &http.Client{Jar: jar, Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	Status   int
	Body     string
	Location string
	Header   http.Header
}

var (
	csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	baseField = regexp.MustCompile(`name="base" value="([^"]*)"`)
)

func (cc *consoleClient) do(req *http.Request) page {
	cc.t.Helper()
	res, err := cc.c.Do(req)
	if err != nil {
		cc.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	p := page{Status: res.StatusCode, Body: string(b), Location: res.Header.Get("Location"), Header: res.Header}
	if m := csrfField.FindStringSubmatch(p.Body); m != nil {
		cc.csrf = html.UnescapeString(m[1])
	}
	if m := baseField.FindStringSubmatch(p.Body); m != nil {
		cc.version = html.UnescapeString(m[1])
	}
	return p
}

func (cc *consoleClient) get(path string) page {
	cc.t.Helper()
	req, _ := http.NewRequest("GET", cc.base+path, nil)
	return cc.do(req)
}

// post sends form with the last page's CSRF token unless form sets csrf,
// and the last form's base unless form sets base, as a browser posts the
// form it shows.
func (cc *consoleClient) post(path string, form url.Values) page {
	cc.t.Helper()
	form = maps.Clone(form) // the caller's may be posted again, with the base of the page then
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", cc.csrf)
	}
	if _, ok := form["base"]; !ok && cc.version != "" {
		form.Set("base", cc.version)
	}
	req, _ := http.NewRequest("POST", cc.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return cc.do(req)
}

// login logs in with username and password and asserts success.
func (cc *consoleClient) login(user, pass string) {
	cc.t.Helper()
	if p := cc.tryLogin(user, pass); p.Status != http.StatusSeeOther || p.Location != "/console/" {
		cc.t.Fatalf("login %s: status %d, location %q: %s", user, p.Status, p.Location, p.Body)
	}
}

func (cc *consoleClient) tryLogin(user, pass string) page {
	cc.t.Helper()
	cc.get("/console/login")
	return cc.post("/console/login", url.Values{"username": {user}, "password": {pass}})
}

func (p page) expect(t testing.TB, status int, contains ...string) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status = %d, want %d; body:\n%s", p.Status, status, p.Body)
	}
	for _, s := range contains {
		if !strings.Contains(p.Body, s) {
			t.Fatalf("body lacks %q:\n%s", s, p.Body)
		}
	}
}

func (p page) lacks(t testing.TB, s ...string) {
	t.Helper()
	for _, x := range s {
		if strings.Contains(p.Body, x) {
			t.Fatalf("body shows %q:\n%s", x, p.Body)
		}
	}
}

func TestConsoleLogin(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.putOperator(t, "spidOp", pw, true, "readOnly")
	w.putOperator(t, "RSSMRA80A01H501U", pw, true, "readOnly")
	w.putOperator(t, "CN=op-cert, O=Ente, C=IT", pw, true, "readOnly")

	t.Run("password_ok_sets_a_strict_httponly_cookie", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.get("/console/login").expect(t, 200, `lang="it"`, `<label for="username">`, `<label for="password">`)
		p := cc.post("/console/login", url.Values{"username": {adminUser}, "password": {adminPass}})
		if p.Status != http.StatusSeeOther {
			t.Fatalf("status %d: %s", p.Status, p.Body)
		}
		var ck string
		for _, v := range p.Header.Values("Set-Cookie") {
			if strings.HasPrefix(v, console.CookieName+"=") {
				ck = v
			}
		}
		for _, want := range []string{"HttpOnly", "SameSite=Strict", "Path=/console/"} {
			if !strings.Contains(ck, want) {
				t.Fatalf("cookie %q lacks %s", ck, want)
			}
		}
		if strings.Contains(ck, "Secure") {
			t.Fatalf("cookie %q is Secure on the plain listener", ck)
		}
		cc.get("/console/").expect(t, 200, "Profilo", "Amministratore", "Applicazioni")
	})
	t.Run("wrong_password_refused", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.tryLogin(adminUser, "wrong").expect(t, 401, "Credenziali non valide", `value="admin"`)
		cc.get("/console/").expect(t, 303)
	})
	t.Run("operator_without_role_refused", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.tryLogin("opNoRole", pw).expect(t, 403, "Credenziali non valide")
	})
	t.Run("disabled_operator_refused", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.tryLogin("opDisabled", pw).expect(t, 403)
	})
	t.Run("login_without_csrf_refused", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.get("/console/login")
		cc.post("/console/login", url.Values{"username": {adminUser}, "password": {adminPass}, "csrf": {"forged"}}).expect(t, 403)
		cc.get("/console/").expect(t, 303)
	})
	t.Run("client_certificate_on_tls_with_secure_cookie", func(t *testing.T) {
		cert := w.ca.ClientCert(t, pkix.Name{CommonName: "op-cert", Organization: []string{"Ente"}, Country: []string{"IT"}})
		cc := w.consoleClient(t, asCert(cert))
		cc.get("/console/login").expect(t, 200, "Accedi con il certificato")
		p := cc.post("/console/login/certificato", url.Values{})
		if p.Status != http.StatusSeeOther || !strings.Contains(strings.Join(p.Header.Values("Set-Cookie"), ";"), "Secure") {
			t.Fatalf("status %d, cookies %v: %s", p.Status, p.Header.Values("Set-Cookie"), p.Body)
		}
		cc.get("/console/").expect(t, 200, "CN=op-cert, O=Ente, C=IT")
	})
	t.Run("untrusted_certificate_refused", func(t *testing.T) {
		cert := w.otherCA.ClientCert(t, pkix.Name{CommonName: "op-cert", Organization: []string{"Ente"}, Country: []string{"IT"}})
		cc := w.consoleClient(t, asCert(cert))
		cc.get("/console/login")
		cc.post("/console/login/certificato", url.Values{}).expect(t, 401)
	})
	t.Run("spid_through_trusted_proxy", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.get("/console/login")
		form := url.Values{"csrf": {cc.csrf}}
		req, _ := http.NewRequest("POST", cc.base+"/console/login/spid", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(spidHeader, "RSSMRA80A01H501U")
		cc.do(req).expect(t, 303)
		cc.get("/console/").expect(t, 200, "RSSMRA80A01H501U")
	})
}

// TestConsoleLoginThrottled: the login form goes through the API's
// failed-login throttles. Past the burst of wrong passwords for a principal
// from one address the form is refused with 429 and, as the API's answer,
// Retry-After (README, Limits); that address cannot log in even with the
// right password meanwhile, while the principal, from its own address,
// still can.
func TestConsoleLoginThrottled(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withLoginThrottle())
	attacker := w.consoleClient(t, fromLocalAddr("127.0.0.3"))
	for i := range DefaultFailedLoginsPerPrincipal {
		attacker.tryLogin("opRO", "wrong-"+strconv.Itoa(i)).expect(t, http.StatusUnauthorized, "Credenziali non valide")
	}
	for _, pass := range []string{"wrong-again", pw} {
		p := attacker.tryLogin("opRO", pass)
		p.expect(t, http.StatusTooManyRequests, "Troppi tentativi di accesso")
		if s, err := strconv.Atoi(p.Header.Get("Retry-After")); err != nil || s < 1 {
			t.Fatalf("429 with Retry-After %q, want whole seconds >= 1", p.Header.Get("Retry-After"))
		}
	}
	attacker.get("/console/").expect(t, http.StatusSeeOther)
	victim := w.consoleClient(t, fromLocalAddr("127.0.0.4"))
	victim.login("opRO", pw)
	victim.get("/console/").expect(t, http.StatusOK, "opRO")
}

// TestConsoleFormOverTheHashBudget: a form that sets a password hashes it
// in the password budget; when no slot frees within the wait, the page is
// the API's 429 with Retry-After: 1 (README, Limits) and nothing is
// written.
func TestConsoleFormOverTheHashBudget(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withPasswordVerifications(1))
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	cc.get("/console/operatori?nuovo")
	form := url.Values{"nuovo": {"1"}, "principal": {"opBudget"}, "ragioneSociale": {"Ente"}, "password": {"budget-password-1"},
		"abilitato": {"on"}, "ruoli": {"readOnly"}}
	w.srv.logins.slots <- struct{}{} // the one slot is busy
	p := cc.post("/console/operatori", form)
	<-w.srv.logins.slots
	p.expect(t, http.StatusTooManyRequests, "Troppe richieste")
	if got := p.Header.Get("Retry-After"); got != "1" {
		t.Fatalf("429 with Retry-After %q, want 1", got)
	}
	if _, ok := w.model.Operator("opBudget"); ok {
		t.Fatal("a form refused by the budget wrote the operator")
	}
	cc.post("/console/operatori", form).expect(t, http.StatusSeeOther)
}

func TestConsoleSessions(t *testing.T) {
	t.Parallel()
	w := newWorld(t)

	t.Run("logout_ends_the_session", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login(adminUser, adminPass)
		cc.get("/console/").expect(t, 200)
		cc.post("/console/logout", url.Values{}).expect(t, 303)
		cc.get("/console/").expect(t, 303)
	})
	t.Run("logout_without_csrf_refused", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login(adminUser, adminPass)
		cc.get("/console/")
		cc.post("/console/logout", url.Values{"csrf": {""}}).expect(t, 403, "CSRF")
		cc.get("/console/").expect(t, 200)
	})
	t.Run("disabled_operator_session_ends_on_next_request", func(t *testing.T) {
		w.putOperator(t, "opToDisable", pw, true, "readOnly")
		cc := w.consoleClient(t)
		cc.login("opToDisable", pw)
		cc.get("/console/").expect(t, 200)
		w.putOperator(t, "opToDisable", pw, false, "readOnly")
		cc.get("/console/").expect(t, 303)
		w.putOperator(t, "opToDisable", pw, true, "readOnly")
		cc.get("/console/").expect(t, 303) // ended, not suspended
	})
	t.Run("password_change_ends_the_session", func(t *testing.T) {
		w.putOperator(t, "opPw", pw, true, "readOnly")
		cc := w.consoleClient(t)
		cc.login("opPw", pw)
		w.putOperator(t, "opPw", "another-password-1", true, "readOnly")
		cc.get("/console/").expect(t, 303)
	})
	t.Run("role_change_ends_the_session", func(t *testing.T) {
		w.putOperator(t, "opRoles", pw, true, "readOnly")
		cc := w.consoleClient(t)
		cc.login("opRoles", pw)
		w.putOperator(t, "opRoles", pw, true, "opD1")
		cc.get("/console/").expect(t, 303)
	})
	t.Run("idle_and_absolute_expiry", func(t *testing.T) {
		now := time.Now()
		w.srv.console.SetClock(func() time.Time { return now })
		t.Cleanup(func() { w.srv.console.SetClock(time.Now) })
		cc := w.consoleClient(t)
		cc.login(adminUser, adminPass)
		now = now.Add(29 * time.Minute)
		cc.get("/console/").expect(t, 200)
		now = now.Add(31 * time.Minute)
		cc.get("/console/").expect(t, 303)

		cc.login(adminUser, adminPass)
		for i := 0; i < 17; i++ { // used every 29 minutes: idle never, 8 h absolute
			now = now.Add(29 * time.Minute)
			p := cc.get("/console/")
			if i < 16 && p.Status != 200 || i == 16 && p.Status != 303 {
				t.Fatalf("after %d×29 min: status %d", i+1, p.Status)
			}
		}
	})
	t.Run("forged_cookie_goes_to_login", func(t *testing.T) {
		cc := w.consoleClient(t)
		u, _ := url.Parse(cc.base + "/console/")
		cc.c.Jar.SetCookies(u, []*http.Cookie{{Name: console.CookieName, Value: "forged", Path: "/console/"}})
		cc.get("/console/").expect(t, 303)
		cc.post("/console/impostazioni", url.Values{"csrf": {"x"}, "abilitato": {"on"}}).expect(t, 401)
	})
}

func TestConsoleDisabled(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv, err := New(Config{Console: console.Config{Disabled: true}}, h.store, h.model, h.cmds, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/console/", "/console/login", "/console/static/console.css"} {
		req, _ := http.NewRequest("GET", path, nil)
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusNotFound {
			t.Fatalf("%s: status %d, want 404", path, rec.Code)
		}
	}
	cc := h.consoleClient(t)
	cc.get("/console/login").expect(t, 200)
}

// TestConsoleStaticFolderIsNotListed: the console's static files are
// served, but their folder is no page: it answers as any unknown console
// path does (404), not with a listing of the files.
func TestConsoleStaticFolderIsNotListed(t *testing.T) {
	t.Parallel()
	cc := newHarness(t).consoleClient(t)
	// An unknown path is the console's own page, in Italian with a way
	// back, not the mux's plain-text "404 page not found".
	unknown := cc.get("/console/nessuna-pagina")
	unknown.expect(t, http.StatusNotFound, `<html lang="it">`, "<h1>Risorsa non trovata</h1>", `<a href="/console/">`)
	for _, path := range []string{"/console/static/", "/console/static"} {
		p := cc.get(path)
		p.expect(t, http.StatusNotFound)
		if p.Body != unknown.Body {
			t.Fatalf("%s: %q, want what an unknown path answers, %q", path, p.Body, unknown.Body)
		}
	}
	// So is a form posted where no page takes one: the console's page,
	// not the mux's plain-text 405.
	for _, path := range []string{"/console/nessuna-pagina", "/console/pagamenti", "/console/static/console.css"} {
		p := cc.post(path, url.Values{})
		p.expect(t, http.StatusNotFound)
		if p.Body != unknown.Body {
			t.Fatalf("POST %s: %q, want what an unknown path answers, %q", path, p.Body, unknown.Body)
		}
	}
	cc.get("/console/static/console.css").expect(t, http.StatusOK, "payauthz console")
	cc.get("/console/static/console.js").expect(t, http.StatusOK, "Optional enhancement")
}

// TestConsoleChangeOwnPassword: an operator changes its own password on
// its profile page (PATCH /profilo's change), with no Anagrafica right.
// The form asks for the current password, checked as a login checks it,
// and the new one twice; a refusal keeps the old password and says why
// next to its field. The change ends the session it was made in, as it
// ends the operator's others, and the login page says so.
func TestConsoleChangeOwnPassword(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.putOperator(t, "opOwnPw", pw, true, "readOnly")
	cc := w.consoleClient(t)
	cc.login("opOwnPw", pw)
	cc.get("/console/").expect(t, 200, `id="modulo-password"`, `<label for="attuale">`, `<label for="password">`, `<label for="conferma">`)
	const newPw = "a-new-password-1"
	for _, c := range []struct {
		name                   string
		current, next, confirm string
		status                 int
		field, says            string
	}{
		{"wrong_current", "wrong-password", newPw, newPw, 400, "attuale", "La password attuale non è corretta."},
		{"confirmation_differs", pw, newPw, newPw + "x", 400, "conferma", "Le due password non coincidono."},
		{"too_short", pw, "short", "short", 400, "password", "password: almeno 8 caratteri."},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := cc.post("/console/profilo/password", url.Values{"attuale": {c.current}, "password": {c.next}, "conferma": {c.confirm}})
			p.expect(t, c.status, `aria-describedby="err-`+c.field+`"`, `<span class="errore-campo" id="err-`+c.field+`">`+html.EscapeString(c.says))
			w.do(t, "GET", bo+"/profilo", nil, as("opOwnPw")).expect(t, 200, "") // the old password still holds
		})
	}
	p := cc.post("/console/profilo/password", url.Values{"attuale": {pw}, "password": {newPw}, "conferma": {newPw}})
	if p.Status != http.StatusSeeOther || p.Location != "/console/login?password=cambiata" {
		t.Fatalf("change: status %d, location %q: %s", p.Status, p.Location, p.Body)
	}
	cc.get("/console/login?password=cambiata").expect(t, 200, "La tua password è stata cambiata: accedi con quella nuova.")
	if p := cc.get("/console/"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/console/login") {
		t.Fatalf("the session lives on after the change: %d %q", p.Status, p.Location)
	}
	w.do(t, "GET", bo+"/profilo", nil, as("opOwnPw")).expect(t, 401, "")
	w.do(t, "GET", bo+"/profilo", nil, asBasic("opOwnPw", newPw)).expect(t, 200, "")
	cc.login("opOwnPw", newPw)
}

// TestConsoleChangeOwnPasswordBoundsTheCurrentOne: the current password
// the form asks for is bounded as the login's is (1,024 bytes): a longer
// one, which no password is, is refused without reaching the credential
// path, so it costs no hashing and counts against no failed-login
// throttle, as a login that long does not. It reached the path, and the
// sixth was throttled (429).
func TestConsoleChangeOwnPasswordBoundsTheCurrentOne(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withLoginThrottle())
	w.putOperator(t, "opLongPw", pw, true, "readOnly")
	cc := w.consoleClient(t)
	cc.login("opLongPw", pw)
	cc.get("/console/").expect(t, 200, `id="modulo-password"`) // the form, and its CSRF token
	change := func(current string) page {
		return cc.post("/console/profilo/password", url.Values{"attuale": {current}, "password": {"a-new-password-1"}, "conferma": {"a-new-password-1"}})
	}
	for range DefaultFailedLoginsPerPrincipal + 1 {
		change(strings.Repeat("x", 1025)).expect(t, 400, "La password attuale non è corretta.")
	}
	change("wrong-password").expect(t, 400, "La password attuale non è corretta.") // checked, not throttled
}
