package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
)

func TestRequestIDKeptOnlyWhenValid(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		name string
		id   string
		kept bool
	}{
		{"plain_id", "req-1.a_B", true},
		{"sixty_four_chars", strings.Repeat("a", 64), true},
		{"sixty_five_chars", strings.Repeat("a", 65), false},
		{"space", "a b", false},
		{"non_ascii", "caffè", false},
		{"slash", "a/b", false},
		{"huge", strings.Repeat("x", 20_000), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, "GET", "/pendenze/rs/basic/v2/pendenze", nil, asBasic("nobody", "wrong-password"),
				withHeader("X-Request-ID", c.id))
			res.expect(t, 401, "401000")
			got := res.Header.Get("X-Request-ID")
			if c.kept && got != c.id {
				t.Errorf("X-Request-ID = %q, want the client's %q", got, c.id)
			}
			if !c.kept && (got == c.id || !validRequestID(got)) {
				t.Errorf("X-Request-ID = %.80q, want a fresh id", got)
			}
		})
	}
	// A write with an oversize id still succeeds, under a fresh id.
	res := h.do(t, "PUT", bo+"/domini/12345678901", map[string]any{"ragioneSociale": "Ente", "abilitato": true},
		asAdmin(), withHeader("X-Request-ID", strings.Repeat("y", 20_000)))
	if res.Status != 201 && res.Status != 200 {
		t.Fatalf("write with an oversize request id: %d %s", res.Status, res.Body)
	}
	if got := res.Header.Get("X-Request-ID"); !validRequestID(got) || strings.HasPrefix(got, "yyy") {
		t.Errorf("X-Request-ID = %.80q, want a fresh id", got)
	}
}

func TestMetricMethodLabelsAreAClosedSet(t *testing.T) {
	h := newHarness(t)
	c := &http.Client{}
	for i := range 50 {
		req, _ := http.NewRequest(fmt.Sprintf("MADEUP%d", i), h.httpURL+"/pendenze/rs/basic/v2/pendenze", nil)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if res.StatusCode >= 500 {
			t.Fatalf("method MADEUP%d: status %d", i, res.StatusCode)
		}
	}
	metrics := string(h.do(t, "GET", "/metrics", nil).Body)
	if strings.Contains(metrics, "MADEUP") {
		t.Error("a made-up method became a metric label")
	}
	if !strings.Contains(metrics, `method="other"`) {
		t.Error(`no method="other" series after made-up methods`)
	}
}

