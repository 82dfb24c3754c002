package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// TestConsistencyTokenNamesItsBackend: a token is read back only by a
// service on the same backend; a token of the other backend, whose
// positions mean something else, is refused rather than misread.
func TestConsistencyTokenNamesItsBackend(t *testing.T) {
	cases := []struct {
		name    string
		backend string
		token   string
		want    events.Position
		ok      bool
	}{
		{"jetstream_reads_its_own", "jetstream", Token("jetstream", 42), 42, true},
		{"kurrentdb_reads_its_own", "kurrentdb", Token("kurrentdb", 1_234_567), 1_234_567, true},
		{"kurrentdb_refuses_jetstream", "kurrentdb", Token("jetstream", 42), 0, false},
		{"jetstream_refuses_kurrentdb", "jetstream", Token("kurrentdb", 42), 0, false},
		{"no_backend", "kurrentdb", "42", 0, false},
		{"backend_case_matters", "kurrentdb", "KurrentDB:42", 0, false},
		{"no_position", "kurrentdb", "kurrentdb:", 0, false},
		{"negative", "kurrentdb", "kurrentdb:-1", 0, false},
		{"overflow", "kurrentdb", "kurrentdb:18446744073709551616", 0, false},
		{"trailing_garbage", "kurrentdb", "kurrentdb:42x", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseToken(c.backend, c.token)
			if (err == nil) != c.ok || got != c.want {
				t.Fatalf("ParseToken(%q, %q) = %d, %v; want %d, ok=%v", c.backend, c.token, got, err, c.want, c.ok)
			}
		})
	}
}

// FuzzParseToken: whatever a caller sends as X-Consistency-Token, a
// token is read only when it is the backend's name, ':' and the decimal
// digits of a position, which Token spells back (without leading zeros).
func FuzzParseToken(f *testing.F) {
	for _, s := range []string{Token("jetstream", 42), "jetstream:0", "jetstream:007", "jetstream:", "jetstream", ":42",
		"jetstream:18446744073709551615", "jetstream:18446744073709551616", "jetstream:000000000000000000001",
		"jetstream:+1", "jetstream:-1", "jetstream: 1", "jetstream:1:2", "JetStream:1", "kurrentdb:1", "jetstream:\xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		pos, err := ParseToken("jetstream", tok)
		if err != nil {
			if pos != 0 {
				t.Fatalf("ParseToken(%q) refused with position %d", tok, pos)
			}
			return
		}
		num, ok := strings.CutPrefix(tok, "jetstream:")
		if !ok || num == "" || strings.Trim(num, "0123456789") != "" {
			t.Fatalf("ParseToken(%q) = %d: not the backend and a number", tok, pos)
		}
		if want := strings.TrimLeft(num, "0"); Token("jetstream", pos) != "jetstream:"+want && !(want == "" && pos == 0) {
			t.Fatalf("ParseToken(%q) = %d, which Token spells %q", tok, pos, Token("jetstream", pos))
		}
		if back, err := ParseToken("jetstream", Token("jetstream", pos)); err != nil || back != pos {
			t.Fatalf("Token of %d does not parse back: %d, %v", pos, back, err)
		}
	})
}

// countingLog counts the server's reads of the log's end.
type countingLog struct {
	events.LogReader
	n atomic.Int64
}

func (c *countingLog) LastPosition(ctx context.Context) (events.Position, error) {
	c.n.Add(1)
	return c.LogReader.LastPosition(ctx)
}

