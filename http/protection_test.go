package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// The protection tests drive the real service over loopback against a
// local HTTP server that speaks reCAPTCHA's siteverify protocol: the token
// a request carries selects the server's answer.

const (
	svSecret = "siteverify-secret-1"
	pgPublic = "/pagamento/rs/public/v2"
)

// siteverifyServer answers siteverify by token:
//
//	v2-ok, v2-fail              v2 success / failure
//	v3-above, v3-at, v3-below   v3 success with score 0.9, 0.5, 0.49
//	v3-fail-high                v3 failure with a high score
//	slow                        no answer until the client gives up
//	err500                      status 500 (with a success body)
//	garbage                     status 200, not JSON
//	no-success                  JSON without a success field
//	big-header                  a pass behind a 256 KiB header
//
// A request with another secret, or not a POST form, is answered
// success:false. It records every remoteip it was sent.
type siteverifyServer struct {
	*httptest.Server
	release chan struct{}
	mu      sync.Mutex
	calls   int // every request it was sent
	remotes []string
	secrets []string
	paths   []string // the path of each call
}

func newSiteverify(t *testing.T) *siteverifyServer {
	t.Helper()
	sv := &siteverifyServer{release: make(chan struct{})}
	sv.Server = httptest.NewServer(http.HandlerFunc(sv.serve))
	t.Cleanup(func() {
		close(sv.release)
		sv.Close()
	})
	return sv
}

func (sv *siteverifyServer) serve(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
	sv.mu.Lock()
	sv.calls++
	sv.mu.Unlock()
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.ParseForm() != nil {
		reply(200, `{"success":false,"error-codes":["bad-request"]}`)
		return
	}
	sv.mu.Lock()
	sv.remotes = append(sv.remotes, r.PostForm.Get("remoteip"))
	sv.secrets = append(sv.secrets, r.PostForm.Get("secret"))
	sv.paths = append(sv.paths, r.URL.Path)
	sv.mu.Unlock()
	if r.URL.Path == "/elsewhere" { // where "redirect" sends it: it would pass
		reply(200, `{"success":true}`)
		return
	}
	if r.PostForm.Get("secret") != svSecret {
		reply(200, `{"success":false,"error-codes":["invalid-input-secret"]}`)
		return
	}
	switch r.PostForm.Get("response") {
	case "v2-ok":
		reply(200, `{"success":true,"challenge_ts":"2026-01-02T10:00:00Z","hostname":"localhost"}`)
	case "v2-fail":
		reply(200, `{"success":false,"error-codes":["invalid-input-response"]}`)
	case "v3-above":
		reply(200, `{"success":true,"score":0.9,"action":"pay","hostname":"localhost"}`)
	case "v3-at":
		reply(200, `{"success":true,"score":0.5,"action":"pay"}`)
	case "v3-below":
		reply(200, `{"success":true,"score":0.49,"action":"pay"}`)
	case "v3-fail-high":
		reply(200, `{"success":false,"score":0.9,"error-codes":["timeout-or-duplicate"]}`)
	case "slow":
		select {
		case <-r.Context().Done():
		case <-sv.release:
		}
	case "err500":
		reply(500, `{"success":true}`)
	case "redirect":
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	case "garbage":
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html>ok</html>")
	case "no-success":
		reply(200, `{"score":0.9}`)
	case "big-header": // a pass, behind headers far over a siteverify reply's
		w.Header().Set("X-Padding", strings.Repeat("p", 256<<10))
		reply(200, `{"success":true}`)
	default:
		reply(200, `{"success":false,"error-codes":["invalid-input-response"]}`)
	}
}

// refusedURL is a loopback URL on which nothing listens.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr + "/siteverify"
}