// TestSlowBodiesClosedWithinBodyDeadline opens 2,000 connections that send
// their headers, announce a 100,000-byte body and stall after one byte,
// half of them with valid credentials: the server closes every one of them
// at the body deadline, and its goroutines return to the baseline.
func TestSlowBodiesClosedWithinBodyDeadline(t *testing.T) {
	const conns, bodyTimeout = 2000, time.Second
	h := newHarness(t, withBodyTimeout(bodyTimeout))
	addr := strings.TrimPrefix(h.httpURL, "http://")
	h.do(t, "GET", bo+"/domini", nil, asAdmin()).expect(t, 200, "") // caches the admin's credential
	time.Sleep(100 * time.Millisecond)
	baseline := runtime.NumGoroutine()

	var wg sync.WaitGroup
	closed := make(chan time.Duration, conns)
	start := time.Now()
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		auth := ""
		if i%2 == 0 {
			auth = "Authorization: " + basicHeader(adminUser, adminPass) + "\r\n"
		}
		fmt.Fprintf(c, "PUT %s/domini/12345678901 HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", bo, auth)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			_ = c.SetReadDeadline(time.Now().Add(20 * bodyTimeout)) // the test's own bound
			br := bufio.NewReader(c)
			for {
				if _, err := br.ReadByte(); err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						closed <- -1 // the server never closed it
					} else {
						closed <- time.Since(start)
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	close(closed)
	var slowest time.Duration
	for d := range closed {
		if d < 0 {
			t.Fatal("a stalled connection was still open at 20× the body deadline")
		}
		slowest = max(slowest, d)
	}
	t.Logf("%d stalled connections closed; the last %s after the first was opened", conns, slowest.Round(time.Millisecond))

	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > baseline+20 {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d, baseline %d", runtime.NumGoroutine(), baseline)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFieldLimitsRefusedBeforeAnyEvent: every field beyond its documented
// limit is 400 SINTASSI, and a commit that would not fit the store's
// message limit is 413; in every case nothing is written, not even a
// principal's claim and its release.
func TestFieldLimitsRefusedBeforeAnyEvent(t *testing.T) {
	h := newHarness(t, withMaxBody(4<<20))
	ids := func(n int, f func(i int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	domini := func(n int) []string { return ids(n, func(i int) string { return fmt.Sprintf("%011d", i) }) }
	tipi := func(n int) []string {
		return ids(n, func(i int) string { return fmt.Sprintf("%s%010d", strings.Repeat("T", 25), i) })
	}
	cases := []struct {
		name   string
		path   string
		body   any
		status int
	}{
		{"entity_name_256", bo + "/domini/12345678901", map[string]any{"ragioneSociale": strings.Repeat("e", 256), "abilitato": true}, 400},
		{"entity_name_1MB", bo + "/domini/12345678901", map[string]any{"ragioneSociale": strings.Repeat("e", 1_048_400), "abilitato": true}, 400},
		{"role_10001_entities", bo + "/ruoli/big", map[string]any{"acl": acl{aclOf("Pendenze", "R")}, "domini": domini(10_001), "tipiPendenza": []string{"*"}}, 400},
		{"operator_principal_newline", bo + "/operatori/a%0Ab", map[string]any{"ragioneSociale": "Op", "abilitato": true, "ruoli": []string{}, "password": "password-123"}, 400},
		{"operator_principal_513", bo + "/operatori/" + strings.Repeat("p", 513), map[string]any{"ragioneSociale": "Op", "abilitato": true, "ruoli": []string{}, "password": "password-123"}, 400},
		{"application_principal_nul", bo + "/applicazioni/app1", map[string]any{"principal": "a\x00b", "abilitato": true, "ruoli": []string{}, "autorizzazioniApi": []any{}}, 400},
		{"application_principal_newline", bo + "/applicazioni/app1", map[string]any{"principal": "a\nb", "abilitato": true, "ruoli": []string{}, "autorizzazioniApi": []any{}}, 400},
		{"application_password_1025", bo + "/applicazioni/app1", map[string]any{"principal": "app1", "password": strings.Repeat("p", 1025), "abilitato": true, "ruoli": []string{}, "autorizzazioniApi": []any{}}, 400},
		{"application_commit_over_1MiB", bo + "/applicazioni/app1", map[string]any{"principal": "app1", "abilitato": true, "ruoli": []string{},
			"autorizzazioniApi": []any{apiGrant("PENDENZE", domini(10_000), tipi(10_000)), apiGrant("PAGAMENTO", domini(10_000), tipi(10_000)),
				apiGrant("RAGIONERIA", domini(10_000), tipi(10_000))}}, 413},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := h.logEnd(t)
			res := h.do(t, "PUT", c.path, c.body, asAdmin())
			res.expect(t, c.status, "SINTASSI")
			if after := h.logEnd(t); after != before {
				t.Errorf("the log moved from %d to %d", before, after)
			}
		})
	}
	// The limits themselves are accepted.
	h.must(t, "PUT", bo+"/domini/12345678901", map[string]any{"ragioneSociale": strings.Repeat("e", 255), "abilitato": true})
	h.must(t, "PUT", bo+"/ruoli/big", map[string]any{"acl": acl{aclOf("Pendenze", "R")}, "domini": domini(10_000), "tipiPendenza": []string{"*"}})
}

// TestDotIDsRefused: "." and ".." are never ids, in a path or a body.
func TestDotIDsRefused(t *testing.T) {
	h := newHarness(t)
	addr := strings.TrimPrefix(h.httpURL, "http://")
	for _, id := range []string{".", ".."} {
		body := `{"denominazione":"X","abilitato":true,"connettoreNodo":{"principal":"conn"}}`
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "PUT %s/intermediari/%s HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
			bo, id, basicHeader(adminUser, adminPass), len(body), body)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		_ = c.Close()
		if res.StatusCode != 400 && res.StatusCode != 404 {
			t.Errorf("PUT /intermediari/%s: %d, want 400 (or 404 where the path does not route)", id, res.StatusCode)
		}
	}
	h.do(t, "PUT", bo+"/ruoli/r1", map[string]any{"acl": acl{aclOf("Pendenze", "R")}, "domini": []string{"*"}, "tipiPendenza": []string{".."}},
		asAdmin()).expect(t, 400, "SINTASSI")
}

// TestErrorsBeforeEchoAreClientErrors: requests net/http refuses before
// the service sees them (bad percent-encoding, a non-numeric
// Content-Length, headers over 64 KiB, an Expect other than
// 100-continue) are plain-text 4xx; a transfer coding other than chunked
// and an HTTP version other than 1.x are the 501 and 505 RFC 9112 asks
// for, the only 5xx, as README lists them; headers over 32 KiB that
// net/http lets through are a 431 FaultBean.
func TestErrorsBeforeEchoAreClientErrors(t *testing.T) {
	h := newHarness(t)
	addr := strings.TrimPrefix(h.httpURL, "http://")
	for _, c := range []struct {
		name string
		req  string
		want int
	}{
		{"bad_percent_encoding", "GET /pendenze/rs/basic/v2/pendenze/%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"content_length_not_a_number", "PUT " + bo + "/domini/12345678901 HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400},
		{"headers_over_64KiB", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 80<<10) + "\r\n\r\n", 431},
		{"headers_over_32KiB", "GET /pendenze/rs/basic/v2/pendenze HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\n\r\n", 431},
		{"two_different_content_lengths", "PUT " + bo + "/domini/12345678901 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400},
		{"no_host", "GET /healthz HTTP/1.1\r\n\r\n", 400},
		{"expect_other_than_continue", "PUT " + bo + "/domini/12345678901 HTTP/1.1\r\nHost: x\r\nExpect: later\r\nContent-Length: 2\r\n\r\n{}", 417},
		{"transfer_coding_not_chunked", "PUT " + bo + "/domini/12345678901 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
		{"http_version_2_in_text", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(conn, c.req); err != nil {
				t.Fatal(err)
			}
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			_ = res.Body.Close()
			if res.StatusCode != c.want {
				t.Fatalf("status %d, want %d", res.StatusCode, c.want)
			}
			if c.name == "headers_over_32KiB" && !strings.Contains(string(body), `"codice":"SINTASSI"`) {
				t.Errorf("no FaultBean: %q", body)
			}
		})
	}
}

// logLines is a slog.Handler that counts the service log's lines by
// message, and those without a request_id, and keeps the longest path
// attribute it saw and the text of every line.
type logLines struct {
	mu      sync.Mutex
	n       map[string]int
	noID    map[string]int // lines without a request_id, by message
	longest int            // of a "path"
	text    strings.Builder
}

func newLogLines() *logLines { return &logLines{n: map[string]int{}, noID: map[string]int{}} }

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logLines) WithGroup(string) slog.Handler            { return l }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n[r.Message]++
	l.text.WriteString(r.Message + "\n")
	id := false
	r.Attrs(func(a slog.Attr) bool {
		l.text.WriteString(a.String() + "\n")
		switch a.Key {
		case "path":
			l.longest = max(l.longest, len(a.Value.String()))
		case "request_id":
			id = a.Value.String() != ""
		}
		return true
	})
	if !id {
		l.noID[r.Message]++
	}
	return nil
}

// holds reports whether some line held s, in its message or an attribute.
func (l *logLines) holds(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Contains(l.text.String(), s)
}

// withoutID is how many lines of msg held no request_id.
func (l *logLines) withoutID(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.noID[msg]
}

func (l *logLines) count(msg string) (n, longest int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[msg], l.longest
}

// TestUnreachedTokensOfStrangersLogNothing: callers without credentials
// that send a consistency token beyond the log wait for it and are
// answered 503 (their credentials might be the write it names), 200 of
// them with 20 KiB paths: the service log gets no line for them (an
// unreached token is the caller's, not a failure of the service), as it
// gets none for an authenticated caller's.
func TestUnreachedTokensOfStrangersLogNothing(t *testing.T) {
	lines := newLogLines()
	h := newHarness(t, withServiceLog(lines), withConsistencyWait(20*time.Millisecond))
	future := withToken(Token(h.store.Backend(), 1<<40))
	long := "/pendenze/rs/basic/v2/pendenze/A2A/" + strings.Repeat("p", 20<<10)
	var wg sync.WaitGroup
	statuses := make(chan int, 200)
	for range 20 {
		wg.Go(func() {
			for range 10 {
				statuses <- h.do(t, "GET", long, nil, future).Status
			}
		})
	}
	wg.Wait()
	close(statuses)
	for st := range statuses {
		if st != 503 {
			t.Fatalf("a stranger's unreached token: %d, want 503", st)
		}
	}
	if n, longest := lines.count("request failed"); n != 0 {
		t.Errorf("%d 'request failed' lines (the longest path %d bytes) for unreached tokens, want none", n, longest)
	}
}

