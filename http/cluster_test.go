package httpapi

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
)

// These tests run two replicas of the real service (each its own store
// connection, read models and HTTP listeners) on one in-process 3-node
// NATS JetStream cluster with an R3 stream, and break the cluster under
// them. Deadlines below only bound how long a test may hang; no test
// asserts on durations.

// clusterPair is a 3-node cluster and two replicas on it. A knows every
// node; B knows only node 3 (the nodes do not advertise each other), so
// stopping node 3 isolates B while A keeps writing.
type clusterPair struct {
	nats *jetstreamtest.Cluster
	a, b *harness
}

func newClusterPair(t *testing.T, bOpts ...harnessOption) *clusterPair {
	t.Helper()
	if testing.Short() {
		t.Skip("cluster tests need a 3-node NATS cluster; skipped in -short")
	}
	c := jetstreamtest.NewCluster(t, 3)
	urls := c.URLs()
	a := newHarness(t, onCluster(urls, 3))
	b := newHarness(t, append([]harnessOption{onCluster(urls[2:], 3)}, bOpts...)...)
	return &clusterPair{nats: c, a: a, b: b}
}

// positionOf reads the position out of a write's consistency token.
func positionOf(t testing.TB, r *response) events.Position {
	t.Helper()
	tok := r.Header.Get(ConsistencyHeader)
	pos, err := ParseToken("jetstream", tok)
	if err != nil {
		t.Fatalf("write answered token %q: %v", tok, err)
	}
	return pos
}

// waitApplied waits (bounded) until h's projections applied pos.
func waitApplied(t testing.TB, h *harness, pos events.Position) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.model.WaitFor(ctx, pos); err != nil {
		t.Fatalf("replica did not apply position %d: %v", pos, err)
	}
}

// eventually polls cond until it holds, failing after a generous bound.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// expectOnB asserts the answer of A, the writer, at once and with no
// token, then B's answer twice: with A's token (decided after B applied
// it), then without a token once B has applied it.
func (p *clusterPair) expectOnB(t *testing.T, write *response, status int, codice, method, path string, opts ...reqOpt) {
	t.Helper()
	p.a.do(t, method, path, nil, opts...).expect(t, status, codice)
	withTok := append(append([]reqOpt(nil), opts...), withToken(write.Header.Get(ConsistencyHeader)))
	p.b.do(t, method, path, nil, withTok...).expect(t, status, codice)
	waitApplied(t, p.b, positionOf(t, write))
	p.b.do(t, method, path, nil, opts...).expect(t, status, codice)
}