// protect sets the hardening as the administrator.
func (w *world) protect(t *testing.T, enabled bool, serverURL string, denyOnFail bool, extra map[string]any) *response {
	t.Helper()
	captcha := map[string]any{"serverURL": serverURL, "secretKey": svSecret, "soglia": 0.5, "denyOnFail": denyOnFail,
		"timeoutMs": 300}
	for k, v := range extra {
		captcha[k] = v
	}
	return w.must(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": enabled, "captcha": captcha})
}

func noticeRef(p pendenzaView) map[string]any {
	return map[string]any{"pendenze": []map[string]any{{"idDominio": p.IDDominio, "numeroAvviso": p.NumeroAvviso}}}
}

func TestPublicProtectionCaptcha(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sv := newSiteverify(t)
	p := w.createPendenza(t, "appA", "cap-1", d1, t1, citizen1)
	avviso := pgPublic + "/avvisi/" + d1 + "/" + p.NumeroAvviso

	type outcome int
	const (
		pass outcome = iota
		fail
		unavailable // pass only when denyOnFail is false
	)
	cases := []struct {
		name    string
		token   string
		refused bool // the service is not listening
		want    outcome
	}{
		{"v2_success", "v2-ok", false, pass},
		{"v2_failure", "v2-fail", false, fail},
		{"v3_score_above_threshold", "v3-above", false, pass},
		{"v3_score_at_threshold", "v3-at", false, pass},
		{"v3_score_below_threshold", "v3-below", false, fail},
		{"v3_failure_with_high_score", "v3-fail-high", false, fail},
		{"unknown_token", "forged", false, fail},
		{"slow_beyond_timeout", "slow", false, unavailable},
		{"status_500", "err500", false, unavailable},
		{"garbage_body", "garbage", false, unavailable},
		{"json_without_success", "no-success", false, unavailable},
		{"redirected_not_followed", "redirect", false, unavailable}, // the secret goes nowhere else
		{"connection_refused", "v2-ok", true, unavailable},
	}
	refused := refusedURL(t)
	for _, denyOnFail := range []bool{true, false} {
		name := "deny_on_fail"
		if !denyOnFail {
			name = "pass_on_fail"
		}
		t.Run(name, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					serverURL := sv.URL + "/recaptcha/api/siteverify"
					if tc.refused {
						serverURL = refused
					}
					w.protect(t, true, serverURL, denyOnFail, nil)
					passes := tc.want == pass || tc.want == unavailable && !denyOnFail
					okGet, okPost := 403, 403
					if passes {
						okGet, okPost = 200, 201
					}
					r := w.do(t, "GET", avviso, nil, withHeader(commands.DefaultCaptchaParam, tc.token))
					r.expect(t, okGet, codiceOf(okGet))
					if passes {
						var v avvisoView
						r.decode(t, &v)
						if v.NumeroAvviso != p.NumeroAvviso {
							t.Fatalf("notice = %+v", v)
						}
					} else if strings.Contains(string(r.Body), svSecret) {
						t.Fatalf("the secret leaks in a denial: %s", r.Body)
					}
					w.do(t, "POST", pgPublic+"/pagamenti", noticeRef(p), withHeader(commands.DefaultCaptchaParam, tc.token)).
						expect(t, okPost, codiceOf(okPost))
				})
			}
			// No token is refused whatever denyOnFail says.
			w.protect(t, true, sv.URL, denyOnFail, nil)
			w.do(t, "GET", avviso, nil).expect(t, 403, "403000")
			w.do(t, "POST", pgPublic+"/pagamenti", noticeRef(p)).expect(t, 403, "403000")
		})
	}

	// The service was sent the configured secret and the caller's address.
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if len(sv.remotes) == 0 {
		t.Fatal("siteverify was never called")
	}
	for i := range sv.remotes {
		if sv.paths[i] != "/recaptcha/api/siteverify" {
			t.Fatalf("siteverify call %d went to %s: a redirect was followed with the secret", i, sv.paths[i])
		}
		if sv.remotes[i] != "127.0.0.1" || sv.secrets[i] != svSecret {
			t.Fatalf("siteverify call %d: remoteip %q secret ok %v", i, sv.remotes[i], sv.secrets[i] == svSecret)
		}
	}
}