// TestFailedRequestsLogAtAPace: once the read models stopped, every
// request fails (503), a stranger's with a 20 KiB path included: 200 of
// them are answered 503 each, and write a burst of 'request failed'
// lines, each with its path cut to 512 bytes, then about one a second.
func TestFailedRequestsLogAtAPace(t *testing.T) {
	lines := newLogLines()
	h := newHarness(t, withServiceLog(lines))
	if _, err := h.store.Append(t.Context(), events.StreamRuolo+"future", events.ExpectNoStream(), events.Record{
		ID: "future-role", Event: events.RoleDefined{IDRuolo: "future", TipiPendenza: []string{"*"},
			ACL: []events.ACLEntry{{Service: "Future", Rights: []string{"R"}}}, Domini: []string{"*"}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the projections stop", func() bool { return h.model.Stopped() != nil })
	long := "/pendenze/rs/basic/v2/pendenze/A2A/" + strings.Repeat("p", 20<<10)
	start := time.Now()
	for i := range 200 {
		if st := h.do(t, "GET", long, nil).Status; st != 503 {
			t.Fatalf("request %d: %d, want 503", i, st)
		}
	}
	n, longest := lines.count("request failed")
	if most := failureLogBurst + int(time.Since(start).Seconds()) + 1; n < 1 || n > most {
		t.Errorf("%d 'request failed' lines for 200 failures, want 1 to %d", n, most)
	}
	if longest > loggedResourceBytes {
		t.Errorf("a 'request failed' line holds a %d-byte path, want at most %d", longest, loggedResourceBytes)
	}
}

// TestFailedConsolePagesLogAtAPace: a console page that fails is a
// request that failed, reported by the one rule and at the one pace of
// the API's (logFailure): while the store refuses writes, 60 failed saves
// of a logged-in operator write a burst, then a line a second, each with
// its request id; they wrote a line each, unpaced, the path whole.
func TestFailedConsolePagesLogAtAPace(t *testing.T) {
	lines := newLogLines()
	var failing atomic.Bool
	h := newHarness(t, withServiceLog(lines), withAfterAppend(func(_ string, pos events.Position, err error) (events.Position, error) {
		if failing.Load() {
			return 0, events.ErrUnavailable
		}
		return pos, err
	}))
	cc := h.consoleClient(t)
	cc.login(adminUser, adminPass)
	failing.Store(true)
	start := time.Now()
	for i := range 60 {
		cc.get("/console/tipi?nuovo").expect(t, http.StatusOK, `<label for="descrizione">`)
		p := cc.post("/console/tipi", url.Values{"nuovo": {"1"}, "idTipoPendenza": {fmt.Sprintf("FAIL%d", i)},
			"descrizione": {"Tipo"}, "abilitato": {"on"}})
		p.expect(t, http.StatusServiceUnavailable, "503000")
		if got := p.Header.Get("Retry-After"); got != "1" {
			t.Fatalf("a failed save's 503 page has Retry-After %q, want 1 as the API's 503", got)
		}
	}
	failed, _ := lines.count("request failed")
	unpaced, _ := lines.count("console: request failed")
	if most := failureLogBurst + int(time.Since(start).Seconds()) + 1; failed < 1 || failed > most || unpaced != 0 {
		t.Errorf("60 failed saves: %d 'request failed' lines, want 1 to %d; %d of the console's own, want 0", failed, most, unpaced)
	}
	if n := lines.withoutID("request failed"); n != 0 {
		t.Errorf("%d 'request failed' lines of failed pages without their request id", n)
	}
}

// TestAnonymousPaymentRefsBoundedWhileDecoding: a payment covers at most
// commands.MaxPaymentRefs pendenze, and its body is refused at the
// reference after the last one, while it is decoded: an anonymous caller's
// 1 MiB of empty references ({},{},… 349,000 of them) is the same 400 as
// six references, without the service building every one first (about
// 240 MiB of allocations per request before, whatever the write budget of
// its address). Five references, and strict decoding inside each, are
// unchanged.
func TestAnonymousPaymentRefsBoundedWhileDecoding(t *testing.T) {
	h := newHarness(t)
	h.putEntity(t, d1)
	h.putType(t, tSpont, true)
	spont := func(i int) map[string]any {
		return map[string]any{"idDominio": d1, "idTipoPendenza": tSpont, "importo": 5, "causale": fmt.Sprintf("Dono %d", i),
			"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}}
	}
	refs := func(n int) map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = spont(i)
		}
		return map[string]any{"pendenze": out}
	}
	const tooMany = "invalid pendenze: must hold 1 to 5 references"
	before := h.logEnd(t)
	six := h.do(t, "POST", pub+"/pagamenti", refs(6))
	six.expectDetail(t, 400, "SINTASSI", tooMany)

	flood := floodOf(`{"pendenze":`, `{},`, `}`)
	res, alloc := h.measure(t, "POST", pub+"/pagamenti", flood)
	res.expectDetail(t, 400, "SINTASSI", tooMany)
	if alloc > 32<<20 {
		t.Errorf("a %d-byte body of empty references allocated %d MiB", len(flood), alloc>>20)
	}
	for _, c := range []struct{ name, body, detail string }{
		{"unknown_member_in_a_reference", `{"pendenze":[{"idA2A":"a","idPendenza":"p","x":1}]}`, `unknown field "x"`},
		{"references_not_an_array", `{"pendenze":"x"}`, `field "/pendenze" has the wrong type or value`},
		{"no_references", `{"pendenze":null}`, tooMany},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, "POST", pub+"/pagamenti", c.body)
			res.expectDetail(t, 400, "SINTASSI", c.detail)
		})
	}
	if after := h.logEnd(t); after != before {
		t.Errorf("the refused payments moved the log from %d to %d", before, after)
	}
	h.do(t, "POST", pub+"/pagamenti", refs(5)).expect(t, 201, "")
}