func TestCluster_writes_on_a_are_enforced_on_b(t *testing.T) {
	p := newClusterPair(t)
	a := p.a
	a.putEntity(t, d1)
	a.putType(t, t1, false)
	app := func(enabled bool, password string, grants ...map[string]any) *response {
		if grants == nil {
			grants = []map[string]any{}
		}
		return a.must(t, "PUT", bo+"/applicazioni/appX", map[string]any{"principal": "appX", "abilitato": enabled,
			"ruoli": []string{}, "autorizzazioniApi": grants, "password": password})
	}
	pendenze := apiGrant("PENDENZE", []string{d1}, []string{"*"})

	// listOnB writes appX on A and expects its GET /pendenze on B.
	listOnB := func(t *testing.T, enabled bool, status int, codice string, grants ...map[string]any) {
		t.Helper()
		p.expectOnB(t, app(enabled, pw, grants...), status, codice, "GET", pe+"/pendenze", as("appX"))
	}
	t.Run("no_grant_denied_on_b", func(t *testing.T) { listOnB(t, true, 403, "403000") })
	t.Run("grant_on_a_allowed_on_b", func(t *testing.T) { listOnB(t, true, 200, "", pendenze) })
	t.Run("revoke_on_a_denied_on_b", func(t *testing.T) { listOnB(t, true, 403, "403000") })
	t.Run("disable_on_a_denied_on_b", func(t *testing.T) {
		listOnB(t, true, 200, "", pendenze)
		listOnB(t, false, 403, "403000", pendenze)
		listOnB(t, true, 200, "", pendenze)
	})
	t.Run("password_change_on_a_drops_verified_credential_on_b", func(t *testing.T) {
		// B has verified (and cached) the old password just above.
		w := app(true, "new-password-456", pendenze)
		p.expectOnB(t, w, 401, "401000", "GET", pe+"/pendenze", as("appX"))
		p.expectOnB(t, w, 200, "", "GET", pe+"/pendenze", asBasic("appX", "new-password-456"))
	})
	t.Run("api_key_change_on_a_drops_verified_key_on_b", func(t *testing.T) {
		const pek = "/pendenze/rs/apikey/v2"
		key := func(k string) *response {
			return a.must(t, "PUT", bo+"/applicazioni/appX", map[string]any{"principal": "appX", "apiKey": k, "abilitato": true,
				"ruoli": []string{}, "autorizzazioniApi": []map[string]any{pendenze}})
		}
		p.expectOnB(t, key("app-x-key-0123456789"), 200, "", "GET", pek+"/pendenze", asAPIKey("appX", "app-x-key-0123456789"))
		w := key("app-x-key-9876543210")
		p.expectOnB(t, w, 401, "401000", "GET", pek+"/pendenze", asAPIKey("appX", "app-x-key-0123456789"))
		p.expectOnB(t, w, 200, "", "GET", pek+"/pendenze", asAPIKey("appX", "app-x-key-9876543210"))
	})
	t.Run("role_redefined_on_a_reaches_its_holder_on_b", func(t *testing.T) {
		role := func(entries acl) *response {
			return a.must(t, "PUT", bo+"/ruoli/rX", map[string]any{"acl": entries, "domini": []string{"*"}, "tipiPendenza": []string{"*"}})
		}
		role(acl{aclOf("Pendenze", "R")})
		a.putOperator(t, "opX", pw, true, "rX")
		p.expectOnB(t, role(acl{aclOf("Pendenze", "R")}), 200, "", "GET", bo+"/pendenze", as("opX"))
		p.expectOnB(t, role(acl{aclOf("Anagrafica Creditore", "R")}), 403, "403000", "GET", bo+"/pendenze", as("opX"))
	})
	t.Run("connector_password_change_on_a_drops_verified_credential_on_b", func(t *testing.T) {
		connector := func(password string) *response {
			return a.must(t, "PUT", bo+"/intermediari/INTX", map[string]any{"denominazione": "X", "abilitato": true,
				"connettoreNodo": map[string]any{"principal": "node-x", "password": password}})
		}
		connector("node-x-secret-1")
		a.must(t, "PUT", bo+"/domini/"+d1, map[string]any{"ragioneSociale": "Ente " + d1, "abilitato": true, "idIntermediario": "INTX"})
		notice := nd + "/intermediari/INTX/avvisi/" + d1 + "/000000000000000001"
		p.expectOnB(t, connector("node-x-secret-1"), 404, "404000", "GET", notice, asBasic("node-x", "node-x-secret-1"))
		w := connector("node-x-secret-2")
		p.expectOnB(t, w, 401, "401000", "GET", notice, asBasic("node-x", "node-x-secret-1"))
		p.expectOnB(t, w, 404, "404000", "GET", notice, asBasic("node-x", "node-x-secret-2"))
	})
	t.Run("protection_change_on_a_enforced_on_b", func(t *testing.T) {
		v := pendenzaView{}
		a.must(t, "PUT", pe+"/pendenze/appX/p1", pendenzaBodyFor(d1, t1, citizen1),
			asBasic("appX", "new-password-456")).decode(t, &v)
		avviso := "/pagamento/rs/public/v2/avvisi/" + d1 + "/" + v.NumeroAvviso
		w := a.must(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": false,
			"captcha": map[string]any{"serverURL": "http://127.0.0.1:1/verify", "secretKey": "s3cret", "soglia": 0.5}})
		p.expectOnB(t, w, 200, "", "GET", avviso)
		w = a.must(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": true,
			"captcha": map[string]any{"serverURL": "http://127.0.0.1:1/verify", "secretKey": "s3cret", "soglia": 0.5}})
		p.expectOnB(t, w, 403, "403000", "GET", avviso)
		p.expectOnB(t, w, 200, "", "GET", avviso+"?UUID="+v.UUID)
	})
}