func testTokenPlacement(t *testing.T, w *world, sv *siteverifyServer) {
	p := w.createPendenza(t, "appA", "tok-1", d1, t1, citizen1)
	avviso := pgPublic + "/avvisi/" + d1 + "/" + p.NumeroAvviso

	w.protect(t, true, sv.URL, true, nil)
	cases := []struct {
		name   string
		path   string
		opts   []reqOpt
		status int
	}{
		{"default_parameter_in_header", avviso, []reqOpt{withHeader("gRecaptchaResponse", "v2-ok")}, 200},
		{"default_parameter_in_query", avviso + "?gRecaptchaResponse=v2-ok", nil, 200},
		{"query_wins_over_header", avviso + "?gRecaptchaResponse=v2-fail", []reqOpt{withHeader("gRecaptchaResponse", "v2-ok")}, 403},
		{"other_parameter_name_ignored", avviso + "?captcha=v2-ok", nil, 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w.do(t, "GET", tc.path, nil, tc.opts...).expect(t, tc.status, codiceOf(tc.status))
		})
	}

	// A custom parametro replaces the default, in the query and the header.
	w.protect(t, true, sv.URL, true, map[string]any{"parametro": "captcha"})
	w.do(t, "GET", avviso+"?captcha=v2-ok", nil).expect(t, 200, "")
	w.do(t, "GET", avviso, nil, withHeader("captcha", "v2-ok")).expect(t, 200, "")
	w.do(t, "GET", avviso+"?gRecaptchaResponse=v2-ok", nil).expect(t, 403, "403000")

	// The GET of the setting never shows the secret.
	r := w.must(t, "GET", bo+"/configurazioni/hardening", nil)
	if strings.Contains(string(r.Body), svSecret) || strings.Contains(string(r.Body), "secretKey") {
		t.Fatalf("GET hardening shows the secret: %s", r.Body)
	}
	var hv hardeningView
	r.decode(t, &hv)
	if !hv.Abilitato || hv.Captcha.Parametro != "captcha" || hv.Captcha.TimeoutMs != 300 || !hv.Captcha.DenyOnFail {
		t.Fatalf("hardening = %+v", hv)
	}

	// Switching the protection off without a captcha object keeps the
	// stored settings, secret included: switching it on again works.
	w.must(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": false})
	var off hardeningView
	w.must(t, "GET", bo+"/configurazioni/hardening", nil).decode(t, &off)
	if off.Abilitato || off.Captcha.ServerURL != sv.URL || off.Captcha.Parametro != "captcha" || off.Captcha.TimeoutMs != 300 {
		t.Fatalf("hardening switched off lost its settings: %+v", off)
	}
	w.do(t, "GET", avviso, nil).expect(t, 200, "")
	w.must(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": true, "captcha": map[string]any{"serverURL": sv.URL, "parametro": "captcha"}})
	w.do(t, "GET", avviso+"?captcha=v2-ok", nil).expect(t, 200, "")
	w.do(t, "GET", avviso, nil).expect(t, 403, "403000")

}

// protectedNotice is a world whose public API is protected, denying on
// failure, with sv as its siteverify service (extra: more captcha
// settings), and the public path of one of its notices.
func protectedNotice(t *testing.T, extra map[string]any, opts ...harnessOption) (*world, *siteverifyServer, string) {
	t.Helper()
	w := newWorld(t, opts...)
	sv := newSiteverify(t)
	p := w.createPendenza(t, "appA", "protected", d1, t1, citizen1)
	w.protect(t, true, sv.URL, true, extra)
	return w, sv, pgPublic + "/avvisi/" + d1 + "/" + p.NumeroAvviso
}

// TestCaptchaTokenIsBounded: the token is the public's to choose, up to
// the header block's 64 KiB, and was sent on to the service as it came. A
// token longer than maxCaptchaToken bytes now fails the check (403, also
// when denyOnFail is off: the check did not pass, the service did not
// fail) and the service is not asked; one of that length still is.
func TestCaptchaTokenIsBounded(t *testing.T) {
	t.Parallel()
	w, sv, avviso := protectedNotice(t, nil)
	byAvviso := strings.Replace(avviso, "/avvisi/", "/pendenze/byAvviso/", 1)
	payment := map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "numeroAvviso": path.Base(avviso)}}}
	param := commands.DefaultCaptchaParam
	long := strings.Repeat("v", maxCaptchaToken+1)
	calls := func() int {
		sv.mu.Lock()
		defer sv.mu.Unlock()
		return sv.calls
	}
	for _, denyOnFail := range []bool{true, false} {
		w.protect(t, true, sv.URL, denyOnFail, nil)
		w.do(t, "GET", avviso, nil, withHeader(param, long)).expect(t, 403, "403000")
		w.do(t, "GET", avviso+"?"+param+"="+long, nil).expect(t, 403, "403000")
		w.do(t, "GET", byAvviso, nil, withHeader(param, long)).expect(t, 403, "403000")
		w.do(t, "POST", pgPublic+"/pagamenti", payment, withHeader(param, long)).expect(t, 403, "403000")
		if n := calls(); n != 0 {
			t.Fatalf("denyOnFail %v: a token of %d bytes reached the service (%d calls)", denyOnFail, len(long), n)
		}
	}
	w.do(t, "GET", avviso, nil, withHeader(param, long[1:])).expect(t, 403, "403000") // not a token the service passes
	if n := calls(); n != 1 {
		t.Fatalf("a token of %d bytes: %d calls to the service, want 1", maxCaptchaToken, n)
	}
}

