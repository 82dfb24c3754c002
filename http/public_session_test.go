package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
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
// cannot verify (forged, tampered — its issue time included, as a client
// extending its session would — or signed with a key since replaced) is
// answered 401 and expired, so that the browser's next request is a new
// anonymous caller rather than another 401; /logout clears it too.
func TestUnverifiableSessionCookieIsExpired(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	h.putType(t, tSpont, true)
	const pub = "/pagamento/rs/public/v2"
	paid := h.do(t, "POST", pub+"/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "idTipoPendenza": tSpont,
		"importo": 5, "causale": "Dono", "soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}}}})
	paid.expect(t, http.StatusCreated, "")
	valid := sessionCookieOf(paid)
	if res := h.do(t, "GET", pub+"/domini", nil, withCookie(valid)); res.Status != http.StatusOK || sessionCookieOf(res) != nil &&
		sessionCookieOf(res).MaxAge < 0 {
		t.Fatalf("a valid session: %d, cookie %v; want 200 and the cookie kept", res.Status, sessionCookieOf(res))
	}
	payload, mac, _ := strings.Cut(valid.Value, ".")
	raw, err := sessionEncoding.DecodeString(payload)
	if err != nil || len(raw) != sessionPayloadLen {
		t.Fatalf("session cookie %q: %v", valid.Value, err)
	}
	raw[sessionPayloadLen-2]++ // issued some minutes later, the MAC kept
	for _, c := range []struct{ name, value string }{
		{"forged", "AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"forged_with_a_time", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"issue_time_tampered", sessionEncoding.EncodeToString(raw) + "." + mac},
	} {
		t.Run(c.name, func(t *testing.T) {
			stale := &http.Cookie{Name: SessionCookie, Value: c.value}
			for _, path := range []string{pub + "/domini", pub + "/logout"} {
				res := h.do(t, "GET", path, nil, withCookie(stale))
				res.expect(t, http.StatusUnauthorized, "401000")
				if ck := sessionCookieOf(res); ck == nil || ck.MaxAge >= 0 || ck.Value != "" {
					t.Fatalf("GET %s with an unverifiable session: cookie %v, want %s expired", path, ck, SessionCookie)
				}
			}
		})
	}
	h.do(t, "GET", pub+"/domini", nil).expect(t, http.StatusOK, "") // the browser without it
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

// TestAnonymousSessionEnds: an anonymous session lasts DefaultSessionTTL
// from its issue, however it is used. Within it the session's cookie reads
// what it wrote (Max-Age and Expires say how long is left); a second
// write in it sets no newer cookie and extends nothing; from its end the
// cookie is answered exactly as no cookie is (the same status, body and
// cookies), and a write with it starts a new session. A cookie of the
// format before sessions ended (the id alone, signed) is no session
// either, even of a session still running.
func TestAnonymousSessionEnds(t *testing.T) {
	t.Parallel() // each test runs its own service
	start := time.Now().Truncate(time.Second)
	var clock atomic.Int64 // the sessions' clock, Unix seconds
	clock.Store(start.Unix())
	at := func(d time.Duration) { clock.Store(start.Add(d).Unix()) }
	h := newHarness(t, withSessionClock(func() time.Time { return time.Unix(clock.Load(), 0) }))
	h.putEntity(t, d1)
	h.putType(t, tSpont, true)
	const pub = "/pagamento/rs/public/v2"
	asIfNone := func(t *testing.T, method, path string, body any, ck *http.Cookie) *response {
		t.Helper()
		with, without := h.do(t, method, path, body, withCookie(ck)), h.do(t, method, path, body)
		if with.Status != without.Status || string(with.Body) != string(without.Body) ||
			!reflect.DeepEqual(with.Header.Values("Set-Cookie"), without.Header.Values("Set-Cookie")) {
			t.Fatalf("%s %s with an ended session: %d %s %q; without a cookie: %d %s %q", method, path,
				with.Status, with.Body, with.Header.Values("Set-Cookie"), without.Status, without.Body, without.Header.Values("Set-Cookie"))
		}
		return with
	}
	for _, w := range anonymousWrites(h) {
		t.Run(w.name, func(t *testing.T) {
			at(0)
			first := h.do(t, "POST", w.path, w.body)
			first.expect(t, http.StatusCreated, "")
			session := sessionCookieOf(first)
			if session == nil || session.MaxAge != int(DefaultSessionTTL/time.Second) || !session.Expires.Equal(start.Add(DefaultSessionTTL)) {
				t.Fatalf("the session's cookie %v, want Max-Age %d and Expires %v", session, int(DefaultSessionTTL/time.Second), start.Add(DefaultSessionTTL))
			}
			read1, _ := w.written(t)
			h.must(t, "GET", read1, nil, withCookie(session))

			at(DefaultSessionTTL - time.Hour) // used again late in its life
			again := h.do(t, "POST", w.path, w.body, withCookie(session))
			again.expect(t, http.StatusCreated, "")
			if ck := sessionCookieOf(again); ck != nil {
				t.Fatalf("a write in a running session set the cookie again: %v", ck)
			}
			read2, _ := w.written(t)
			at(DefaultSessionTTL - time.Second)
			h.must(t, "GET", read1, nil, withCookie(session))
			h.must(t, "GET", read2, nil, withCookie(session))
			legacy := legacySessionCookie(t, h, session)
			asIfNone(t, "GET", read1, nil, legacy).expect(t, http.StatusForbidden, "403000")

			at(DefaultSessionTTL)
			for _, read := range []string{pub + "/pendenze", pub + "/profilo"} {
				asIfNone(t, "GET", read, nil, session)
			}
			asIfNone(t, "GET", read1, nil, session).expect(t, http.StatusForbidden, "403000")
			asIfNone(t, "GET", read2, nil, session).expect(t, http.StatusForbidden, "403000")
			if l := asIfNone(t, "GET", pub+"/pagamenti", nil, session); l.Status != http.StatusOK || !strings.Contains(string(l.Body), `"numRisultati":0`) {
				t.Fatalf("GET /pagamenti with an ended session: %d %s, want 200 and none listed", l.Status, l.Body)
			}

			renewed := h.do(t, "POST", w.path, w.body, withCookie(session))
			renewed.expect(t, http.StatusCreated, "")
			next := sessionCookieOf(renewed)
			if next == nil || next.Value == session.Value {
				t.Fatalf("a write with an ended session: cookie %v, want a new session's", next)
			}
			read3, _ := w.written(t)
			h.must(t, "GET", read3, nil, withCookie(next))
			h.do(t, "GET", read1, nil, withCookie(next)).expect(t, http.StatusForbidden, "403000")
		})
	}
}

// legacySessionCookie is the cookie of session's id in the format before
// sessions ended: base64url(id) "." base64url(HMAC-SHA256(key, id)),
// signed with h's key.
func legacySessionCookie(t *testing.T, h *harness, session *http.Cookie) *http.Cookie {
	t.Helper()
	payload, _, _ := strings.Cut(session.Value, ".")
	raw, err := sessionEncoding.DecodeString(payload)
	if err != nil || len(raw) != sessionPayloadLen {
		t.Fatalf("session cookie %q: %v", session.Value, err)
	}
	id := raw[:sessionIDLen]
	return &http.Cookie{Name: SessionCookie, Value: sessionEncoding.EncodeToString(id) + "." + sessionEncoding.EncodeToString(h.srv.session.mac(id))}
}