func TestCluster_consistency_tokens_and_isolation(t *testing.T) {
	p := newClusterPair(t, withConsistencyWait(300*time.Millisecond))
	a, b := p.a, p.b
	w := a.must(t, "PUT", bo+"/domini/"+d1, map[string]any{"ragioneSociale": "Ente", "abilitato": true})
	tok := w.Header.Get(ConsistencyHeader)
	pos := positionOf(t, w)

	rows := []struct {
		name   string
		token  string
		status int
		codice string
	}{
		{"token_of_a_decided_on_b", tok, 200, ""},
		{"garbage_token", "garbage", 400, "SINTASSI"},
		{"empty_position", "jetstream:", 400, "SINTASSI"},
		{"negative_position", "jetstream:-1", 400, "SINTASSI"},
		{"foreign_backend", "kurrentdb:1", 400, "SINTASSI"},
		{"future_token", Token("jetstream", pos+1000), 400, "SINTASSI"},
		{"overflowing_position", "jetstream:99999999999999999999", 400, "SINTASSI"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			b.do(t, "GET", bo+"/domini/"+d1, nil, asAdmin(), withToken(r.token)).expect(t, r.status, r.codice)
		})
	}

	t.Run("isolated_replica_serves_reads_refuses_writes_and_unreached_tokens", func(t *testing.T) {
		p.nats.Stop(2) // B's only node
		eventually(t, "B's /readyz is 503", func() bool { return b.do(t, "GET", "/readyz", nil).Status == 503 })
		// A keeps writing on the two remaining nodes (quorum of the R3 stream).
		var w2 *response
		eventually(t, "A writes with node 3 down", func() bool {
			w2 = a.do(t, "PUT", bo+"/domini/"+d2, map[string]any{"ragioneSociale": "Ente 2", "abilitato": true}, asAdmin())
			return w2.Status == 201 || w2.Status == 200
		})
		// Reads on B: stale but served.
		b.do(t, "GET", bo+"/domini/"+d1, nil, asAdmin()).expect(t, 200, "")
		b.do(t, "GET", bo+"/domini/"+d2, nil, asAdmin()).expect(t, 404, "404000")
		// Writes on B: refused at once.
		wr := b.do(t, "PUT", bo+"/domini/33333333333", map[string]any{"ragioneSociale": "Ente 3", "abilitato": true}, asAdmin())
		wr.expect(t, 503, "503000")
		if wr.Header.Get("Retry-After") == "" {
			t.Fatal("503 on a write without Retry-After")
		}
		// A's token is not reached on B within --consistency-wait.
		r := b.do(t, "GET", bo+"/domini/"+d2, nil, asAdmin(), withToken(w2.Header.Get(ConsistencyHeader)))
		r.expect(t, 503, "503000")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("503 for an unreached token without Retry-After")
		}

		p.nats.Start(2)
		eventually(t, "B's /readyz is 200 after the reconnection", func() bool {
			return b.do(t, "GET", "/readyz", nil).Status == 200
		})
		waitApplied(t, b, positionOf(t, w2))
		b.do(t, "GET", bo+"/domini/"+d2, nil, asAdmin(), withToken(w2.Header.Get(ConsistencyHeader))).expect(t, 200, "")
		// Writes on B come back once the restarted node serves the stream
		// again (on a loaded machine, a moment after B reconnects): until
		// then each is refused with 503 and Retry-After. The PUT is
		// idempotent: an attempt answered 503 whose append landed all the
		// same makes the next one 200 instead of 201.
		var w3 *response
		eventually(t, "B writes again after the reconnection", func() bool {
			w3 = b.do(t, "PUT", bo+"/domini/33333333333", map[string]any{"ragioneSociale": "Ente 3", "abilitato": true}, asAdmin())
			switch {
			case w3.Status == 201 || w3.Status == 200:
				return true
			case w3.Status != 503 || w3.Header.Get("Retry-After") == "":
				t.Fatalf("PUT on B after the reconnection: status %d, Retry-After %q: %s", w3.Status, w3.Header.Get("Retry-After"), w3.Body)
			}
			return false
		})
		b.do(t, "GET", bo+"/domini/33333333333", nil, asAdmin(), withToken(w3.Header.Get(ConsistencyHeader))).expect(t, 200, "")
	})
}

