package httpapi

import (
	"strings"
	"testing"
)

// patchStato is GovPay's JSON Patch of a pendenza's state.
func patchStato(stato string, more ...map[string]any) []map[string]any {
	return append([]map[string]any{{"op": "REPLACE", "path": "/stato", "value": stato}}, more...)
}

// TestGovPayPatchPendenza: PATCH /pendenze/{idA2A}/{idPendenza} with
// GovPay's body cancels or reopens a pendenza: on Pendenze v2 only its
// creator, on the Backoffice an operator with Pendenze W on its entity ×
// type; a cancelled pendenza cannot be paid (422), a paid one cannot
// change (422); other ops, paths and states are 400 (issue 13 §4).
func TestGovPayPatchPendenza(t *testing.T) {
	t.Parallel() // each test runs its own service
	w, node, base := sslNodeServingD1(t)
	w.createPendenza(t, "appA", "pt1", d1, t1, citizen1)
	w.createPendenza(t, "appA", "pt2", d1, t1, citizen1)
	paid := w.createPendenza(t, "appA", "pt3", d1, t1, citizen1)
	cancelledByOp := w.createPendenza(t, "appA", "pt4", d1, t1, citizen1)
	w.createPendenza(t, "appB", "pb1", d2, t1, citizen2)
	w.do(t, "POST", base+"/ricevute", ricevuta(paid, "IUR-PATCH-1", 123.45, "ESEGUITO"), node).expect(t, 201, "")

	pp := func(prefix, a2a, id string) string { return prefix + "/pendenze/" + a2a + "/" + id }
	pay := func(a2a, id string) map[string]any {
		return map[string]any{"pendenze": []map[string]any{{"idA2A": a2a, "idPendenza": id}}}
	}
	descr := map[string]any{"op": "REPLACE", "path": "/descrizioneStato", "value": "Test annullamento"}
	runRows(t, w.harness, []row{
		// Pendenze v2: the creator only, under its own idA2A.
		{"creator_cancels", "PATCH", pp(pe, "appA", "pt1"), patchStato("ANNULLATA", descr), opts(as("appA")), 200, ""},
		{"creator_cancels_again_unchanged", "PATCH", pp(pe, "appA", "pt1"), patchStato("ANNULLATA"), opts(as("appA")), 200, ""},
		{"cancelled_cannot_be_paid", "POST", pg + "/pagamenti", pay("appA", "pt1"), opts(as("appA")), 422, "422000"},
		{"other_application_under_creators_idA2A", "PATCH", pp(pe, "appA", "pt2"), patchStato("ANNULLATA"), opts(as("appB")), 403, "403000"},
		{"application_without_pendenze_grant", "PATCH", pp(pe, "appC", "pt2"), patchStato("ANNULLATA"), opts(as("appC")), 403, "403000"},
		{"creator_missing_pendenza", "PATCH", pp(pe, "appA", "ghost"), patchStato("ANNULLATA"), opts(as("appA")), 404, "404000"},
		{"op_add_refused", "PATCH", pp(pe, "appA", "pt2"), []map[string]any{{"op": "ADD", "path": "/stato", "value": "ANNULLATA"}}, opts(as("appA")), 400, "SINTASSI"},
		{"op_lower_case_refused", "PATCH", pp(pe, "appA", "pt2"), []map[string]any{{"op": "replace", "path": "/stato", "value": "ANNULLATA"}}, opts(as("appA")), 400, "SINTASSI"},
		{"path_importo_refused", "PATCH", pp(pe, "appA", "pt2"), []map[string]any{{"op": "REPLACE", "path": "/importo", "value": "1"}}, opts(as("appA")), 400, "SINTASSI"},
		{"stato_eseguita_refused", "PATCH", pp(pe, "appA", "pt2"), patchStato("ESEGUITA"), opts(as("appA")), 400, "SINTASSI"},
		{"stato_not_a_string", "PATCH", pp(pe, "appA", "pt2"), []map[string]any{{"op": "REPLACE", "path": "/stato", "value": 3}}, opts(as("appA")), 400, "SINTASSI"},
		{"only_descrizione", "PATCH", pp(pe, "appA", "pt2"), []map[string]any{descr}, opts(as("appA")), 400, "SINTASSI"},
		{"empty_patch", "PATCH", pp(pe, "appA", "pt2"), []map[string]any{}, opts(as("appA")), 400, "SINTASSI"},
		{"object_body", "PATCH", pp(pe, "appA", "pt2"), map[string]any{"stato": "ANNULLATA"}, opts(as("appA")), 400, "SINTASSI"},
		{"unknown_member", "PATCH", pp(pe, "appA", "pt2"), patchStato("ANNULLATA", map[string]any{"op": "REPLACE", "path": "/stato", "value": "ANNULLATA", "from": "/x"}), opts(as("appA")), 400, "SINTASSI"},
		{"paid_cannot_be_cancelled", "PATCH", pp(pe, "appA", "pt3"), patchStato("ANNULLATA"), opts(as("appA")), 422, "422000"},
		{"creator_reopens", "PATCH", pp(pe, "appA", "pt1"), patchStato("NON_ESEGUITA"), opts(as("appA")), 200, ""},
		{"reopened_can_be_paid", "POST", pg + "/pagamenti", pay("appA", "pt1"), opts(as("appA")), 201, ""},

		// Backoffice: Pendenze W on the pendenza's entity × type.
		{"operator_in_scope_cancels", "PATCH", pp(bo, "appA", "pt4"), patchStato("ANNULLATA", descr), opts(as("opD1")), 200, ""},
		{"cancelled_by_operator_cannot_be_paid_by_notice", "POST", "/pagamento/rs/spid/v2/pagamenti", map[string]any{"pendenze": []map[string]any{
			{"idDominio": d1, "numeroAvviso": cancelledByOp.NumeroAvviso}}}, opts(asSPID(citizen1)), 422, "422000"},
		{"operator_out_of_scope", "PATCH", pp(bo, "appB", "pb1"), patchStato("ANNULLATA"), opts(as("opD1")), 403, "403000"},
		{"operator_read_only", "PATCH", pp(bo, "appA", "pt2"), patchStato("ANNULLATA"), opts(as("opRO")), 403, "403000"},
		{"operator_without_role", "PATCH", pp(bo, "appA", "pt2"), patchStato("ANNULLATA"), opts(as("opNoRole")), 403, "403000"},
		{"scoped_operator_missing_pendenza", "PATCH", pp(bo, "appA", "ghost"), patchStato("ANNULLATA"), opts(as("opD1")), 403, "403000"},
		{"admin_missing_pendenza", "PATCH", pp(bo, "appA", "ghost"), patchStato("ANNULLATA"), opts(asAdmin()), 404, "404000"},
		{"operator_bad_state", "PATCH", pp(bo, "appA", "pt2"), patchStato("PAGATA"), opts(as("opD1")), 400, "SINTASSI"},
		{"admin_cannot_cancel_paid", "PATCH", pp(bo, "appA", "pt3"), patchStato("ANNULLATA"), opts(asAdmin()), 422, "422000"},
	})

	if got := string(w.must(t, "GET", pp(pe, "appA", "pt4"), nil, as("appA")).Body); !strings.Contains(got, `"stato":"ANNULLATA"`) ||
		!strings.Contains(got, `"descrizioneStato":"Test annullamento"`) {
		t.Fatalf("the creator reads the cancelled pendenza as %s", got)
	}
	// Reopened without a descrizioneStato: the one of the cancellation is gone.
	if got := string(w.must(t, "GET", pp(pe, "appA", "pt1"), nil, as("appA")).Body); strings.Contains(got, "descrizioneStato") {
		t.Fatalf("the reopened pendenza reads %s", got)
	}
	if got := string(w.must(t, "GET", bo+"/pendenze?stato=ANNULLATA", nil, asAdmin()).Body); !strings.Contains(got, `"idPendenza":"pt4"`) ||
		strings.Contains(got, `"idPendenza":"pt1"`) {
		t.Fatalf("the list of cancelled pendenze is %s", got)
	}
	// The event log shows the change to an operator of the entity, not to
	// one scoped elsewhere.
	w.putRole(t, "logD2", acl{aclOf("Giornale degli Eventi", "R")}, []string{d2}, []string{"*"})
	w.putOperator(t, "opLogD2", pw, true, "logD2")
	if got := string(w.must(t, "GET", bo+"/eventi", nil, as("opD1")).Body); !strings.Contains(got, `"PendenzaStatusChanged"`) {
		t.Fatalf("opD1 does not see the state change: %s", got)
	}
	if got := string(w.must(t, "GET", bo+"/eventi", nil, as("opLogD2")).Body); strings.Contains(got, `"PendenzaStatusChanged"`) {
		t.Fatalf("an operator of another entity sees the state change: %s", got)
	}
	// Explain and who-can know both patches, decided by the same operations.
	pt2 := []string{"idA2A", "appA", "idPendenza", "pt2"}
	w.explainSays(t, "appA", "PENDENZE", "patch", "allow", pt2...)
	w.explainSays(t, "appB", "PENDENZE", "patch", "deny", pt2...)
	w.explainSays(t, "opD1", "BACKOFFICE", "patch-pendenza", "allow", pt2...)
	w.explainSays(t, "opRO", "BACKOFFICE", "patch-pendenza", "deny", pt2...)
}