// TestPendenzaVociBoundedWhileDecoding: a pendenza holds at most
// commands.MaxVoci voci, and its body is refused at the voce after the
// last one, while it is decoded: an application's 1 MiB of empty voci
// ({},{},… 349,000 of them) is the same 400 as six voci, without the
// service building every voce first (about 417 MiB of allocations per
// request before). Five voci, and strict decoding inside each, are
// unchanged.
func TestPendenzaVociBoundedWhileDecoding(t *testing.T) {
	w := newWorld(t)
	path := func(id string) string { return pe + "/pendenze/appA/" + id }
	voce := func(i int) map[string]any {
		return map[string]any{"idVocePendenza": fmt.Sprintf("v%d", i), "importo": 1, "descrizione": "Voce", "codEntrata": "SRV-1"}
	}
	withVoci := func(n int) map[string]any {
		voci := make([]map[string]any, n)
		for i := range voci {
			voci[i] = voce(i)
		}
		b := pendenzaBodyFor(d1, t1, citizen1)
		if b["voci"] = voci; n > 0 {
			b["importo"] = n
		}
		return b
	}
	const tooMany = "invalid voci: at most 5 voci"
	before := w.logEnd(t)
	six := w.do(t, "PUT", path("v6"), withVoci(6), as("appA"))
	six.expectDetail(t, 400, "SINTASSI", tooMany)

	rest, err := json.Marshal(pendenzaBodyFor(d1, t1, citizen1))
	if err != nil {
		t.Fatal(err)
	}
	flood := floodOf(`{"voci":`, `{},`, `,`+string(rest[1:]))
	res, alloc := w.measure(t, "PUT", path("flood"), flood, as("appA"))
	res.expectDetail(t, 400, "SINTASSI", tooMany)
	if alloc > 32<<20 {
		t.Errorf("a %d-byte body of empty voci allocated %d MiB", len(flood), alloc>>20)
	}
	for _, c := range []struct{ name, voci, detail string }{
		{"unknown_member_in_a_voce", `[{"idVocePendenza":"v","importo":1,"x":1}]`, `unknown field "x"`},
		{"voci_not_an_array", `"x"`, `field "/voci" has the wrong type or value`},
		{"voce_without_importo", `[{"idVocePendenza":"v","descrizione":"Voce","codEntrata":"SRV-1"}]`, "voci.importo is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := w.do(t, "PUT", path("bad"), `{"voci":`+c.voci+`,`+string(rest[1:]), as("appA"))
			res.expectDetail(t, 400, "SINTASSI", c.detail)
		})
	}
	if after := w.logEnd(t); after != before {
		t.Errorf("the refused pendenze moved the log from %d to %d", before, after)
	}
	w.do(t, "PUT", path("v5"), withVoci(5), as("appA")).expect(t, 201, "")
	w.do(t, "PUT", path("v0"), withVoci(0), as("appA")).expect(t, 201, "")
}

