package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections/logtree"
)

// TestLogProofsOverHTTP: the verifiable log's endpoints for tools (issue
// 17): the verifier key for anyone; checkpoints and inclusion and
// consistency proofs under the Backoffice with Giornale degli Eventi R on
// every entity. Each proof checks with the verifier key alone, as
// `payauthz audit check-proof` checks it, and fails once tampered with.
func TestLogProofsOverHTTP(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t, withVerifiableLog())
	ctx := context.Background()
	sign := func() logtree.Signed {
		t.Helper()
		w.logCaughtUp(t)
		cp, ok, err := w.log.Checkpoint(ctx)
		if err != nil || !ok {
			t.Fatalf("checkpoint: %v %v", ok, err)
		}
		w.logCaughtUp(t)
		return cp
	}
	sign()
	w.createPendenza(t, "appA", "proof-1", d1, t1, citizen1)
	sign()

	res := w.do(t, "GET", PathVerifierKey, nil)
	res.expect(t, http.StatusOK, "")
	vkey := strings.TrimSpace(string(res.Body))
	known, err := logtree.Verifiers(vkey)
	if err != nil {
		t.Fatalf("verifier key %q: %v", vkey, err)
	}

	var st logState
	w.must(t, "GET", bo+"/giornale/checkpoint", nil).decode(t, &st)
	if len(st.Checkpoints) != 2 || st.VerifierKey != vkey || st.Diverged != "" {
		t.Fatalf("log state = %+v", st)
	}
	older, newer := st.Checkpoints[0].Position, st.Checkpoints[1].Position
	// Each checkpoint's members are named as the body's own, in Italian
	// (they were Size, Root, Time, Signer and Note beside posizione).
	var raw struct {
		Checkpoint []map[string]any `json:"checkpoint"`
	}
	w.must(t, "GET", bo+"/giornale/checkpoint", nil).decode(t, &raw)
	for _, k := range []string{"dimensione", "radice", "data", "firmatario", "nota", "posizione", "indiceFoglia", "verificato"} {
		if _, ok := raw.Checkpoint[0][k]; !ok || len(raw.Checkpoint[0]) != 8 {
			t.Fatalf("checkpoint entry %v: want exactly the members dimensione, radice, data, firmatario, nota, posizione, indiceFoglia, verificato", raw.Checkpoint[0])
		}
	}

	ff := codiceOf(http.StatusForbidden)
	// Every entity, one type: the log spans every type too.
	w.putRole(t, "giornaleTARI", acl{aclOf("Giornale degli Eventi", "R")}, []string{"*"}, []string{t1})
	w.putOperator(t, "opGiornaleTARI", pw, true, "giornaleTARI")
	runRows(t, w.harness, []row{
		{name: "checkpoints_auditor_of_one_type", method: "GET", path: bo + "/giornale/checkpoint", opts: []reqOpt{as("opGiornaleTARI")}, status: http.StatusForbidden, codice: ff},
		{name: "what_can_auditor_of_one_type", method: "GET", path: bo + "/autorizzazioni/principal?principal=appA", opts: []reqOpt{as("opGiornaleTARI")}, status: http.StatusForbidden, codice: ff},
		{name: "what_can_read_only_auditor_on_everything", method: "GET", path: bo + "/autorizzazioni/principal?principal=appA", opts: []reqOpt{as("opRO")}, status: http.StatusOK},
		{name: "checkpoints_read_only_auditor_on_every_entity", method: "GET", path: bo + "/giornale/checkpoint", opts: []reqOpt{as("opRO")}, status: http.StatusOK},
		{name: "checkpoints_operator_of_one_entity", method: "GET", path: bo + "/giornale/checkpoint", opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},
		{name: "inclusion_operator_of_one_entity", method: "GET", path: bo + "/giornale/prove/inclusione?posizione=1", opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},
		{name: "consistency_operator_without_roles", method: "GET", path: bo + "/giornale/prove/consistenza?da=" + fmt.Sprint(older), opts: []reqOpt{as("opNoRole")}, status: http.StatusForbidden, codice: ff},
		{name: "inclusion_without_position", method: "GET", path: bo + "/giornale/prove/inclusione", opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "consistency_without_older", method: "GET", path: bo + "/giornale/prove/consistenza", opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		// An indice beyond its commit names no event: 404, however far
		// (a far one was 400, "not covered by the checkpoint").
		{name: "inclusion_index_just_beyond_its_commit", method: "GET", path: bo + "/giornale/prove/inclusione?posizione=2&indice=1&checkpoint=" + fmt.Sprint(newer), opts: []reqOpt{asAdmin()}, status: http.StatusNotFound, codice: codiceOf(http.StatusNotFound)},
		{name: "inclusion_index_far_beyond_its_commit", method: "GET", path: bo + "/giornale/prove/inclusione?posizione=2&indice=100000&checkpoint=" + fmt.Sprint(newer), opts: []reqOpt{asAdmin()}, status: http.StatusNotFound, codice: codiceOf(http.StatusNotFound)},
		// An event the checkpoint does not cover (the newer checkpoint's
		// own, after the older) is still 400, not the 404 of no event.
		{name: "inclusion_event_after_the_checkpoint", method: "GET", path: bo + "/giornale/prove/inclusione?posizione=" + fmt.Sprint(newer) + "&checkpoint=" + fmt.Sprint(older), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "inclusion_under_unknown_checkpoint", method: "GET", path: bo + "/giornale/prove/inclusione?posizione=1&checkpoint=999999", opts: []reqOpt{asAdmin()}, status: http.StatusNotFound, codice: codiceOf(http.StatusNotFound)},
	})
	// The refusal says what the log needs (it spoke of a pendenza).
	if f := w.do(t, "GET", bo+"/giornale/checkpoint", nil, as("opD1")).fault(t); f.Dettaglio != "no role giving Giornale degli Eventi R covers every entity and every type" {
		t.Fatalf("checkpoints refused to an operator of one entity with %q", f.Dettaglio)
	}

	check := func(name, path string) {
		t.Run(name, func(t *testing.T) {
			body := w.must(t, "GET", path, nil).Body
			if _, err := logtree.Check(body, known); err != nil {
				t.Fatalf("the proof does not check: %v\n%s", err, body)
			}
			// A changed proof hash breaks it.
			i := strings.Index(string(body), `"proof":["`) + len(`"proof":["`)
			if i < len(`"proof":["`) {
				t.Fatalf("no proof hash to tamper with: %s", body)
			}
			tampered := append([]byte(nil), body...)
			if tampered[i] = 'A'; body[i] == 'A' {
				tampered[i] = 'B'
			}
			if _, err := logtree.Check(tampered, known); err == nil {
				t.Fatalf("a tampered proof checks: %s", tampered)
			}
			other, _ := logtree.Verifiers(otherVerifierKey(t))
			if _, err := logtree.Check(body, other); err == nil {
				t.Fatal("the proof checks with another service's key")
			}
		})
	}
	check("inclusion_of_an_event", bo+"/giornale/prove/inclusione?posizione=2")
	check("inclusion_under_the_older_checkpoint", bo+"/giornale/prove/inclusione?posizione=2&checkpoint="+fmt.Sprint(older))
	check("consistency_between_checkpoints", bo+fmt.Sprintf("/giornale/prove/consistenza?da=%d&a=%d", older, newer))
}

