package httpapi

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations/audit"
)

// TestDecisionLogPositionReplaysTheDecision: the decision log carries the
// log position the decision rested on (README, "Decision log"), so that an
// auditor replays it with explain at that position and gets the logged
// outcome and rule. A write's position is the state its authorization
// read, not the state after its own commit (an operator that narrows its
// own right was allowed by the state before), nor after a commit another
// writer made while the request ran.
func TestDecisionLogPositionReplaysTheDecision(t *testing.T) {
	t.Parallel()
	const raceID = "race-write"
	var (
		racer          atomic.Pointer[world]
		raceOnce       sync.Once
		raced          = make(chan error, 1)
		racedAt        atomic.Uint64
		narrowRaceRole = commands.DefineRole{IDRuolo: "raceRole", Domini: []string{"*"}, TipiPendenza: []string{"*"},
			ACL: []events.ACLEntry{{Service: "Anagrafica Ruoli", Rights: []string{"R"}}}}
	)
	// The racing writer: when the request raceID appends, having been
	// allowed, the administrator first takes W on Anagrafica Ruoli away
	// from the role that allowed it.
	hook := func(_ string, recs []events.Record) {
		if len(recs) == 0 || recs[0].CorrelationID != raceID {
			return
		}
		raceOnce.Do(func() {
			w := racer.Load()
			admin, _ := w.model.Lookup(adminUser)
			res, err := w.cmds.DefineRole(context.Background(), commands.Actor{Principal: admin.Principal, CorrelationID: "racer"}, narrowRaceRole)
			racedAt.Store(uint64(res.Position))
			raced <- err
		})
	}
	capture := newDecisionCapture()
	w := newWorld(t, withDecisionLog(slog.New(capture)), withBeforeAppend(hook))
	racer.Store(w)
	rolesRW := acl{aclOf("Anagrafica Ruoli", "R", "W")}
	w.putRole(t, "selfRole", rolesRW, []string{"*"}, []string{"*"})
	w.putOperator(t, "opSelf", pw, true, "selfRole")
	w.putRole(t, "raceRole", rolesRW, []string{"*"}, []string{"*"})
	w.putOperator(t, "opRace", pw, true, "raceRole")
	w.createPendenza(t, "appA", "P-pos", d1, t1, citizen1)
	rolesR := map[string]any{"acl": acl{aclOf("Anagrafica Ruoli", "R")}, "domini": []string{"*"}, "tipiPendenza": []string{"*"}}
	servizio := func(right string) map[string]any {
		return map[string]any{"api": "BACKOFFICE", "operazione": "servizio", "servizio": "Anagrafica Ruoli", "autorizzazione": right}
	}

	for _, tc := range []struct {
		name      string
		principal string
		method    string
		path      string
		body      any
		status    int
		outcome   string
		question  map[string]any // the explain question, without principal and posizione
		write     bool           // the request commits: its position is before its commit
		afterward string         // for a write, explain's outcome at the request's own commit (the state the old log named)
		race      bool           // another writer commits between the decision and the request's commit
	}{
		{name: "self_narrowing_write", principal: "opSelf", method: "PUT", path: bo + "/ruoli/selfRole", body: rolesR,
			status: 200, outcome: audit.OutcomeAllow, question: servizio("W"), write: true, afterward: audit.OutcomeDeny},
		{name: "write_racing_another_writer", principal: "opRace", method: "PUT", path: bo + "/ruoli/raceTarget", body: rolesR,
			status: 201, outcome: audit.OutcomeAllow, question: servizio("W"), write: true, race: true, afterward: audit.OutcomeDeny},
		{name: "read_of_own_pendenza", principal: "appA", method: "GET", path: pe + "/pendenze/appA/P-pos",
			status: 200, outcome: audit.OutcomeAllow,
			question: map[string]any{"api": "PENDENZE", "operazione": "read", "idA2A": "appA", "idPendenza": "P-pos"}},
		{name: "read_of_another_applications_pendenza_denied", principal: "appB", method: "GET", path: pe + "/pendenze/appA/P-pos",
			status: 403, outcome: audit.OutcomeDeny,
			question: map[string]any{"api": "PENDENZE", "operazione": "read", "idA2A": "appA", "idPendenza": "P-pos"}},
		{name: "denied_write", principal: "opRO", method: "PUT", path: bo + "/ruoli/roTarget", body: rolesR,
			status: 403, outcome: audit.OutcomeDeny, question: servizio("W")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := uint64(w.model.AppliedPosition())
			id := "pos-" + tc.name
			if tc.race {
				id = raceID
			}
			r := w.do(t, tc.method, tc.path, tc.body, as(tc.principal), withHeader("X-Request-ID", id))
			r.expect(t, tc.status, "")
			flushDecisions(t, w.srv)
			d, ok := capture.get(id)
			if !ok {
				t.Fatal("the decision is not in the decision log")
			}
			if d["outcome"] != tc.outcome {
				t.Fatalf("logged outcome = %q, want %q (decision %v)", d["outcome"], tc.outcome, d)
			}
			logged, err := strconv.ParseUint(d["position"], 10, 64)
			if err != nil {
				t.Fatalf("logged position %q: %v", d["position"], err)
			}
			if logged != before {
				t.Errorf("logged position = %d, want %d: the state the request found (nothing else committed before it decided)", logged, before)
			}
			if tc.write {
				commit, err := ParseToken(w.store.Backend(), r.Header.Get(ConsistencyHeader))
				if err != nil {
					t.Fatalf("consistency token of the write: %v", err)
				}
				if logged >= uint64(commit) {
					t.Errorf("logged position %d is not before the request's own commit at %d", logged, commit)
				}
			}
			if tc.race {
				if err := <-raced; err != nil {
					t.Fatalf("the racing writer: %v", err)
				}
				if at := racedAt.Load(); at <= before {
					t.Fatalf("the racing commit is at %d, not after the state %d the request found: the test does not race", at, before)
				}
			}

			explain := func(pos uint64) audit.Explanation {
				t.Helper()
				q := map[string]any{"principal": tc.principal, "auth": "basic", "posizione": pos}
				for k, v := range tc.question {
					q[k] = v
				}
				var x audit.Explanation
				w.must(t, "POST", bo+"/autorizzazioni/verifica", q, asAdmin()).decode(t, &x)
				return x
			}
			x := explain(logged)
			if x.Outcome != d["outcome"] || x.Rule != d["rule"] {
				t.Errorf("the decision log says %s (rule %s) resting on position %d; explain at that position answers %s (rule %s: %s)",
					d["outcome"], d["rule"], logged, x.Outcome, x.Rule, x.Detail)
			}
			if x.Position != logged {
				t.Errorf("explain answered at position %d, asked %d", x.Position, logged)
			}
			if tc.write {
				// The position matters: at the request's own commit the
				// answer is another.
				commit, _ := ParseToken(w.store.Backend(), r.Header.Get(ConsistencyHeader))
				if y := explain(uint64(commit)); y.Outcome != tc.afterward {
					t.Errorf("explain at the request's own commit %d answers %s, want %s: the row does not tell the positions apart", commit, y.Outcome, tc.afterward)
				}
			}
		})
	}
}