// TestCaptchaReplyHeadersAreBounded: a siteverify reply's body was read
// up to 64 KiB but its headers up to Go's client default of 10 MiB, for
// each of the checks in flight. Headers
// over maxSiteverifyHeader now make the reply one that is not siteverify's
// (unavailable: 403 with denyOnFail), whatever its body says.
func TestCaptchaReplyHeadersAreBounded(t *testing.T) {
	t.Parallel()
	w, _, avviso := protectedNotice(t, nil)
	param := commands.DefaultCaptchaParam
	w.do(t, "GET", avviso, nil, withHeader(param, "big-header")).expect(t, 403, "403000")
	w.do(t, "GET", avviso, nil, withHeader(param, "v2-ok")).expect(t, 200, "")
}

// TestCaptchaChecksAreBounded: however many public requests carry a
// token, no more siteverify calls than the limit are in flight; the
// others are answered 429 at once, and once the calls end a check runs
// again.
func TestCaptchaChecksAreBounded(t *testing.T) {
	t.Parallel()
	w, sv, avviso := protectedNotice(t, map[string]any{"timeoutMs": 30000}, withCaptchaChecks(2))
	held := make(chan int, 2)
	for range 2 {
		go func() { held <- w.do(t, "GET", avviso+"?gRecaptchaResponse=slow", nil).Status }()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sv.mu.Lock()
		n := len(sv.secrets)
		sv.mu.Unlock()
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d checks reached the service, want 2", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	byAvviso := strings.Replace(avviso, "/avvisi/", "/pendenze/byAvviso/", 1) // protected the same way (API.md section 7)
	for i := range 6 {
		path := avviso
		if i%2 == 1 {
			path = byAvviso
		}
		r := w.do(t, "GET", path+"?gRecaptchaResponse=v2-ok", nil)
		r.expect(t, 429, "429000")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
	}
	sv.mu.Lock()
	n := len(sv.secrets)
	sv.mu.Unlock()
	if n != 2 {
		t.Fatalf("%d checks reached the service while both slots were held, want 2", n)
	}
	sv.release <- struct{}{}
	sv.release <- struct{}{}
	for range 2 {
		if st := <-held; st != 403 {
			t.Fatalf("held check answered %d, want 403 (no answer, denyOnFail)", st)
		}
	}
	w.do(t, "GET", avviso+"?gRecaptchaResponse=v2-ok", nil).expect(t, 200, "")
}

// TestCaptchaCheckEndsWithTheRequestsWaits: the siteverify call lasted
// its timeoutMs whatever the request's other waits had taken, so a slow
// service (timeoutMs beyond --request-timeout, or a check after a wait
// for the request's consistency token) ran past --request-timeout: the
// connection was cut and the payer had no answer. The call now ends with
// the request's waits (waitDeadlines' timeouts), and the check it cut is
// a time-out: 403 when denyOnFail, else the request passes.
func TestCaptchaCheckEndsWithTheRequestsWaits(t *testing.T) {
	t.Parallel()
	gate := newProjectionGate()
	w, sv, avviso := protectedNotice(t, nil, withConsistencyWait(waitsFor), withRequestTimeout(waitsTimeout), withProjectionGate(gate))
	slow := withHeader(commands.DefaultCaptchaParam, "slow")
	payment := map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "numeroAvviso": path.Base(avviso)}}}
	// tokenWait is a consistency token this replica reaches after a wait
	// of about a second: another replica's write, applied late.
	tokenWait := func(t *testing.T, role string) reqOpt {
		gate.shut()
		pos, err := w.store.Append(t.Context(), events.StreamRuolo+role, events.ExpectNoStream(), events.Record{
			ID: role, Event: events.RoleDefined{IDRuolo: role, TipiPendenza: []string{"*"},
				ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}}, Domini: []string{"*"}}})
		if err != nil {
			gate.reopen()
			t.Fatal(err)
		}
		time.AfterFunc(time.Second, gate.reopen)
		return withToken(Token(w.store.Backend(), pos))
	}
	for _, c := range []struct {
		name       string
		denyOnFail bool
		timeoutMs  int
		method     string
		path       string
		body       any
		waitFirst  bool // the request waits for its consistency token first
		status     int
	}{
		{"deny_on_fail_notice", true, 10000, "GET", avviso, nil, false, 403},
		{"deny_on_fail_payment", true, 10000, "POST", pgPublic + "/pagamenti", payment, false, 403},
		{"pass_on_fail_notice", false, 10000, "GET", avviso, nil, false, 200},
		{"after_its_token_deny_on_fail", true, 2500, "GET", avviso, nil, true, 403},
		{"after_its_token_pass_on_fail", false, 2500, "GET", avviso, nil, true, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.protect(t, true, sv.URL, c.denyOnFail, map[string]any{"timeoutMs": c.timeoutMs})
			opts := []reqOpt{slow}
			if c.waitFirst {
				opts = append(opts, tokenWait(t, "late-"+c.name))
			}
			start := time.Now()
			r := w.do(t, c.method, c.path, c.body, opts...)
			if took := time.Since(start); took >= waitsTimeout {
				t.Fatalf("answered after %v, past --request-timeout %v", took, waitsTimeout)
			}
			r.expect(t, c.status, codiceOf(c.status))
			if c.status == 403 {
				if d := r.fault(t).Dettaglio; !strings.Contains(d, "protected") {
					t.Fatalf("dettaglio %q, want the protection's refusal", d)
				}
				return
			}
			var v avvisoView
			r.decode(t, &v)
			if v.NumeroAvviso != path.Base(avviso) {
				t.Fatalf("notice = %+v", v)
			}
		})
	}
}