func TestCluster_node_killed_during_writes_loses_no_acknowledged_write(t *testing.T) {
	p := newClusterPair(t)
	a, b := p.a, p.b
	const total = 120
	var (
		mu    sync.Mutex
		acked []string
		last  *response
	)
	write := func(i int) {
		id := fmt.Sprintf("%011d", 40000000000+i)
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			r := a.do(t, "PUT", bo+"/domini/"+id, map[string]any{"ragioneSociale": "Ente " + id, "abilitato": true}, asAdmin())
			switch r.Status {
			case 200, 201:
				mu.Lock()
				acked = append(acked, id)
				if last == nil || positionOf(t, r) > positionOf(t, last) {
					last = r
				}
				mu.Unlock()
				return
			case 503:
				time.Sleep(50 * time.Millisecond) // not acknowledged: retry (the PUT is idempotent)
			default:
				t.Errorf("PUT %s: status %d: %s", id, r.Status, r.Body)
				return
			}
		}
		t.Errorf("PUT %s never acknowledged after the node was killed", id)
	}
	for i := range total {
		if i == total/3 {
			p.nats.Stop(0)
		}
		write(i)
	}
	if t.Failed() {
		return
	}
	if len(acked) != total {
		t.Fatalf("%d writes acknowledged, want %d", len(acked), total)
	}
	p.nats.Start(0)
	// Every acknowledged write is in the log: B (which replays from node 3)
	// and a fresh full read of the stream both see it.
	waitApplied(t, b, positionOf(t, last))
	for _, id := range acked {
		b.do(t, "GET", bo+"/domini/"+id, nil, asAdmin(), withToken(last.Header.Get(ConsistencyHeader))).expect(t, 200, "")
	}
	seen := map[string]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.store.Read(ctx, 0, func(_ context.Context, env events.Envelope) error {
		if e, ok := env.Event.(events.CreditorEntityRegistered); ok {
			seen[e.IDDominio] = true
		}
		return nil
	}); err != nil {
		t.Fatalf("read the log: %v", err)
	}
	for _, id := range acked {
		if !seen[id] {
			t.Fatalf("acknowledged write %s missing from the log", id)
		}
	}
}

// decisionProbe is a fixed set of requests whose answers two caught-up
// replicas must agree on.
func decisionProbe(t *testing.T, h *harness) []string {
	t.Helper()
	reqs := []struct {
		path string
		opt  reqOpt
	}{
		{pe + "/pendenze", as("appA")},
		{pe + "/pendenze", as("appB")},
		{pe + "/pendenze", as("appC")},
		{pe + "/pendenze", asBasic("appB", "changed-password-1")},
		{rg + "/riscossioni", as("appC")},
		{bo + "/domini", as("opD1")},
		{bo + "/domini/" + d2, as("opD1")},
		{bo + "/operatori", as("opRO")},
		{bo + "/applicazioni/appA", as("opD1")},
	}
	var out []string
	for _, r := range reqs {
		res := h.do(t, "GET", r.path, nil, r.opt)
		out = append(out, fmt.Sprintf("%s %d", r.path, res.Status))
	}
	return out
}