// otherVerifierKey is the verifier key of a signer this service never
// used.
func otherVerifierKey(t *testing.T) string {
	t.Helper()
	_, vkey, err := logtree.LoadOrCreateKey(t.TempDir()+"/other.key", "payauthz-test")
	if err != nil {
		t.Fatal(err)
	}
	return vkey
}

// TestLogProofsRefuseACheckpointThatDoesNotMatchTheLog: a checkpoint event
// of another signer is listed as it claims to be (the service holds no key
// to check it), but a proof against one that does not match the log, its
// size beyond the events before it or its root another, is 400 saying so
// (as one the event came after), never a 500 nor a proof that cannot
// check. The checkpoints that match still
// prove.
func TestLogProofsRefuseACheckpointThatDoesNotMatchTheLog(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t, withVerifiableLog())
	ctx := context.Background()
	w.logCaughtUp(t)
	own, ok, err := w.log.Checkpoint(ctx)
	if err != nil || !ok {
		t.Fatalf("checkpoint: %v %v", ok, err)
	}
	w.logCaughtUp(t)
	skey, vkey := otherSigningKey(t)
	n := 0
	foreign := func(c logtree.Checkpoint) uint64 {
		t.Helper()
		n++
		signer, _, err := logtree.ParseSigningKey(skey)
		if err != nil {
			t.Fatal(err)
		}
		note, err := logtree.SignCheckpoint(c, signer)
		if err != nil {
			t.Fatal(err)
		}
		ev := events.LogCheckpointSigned{Signer: signer.Name(), Size: c.Size, Root: base64.StdEncoding.EncodeToString(c.Root),
			Time: c.Time.Format(time.RFC3339Nano), Note: note}
		pos, err := w.store.Append(ctx, events.StreamCheckpoint+signer.Name()+"/"+fmt.Sprint(c.Size)+"-"+fmt.Sprint(n), events.ExpectNoStream(), events.Record{Event: ev})
		if err != nil {
			t.Fatal(err)
		}
		w.logCaughtUp(t)
		return uint64(pos)
	}
	now := time.Now().UTC()
	beyond := foreign(logtree.Checkpoint{Size: 1_000_000, Root: own.Root, Time: now})
	otherRoot := foreign(logtree.Checkpoint{Size: own.Size, Root: bytes.Repeat([]byte{7}, 32), Time: now})
	matching := foreign(own.Checkpoint)
	var st logState
	w.must(t, "GET", bo+"/giornale/checkpoint", nil).decode(t, &st)
	if len(st.Checkpoints) != 4 {
		t.Fatalf("checkpoints listed: %+v", st.Checkpoints)
	}
	bad := codiceOf(http.StatusBadRequest)
	runRows(t, w.harness, []row{
		{name: "inclusion_under_a_checkpoint_beyond_the_log", method: "GET", path: bo + fmt.Sprintf("/giornale/prove/inclusione?posizione=1&checkpoint=%d", beyond), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: bad},
		{name: "inclusion_under_a_checkpoint_of_another_root", method: "GET", path: bo + fmt.Sprintf("/giornale/prove/inclusione?posizione=1&checkpoint=%d", otherRoot), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: bad},
		{name: "consistency_to_a_checkpoint_beyond_the_log", method: "GET", path: bo + fmt.Sprintf("/giornale/prove/consistenza?da=%d&a=%d", matching, beyond), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: bad},
		{name: "consistency_from_a_checkpoint_of_another_root", method: "GET", path: bo + fmt.Sprintf("/giornale/prove/consistenza?da=%d&a=%d", otherRoot, matching), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: bad},
		{name: "inclusion_under_a_matching_foreign_checkpoint", method: "GET", path: bo + fmt.Sprintf("/giornale/prove/inclusione?posizione=1&checkpoint=%d", matching), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
		{name: "consistency_between_matching_checkpoints", method: "GET", path: bo + fmt.Sprintf("/giornale/prove/consistenza?da=%d&a=%d", st.Checkpoints[0].Position, matching), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
	})
	if f := w.do(t, "GET", bo+fmt.Sprintf("/giornale/prove/inclusione?posizione=1&checkpoint=%d", beyond), nil, asAdmin()).fault(t); !strings.Contains(f.Dettaglio, "does not match the log") {
		t.Fatalf("a checkpoint beyond the log refused with %q", f.Dettaglio)
	}
	known, _ := logtree.Verifiers(vkey)
	body := w.must(t, "GET", bo+fmt.Sprintf("/giornale/prove/inclusione?posizione=1&checkpoint=%d", matching), nil).Body
	if _, err := logtree.Check(body, known); err != nil {
		t.Fatalf("the proof under the other signer's matching checkpoint does not check with its key: %v", err)
	}
}

// otherSigningKey is the signing key and verifier key of a signer this
// service never used.
func otherSigningKey(t *testing.T) (string, string) {
	t.Helper()
	path := t.TempDir() + "/other.key"
	_, vkey, err := logtree.LoadOrCreateKey(path, "payauthz-other")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b)), vkey
}