// TestCaptchaSecretStaysWithItsServer: the stored secret stays with the
// verifier it was given for. A PUT that points serverURL elsewhere without
// a secretKey is refused while the protection is on and drops the secret
// while it is off, so a writer that never saw the secret cannot have it
// sent to a server of its choosing.
func TestCaptchaSecretStaysWithItsServer(t *testing.T) {
	t.Parallel()
	w, _, avviso := protectedNotice(t, map[string]any{"parametro": "captcha"})
	other := newSiteverify(t)
	refused := func(r *response) {
		t.Helper()
		r.expect(t, 400, "SINTASSI")
		if !strings.Contains(string(r.Body), "captcha.secretKey") {
			t.Fatalf("refusal does not name captcha.secretKey: %s", r.Body)
		}
	}
	hardening := bo + "/configurazioni/hardening"
	elsewhere := func(on bool) map[string]any {
		return map[string]any{"abilitato": on, "captcha": map[string]any{"serverURL": other.URL, "parametro": "captcha"}}
	}
	refused(w.do(t, "PUT", hardening, elsewhere(true), asAdmin()))
	w.do(t, "GET", avviso+"?captcha=v2-ok", nil).expect(t, 200, "")
	w.must(t, "PUT", hardening, elsewhere(false))
	refused(w.do(t, "PUT", hardening, elsewhere(true), asAdmin()))
	w.do(t, "GET", avviso, nil).expect(t, 200, "")
	other.mu.Lock()
	sent := slices.Clone(other.secrets)
	other.mu.Unlock()
	if len(sent) != 0 {
		t.Fatalf("the other server was sent %q", sent)
	}
	w.must(t, "PUT", hardening, map[string]any{"abilitato": true, "captcha": map[string]any{"serverURL": other.URL, "secretKey": svSecret, "parametro": "captcha"}})
	w.do(t, "GET", avviso+"?captcha=v2-ok", nil).expect(t, 200, "")
}