// TestConsistencyTokenAnsweredAfterAuthentication: a token is waited for
// before the credentials are checked, and answered for only after them. A
// caller whose credentials fail costs the store nothing: 401 when its
// token was reached or is not ours, 503 when it was not reached (its
// credentials may be the write it waits for: a new password on a lagging
// replica must not be called wrong). That 503 still counts as a failed
// login, against the throttles as a 401 does: else anyone could send a
// token that never arrives and guess passwords unthrottled. The node API
// answers for the token after its admission. An authenticated caller gets
// 400 for a token that is not ours or lies beyond the end of the log (the
// end read once for the requests that wait together).
func TestConsistencyTokenAnsweredAfterAuthentication(t *testing.T) {
	t.Parallel() // each test runs its own service
	log := &countingLog{}
	h := newHarness(t, withConsistencyWait(300*time.Millisecond), withLoginThrottle(),
		withLogReader(func(s events.LogReader) events.LogReader { log.LogReader = s; return log }))
	h.putOperator(t, "op-token", "op-token-pass-1", true)
	h.must(t, "PUT", bo+"/intermediari/INTT", map[string]any{"denominazione": "T", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "node-t", "password": "node-t-secret"}}, asAdmin())
	h.putEntity(t, d1)
	future := withToken(Token(h.store.Backend(), 1<<40))
	notice := nd + "/intermediari/INTT/avvisi/" + d1 + "/000000000000000001"
	reachedTok := Token(h.store.Backend(), 1)
	reached := withToken(reachedTok)
	for _, c := range []struct {
		name, path string
		opts       []reqOpt
		status     int
		codice     string
	}{
		{"wrong_password_future_token", bo + "/profilo", []reqOpt{asBasic("op-token", "wrong-password"), future}, 503, "503000"},
		{"unknown_user_future_token", bo + "/profilo", []reqOpt{asBasic("nobody", "wrong-password"), future}, 503, "503000"},
		{"no_credentials_future_token", bo + "/profilo", []reqOpt{future}, 503, "503000"},
		{"unknown_api_key_future_token", "/backoffice/rs/apikey/v1/profilo", []reqOpt{withHeader("X-APP-ID", "nobody"), withHeader("X-API-KEY", "nokey"), future}, 503, "503000"},
		{"wrong_password_garbage_token", bo + "/profilo", []reqOpt{asBasic("op-token", "wrong-password"), withToken("garbage")}, 401, "401000"},
		{"wrong_password_reached_token", bo + "/profilo", []reqOpt{asBasic("op-token", "wrong-password"), withToken(Token(h.store.Backend(), 1))}, 401, "401000"},
		{"node_wrong_password_future_token", notice, []reqOpt{asBasic("node-t", "wrong-password"), future}, 503, "503000"},
		{"node_unknown_user_garbage_token", notice, []reqOpt{asBasic("nobody", "wrong-password"), withToken("garbage")}, 401, "401000"},
		{"authenticated_garbage_token", bo + "/profilo", []reqOpt{asAdmin(), withToken("garbage")}, 400, "SINTASSI"},
		{"node_admitted_garbage_token", notice, []reqOpt{asBasic("node-t", "node-t-secret"), withToken("garbage")}, 400, "SINTASSI"},
		{"authenticated_token_twice", bo + "/profilo", []reqOpt{asAdmin(), reached, alsoHeader(ConsistencyHeader, reachedTok)}, 400, "SINTASSI"},
		{"authenticated_reached_and_future_token", bo + "/profilo", []reqOpt{asAdmin(), reached, alsoHeader(ConsistencyHeader, Token(h.store.Backend(), 1<<40))}, 400, "SINTASSI"},
		{"wrong_password_token_twice", bo + "/profilo", []reqOpt{asBasic("op-token", "wrong-password"), reached, alsoHeader(ConsistencyHeader, reachedTok)}, 401, "401000"},
		{"node_admitted_token_twice", notice, []reqOpt{asBasic("node-t", "node-t-secret"), reached, alsoHeader(ConsistencyHeader, reachedTok)}, 400, "SINTASSI"},
		{"one_token_and_an_empty_one", bo + "/profilo", []reqOpt{asAdmin(), reached, alsoHeader(ConsistencyHeader, "")}, 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h.do(t, "GET", c.path, nil, c.opts...).expect(t, c.status, c.codice)
		})
	}
	h.do(t, "GET", bo+"/profilo", nil, asAdmin(), reached, alsoHeader(ConsistencyHeader, reachedTok)).
		expectDetail(t, 400, "SINTASSI", givenTwiceDetail(ConsistencyHeader))
	if n := log.n.Load(); n != 0 {
		t.Fatalf("requests of callers not authenticated read the log's end %d times", n)
	}

	// Authenticated callers that wait together share one read of the end.
	const callers = 8
	var wg sync.WaitGroup
	res := make([]*response, callers)
	for i := range callers {
		wg.Go(func() { res[i] = h.do(t, "GET", bo+"/profilo", nil, asAdmin(), future) })
	}
	wg.Wait()
	for _, r := range res {
		r.expect(t, 400, "SINTASSI")
		if !strings.Contains(string(r.Body), "beyond the end of the log") {
			t.Fatalf("body %s", r.Body)
		}
	}
	if n := log.n.Load(); n < 1 || n >= callers {
		t.Fatalf("%d authenticated requests with a token beyond the end read it %d times, want 1 or a few", callers, n)
	}

	// Wrong passwords with an unreached token are throttled as plain ones
	// (TestFailedLoginsThrottledWithoutLockingOut): after the burst, the
	// right password from that address is 429 too, though never verified;
	// from another address it logs in.
	h.putRole(t, "ro", acl{aclOf("Pendenze", "R")}, []string{"*"}, []string{"*"})
	h.putOperator(t, "op-guess", "op-guess-pass-1", true, "ro")
	for i := range DefaultFailedLoginsPerPrincipal {
		h.do(t, "GET", bo+"/profilo", nil, asBasic("op-guess", fmt.Sprintf("guess-%d", i)), future, fromLocalAddr("127.0.0.7")).expect(t, 503, "503000")
	}
	h.do(t, "GET", bo+"/profilo", nil, asBasic("op-guess", "op-guess-pass-1"), fromLocalAddr("127.0.0.7")).expect(t, 429, "429000")
	h.do(t, "GET", bo+"/profilo", nil, asBasic("op-guess", "op-guess-pass-1"), fromLocalAddr("127.0.0.8")).expect(t, 200, "")
}