func TestCluster_replica_restarted_catches_up_and_agrees(t *testing.T) {
	p := newClusterPair(t)
	a := p.a
	a.putEntity(t, d1)
	a.putEntity(t, d2)
	a.putRole(t, "opD1", fullACL("R", "W"), []string{d1}, []string{"*"})
	a.putRole(t, "readOnly", fullACL("R"), []string{"*"}, []string{"*"})
	a.putOperator(t, "opD1", pw, true, "opD1")
	a.putApp(t, "appA", "appA", pw, true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	a.putApp(t, "appB", "appB", pw, true, apiGrant("PENDENZE", []string{"*"}, []string{"*"}))
	a.putApp(t, "appC", "appC", pw, true, apiGrant("RAGIONERIA", []string{d1}, []string{"*"}))

	dir := t.TempDir()
	bOpts := []harnessOption{onCluster(p.nats.URLs(), 3), withDataDir(dir)}
	b := newHarness(t, bOpts...)
	// B answers once so that it holds verified credentials, then dies.
	_ = decisionProbe(t, b)
	b.stop()

	// Meanwhile A revokes, grants, disables, changes a password and roles.
	a.putApp(t, "appA", "appA", pw, true)
	a.putApp(t, "appC", "appC", pw, true, apiGrant("RAGIONERIA", []string{"*"}, []string{"*"}), apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	a.putApp(t, "appB", "appB", "changed-password-1", true, apiGrant("PENDENZE", []string{"*"}, []string{"*"}))
	a.putRole(t, "opD1", fullACL("R"), []string{d2}, []string{"*"})
	a.putOperator(t, "opRO", pw, true, "readOnly")
	w := a.must(t, "PUT", bo+"/operatori/opD1", map[string]any{"ragioneSociale": "Operatore opD1",
		"abilitato": false, "ruoli": []string{"opD1"}})

	b2 := newHarness(t, bOpts...) // waits until caught up with the log as of its start
	b2.do(t, "GET", "/readyz", nil).expect(t, 200, "")
	waitApplied(t, b2, positionOf(t, w))
	got, want := decisionProbe(t, b2), decisionProbe(t, a)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("restarted replica disagrees with its peer:\n got %v\nwant %v", got, want)
	}
}

func TestCluster_whole_cluster_stopped_and_back(t *testing.T) {
	p := newClusterPair(t)
	a, b := p.a, p.b
	w := a.must(t, "PUT", bo+"/domini/"+d1, map[string]any{"ragioneSociale": "Ente", "abilitato": true})
	waitApplied(t, b, positionOf(t, w))

	p.nats.StopAll()
	for name, h := range map[string]*harness{"a": a, "b": b} {
		eventually(t, name+"'s /readyz is 503", func() bool { return h.do(t, "GET", "/readyz", nil).Status == 503 })
		h.do(t, "GET", bo+"/domini/"+d1, nil, asAdmin()).expect(t, 200, "")
		h.do(t, "PUT", bo+"/domini/"+d2, map[string]any{"ragioneSociale": "Ente 2", "abilitato": true}, asAdmin()).
			expect(t, 503, "503000")
	}

	p.nats.StartAll()
	for name, h := range map[string]*harness{"a": a, "b": b} {
		eventually(t, name+"'s /readyz is 200", func() bool { return h.do(t, "GET", "/readyz", nil).Status == 200 })
	}
	var w2 *response
	eventually(t, "A writes again", func() bool {
		w2 = a.do(t, "PUT", bo+"/domini/"+d2, map[string]any{"ragioneSociale": "Ente 2", "abilitato": true}, asAdmin())
		return w2.Status == 201 || w2.Status == 200
	})
	// B follows the log again (its subscription is made again after the
	// outage), then decides with A's write.
	waitApplied(t, b, positionOf(t, w2))
	b.do(t, "GET", bo+"/domini/"+d2, nil, asAdmin(), withToken(w2.Header.Get(ConsistencyHeader))).expect(t, 200, "")
	b.do(t, "GET", bo+"/domini/"+d2, nil, asAdmin()).expect(t, 200, "")
}

// BenchmarkClusterPropagation measures how long a grant or revoke made on
// replica A takes to reach replica B's read models, with both replicas on
// one NATS server (one_server, an R1 stream) and on a 3-node cluster
// (r3_cluster, an R3 stream), all in process on loopback. append_to_b is
// from the store's acknowledgement of A's append to B's projections
// having applied it (negative when B applied it first); ack_to_b from A's
// acknowledged response (A has applied the write by then); write_to_b
// from the start of the write request. B's decision is checked on every
// 50th write. Run with -benchtime=1000x for the closing note's figures.
func BenchmarkClusterPropagation(b *testing.B) {
	for _, topo := range []struct {
		name            string
		nodes, replicas int
	}{{"one_server", 1, 1}, {"r3_cluster", 3, 3}} {
		b.Run(topo.name, func(b *testing.B) {
			c := jetstreamtest.NewCluster(b, topo.nodes)
			urls := c.URLs()
			var appended sync.Map // position -> time.Time of the store's acknowledgement
			ra := newHarness(b, onCluster(urls, topo.replicas),
				withAfterAppend(func(_ string, pos events.Position, err error) (events.Position, error) {
					appended.Store(pos, time.Now())
					return pos, err
				}))
			rb := newHarness(b, onCluster(urls, topo.replicas))
			benchPropagation(b, ra, rb, &appended)
		})
	}
}

// benchPropagation is BenchmarkClusterPropagation on replicas ra and rb;
// appended holds the time each of ra's appends was acknowledged.
func benchPropagation(b *testing.B, ra, rb *harness, appended *sync.Map) {
	ra.putEntity(b, d1)
	grant := apiGrant("PENDENZE", []string{d1}, []string{"*"})
	const apps = 20 // a few applications, so that no aggregate stream grows long
	for k := range apps {
		ra.putApp(b, fmt.Sprintf("appP%02d", k), fmt.Sprintf("appP%02d", k), pw, true)
	}
	appendToB := make([]time.Duration, 0, b.N)
	ackToB := make([]time.Duration, 0, b.N)
	writeToB := make([]time.Duration, 0, b.N)
	i := 0
	for b.Loop() {
		name := fmt.Sprintf("appP%02d", i%apps)
		granted := (i/apps)%2 == 0
		grants := []map[string]any{}
		if granted {
			grants = append(grants, grant)
		}
		// A has applied its every write, and is the only writer: this one
		// is the next commit. B's apply of it is timed as it happens.
		next := ra.model.AppliedPosition() + 1
		applied := make(chan time.Time, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if rb.model.WaitFor(ctx, next) == nil {
				applied <- time.Now()
			}
			close(applied)
		}()
		begin := time.Now()
		w := ra.must(b, "PUT", bo+"/applicazioni/"+name, map[string]any{"principal": name, "abilitato": true,
			"ruoli": []string{}, "autorizzazioniApi": grants})
		acked := time.Now()
		if pos := positionOf(b, w); pos != next {
			b.Fatalf("write %d committed at %d, want the next position %d", i, pos, next)
		}
		onB, ok := <-applied
		if !ok {
			b.Fatalf("replica B did not apply position %d", next)
		}
		at, _ := appended.LoadAndDelete(next)
		appendToB = append(appendToB, onB.Sub(at.(time.Time)))
		ackToB = append(ackToB, onB.Sub(acked))
		writeToB = append(writeToB, onB.Sub(begin))
		if i%50 == 0 {
			want := 403
			if granted {
				want = 200
			}
			if r := rb.do(b, "GET", pe+"/pendenze", nil, as(name)); r.Status != want {
				b.Fatalf("write %d: B answered %d, want %d", i, r.Status, want)
			}
		}
		i++
	}
	for _, m := range []struct {
		name string
		lat  []time.Duration
	}{{"append_to_b", appendToB}, {"ack_to_b", ackToB}, {"write_to_b", writeToB}} {
		sort.Slice(m.lat, func(i, j int) bool { return m.lat[i] < m.lat[j] })
		q := func(f float64) float64 { return float64(m.lat[int(f*float64(len(m.lat)-1))].Microseconds()) / 1000 }
		b.ReportMetric(q(0.50), m.name+"_p50_ms")
		b.ReportMetric(q(0.99), m.name+"_p99_ms")
		b.Logf("%s over %d grants/revokes: min %.3f ms, p50 %.3f ms, p99 %.3f ms, max %.3f ms",
			m.name, len(m.lat), q(0), q(0.50), q(0.99), q(1))
	}
}