// TestPatchBodiesBoundedWhileDecoding: a PATCH body (GovPay's patch
// operations, on a pendenza, a registry entry or one's own profile) holds
// at most 10,000 operations and is refused at the next one while it is
// decoded: 1 MiB of empty operations ({},{},… 349,000) cost about 100 MiB
// of allocations before, on each of them with no bound at all. And a
// registry patch costs what its operations do: 5,000 ADDs to one list
// copied the list and encoded every entry again at each ADD (about 400
// MiB and seconds of work for a 250 KB body).
func TestPatchBodiesBoundedWhileDecoding(t *testing.T) {
	w := newWorld(t)
	w.createPendenza(t, "appA", "pp", d1, t1, citizen1)
	w.putRole(t, "big", fullACL("R"), []string{d1}, []string{"t0"})
	adds := func(from, n int) string {
		var b strings.Builder
		b.WriteString("[")
		for i := from; i < from+n; i++ {
			if i > from {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"op":"ADD","path":"/tipiPendenza","value":"t%d"}`, i)
		}
		return b.String() + "]"
	}
	const tooMany = "the patch holds more than 10000 operations"
	before := w.logEnd(t)
	flood := floodOf("", `{},`, "")
	for _, c := range []struct {
		name, path string
		o          reqOpt
	}{
		{"pendenza", pe + "/pendenze/appA/pp", as("appA")},
		{"ruolo", bo + "/ruoli/big", asAdmin()},
		{"operatore", bo + "/operatori/opD1", asAdmin()},
		{"applicazione", bo + "/applicazioni/appA", asAdmin()},
		{"own_profile", bo + "/profilo", as("opD1")},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, alloc := w.measure(t, "PATCH", c.path, flood, c.o)
			res.expectDetail(t, 400, "SINTASSI", tooMany)
			if alloc > 32<<20 {
				t.Errorf("a %d-byte body of empty operations allocated %d MiB", len(flood), alloc>>20)
			}
		})
	}
	res := w.do(t, "PATCH", bo+"/ruoli/big", adds(1, 10_001), asAdmin())
	res.expectDetail(t, 400, "SINTASSI", tooMany)
	if after := w.logEnd(t); after != before {
		t.Errorf("the refused patches moved the log from %d to %d", before, after)
	}

	body := adds(1, 5_000)
	res, alloc := w.measure(t, "PATCH", bo+"/ruoli/big", body, asAdmin())
	res.expect(t, 200, "")
	if alloc > 32<<20 {
		t.Errorf("5,000 ADDs (%d bytes) allocated %d MiB", len(body), alloc>>20)
	}
	var got struct{ TipiPendenza []string }
	w.must(t, "GET", bo+"/ruoli/big", nil, asAdmin()).decode(t, &got)
	if len(got.TipiPendenza) != 5_001 {
		t.Errorf("after 5,000 ADDs the role holds %d tipiPendenza, want 5,001", len(got.TipiPendenza))
	}
	// ADD of an entry held and DELETE still work on the patched list.
	w.must(t, "PATCH", bo+"/ruoli/big", `[{"op":"ADD","path":"/tipiPendenza","value":"t0"},`+
		`{"op":"DELETE","path":"/tipiPendenza","value":"t1"},{"op":"ADD","path":"/tipiPendenza","value":"t1"},`+
		`{"op":"DELETE","path":"/tipiPendenza","value":"t2"},{"op":"REPLACE","path":"/domini","value":["`+d2+`"]},`+
		`{"op":"ADD","path":"/domini","value":"`+d1+`"}]`, asAdmin()).decode(t, &got)
	if len(got.TipiPendenza) != 5_000 || !slices.Contains(got.TipiPendenza, "t1") || slices.Contains(got.TipiPendenza, "t2") {
		t.Errorf("after ADD t0, DELETE t1, ADD t1, DELETE t2: %d tipiPendenza, t1 %v, t2 %v", len(got.TipiPendenza),
			slices.Contains(got.TipiPendenza, "t1"), slices.Contains(got.TipiPendenza, "t2"))
	}
	var dom struct{ Domini []string }
	w.must(t, "GET", bo+"/ruoli/big", nil, asAdmin()).decode(t, &dom)
	if !slices.Equal(dom.Domini, []string{d1, d2}) && !slices.Equal(dom.Domini, []string{d2, d1}) {
		t.Errorf("after REPLACE [d2] and ADD d1: domini %v", dom.Domini)
	}
}

// TestSettlementLinesBoundedWhileDecoding: a node's settlement report
// holds at most commands.MaxSettlementLines lines, and its body is refused
// at the line after the last one, while it is decoded: 1 MiB of empty
// lines ({},{},… 349,000) is the command's 400 without building every
// line first (about 86 MiB of allocations before).
func TestSettlementLinesBoundedWhileDecoding(t *testing.T) {
	w := newWorld(t)
	w.must(t, "PUT", bo+"/intermediari/INTP", map[string]any{"denominazione": "P", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "node-p", "password": "node-p-secret"}})
	w.must(t, "PUT", bo+"/domini/"+d1, map[string]any{"ragioneSociale": "Ente " + d1, "abilitato": true, "idIntermediario": "INTP"})
	paid := w.createPendenza(t, "appA", "paid", d1, t1, citizen1)
	node := asBasic("node-p", "node-p-secret")
	path := nd + "/intermediari/INTP/flussiRendicontazione"
	head := `{"idFlusso":"F1","idDominio":"` + d1 + `","dataFlusso":"2026-01-03","importoTotale":1,"rendicontazioni":`
	const tooMany = "invalid rendicontazioni: must hold 1 to 10000 lines"
	before := w.logEnd(t)
	flood := floodOf(head, `{},`, `}`)
	res, alloc := w.measure(t, "POST", path, flood, node)
	res.expectDetail(t, 400, "SINTASSI", tooMany)
	if alloc > 32<<20 {
		t.Errorf("a %d-byte body of empty lines allocated %d MiB", len(flood), alloc>>20)
	}
	line := `{"numeroAvviso":"` + paid.NumeroAvviso + `","importo":0,"esito":9}`
	for _, c := range []struct{ name, lines, detail string }{
		{"ten_thousand_and_one_lines", `[` + strings.Repeat(line+`,`, 10_000) + line + `]`, tooMany},
		{"no_lines", `[]`, tooMany},
		{"unknown_member_in_a_line", `[{"importo":1,"esito":0,"x":1}]`, `unknown field "x"`},
		{"line_without_esito", `[{"numeroAvviso":"` + paid.NumeroAvviso + `","importo":1}]`, "every rendicontazione needs numeroAvviso, importo and esito"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := w.do(t, "POST", path, head+c.lines+`}`, node)
			res.expectDetail(t, 400, "SINTASSI", c.detail)
		})
	}
	if after := w.logEnd(t); after != before {
		t.Errorf("the refused reports moved the log from %d to %d", before, after)
	}
	w.do(t, "POST", path, head+`[{"numeroAvviso":"`+paid.NumeroAvviso+`","importo":1,"esito":9}]}`, node).expect(t, 201, "")
}

// measure sends a request and returns, with its response, the bytes the
// process allocated while it was answered. The count is the process's, so
// goroutines of earlier tests (a server shutting down, a projector) add to
// it: a refused request, which writes nothing, is sent three times and the
// least is kept.
func (h *harness) measure(t testing.TB, method, path, body string, opts ...reqOpt) (*response, uint64) {
	t.Helper()
	var res *response
	least := uint64(math.MaxUint64)
	for range 3 {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		res = h.do(t, method, path, body, opts...)
		runtime.ReadMemStats(&m1)
		least = min(least, m1.TotalAlloc-m0.TotalAlloc)
		if res.Status < 400 {
			break
		}
	}
	return res, least
}

// floodOf is a body of about 1 MiB: head, a JSON array of as many entries
// (each entry followed by a comma) as fit, then tail.
func floodOf(head, entry, tail string) string {
	n := (1<<20 - len(head) - len(tail) - 10) / len(entry)
	return head + "[" + strings.Repeat(entry, n-1) + strings.TrimSuffix(entry, ",") + "]" + tail
}

// jsonArray is a JSON array of n entries, entry(i) each.
func jsonArray(n int, entry func(i int) string) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(entry(i))
	}
	return b.String() + "]"
}

// TestRegistryIDListsBoundedWhileDecoding: a Backoffice registry body's
// lists of ids (a principal's ruoli, the tipiPendenza of a role, of a
// personal role or of an API grant, an acl entry's autorizzazioni) hold at
// most commands.MaxListEntries entries, and are refused at the entry after
// the last one while the body is decoded, with the command's own 400: 1
// MiB of "" (349,000 of them) cost about 30 MiB of allocations before,
// every string built before the count was checked (and autorizzazioni
// had no bound by count at all). 10,000 entries are not refused for their
// number.
func TestRegistryIDListsBoundedWhileDecoding(t *testing.T) {
	w := newWorld(t)
	const app = `{"principal":"appX","abilitato":true,`
	quoted := func(prefix string) func(int) string {
		return func(i int) string { return fmt.Sprintf(`"%s%d"`, prefix, i) }
	}
	before := w.logEnd(t)
	for _, c := range []struct {
		name, path, head, tail, field string
	}{
		{"operator_ruoli", bo + "/operatori/opX", `{"ragioneSociale":"X","abilitato":true,"ruoli":`, `}`, "ruoli"},
		{"application_ruoli", bo + "/applicazioni/appX", app + `"ruoli":`, `}`, "ruoli"},
		{"role_tipiPendenza", bo + "/ruoli/rX", `{"acl":[],"domini":[],"tipiPendenza":`, `}`, "tipiPendenza"},
		{"personal_tipiPendenza", bo + "/operatori/opX", `{"ragioneSociale":"X","abilitato":true,"ruoli":[],` +
			`"acl":[{"servizio":"Pendenze","autorizzazioni":["R"]}],"domini":[],"tipiPendenza":`, `}`, "tipiPendenza"},
		{"grant_tipiPendenza", bo + "/applicazioni/appX", app + `"ruoli":[],"autorizzazioniApi":[{"api":"PENDENZE","domini":[],"tipiPendenza":`, `}]}`, "tipiPendenza"},
		{"acl_autorizzazioni", bo + "/ruoli/rX", `{"domini":[],"tipiPendenza":[],"acl":[{"servizio":"Pendenze","autorizzazioni":`, `}]}`, "acl.autorizzazioni"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tooMany := "invalid " + c.field + ": must hold at most 10000 entries"
			flood := floodOf(c.head, `"",`, c.tail)
			res, alloc := w.measure(t, "PUT", c.path, flood, asAdmin())
			res.expectDetail(t, 400, "SINTASSI", tooMany)
			if alloc > 16<<20 {
				t.Errorf("a %d-byte body of empty ids allocated %d MiB", len(flood), alloc>>20)
			}
			res = w.do(t, "PUT", c.path, c.head+jsonArray(10_001, quoted("R"))+c.tail, asAdmin())
			res.expectDetail(t, 400, "SINTASSI", tooMany)
		})
	}
	if after := w.logEnd(t); after != before {
		t.Errorf("the refused bodies moved the log from %d to %d", before, after)
	}
	// 10,000 entries pass the count: the tipiPendenza and the
	// autorizzazioni are written, the ruoli are refused only for naming
	// roles that are not defined.
	w.must(t, "PUT", bo+"/ruoli/rX", `{"acl":[{"servizio":"Pendenze","autorizzazioni":`+jsonArray(10_000, func(int) string { return `"R"` })+
		`}],"domini":[],"tipiPendenza":`+jsonArray(10_000, quoted("t"))+`}`)
	var role struct {
		ACL          []aclEntry
		TipiPendenza []string
	}
	w.must(t, "GET", bo+"/ruoli/rX", nil).decode(t, &role)
	if len(role.TipiPendenza) != 10_000 || len(role.ACL) != 1 || !slices.Equal(role.ACL[0].Autorizzazioni, []string{"R"}) {
		t.Errorf("the role of 10,000 tipiPendenza and autorizzazioni: %d tipiPendenza, acl %v", len(role.TipiPendenza), role.ACL)
	}
	res := w.do(t, "PUT", bo+"/operatori/opX", `{"ragioneSociale":"X","abilitato":true,"ruoli":`+jsonArray(10_000, quoted("r"))+`}`, asAdmin())
	res.expectDetail(t, 422, "", "role r0 is not defined") // 10,000 ruoli: refused for the first, undefined
}

// TestACLBoundedWhileDecoding: an acl (a role's, or an operator's or an
// application's personal one) lists each servizio once, so it holds at
// most one entry per servizio (commands.MaxACLEntries, 9), and is refused
// at the tenth entry while the body is decoded, with the command's own
// 400: 1 MiB of {} (349,000 entries) cost about 83 MiB of allocations
// before, every entry built before the first was looked at. Ten entries
// were refused for the servizio listed twice; they are now refused for
// their number. Nine, one per servizio, are written.
func TestACLBoundedWhileDecoding(t *testing.T) {
	w := newWorld(t)
	const tooMany = "invalid acl: must hold at most 9 entries, one per servizio"
	full, err := json.Marshal(fullACL("R"))
	if err != nil {
		t.Fatal(err)
	}
	ten := strings.TrimSuffix(string(full), "]") + `,{"servizio":"Pendenze","autorizzazioni":["W"]}]`
	cases := []struct{ name, path, head, tail string }{
		{"role", bo + "/ruoli/rX", `{"domini":["*"],"tipiPendenza":["*"],"acl":`, `}`},
		{"operator", bo + "/operatori/opX", `{"ragioneSociale":"X","abilitato":true,"ruoli":[],"domini":["*"],"tipiPendenza":["*"],"acl":`, `}`},
		{"application", bo + "/applicazioni/appX", `{"principal":"appX","abilitato":true,"ruoli":[],"domini":["*"],"tipiPendenza":["*"],"acl":`, `}`},
	}
	before := w.logEnd(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			flood := floodOf(c.head, `{},`, c.tail)
			res, alloc := w.measure(t, "PUT", c.path, flood, asAdmin())
			res.expectDetail(t, 400, "SINTASSI", tooMany)
			if alloc > 16<<20 {
				t.Errorf("a %d-byte body of empty acl entries allocated %d MiB", len(flood), alloc>>20)
			}
			res = w.do(t, "PUT", c.path, c.head+ten+c.tail, asAdmin())
			res.expectDetail(t, 400, "SINTASSI", tooMany)
			twice := `[{"servizio":"Pendenze","autorizzazioni":["R"]},{"servizio":"Pendenze","autorizzazioni":["W"]}]`
			res = w.do(t, "PUT", c.path, c.head+twice+c.tail, asAdmin())
			res.expectDetail(t, 400, "SINTASSI", `invalid acl.servizio: servizio "Pendenze" listed twice`)
		})
	}
	if after := w.logEnd(t); after != before {
		t.Errorf("the refused bodies moved the log from %d to %d", before, after)
	}
	for _, c := range cases {
		var got struct{ ACL []aclEntry }
		w.must(t, "PUT", c.path, c.head+string(full)+c.tail).decode(t, &got)
		if len(got.ACL) != 9 {
			t.Errorf("%s: nine entries, one per servizio, written as %v", c.name, got.ACL)
		}
	}
}

// TestAutorizzazioniAPIBoundedWhileDecoding: an application's
// autorizzazioniApi lists each API once, so it holds at most one entry per
// API an application can be granted (commands.MaxAPIGrants, 3), and is
// refused at the fourth entry while the body is decoded, with the
// command's own 400: 1 MiB of {} (349,000 entries) cost about 148 MiB of
// allocations before, every grant built before the first was looked at.
// Four entries were refused for the api listed twice; they are now refused
// for their number, by PUT and by PATCH. Three are written.
func TestAutorizzazioniAPIBoundedWhileDecoding(t *testing.T) {
	w := newWorld(t)
	const tooMany = "invalid autorizzazioniApi: must hold at most 3 entries, one per api"
	const head = `{"principal":"appX","abilitato":true,"ruoli":[],"autorizzazioniApi":`
	grant := func(api string) string { return `{"api":"` + api + `","domini":["` + d1 + `"],"tipiPendenza":["*"]}` }
	three := "[" + grant("PAGAMENTO") + "," + grant("PENDENZE") + "," + grant("RAGIONERIA")
	before := w.logEnd(t)
	flood := floodOf(head, `{},`, `}`)
	res, alloc := w.measure(t, "PUT", bo+"/applicazioni/appX", flood, asAdmin())
	res.expectDetail(t, 400, "SINTASSI", tooMany)
	if alloc > 16<<20 {
		t.Errorf("a %d-byte body of empty grants allocated %d MiB", len(flood), alloc>>20)
	}
	for _, c := range []struct{ name, method, path, body, detail string }{
		{"four_entries", "PUT", bo + "/applicazioni/appX", head + three + "," + grant("PAGAMENTO") + "]}", tooMany},
		{"four_entries_patched", "PATCH", bo + "/applicazioni/appA",
			`[{"op":"REPLACE","path":"/autorizzazioniApi","value":` + three + "," + grant("PAGAMENTO") + "]}]", tooMany},
		{"one_api_twice", "PUT", bo + "/applicazioni/appX", head + "[" + grant("PAGAMENTO") + "," + grant("pagamento") + "]}",
			"invalid autorizzazioniApi: api PAGAMENTO listed twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := w.do(t, c.method, c.path, c.body, asAdmin())
			res.expectDetail(t, 400, "SINTASSI", c.detail)
		})
	}
	if after := w.logEnd(t); after != before {
		t.Errorf("the refused bodies moved the log from %d to %d", before, after)
	}
	var got struct{ AutorizzazioniAPI []autorizzazioneAPI }
	w.must(t, "PUT", bo+"/applicazioni/appX", head+three+"]}").decode(t, &got)
	if len(got.AutorizzazioniAPI) != 3 {
		t.Errorf("three grants, one per api, written as %v", got.AutorizzazioniAPI)
	}
}

// TestDominiBoundedWhileDecoding: a domini list (a role's, a personal
// role's, an API grant's) holds at most 10,000 entities named whole and
// 10,000 limited to some units, each form counted apart, so at most
// commands.MaxDominiEntries (20,000) entries, and is refused at the entry
// after that while the body is decoded, with the command's own 400: 1 MiB
// of "" or of {} (349,000 entries) cost about 55 and 66 MiB of
// allocations before, every entry kept as JSON before any was counted.
// The bound of each form, strict members inside an entry, and the
// largest list of both forms, which GET shows and PUT takes back, are
// unchanged.
func TestDominiBoundedWhileDecoding(t *testing.T) {
	w := newWorld(t)
	const tooMany = "invalid domini: must hold at most 20000 entries, idDominio and {idDominio, unitaOperative} together"
	whole := func(i int) string { return fmt.Sprintf(`"%011d"`, 1_000_000+i) }
	limited := func(i int) string { return fmt.Sprintf(`{"idDominio":"%011d","unitaOperative":["UO1"]}`, 2_000_000+i) }
	both := func(ids, units int) string {
		return strings.TrimSuffix(jsonArray(ids, whole), "]") + "," + strings.TrimPrefix(jsonArray(units, limited), "[")
	}
	const role = `{"acl":[],"tipiPendenza":[],"domini":`
	before := w.logEnd(t)
	for _, c := range []struct{ name, path, head, tail string }{
		{"role", bo + "/ruoli/rX", role, `}`},
		{"personal_role", bo + "/operatori/opX", `{"ragioneSociale":"X","abilitato":true,"ruoli":[],` +
			`"acl":[{"servizio":"Pendenze","autorizzazioni":["R"]}],"tipiPendenza":[],"domini":`, `}`},
		{"grant", bo + "/applicazioni/appX", `{"principal":"appX","abilitato":true,"ruoli":[],` +
			`"autorizzazioniApi":[{"api":"PENDENZE","tipiPendenza":[],"domini":`, `}]}`},
	} {
		for form, entry := range map[string]string{"ids": `"",`, "objects": `{},`} {
			t.Run(c.name+"_"+form, func(t *testing.T) {
				flood := floodOf(c.head, entry, c.tail)
				res, alloc := w.measure(t, "PUT", c.path, flood, asAdmin())
				res.expectDetail(t, 400, "SINTASSI", tooMany)
				if alloc > 16<<20 {
					t.Errorf("a %d-byte body of empty domini allocated %d MiB", len(flood), alloc>>20)
				}
			})
		}
	}
	for _, c := range []struct{ name, domini, detail string }{
		{"twenty_thousand_and_one_entries", both(10_000, 10_001), tooMany},
		{"ten_thousand_and_one_whole", jsonArray(10_001, whole), "invalid domini: must hold at most 10000 entries"},
		{"ten_thousand_and_one_limited", jsonArray(10_001, limited), "invalid unitaOperative: must hold at most 10000 entries"},
		{"units_of_one_entry", `[{"idDominio":"` + d1 + `","unitaOperative":` + jsonArray(10_001, func(i int) string { return fmt.Sprintf(`"U%d"`, i) }) + `}]`,
			"invalid domini.unitaOperative: must hold at most 10000 entries"},
		{"unknown_member_in_an_entry", `[{"idDominio":"` + d1 + `","x":1}]`, `unknown field "x"`},
		{"an_entry_neither_id_nor_object", `[1]`, `field "/domini/0" has the wrong type or value`},
		{"domini_not_an_array", `"x"`, `field "/domini" has the wrong type or value`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := w.do(t, "PUT", bo+"/ruoli/rX", role+c.domini+`}`, asAdmin())
			res.expectDetail(t, 400, "SINTASSI", c.detail)
		})
	}
	flood := floodOf(role+`[{"idDominio":"`+d1+`","unitaOperative":`, `"",`, `}]}`)
	res, alloc := w.measure(t, "PUT", bo+"/ruoli/rX", flood, asAdmin())
	res.expectDetail(t, 400, "SINTASSI", "invalid domini.unitaOperative: must hold at most 10000 entries")
	if alloc > 16<<20 {
		t.Errorf("a %d-byte body of empty units allocated %d MiB", len(flood), alloc>>20)
	}
	if after := w.logEnd(t); after != before {
		t.Errorf("the refused bodies moved the log from %d to %d", before, after)
	}
	// The largest list: 10,000 entities whole and 10,000 limited, written,
	// shown by GET and taken back by PUT unchanged.
	w.must(t, "PUT", bo+"/ruoli/rX", role+both(10_000, 10_000)+`}`)
	got := w.must(t, "GET", bo+"/ruoli/rX", nil)
	var shown struct{ Domini []json.RawMessage }
	got.decode(t, &shown)
	if len(shown.Domini) != 20_000 {
		t.Fatalf("the role of 20,000 domini entries shows %d", len(shown.Domini))
	}
	w.must(t, "PUT", bo+"/ruoli/rX", got.Body)
}

// TestPatchReplaceBoundedWhileDecoding: a PATCH's REPLACE of a list member
// is bounded as the PUT's list is: its value is kept as written and
// decoded by the PUT with the list's bound, not decoded whole first (1
// MiB of {} or "" in one REPLACE cost 34-54 MiB of allocations before, as
// many values as the body held; 8-10 MiB now, 17 under -race); an ADD
// after it decodes the replaced list at most commands.MaxDominiEntries
// entries.
func TestPatchReplaceBoundedWhileDecoding(t *testing.T) {
	w := newWorld(t)
	w.putRole(t, "big", fullACL("R"), []string{d1}, []string{"t0"})
	before := w.logEnd(t)
	for _, c := range []struct{ name, path, member, entry string }{
		{"ruolo_acl", bo + "/ruoli/big", "acl", `{},`},
		{"ruolo_tipiPendenza", bo + "/ruoli/big", "tipiPendenza", `"",`},
		{"applicazione_autorizzazioniApi", bo + "/applicazioni/appA", "autorizzazioniApi", `{},`},
	} {
		t.Run(c.name, func(t *testing.T) {
			flood := floodOf(`[{"op":"REPLACE","path":"/`+c.member+`","value":`, c.entry, `}]`)
			res, alloc := w.measure(t, "PATCH", c.path, flood, asAdmin())
			if res.Status != 400 && res.Status != 413 {
				t.Errorf("a REPLACE of %d bytes: %d %s, want 400 or 413", len(flood), res.Status, res.Body)
			}
			if alloc > 24<<20 {
				t.Errorf("a REPLACE of %d bytes allocated %d MiB", len(flood), alloc>>20)
			}
		})
	}
	// A smaller flood reaches the PUT: its own bound's 400.
	w.do(t, "PATCH", bo+"/ruoli/big", `[{"op":"REPLACE","path":"/acl","value":`+jsonArray(10, func(int) string { return "{}" })+`}]`, asAdmin()).
		expectDetail(t, 400, "SINTASSI", "invalid acl: must hold at most 9 entries, one per servizio")
	// An ADD after a REPLACE of a flood: the patch's 400.
	flood := floodOf(`[{"op":"REPLACE","path":"/tipiPendenza","value":`, `"",`, `},{"op":"ADD","path":"/tipiPendenza","value":"t9"}]`)
	res, alloc := w.measure(t, "PATCH", bo+"/ruoli/big", flood, asAdmin())
	res.expectDetail(t, 400, "SINTASSI", "a patched list holds more than 20000 entries")
	if alloc > 24<<20 {
		t.Errorf("a REPLACE and an ADD of %d bytes allocated %d MiB", len(flood), alloc>>20)
	}
	if after := w.logEnd(t); after != before {
		t.Errorf("the refused patches moved the log from %d to %d", before, after)
	}
	// REPLACE then ADD and DELETE on the replaced list, as before.
	var got struct{ TipiPendenza []string }
	w.must(t, "PATCH", bo+"/ruoli/big", `[{"op":"REPLACE","path":"/tipiPendenza","value":["t5","t6"]},`+
		`{"op":"ADD","path":"/tipiPendenza","value":"t7"},{"op":"DELETE","path":"/tipiPendenza","value":"t5"}]`, asAdmin()).decode(t, &got)
	if !slices.Equal(got.TipiPendenza, []string{"t6", "t7"}) {
		t.Errorf("after REPLACE [t5 t6], ADD t7, DELETE t5: %v", got.TipiPendenza)
	}
}

// A body whose Content-Length is over --max-body-bytes is answered 413 at
// once, before any of it is read: the server does not wait for bytes it
// would refuse anyway (until the body deadline, a connection held for an
// authenticated caller's stalled upload). The client here sends the
// headers and one byte, then waits; the body deadline is far beyond the
// test's own.
func TestDeclaredOversizeBodyAnsweredAtOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withBodyTimeout(time.Minute), withMaxBody(1<<16))
	addr := strings.TrimPrefix(h.httpURL, "http://")
	h.do(t, "GET", bo+"/domini", nil, asAdmin()).expect(t, 200, "") // caches the admin's credential
	for _, c := range []struct {
		name   string
		length int64
	}{
		{"one_byte_over", 1<<16 + 1},
		{"a_terabyte", 1 << 40},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "PUT %s/domini/12345678901 HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{",
				bo, basicHeader(adminUser, adminPass), c.length)
			_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // the test's bound: a third of the body deadline
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer before the body was sent: %v", err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"codice":"SINTASSI"`) {
				t.Fatalf("status %d, body %s; want 413 SINTASSI", res.StatusCode, body)
			}
		})
	}
	h.do(t, "GET", bo+"/domini/12345678901", nil, asAdmin()).expect(t, 404, "404000") // nothing written
}