// deadlineLog keeps the deadline of each read of the log's end.
type deadlineLog struct {
	events.LogReader
	mu        sync.Mutex
	deadlines []time.Time   // the zero time for a read without one
	gate      chan struct{} // the next read waits for it to close (hold)
	held      chan struct{} // closed once that read started
}

// hold makes the next read of the log's end wait until release, whatever
// its context, and then answer late (a store that does not answer within
// its deadline); held is closed once that read started. release may be
// called more than once.
func (d *deadlineLog) hold() (held <-chan struct{}, release func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	gate, started := make(chan struct{}), make(chan struct{})
	d.gate, d.held = gate, started
	var once sync.Once
	return started, func() { once.Do(func() { close(gate) }) }
}

// The --consistency-wait and --request-timeout of waitDeadlines' service.
const waitsFor, waitsTimeout = 2 * time.Second, 3 * time.Second

// waitDeadlines is a service with waitsFor and waitsTimeout whose reads of
// the log's end keep their deadlines in the deadlineLog.
func waitDeadlines(t *testing.T) (*harness, *deadlineLog) {
	log := &deadlineLog{}
	h := newHarness(t, withConsistencyWait(waitsFor), withRequestTimeout(waitsTimeout),
		withLogReader(func(s events.LogReader) events.LogReader { log.LogReader = s; return log }))
	return h, log
}

// since is the deadlines of the reads after the first n.
func (d *deadlineLog) since(n int) []time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]time.Time(nil), d.deadlines[n:]...)
}

func (d *deadlineLog) LastPosition(ctx context.Context) (events.Position, error) {
	dl, _ := ctx.Deadline()
	d.mu.Lock()
	d.deadlines = append(d.deadlines, dl)
	gate, held := d.gate, d.held
	d.gate, d.held = nil, nil
	d.mu.Unlock()
	if gate != nil {
		close(held)
		<-gate
		ctx = context.WithoutCancel(ctx)
	}
	return d.LogReader.LastPosition(ctx)
}

