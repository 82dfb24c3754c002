package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// sessionCookieOf returns the PAYAUTHZ_SESSION cookie an answer sets, or nil.
func sessionCookieOf(r *response) *http.Cookie {
	for _, c := range r.Cookies {
		if c.Name == SessionCookie {
			return c
		}
	}
	return nil
}

// TestAnonymousWriteAnsweredWith503KeepsItsSession: an anonymous write
// (a payment, a pendenza) whose local apply outlasts --consistency-wait is
// answered 503, and that answer still sets the PAYAUTHZ_SESSION cookie of
// the session it was written in: with it the caller reads what it wrote.
// Without it the write would belong to a session nobody holds.
func TestAnonymousWriteAnsweredWith503KeepsItsSession(t *testing.T) {
	t.Parallel() // each test runs its own service
	dir := t.TempDir()
	setup := newHarness(t, withDataDir(dir))
	setup.putEntity(t, d1)
	setup.putType(t, tSpont, true)
	setup.stop()
	// The same log on a replica whose every apply outlasts its wait.
	h := newHarness(t, withDataDir(dir), withConsistencyWait(time.Nanosecond))
	for _, c := range anonymousWrites(h) {
		t.Run(c.name, func(t *testing.T) {
			// The projections may win the race against the wait now and
			// then (201, with the cookie): try again until a 503 comes.
			var r *response
			for range 5 {
				if r = h.do(t, "POST", c.path, c.body); r.Status != http.StatusCreated {
					break
				}
			}
			readsWithItsSession(t, h, r, c) // the last one written is the 503's: the tries are sequential
		})
	}
}

// TestSecureCookiesSetting: with Config.SecureCookies (a proxy terminates
// TLS, the server sees plain HTTP) every cookie the service sets is
// Secure over plain HTTP: the public session a payment starts, the one
// its logout expires, the console's. Without it only a TLS request's are.
func TestSecureCookiesSetting(t *testing.T) {
	t.Parallel() // each test runs its own service
	for _, c := range []struct {
		name string
		opts []harnessOption
		want bool // Secure over plain HTTP
	}{
		{"off_plain_http_not_secure", nil, false},
		{"on_plain_http_secure", []harnessOption{withSecureCookies()}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, c.opts...)
			h.putEntity(t, d1)
			h.putType(t, tSpont, true)
			check := func(what string, cookies []*http.Cookie, want bool) {
				t.Helper()
				if len(cookies) == 0 {
					t.Fatalf("%s: no cookie set", what)
				}
				for _, ck := range cookies {
					if ck.Secure != want {
						t.Errorf("%s: cookie %s Secure = %v, want %v", what, ck.Name, ck.Secure, want)
					}
				}
			}
			const pub = "/pagamento/rs/public/v2"
			paid := h.do(t, "POST", pub+"/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "idTipoPendenza": tSpont,
				"importo": 5, "causale": "Dono", "soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}}}})
			paid.expect(t, http.StatusCreated, "")
			if sessionCookieOf(paid) == nil {
				t.Fatalf("the anonymous payment set no %s cookie", SessionCookie)
			}
			check("payment", paid.Cookies, c.want)
			out := h.do(t, "GET", pub+"/logout", nil)
			out.expect(t, http.StatusOK, "")
			check("logout", out.Cookies, c.want)
			check("logout_over_tls", h.do(t, "GET", pub+"/logout", nil, viaTLS()).Cookies, true)
			login := h.consoleClient(t).get("/console/login")
			login.expect(t, http.StatusOK)
			check("console_login", (&http.Response{Header: login.Header}).Cookies(), c.want)
		})
	}
}