func TestPublicProtectionUUID(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sv := newSiteverify(t)
	pA := w.createPendenza(t, "appA", "uuid-a", d1, t1, citizen1)
	pB := w.createPendenza(t, "appA", "uuid-b", d1, t1, citizen1)
	avviso := pgPublic + "/avvisi/" + d1 + "/" + pA.NumeroAvviso
	byAvviso := pgPublic + "/pendenze/byAvviso/" + d1 + "/"
	wrong := strings.Repeat("0", 32)
	if pA.UUID == wrong || len(pA.UUID) != 32 {
		t.Fatalf("unexpected UUID %q", pA.UUID)
	}
	token := func(tok string) reqOpt { return withHeader(commands.DefaultCaptchaParam, tok) }

	type tcase struct {
		name   string
		method string
		path   string
		opts   []reqOpt
		status int
	}
	protectedCases := []tcase{
		{"right_uuid_passes", "GET", avviso + "?UUID=" + pA.UUID, nil, 200},
		{"wrong_uuid_fails", "GET", avviso + "?UUID=" + wrong, nil, 403},
		{"absent_uuid_fails", "GET", avviso, nil, 403},
		{"empty_uuid_fails", "GET", avviso + "?UUID=", nil, 403},
		{"other_pendenzas_uuid_fails", "GET", avviso + "?UUID=" + pB.UUID, nil, 403},
		{"upper_cased_uuid_fails", "GET", avviso + "?UUID=" + strings.ToUpper(pA.UUID), nil, 403},
		{"uuid_prefix_fails", "GET", avviso + "?UUID=" + pA.UUID[:31], nil, 403},
		{"right_uuid_with_failing_captcha_passes", "GET", avviso + "?UUID=" + pA.UUID, []reqOpt{token("v2-fail")}, 200},
		{"wrong_uuid_falls_back_to_passing_captcha", "GET", avviso + "?UUID=" + wrong, []reqOpt{token("v2-ok")}, 200},
		{"wrong_uuid_and_failing_captcha", "GET", avviso + "?UUID=" + wrong, []reqOpt{token("v2-fail")}, 403},
		{"uuid_on_unknown_notice_reveals_nothing", "GET", pgPublic + "/avvisi/" + d1 + "/000000000000000009?UUID=" + pA.UUID, nil, 403},
		{"by_avviso_behind_the_protection", "GET", byAvviso + pA.NumeroAvviso, nil, 403},
		{"by_avviso_of_unknown_notice_reveals_nothing", "GET", byAvviso + "000000000000000009", nil, 403},
		{"uuid_does_not_pass_a_payment", "POST", pgPublic + "/pagamenti?UUID=" + pA.UUID, nil, 403},
		{"citizen_mount_not_protected", "GET", "/pagamento/rs/spid/v2/avvisi/" + d1 + "/" + pA.NumeroAvviso, []reqOpt{asSPID(citizen2)}, 200},
		{"application_mount_not_protected", "GET", pg + "/avvisi/" + d1 + "/" + pA.NumeroAvviso, []reqOpt{as("appA")}, 200},
		{"citizen_payment_not_protected", "POST", "/pagamento/rs/spid/v2/pagamenti", []reqOpt{asSPID(citizen1)}, 201},
	}
	offCases := []tcase{
		{"off_absent_uuid_passes", "GET", avviso, nil, 200},
		{"off_wrong_uuid_ignored", "GET", avviso + "?UUID=" + wrong, nil, 200},
		{"off_failing_captcha_ignored", "GET", avviso, []reqOpt{token("v2-fail")}, 200},
		{"off_by_avviso_of_unknown_notice_is_missing", "GET", byAvviso + "000000000000000009", nil, 404},
		{"off_payment_without_captcha", "POST", pgPublic + "/pagamenti", nil, 201},
	}
	run := func(t *testing.T, cases []tcase) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				var body any
				if tc.method == "POST" {
					body = noticeRef(pA)
				}
				r := w.do(t, tc.method, tc.path, body, tc.opts...)
				r.expect(t, tc.status, codiceOf(tc.status))
				if tc.status == 403 && !strings.Contains(r.fault(t).Dettaglio, "protected") {
					t.Fatalf("dettaglio = %q", r.fault(t).Dettaglio)
				}
			})
		}
	}
	w.protect(t, true, sv.URL, true, nil)
	t.Run("protection_on", func(t *testing.T) { run(t, protectedCases) })
	w.protect(t, false, sv.URL, true, nil)
	t.Run("protection_off", func(t *testing.T) { run(t, offCases) })
	// Turned on again, the very next request is protected.
	w.protect(t, true, sv.URL, true, nil)
	w.do(t, "GET", avviso, nil).expect(t, 403, "403000")

	t.Run("token_placement", func(t *testing.T) { testTokenPlacement(t, w, sv) })
}