// TestRequestWaitsShareItsTimeout: a request's waits each lasted up to
// --consistency-wait, one after another, however long that made the
// request: a token beyond the log's end waited for the read models, then
// as long again for the log's end, past --request-timeout (more than
// --consistency-wait), when the connection is cut and no answer reaches
// the caller. They now share one deadline within --request-timeout: the
// read of the log's end is given only what the token's wait left.
func TestRequestWaitsShareItsTimeout(t *testing.T) {
	t.Parallel()
	h, log := waitDeadlines(t)
	h.must(t, "GET", bo+"/profilo", nil) // the connection is open: the request below starts at once
	start := time.Now()
	h.do(t, "GET", bo+"/profilo", nil, asAdmin(), withToken(Token(h.store.Backend(), 1<<40))).expect(t, 400, "SINTASSI")
	if got := log.since(0); len(got) != 1 {
		t.Fatalf("%d reads of the log's end, want 1", len(got))
	} else if dl := got[0]; dl.IsZero() || dl.After(start.Add(waitsTimeout)) {
		t.Fatalf("after waiting %v for its token the request read the log's end until %v after it came in, past --request-timeout %v",
			waitsFor, dl.Sub(start), waitsTimeout)
	}
}

// TestLogEndWaitEndsWithTheRequest: requests that wait together for the
// log's end make one read of it at a time, and the others queued for it
// as long as it lasted, past their deadline: behind a slow read the
// queued requests' answers came after --request-timeout had cut their
// connections. A request now waits in the queue within its waits: when
// their deadline passes it is answered as a read of the end that failed
// (503, its token not reached), while the read in flight goes on and is
// the answer of those that wait on with time left. The first read is held
// here (a store that does not answer in time), made for a caller whose
// waits have no deadline.
func TestLogEndWaitEndsWithTheRequest(t *testing.T) {
	t.Parallel()
	h, log := waitDeadlines(t)
	h.must(t, "GET", bo+"/profilo", nil) // the connection is open: the requests below start at once
	end := h.logEnd(t)
	held, release := log.hold()
	defer release()
	type read struct {
		last events.Position
		err  error
	}
	cameIn := time.Now() // before the held read: its answer is theirs
	first, other := make(chan read, 1), make(chan read, 1)
	go func() {
		last, err := h.srv.logEnd.since(context.Background(), h.srv.store, cameIn, waitsFor)
		first <- read{last, err}
	}()
	<-held
	go func() { // waits with it, with time to spare
		last, err := h.srv.logEnd.since(context.Background(), h.srv.store, cameIn, waitsFor)
		other <- read{last, err}
	}()

	// Requests whose token lies beyond the log's end wait --consistency-wait
	// for it, then queue behind the held read until their deadline.
	time.AfterFunc(waitsTimeout+time.Second, release) // let the old queue end: its answers come too late
	const callers = 4
	beyond := withToken(Token(h.store.Backend(), 1<<40))
	var wg sync.WaitGroup
	res, took := make([]*response, callers), make([]time.Duration, callers)
	for i := range callers {
		wg.Go(func() {
			start := time.Now()
			res[i] = h.do(t, "GET", bo+"/profilo", nil, asAdmin(), beyond)
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	for i, r := range res {
		if r == nil {
			t.FailNow() // its request failed (h.do said why)
		}
		if took[i] >= waitsTimeout {
			t.Fatalf("a request queued behind the read of the log's end answered after %v, past --request-timeout %v", took[i], waitsTimeout)
		}
		r.expect(t, 503, "503000")
	}
	select {
	case r := <-first:
		t.Fatalf("the held read ended (%d, %v) before it was let go", r.last, r.err)
	case r := <-other:
		t.Fatalf("the caller waiting with time to spare was answered (%d, %v) before the read it waits for", r.last, r.err)
	default:
	}
	if n := len(log.since(0)); n != 1 {
		t.Fatalf("%d reads of the log's end while one was in flight, want that one", n)
	}

	release()
	for name, ch := range map[string]chan read{"held read": first, "caller waiting with it": other} {
		if r := <-ch; r.err != nil || r.last < end {
			t.Fatalf("%s: %d, %v; want the log's end (%d)", name, r.last, r.err, end)
		}
	}
	if n := len(log.since(0)); n != 1 {
		t.Fatalf("%d reads of the log's end, want 1: the caller waiting with the held read shares its answer", n)
	}
	// The queue is free again: a request reads the end anew.
	r := h.do(t, "GET", bo+"/profilo", nil, asAdmin(), beyond)
	r.expect(t, 400, "SINTASSI")
	if !strings.Contains(string(r.Body), "beyond the end of the log") {
		t.Fatalf("body %s", r.Body)
	}
}

// failingLog is a store whose reads of the log's end fail.
type failingLog struct {
	events.LogReader
	n atomic.Int64
}

func (f *failingLog) LastPosition(context.Context) (events.Position, error) {
	f.n.Add(1)
	return 0, errors.New("stream info: unavailable")
}

// TestLogEndSharesFailures: requests that came in before a read of the
// log's end started share its answer, a failure too (each made its own
// call, one after another); a request that came in after it reads anew.
func TestLogEndSharesFailures(t *testing.T) {
	t.Parallel()
	store := &failingLog{}
	var end logEnd
	cameIn := time.Now() // before any read: the requests waited together
	for range 8 {
		if _, err := end.since(t.Context(), store, cameIn, time.Second); err == nil {
			t.Fatal("a failed read answered no error")
		}
	}
	if n := store.n.Load(); n != 1 {
		t.Fatalf("8 requests that came in together made %d store calls, want 1", n)
	}
	time.Sleep(time.Millisecond) // a request that comes in after that read
	if _, err := end.since(t.Context(), store, time.Now(), time.Second); err == nil || store.n.Load() != 2 {
		t.Fatalf("a later request: %v after %d calls, want its own failed read (2 calls)", err, store.n.Load())
	}
}

// TestTokenNotReachedIsNoEntryDecision: the entry decision of a mount
// (a role, a grant, an enabled principal; the node API's registered
// intermediary and its connector) rests on the state the token names, so
// an authenticated caller whose token this replica has not reached is
// answered 503, not refused entry from the state before the write it
// waits for; and a token that is not ours is 400 before that decision
// too. The replica's projections are held behind the log.
func TestTokenNotReachedIsNoEntryDecision(t *testing.T) {
	t.Parallel() // each test runs its own service
	gate := newProjectionGate()
	h := newHarness(t, withConsistencyWait(200*time.Millisecond), withProjectionGate(gate))
	h.putOperator(t, "op-entry", "op-entry-pass-1", true) // no role: no BACKOFFICE entry
	h.must(t, "PUT", bo+"/intermediari/INTE", map[string]any{"denominazione": "E", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "node-e", "password": "node-e-secret"}}, asAdmin())
	unregistered := nd + "/intermediari/INTX/avvisi/" + d1 + "/000000000000000001"
	noRole := asBasic("op-entry", "op-entry-pass-1")

	h.do(t, "GET", bo+"/profilo", nil, noRole, withToken("garbage")).expect(t, 400, "SINTASSI")
	h.do(t, "GET", bo+"/profilo", nil, noRole).expect(t, 403, "403000")
	h.do(t, "GET", unregistered, nil, asBasic("node-e", "node-e-secret")).expect(t, 403, "403000")

	// Another replica's write, which this one has not applied.
	gate.shut()
	defer gate.reopen()
	pos, err := h.store.Append(t.Context(), events.StreamRuolo+"later", events.ExpectNoStream(), events.Record{
		ID: "later-role", Event: events.RoleDefined{IDRuolo: "later", TipiPendenza: []string{"*"},
			ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}}, Domini: []string{"*"}}})
	if err != nil {
		t.Fatal(err)
	}
	unreached := withToken(Token(h.store.Backend(), pos))
	for _, c := range []struct {
		name, path string
		opts       []reqOpt
	}{
		{"no_role", bo + "/profilo", []reqOpt{noRole, unreached}},
		{"node_of_an_intermediary_not_yet_registered", unregistered, []reqOpt{asBasic("node-e", "node-e-secret"), unreached}},
		{"admin", bo + "/profilo", []reqOpt{asAdmin(), unreached}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h.do(t, "GET", c.path, nil, c.opts...).expect(t, 503, "503000")
		})
	}
	if got := h.model.AppliedPosition(); got >= pos {
		t.Fatalf("the projections applied %d, past the commit at %d they were held before", got, pos)
	}
}