// TestManySegmentsCostLittle: a path of many segments that no route takes
// (a request line under the 32 KiB header bound, anonymous on the public
// mount, which authenticates anyone) is a 404 FaultBean that costs the
// server about what reading it costs, not a copy of the path for every
// route looked at for its 405's Allow.
func TestManySegmentsCostLittle(t *testing.T) {
	h := newHarness(t)
	addr := strings.TrimPrefix(h.httpURL, "http://")
	const budget = 4 << 20 // bytes the server may allocate for one such request
	for _, c := range []struct{ name, path string }{
		{"under_a_route", "/pagamento/rs/public/v2/pagamenti/x" + strings.Repeat("/a", 15000)},
		{"under_no_route", "/pagamento/rs/public/v2/nothing" + strings.Repeat("/a", 15000)},
		{"empty_segments", "/pagamento/rs/public/v2/pagamenti/x" + strings.Repeat("/", 30000)},
	} {
		t.Run(c.name, func(t *testing.T) {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", c.path)
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			_ = res.Body.Close()
			runtime.ReadMemStats(&ms)
			if res.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"codice":"404000"`) {
				t.Fatalf("status %d, body %s; want a 404 FaultBean", res.StatusCode, body)
			}
			if spent := ms.TotalAlloc - before; spent > budget {
				t.Errorf("the server allocated %d MiB for one request of %d bytes", spent>>20, len(c.path))
			}
		})
	}
}