// TestUnverifiableSessionCookieIsExpired: a PAYAUTHZ_SESSION the server
// cannot verify (forged, tampered, or signed with a key since replaced)
// is answered 401 and expired, so that the browser's next request is a
// new anonymous caller rather than another 401; /logout clears it too.
func TestUnverifiableSessionCookieIsExpired(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	h.putType(t, tSpont, true)
	const pub = "/pagamento/rs/public/v2"
	stale := &http.Cookie{Name: SessionCookie, Value: "AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}
	for _, path := range []string{pub + "/domini", pub + "/logout"} {
		res := h.do(t, "GET", path, nil, withCookie(stale))
		res.expect(t, http.StatusUnauthorized, "401000")
		if ck := sessionCookieOf(res); ck == nil || ck.MaxAge >= 0 || ck.Value != "" {
			t.Fatalf("GET %s with an unverifiable session: cookie %v, want %s expired", path, ck, SessionCookie)
		}
	}
	h.do(t, "GET", pub+"/domini", nil).expect(t, http.StatusOK, "") // the browser without it
	paid := h.do(t, "POST", pub+"/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "idTipoPendenza": tSpont,
		"importo": 5, "causale": "Dono", "soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}}}})
	paid.expect(t, http.StatusCreated, "")
	if res := h.do(t, "GET", pub+"/domini", nil, withCookie(sessionCookieOf(paid))); res.Status != http.StatusOK || sessionCookieOf(res) != nil &&
		sessionCookieOf(res).MaxAge < 0 {
		t.Fatalf("a valid session: %d, cookie %v; want 200 and the cookie kept", res.Status, sessionCookieOf(res))
	}
}

// TestAnonymousWriteWithoutTheStoresAnswerKeepsItsSession: an anonymous
// write whose append the store made but did not acknowledge (an outage
// between the two) is answered 503, and that answer still sets the
// PAYAUTHZ_SESSION cookie of the session it was written in: the payment
// or pendenza may exist, and only that cookie reads it (API.md section 6).
func TestAnonymousWriteWithoutTheStoresAnswerKeepsItsSession(t *testing.T) {
	t.Parallel() // each test runs its own service
	var lose atomic.Bool
	h := newHarness(t, withAfterAppend(func(stream string, pos events.Position, err error) (events.Position, error) {
		lost := strings.HasPrefix(stream, events.StreamPagamento) || strings.HasPrefix(stream, events.StreamPendenza+domain.PortalIDA2A+"/")
		if err == nil && lost && lose.Load() {
			return 0, fmt.Errorf("%w: the acknowledgement was lost", events.ErrUnavailable)
		}
		return pos, err
	}))
	h.putEntity(t, d1)
	h.putType(t, tSpont, true)
	lose.Store(true)
	for _, c := range anonymousWrites(h) {
		t.Run(c.name, func(t *testing.T) {
			if n := readsWithItsSession(t, h, h.do(t, "POST", c.path, c.body), c); n != 1 {
				t.Fatalf("%d written, want 1", n)
			}
		})
	}
}

// anonymousWrite is a write of the public Pagamento API that binds what
// it writes to the caller's session: path and body, and written, which
// names the GET of the last one written and how many there are.
type anonymousWrite struct {
	name    string
	path    string
	body    map[string]any
	written func(t *testing.T) (read string, n int)
}

// anonymousWrites are the public API's writes (a payment, a pendenza) of
// a spontaneous type tSpont at d1, as h's model shows what they wrote.
func anonymousWrites(h *harness) []anonymousWrite {
	payer := map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}
	const pub = "/pagamento/rs/public/v2"
	return []anonymousWrite{
		{"payment", pub + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "idTipoPendenza": tSpont,
			"importo": 5, "causale": "Dono", "soggettoPagatore": payer}}},
			func(t *testing.T) (string, int) {
				all := h.model.Payments(func(*projections.Payment) bool { return true })
				if len(all) == 0 {
					t.Fatal("no payment was written")
				}
				return pub + "/pagamenti/" + all[len(all)-1].Event.ID, len(all)
			}},
		{"pendenza", pub + "/pendenze/" + d1 + "/" + tSpont, map[string]any{"causale": "Dono", "importo": 5, "soggettoPagatore": payer},
			func(t *testing.T) (string, int) {
				mine := h.model.Pendenze(projections.PendenzeFilter{Creator: domain.PortalIDA2A})
				if len(mine) == 0 {
					t.Fatal("no pendenza was written")
				}
				last := mine[len(mine)-1]
				return pub + "/pendenze/" + last.IDA2A + "/" + last.IDPendenza, len(mine)
			}},
	}
}

// readsWithItsSession asserts that r, the answer to w, is a 503 that sets
// the PAYAUTHZ_SESSION cookie of the session w was written in, and that
// once the log is applied that cookie reads the last one w wrote while a
// new session may not. It returns how many w's kind there are.
func readsWithItsSession(t *testing.T, h *harness, r *response, w anonymousWrite) (n int) {
	t.Helper()
	r.expect(t, http.StatusServiceUnavailable, "503000")
	session := sessionCookieOf(r)
	if session == nil {
		t.Fatalf("the 503 after the write sets no %s cookie; Set-Cookie %q", SessionCookie, r.Header.Values("Set-Cookie"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.model.WaitFor(ctx, h.logEnd(t)); err != nil {
		t.Fatal(err)
	}
	read, n := w.written(t)
	h.must(t, "GET", read, nil, withCookie(session))
	h.do(t, "GET", read, nil).expect(t, http.StatusForbidden, "403000") // a new session, not the writer's
	return n
}