// Once the read models stop at a commit they cannot apply (here a role of
// a service this build does not know, as a newer build writes), they are
// behind the log for good: a revocation after it would never be seen.
// Every request is then refused with 503, readiness included, and serve
// stops the process (cmd/payauthz, TestServeStopsWhenTheProjectionsStop).
// Before, the replica went on answering, ready, from the models as they
// were before that commit.
func TestStoppedProjectionsRefuseEveryRequest(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.do(t, "GET", bo+"/profilo", nil, asAdmin()).expect(t, 200, "")
	cc := h.consoleClient(t)
	cc.login(adminUser, adminPass)
	if _, err := h.store.Append(t.Context(), events.StreamRuolo+"future", events.ExpectNoStream(), events.Record{
		ID: "future-role", Event: events.RoleDefined{IDRuolo: "future", TipiPendenza: []string{"*"},
			ACL: []events.ACLEntry{{Service: "Future", Rights: []string{"R"}}}, Domini: []string{"*"}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the projections stop", func() bool { return h.model.Stopped() != nil })
	for _, c := range []struct {
		name, path string
		opts       []reqOpt
	}{
		{"backoffice", bo + "/profilo", []reqOpt{asAdmin()}},
		{"unauthenticated", bo + "/profilo", nil},
		{"readiness", "/readyz", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, "GET", c.path, nil, c.opts...)
			res.expect(t, 503, "503000")
			if d := res.fault(t).Dettaglio; !strings.Contains(d, "stopped applying the event log") {
				t.Errorf("dettaglio %q, want it to say the read models stopped", d)
			}
		})
	}
	t.Run("console_signed_in", func(t *testing.T) {
		cc.get("/console/").expect(t, 503, "stopped applying the event log")
	})
}

// TestWriteNotAppliedInTimeAnswersItsToken: a write this replica has not
// applied within --consistency-wait is answered 503, but it is in the log:
// the answer carries its consistency token, so that the client knows its
// write was committed (a retried POST /incassi would record a second
// incasso) and reads it, on any replica, with that token. Before, the 503
// carried none: the client could not tell it from a write the store
// refused, nor wait for it.
func TestWriteNotAppliedInTimeAnswersItsToken(t *testing.T) {
	t.Parallel() // each test runs its own service
	gate := newProjectionGate()
	h := newHarness(t, withConsistencyWait(200*time.Millisecond), withProjectionGate(gate))
	h.putEntity(t, d1)
	gate.shut()
	defer gate.reopen()
	before := h.logEnd(t)
	res := h.do(t, "PUT", bo+"/domini/"+d2, map[string]any{"ragioneSociale": "Ente lento", "abilitato": true}, asAdmin())
	res.expect(t, 503, "503000")
	tok := res.Header.Get(ConsistencyHeader)
	pos, err := ParseToken(h.store.Backend(), tok)
	if err != nil || pos <= before {
		t.Fatalf("the 503 of a committed write carries token %q (%v); want the position of its commit, after %d", tok, err, before)
	}
	gate.reopen()
	h.do(t, "GET", bo+"/domini/"+d2, nil, asAdmin(), withToken(tok)).expect(t, 200, "")
}

// TestReplicaCatchingUpDecidesNothing: a replica restarted from a snapshot
// older than the log (or replaying it from the start) knows where the log
// ended when it started; until its read models applied that, a request
// waits for them (--consistency-wait), then is 503, on the APIs and the
// console alike. Before, it was decided from the snapshot's state: an
// operator disabled before the restart was let in for as long as the
// replay took (/readyz said 503, but nothing else waited for it).
func TestReplicaCatchingUpDecidesNothing(t *testing.T) {
	t.Parallel() // each test runs its own service
	dataDir, snapDir := t.TempDir(), t.TempDir()
	h := newHarness(t, withDataDir(dataDir))
	h.putRole(t, "rCatch", acl{aclOf("Pendenze", "R")}, []string{"*"}, []string{"*"})
	h.putOperator(t, "opCatch", pw, true, "rCatch")
	h.do(t, "GET", bo+"/profilo", nil, as("opCatch")).expect(t, 200, "")
	if _, err := h.model.WriteSnapshot(snapDir); err != nil {
		t.Fatal(err)
	}
	h.putOperator(t, "opCatch", pw, false, "rCatch") // disabled after the snapshot
	h.stop()

	gate := newProjectionGate()
	gate.shut()
	r := newHarness(t, withDataDir(dataDir), fromSnapshot(snapDir), withProjectionGate(gate), servingBehind(),
		withConsistencyWait(200*time.Millisecond))
	defer gate.reopen()
	r.do(t, "GET", bo+"/profilo", nil, as("opCatch")).expect(t, 503, "503000")
	r.do(t, "GET", "/readyz", nil).expect(t, 503, "")
	r.do(t, "GET", "/healthz", nil).expect(t, 200, "")
	r.consoleClient(t).get("/console/login").expect(t, 503)
	gate.reopen()
	eventually(t, "the replica catches up", func() bool { return r.do(t, "GET", "/readyz", nil).Status == 200 })
	r.do(t, "GET", bo+"/profilo", nil, as("opCatch")).expect(t, 403, "403000")
}

// slowLog answers reads of the log's end after delay, or the caller's
// context error when that ends first.
type slowLog struct {
	events.LogReader
	delay time.Duration
}

func (s *slowLog) LastPosition(ctx context.Context) (events.Position, error) {
	select {
	case <-time.After(s.delay):
		return s.LogReader.LastPosition(ctx)
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// TestLogEndKeepsNoFailureOfOneRequestsTime: a read of the log's end
// bounded by what its request's waits had left (projections.WaitBound)
// and cut short by that is not the store's answer. Requests that came in
// before it started took its failure for their own, answering a token
// beyond the log's end 503 rather than 400, though the store answers
// within their --consistency-wait; they now read it themselves.
func TestLogEndKeepsNoFailureOfOneRequestsTime(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withConsistencyWait(2*time.Second),
		withLogReader(func(s events.LogReader) events.LogReader {
			return &slowLog{LogReader: s, delay: 100 * time.Millisecond}
		}))
	beyond := events.Position(1 << 40)
	cameIn := time.Now() // both requests waited for the token since then
	late := projections.WithWaitDeadline(t.Context(), time.Now().Add(10*time.Millisecond))
	if h.srv.beyondLog(late, beyond, cameIn) {
		t.Fatal("a request with 10ms left read the log's end, which takes 100ms")
	}
	if !h.srv.beyondLog(t.Context(), beyond, cameIn) {
		t.Fatal("a request with its whole --consistency-wait left was not told that the position is beyond the log's end: it took the other request's time-out for the store's answer")
	}
}

// TestRequestWaitsCostOneAllocation: every request goes through
// requestWaits, and most never wait (their positions are applied): giving
// its waits their deadline costs one allocation, not a copy of the
// request and a context (three, a few hundred bytes, on every request).
func TestRequestWaitsCostOneAllocation(t *testing.T) {
	h := newHarness(t)
	c := h.srv.echo.NewContext(httptest.NewRequest(http.MethodGet, "/healthz", nil), httptest.NewRecorder())
	mw := h.srv.requestWaits(func(*echo.Context) error { return nil })
	_ = mw(c) // the context's store made once, as the pooled contexts keep theirs
	if n := testing.AllocsPerRun(100, func() { _ = mw(c) }); n > 1 {
		t.Fatalf("requestWaits: %v allocations a request, want at most 1", n)
	}
}