// TestPublicProtectionOnEveryReplica: a second replica (its own read
// models and server over the same log) applies a change of the setting
// made on the first as soon as it has read it; the consistency token of
// the change makes that the very next request.
func TestPublicProtectionOnEveryReplica(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sv := newSiteverify(t)
	p := w.createPendenza(t, "appA", "rep-1", d1, t1, citizen1)
	replica := startReplica(t, w.harness)
	path := pgPublic + "/avvisi/" + d1 + "/" + p.NumeroAvviso

	get := func(base, token string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		if token != "" {
			req.Header.Set(ConsistencyHeader, token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var fb FaultBean
		_ = json.NewDecoder(res.Body).Decode(&fb)
		return res.StatusCode
	}
	tok := w.protect(t, true, sv.URL, true, nil).Header.Get(ConsistencyHeader)
	if got := get(replica, tok); got != 403 {
		t.Fatalf("replica after enabling: %d, want 403", got)
	}
	tok = w.protect(t, false, sv.URL, true, nil).Header.Get(ConsistencyHeader)
	if got := get(replica, tok); got != 200 {
		t.Fatalf("replica after disabling: %d, want 200", got)
	}
}

// startReplica runs another server with its own read models over h's
// store, on a plain loopback listener, and returns its base URL.
func startReplica(t *testing.T, h *harness) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	model := projections.New()
	projDone := make(chan struct{})
	go func() { defer close(projDone); _ = model.Run(ctx, h.store, logger) }()
	srv, err := New(Config{HTTPAddr: "127.0.0.1:0", ConsistencyWait: 5 * time.Second},
		h.store, model, commands.NewHandler(h.store, model, logger), logger)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	serveDone := make(chan struct{})
	go func() { defer close(serveDone); _ = srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-serveDone
		<-projDone
	})
	deadline := time.Now().Add(5 * time.Second)
	for len(srv.Addrs()) < 1 {
		if time.Now().After(deadline) {
			t.Fatal("replica did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return "http://" + srv.Addrs()[0].String()
}

// TestUnprotectedRequestsAllocateNothing: the protection's facts are
// gathered only for a request it decides (domain.Protects): on another
// mount, and on the public one while it is off, protectPublic passes the
// request without reading its query or allocating.
func TestUnprotectedRequestsAllocateNothing(t *testing.T) {
	h := newHarness(t)
	c := h.srv.echo.NewContext(httptest.NewRequest(http.MethodGet, pgPublic+"/avvisi/"+d1+"/1?UUID=u", nil), httptest.NewRecorder())
	for _, auth := range []domain.AuthType{domain.AuthBasic, domain.AuthSPID, domain.AuthPublic} {
		c.Set(callerKey, &caller{auth: auth})
		for _, req := range []domain.ProtectedRequest{domain.ProtectedPayment, domain.ProtectedNotice} {
			if err := h.srv.protectPublic(c, req, "u"); err != nil {
				t.Fatalf("%s %v: %v", auth, req, err)
			}
			if n := testing.AllocsPerRun(100, func() { _ = h.srv.protectPublic(c, req, "u") }); n != 0 {
				t.Errorf("%s %v: %v allocations, want 0", auth, req, n)
			}
		}
	}
}

// TestCaptchaSecretIsNotLogged: a siteverify service that answers with the
// secret it was sent (in a body that is not JSON, in a JSON reply that is
// not siteverify's, with a status not 200, in a redirect's Location) is
// unavailable, and neither the service's log of the failed check nor the
// 403 holds the secret (README, public API protection).
func TestCaptchaSecretIsNotLogged(t *testing.T) {
	t.Parallel()
	lines := newLogLines()
	w := newWorld(t, withServiceLog(lines))
	echo := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		secret := r.PostForm.Get("secret")
		switch r.PostForm.Get("response") {
		case "text":
			_, _ = io.WriteString(rw, secret)
		case "json":
			_, _ = io.WriteString(rw, `{"success":"`+secret+`"}`)
		case "status":
			rw.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(rw, secret)
		case "redirect":
			http.Redirect(rw, r, "/?secret="+secret, http.StatusFound)
		}
	}))
	t.Cleanup(echo.Close)
	p := w.createPendenza(t, "appA", "secret-log", d1, t1, citizen1)
	avviso := pgPublic + "/avvisi/" + d1 + "/" + p.NumeroAvviso
	w.protect(t, true, echo.URL+"/siteverify", true, nil)
	for i, token := range []string{"text", "json", "status", "redirect"} {
		if i > 0 {
			time.Sleep(1100 * time.Millisecond) // failed checks log one line a second
		}
		r := w.do(t, "GET", avviso, nil, withHeader(commands.DefaultCaptchaParam, token))
		r.expect(t, 403, "403000")
		if strings.Contains(string(r.Body), svSecret) {
			t.Fatalf("%s: the 403 holds the secret: %s", token, r.Body)
		}
		if n, _ := lines.count("captcha check failed"); n != i+1 {
			t.Fatalf("%s: %d lines of failed checks, want %d", token, n, i+1)
		}
	}
	if lines.holds(svSecret) {
		t.Fatal("the service's log holds the captcha secret")
	}
}
