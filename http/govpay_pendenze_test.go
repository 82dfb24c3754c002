package httpapi

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
)

// govpayPendenzaBody is a pendenza in the full shape of GovPay's
// NuovaPendenza (Pendenze v2): voci of the three kinds GovPay knows,
// annoRiferimento, the payer's address, dates, documento, proprieta and
// the creator's own datiAllegati.
func govpayPendenzaBody() map[string]any {
	return map[string]any{
		"idTipoPendenza": t1, "idDominio": d1, "causale": "Canone occupazione suolo 2026",
		"importo": 40.51, "annoRiferimento": 2026, "tassonomia": "Canoni",
		"tassonomiaAvviso": "Servizi erogati dal comune", "direzione": "Tributi", "divisione": "Canoni",
		"cartellaPagamento": "CART-7", "dataValidita": "2026-12-01", "dataScadenza": "2026-12-31",
		"dataNotificaAvviso": "2026-11-30", "dataPromemoriaScadenza": "2026-12-20",
		"datiAllegati": map[string]any{"pratica": "P-1", "righe": []any{1, 2}},
		"documento":    map[string]any{"identificativo": "DOC-1", "descrizione": "Canone annuo", "rata": 1},
		"proprieta":    map[string]any{"linguaSecondaria": "de", "lineaTestoRicevuta1": "Grazie"},
		"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi",
			"indirizzo": "Via Roma", "civico": "1/B", "cap": "00100", "localita": "Roma", "provincia": "RM",
			"nazione": "IT", "email": "mario.rossi@example.org", "cellulare": "+39 333-1234567"},
		"voci": []map[string]any{
			{"idVocePendenza": "v1", "importo": 30.00, "descrizione": "Canone", "codEntrata": "SRV-1"},
			{"idVocePendenza": "v2", "importo": 10.00, "descrizione": "Diritti", "ibanAccredito": "IT60X0542811101000000123456",
				"tipoContabilita": "SIOPE", "codiceContabilita": "3321", "contabilita": map[string]any{"quote": []any{}}},
			{"idVocePendenza": "v3", "importo": 0.51, "descrizione": "Bollo", "tipoBollo": "01",
				"hashDocumento": "aGFzaA==", "provinciaResidenza": "RM"},
		},
	}
}

// with returns a copy of m with k set to v (nil deletes k).
func withField(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m))
	for key, val := range m {
		out[key] = val
	}
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

// TestGovPayPendenzaBody: GovPay's pendenza body is accepted as it is;
// importo must be the sum of the voci (422); fields in no GovPay schema
// stay 400; the payer's address comes back (issue 13 §1).
func TestGovPayPendenzaBody(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	path := func(id string) string { return pe + "/pendenze/appA/" + id }
	payer := func(fields ...any) map[string]any {
		p := map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi"}
		for i := 0; i+1 < len(fields); i += 2 {
			p[fields[i].(string)] = fields[i+1]
		}
		return p
	}
	voce := func(id string, importo float64) map[string]any {
		return map[string]any{"idVocePendenza": id, "importo": importo, "descrizione": "Voce", "codEntrata": "SRV-1"}
	}
	full := govpayPendenzaBody()
	runRows(t, w.harness, []row{
		{"govpay_body_accepted", "PUT", path("gp1"), full, opts(as("appA")), 201, ""},
		{"govpay_body_again_unchanged", "PUT", path("gp1"), full, opts(as("appA")), 200, ""},
		{"without_voci_still_accepted", "PUT", path("gp2"), withField(full, "voci", nil), opts(as("appA")), 201, ""},
		{"anonymous_payer", "PUT", path("gp3"), withField(full, "soggettoPagatore",
			map[string]any{"tipo": "F", "identificativo": "ANONIMO", "anagrafica": "Anonimo"}), opts(as("appA")), 201, ""},
		{"voci_sum_below_importo", "PUT", path("gp4"), withField(full, "voci", []map[string]any{voce("v1", 40.50)}),
			opts(as("appA")), 422, "422000"},
		{"voci_sum_above_importo", "PUT", path("gp4"), withField(full, "voci", []map[string]any{voce("v1", 40.00), voce("v2", 1)}),
			opts(as("appA")), 422, "422000"},
		{"six_voci", "PUT", path("gp4"), withField(full, "voci", []map[string]any{voce("a", 1), voce("b", 1), voce("c", 1),
			voce("d", 1), voce("e", 1), voce("f", 35.51)}), opts(as("appA")), 400, "SINTASSI"},
		{"voce_twice", "PUT", path("gp4"), withField(full, "voci", []map[string]any{voce("v1", 20), voce("v1", 20.51)}),
			opts(as("appA")), 400, "SINTASSI"},
		{"voce_without_collection", "PUT", path("gp4"), withField(full, "voci", []map[string]any{{"idVocePendenza": "v1",
			"importo": 40.51, "descrizione": "Voce"}}), opts(as("appA")), 400, "SINTASSI"},
		{"voce_with_two_collections", "PUT", path("gp4"), withField(full, "voci", []map[string]any{{"idVocePendenza": "v1",
			"importo": 40.51, "descrizione": "Voce", "codEntrata": "SRV-1", "tipoBollo": "01", "hashDocumento": "x",
			"provinciaResidenza": "RM"}}), opts(as("appA")), 400, "SINTASSI"},
		{"voce_without_importo", "PUT", path("gp4"), withField(full, "voci", []map[string]any{{"idVocePendenza": "v1",
			"descrizione": "Voce", "codEntrata": "SRV-1"}}), opts(as("appA")), 400, "SINTASSI"},
		{"anno_of_two_digits", "PUT", path("gp4"), withField(full, "annoRiferimento", 26), opts(as("appA")), 400, "SINTASSI"},
		{"date_not_a_date", "PUT", path("gp4"), withField(full, "dataScadenza", "31/12/2026"), opts(as("appA")), 400, "SINTASSI"},
		{"nazione_lower_case", "PUT", path("gp4"), withField(full, "soggettoPagatore", payer("nazione", "it")), opts(as("appA")), 400, "SINTASSI"},
		{"cellulare_malformed", "PUT", path("gp4"), withField(full, "soggettoPagatore", payer("cellulare", "3331234567")), opts(as("appA")), 400, "SINTASSI"},
		{"field_in_no_govpay_schema", "PUT", path("gp4"), withField(full, "sconto", 5), opts(as("appA")), 400, "SINTASSI"},
		{"voce_field_in_no_govpay_schema", "PUT", path("gp4"), withField(full, "voci", []map[string]any{{"idVocePendenza": "v1",
			"importo": 40.51, "descrizione": "Voce", "codEntrata": "SRV-1", "sconto": 1}}), opts(as("appA")), 400, "SINTASSI"},
		// The GovPay fields change no decision: another entity is still
		// out of appA's scope.
		{"govpay_body_out_of_scope", "PUT", path("gp5"), withField(full, "idDominio", d2), opts(as("appA")), 403, "403000"},
	})

	got := string(w.must(t, "GET", path("gp1"), nil, as("appA")).Body)
	for _, want := range []string{`"indirizzo":"Via Roma"`, `"cap":"00100"`, `"nazione":"IT"`, `"cellulare":"+39 333-1234567"`} {
		if !strings.Contains(got, want) {
			t.Fatalf("GET lacks %s: %s", want, got)
		}
	}
	// A pendenza whose payer is ANONIMO belongs to no citizen.
	res := w.do(t, "GET", "/pagamento/rs/spid/v2/pendenze/appA/gp3", nil, asSPID(citizen1))
	if res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
		t.Fatalf("a citizen reads the anonymous pendenza: %d %s", res.Status, res.Body)
	}
}

// patchStato is GovPay's JSON Patch of a pendenza's state.
func patchStato(stato string, more ...map[string]any) []map[string]any {
	return append([]map[string]any{{"op": "REPLACE", "path": "/stato", "value": stato}}, more...)
}

// TestGovPayPatchPendenza: PATCH /pendenze/{idA2A}/{idPendenza} with
// GovPay's body cancels or reopens a pendenza: on Pendenze v2 only its
// creator, on the Backoffice an operator with Pendenze W on its entity ×
// type; a cancelled pendenza cannot be paid (422), a paid one cannot
// change (422), by PATCH or by PUT; other ops, paths and states are 400
// (issue 13 §4).
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
		{"paid_cannot_be_rewritten", "PUT", pp(pe, "appA", "pt3"), withField(pendenzaBodyFor(d1, t1, citizen1), "importo", 1.00), opts(as("appA")), 422, "422000"},
		{"paid_by_another_creator_403_first", "PUT", pp(pe, "appA", "pt3"), pendenzaBodyFor(d1, t1, citizen1), opts(as("appB")), 403, "403000"},
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

	// One rule refuses a paid pendenza whatever asks to change it
	// (domain.StatoChangeable): PUT and PATCH answer the same 422.
	put := w.do(t, "PUT", pp(pe, "appA", "pt3"), pendenzaBodyFor(d1, t1, citizen1), as("appA"))
	patch := w.do(t, "PATCH", pp(pe, "appA", "pt3"), patchStato("ANNULLATA"), as("appA"))
	if put.Status != 422 || patch.Status != 422 || string(put.Body) != string(patch.Body) {
		t.Fatalf("a paid pendenza: PUT %d %s, PATCH %d %s", put.Status, put.Body, patch.Status, patch.Body)
	}
	if got := string(w.must(t, "GET", pp(pe, "appA", "pt3"), nil, as("appA")).Body); !strings.Contains(got, `"importo":123.45`) ||
		!strings.Contains(got, `"stato":"ESEGUITA"`) {
		t.Fatalf("the paid pendenza after a refused rewrite reads %s", got)
	}
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

// TestGovPayPayable: Pagamento GET /domini and /domini/{idDominio}/
// tipiPendenza list what the caller may pay, by the rules the payment is
// decided by (issue 13 §4).
func TestGovPayPayable(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const pg, pgSpid, pgPublic = "/pagamento/rs/basic/v2", "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"
	runRows(t, w.harness, []row{
		{"domini_application", "GET", pg + "/domini", nil, opts(as("appA")), 200, ""},
		{"domini_application_without_pagamento", "GET", pg + "/domini", nil, opts(as("appC")), 403, "403000"},
		{"tipi_application_in_grant", "GET", pg + "/domini/" + d1 + "/tipiPendenza", nil, opts(as("appA")), 200, ""},
		{"tipi_application_outside_grant", "GET", pg + "/domini/" + d2 + "/tipiPendenza", nil, opts(as("appA")), 403, "403000"},
		{"tipi_unknown_entity_outside_grant", "GET", pg + "/domini/" + dNone + "/tipiPendenza", nil, opts(as("appA")), 403, "403000"},
		{"tipi_citizen_unknown_entity", "GET", pgSpid + "/domini/" + dNone + "/tipiPendenza", nil, opts(asSPID(citizen1)), 404, "404000"},
		{"tipi_anonymous", "GET", pgPublic + "/domini/" + d1 + "/tipiPendenza", nil, nil, 200, ""},
	})
	for _, c := range []struct {
		name, path string
		opt        reqOpt
		field      string
		want       []string
	}{
		{"application_sees_its_grant", pg + "/domini", as("appA"), "idDominio", []string{d1}},
		{"citizen_sees_every_enabled_entity", pgSpid + "/domini", asSPID(citizen1), "idDominio", []string{d1, d2}},
		{"only_spontaneous_types", pg + "/domini/" + d1 + "/tipiPendenza", as("appA"), "idTipoPendenza", []string{tSpont}},
		{"citizen_spontaneous_types", pgSpid + "/domini/" + d2 + "/tipiPendenza", asSPID(citizen1), "idTipoPendenza", []string{tSpont}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := w.listed(t, c.path, c.field, c.opt); !slices.Equal(got, c.want) {
				t.Fatalf("%s lists %v, want %v", c.path, got, c.want)
			}
		})
	}
}

// TestPagamentoCreatesPendenza: POST /pendenze/{idDominio}/{idTipoPendenza}
// on the Pagamento API (issue 13 §4): a citizen creates a pendenza as its
// own payer, an anonymous caller one its session then reads (and no other
// session), an application in its PAGAMENTO scope; only of a type that
// allows it. The creator is the reserved portal id, which no application
// may take.
func TestPagamentoCreatesPendenza(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const pgSpid, pgPub = "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"
	body := func(payer string) map[string]any {
		b := map[string]any{"causale": "Donazione", "importo": 25}
		if payer != "" {
			b["soggettoPagatore"] = map[string]any{"tipo": "F", "identificativo": payer, "anagrafica": "Mario Rossi"}
		}
		return b
	}
	path := func(mount, d, tipo string) string { return mount + "/pendenze/" + d + "/" + tipo }
	ff, unproc, bad := codiceOf(http.StatusForbidden), codiceOf(http.StatusUnprocessableEntity), codiceOf(http.StatusBadRequest)
	runRows(t, w.harness, []row{
		{"citizen_for_another_payer", "POST", path(pgSpid, d1, tSpont), body(citizen2), opts(asSPID(citizen1)), http.StatusForbidden, ff},
		{"citizen_type_not_spontaneous", "POST", path(pgSpid, d1, t1), body(""), opts(asSPID(citizen1)), http.StatusForbidden, ff},
		{"citizen_unknown_type", "POST", path(pgSpid, d1, "NOPE"), body(""), opts(asSPID(citizen1)), http.StatusUnprocessableEntity, unproc},
		{"citizen_unknown_entity", "POST", path(pgSpid, dNone, tSpont), body(""), opts(asSPID(citizen1)), http.StatusUnprocessableEntity, unproc},
		{"anonymous_without_payer", "POST", path(pgPub, d1, tSpont), body(""), nil, http.StatusBadRequest, bad},
		{"application_out_of_scope", "POST", path(pg, d2, tSpont), body(citizen1), opts(as("appA")), http.StatusForbidden, ff},
		{"application_without_pagamento", "POST", path(pg, d1, tSpont), body(citizen1), opts(as("appC")), http.StatusForbidden, ff},
		{"application_in_scope", "POST", path(pg, d1, tSpont), body(citizen1), opts(as("appA")), http.StatusCreated, ""},
		{"unknown_field", "POST", path(pgSpid, d1, tSpont), map[string]any{"causale": "x", "importo": 1, "voci": []int{}}, opts(asSPID(citizen1)), http.StatusBadRequest, bad},
		{"importo_missing", "POST", path(pgSpid, d1, tSpont), withField(body(""), "importo", nil), opts(asSPID(citizen1)), http.StatusBadRequest, bad},
		{"portal_id_reserved", "PUT", bo + "/applicazioni/" + domain.PortalIDA2A, map[string]any{"principal": "portale", "password": pw, "abilitato": true, "ruoli": []string{}}, opts(asAdmin()), http.StatusUnprocessableEntity, unproc},
	})

	var mine pendenzaCreata
	w.must(t, "POST", path(pgSpid, d1, tSpont), body(""), asSPID(citizen1)).decode(t, &mine)
	if mine.IDA2A != domain.PortalIDA2A || mine.IDDominio != d1 || len(mine.NumeroAvviso) != 18 || mine.UUID == "" {
		t.Fatalf("citizen's pendenza = %+v", mine)
	}
	own := pg + "/pendenze/" + mine.IDA2A + "/" + mine.IDPendenza
	var pd pendenzaView
	w.must(t, "GET", pgSpid+"/pendenze/"+mine.IDA2A+"/"+mine.IDPendenza, nil, asSPID(citizen1)).decode(t, &pd)
	if pd.SoggettoPagatore.Identificativo != citizen1 || pd.IDTipoPendenza != tSpont {
		t.Fatalf("citizen reads %+v", pd)
	}
	w.do(t, "GET", pgSpid+"/pendenze/"+mine.IDA2A+"/"+mine.IDPendenza, nil, asSPID(citizen2)).expect(t, http.StatusForbidden, ff)
	w.do(t, "GET", pe+"/pendenze/"+mine.IDA2A+"/"+mine.IDPendenza, nil, as("appA")).expect(t, http.StatusForbidden, ff)
	w.must(t, "GET", own, nil, as("appA")) // in appA's PAGAMENTO scope, whoever created it

	anon := w.do(t, "POST", path(pgPub, d1, tSpont), body(citizen2), withHeader("X-Nothing", "1"))
	anon.expect(t, http.StatusCreated, "")
	var theirs pendenzaCreata
	anon.decode(t, &theirs)
	var session *http.Cookie
	for _, c := range anon.Cookies {
		if c.Name == SessionCookie {
			session = c
		}
	}
	if session == nil {
		t.Fatal("an anonymous pendenza issued no session")
	}
	read := pgPub + "/pendenze/" + theirs.IDA2A + "/" + theirs.IDPendenza
	w.must(t, "GET", read, nil, withCookie(session))
	w.do(t, "GET", read, nil).expect(t, http.StatusForbidden, ff) // another (new) session
	w.do(t, "GET", pgPub+"/pendenze/"+mine.IDA2A+"/"+mine.IDPendenza, nil, withCookie(session)).expect(t, http.StatusForbidden, ff)

	// Anonymous writes from one address have a budget (one was spent
	// above); past it 429 with Retry-After, and nothing is written. Others
	// are not affected.
	for i := 1; i < anonymousWriteBurst; i++ {
		w.do(t, "POST", path(pgPub, d1, tSpont), body(citizen2), withCookie(session)).expect(t, http.StatusCreated, "")
	}
	before := w.model.PendenzeCount()
	over := w.do(t, "POST", path(pgPub, d1, tSpont), body(citizen2), withCookie(session))
	over.expect(t, http.StatusTooManyRequests, codiceOf(http.StatusTooManyRequests))
	if over.Header.Get("Retry-After") == "" || w.model.PendenzeCount() != before {
		t.Fatalf("past the budget: Retry-After %q, pendenze %d → %d", over.Header.Get("Retry-After"), before, w.model.PendenzeCount())
	}
	w.do(t, "POST", path(pgSpid, d1, tSpont), body(""), asSPID(citizen1)).expect(t, http.StatusCreated, "")
}

// TestGovPayByAvviso: GET /pendenze/byAvviso/{idDominio}/{numeroAvviso}
// on Pendenze v2 (creator only), Pagamento v2 (payer, or the PAGAMENTO
// grant) and Ragioneria v3 (RAGIONERIA grant), issue 13 §4.
func TestGovPayByAvviso(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	p := w.createPendenza(t, "appA", "ba1", d1, t1, citizen1)
	const ghost = "999999999999999999"
	const rag, pgBasic, pgSpid = "/ragioneria/rs/basic/v3", "/pagamento/rs/basic/v2", "/pagamento/rs/spid/v2"
	by := func(prefix, dominio, avviso string) string {
		return prefix + "/pendenze/byAvviso/" + dominio + "/" + avviso
	}
	runRows(t, w.harness, []row{
		// Pendenze v2: the creator.
		{"pendenze_creator", "GET", by(pe, d1, p.NumeroAvviso), nil, opts(as("appA")), 200, ""},
		{"pendenze_other_application", "GET", by(pe, d1, p.NumeroAvviso), nil, opts(as("appB")), 403, "403000"},
		{"pendenze_missing_in_grant", "GET", by(pe, d1, ghost), nil, opts(as("appA")), 404, "404000"},
		{"pendenze_missing_outside_grant", "GET", by(pe, d2, ghost), nil, opts(as("appA")), 403, "403000"},
		{"pendenze_without_grant", "GET", by(pe, d1, p.NumeroAvviso), nil, opts(as("appC")), 403, "403000"},
		{"pendenze_bad_avviso", "GET", by(pe, d1, "12"), nil, opts(as("appA")), 400, "SINTASSI"},
		// Pagamento v2: the payer, or an application's PAGAMENTO grant.
		{"pagamento_payer", "GET", by(pgSpid, d1, p.NumeroAvviso), nil, opts(asSPID(citizen1)), 200, ""},
		{"pagamento_other_citizen", "GET", by(pgSpid, d1, p.NumeroAvviso), nil, opts(asSPID(citizen2)), 403, "403000"},
		{"pagamento_application_in_grant", "GET", by(pgBasic, d1, p.NumeroAvviso), nil, opts(as("appA")), 200, ""},
		{"pagamento_application_outside_grant", "GET", by(pgBasic, d1, p.NumeroAvviso), nil, opts(as("appB")), 403, "403000"},
		// Ragioneria v3: the RAGIONERIA grant's entities, 403 before 404.
		{"ragioneria_in_scope", "GET", by(rag, d1, p.NumeroAvviso), nil, opts(as("appC")), 200, ""},
		{"ragioneria_out_of_scope", "GET", by(rag, d1, p.NumeroAvviso), nil, opts(as("appB")), 403, "403000"},
		{"ragioneria_missing_in_scope", "GET", by(rag, d1, ghost), nil, opts(as("appC")), 404, "404000"},
		{"ragioneria_missing_out_of_scope", "GET", by(rag, d2, ghost), nil, opts(as("appC")), 403, "403000"},
	})
	body := string(w.must(t, "GET", by(pe, d1, p.NumeroAvviso), nil, as("appA")).Body)
	if !strings.Contains(body, `"idPendenza":"ba1"`) || !strings.Contains(body, p.NumeroAvviso) {
		t.Fatalf("byAvviso answers another pendenza: %s", body)
	}
}

// TestRagioneriaByAvvisoKeepsTheGrantsTypes: a pendenza has a type, so
// the Ragioneria read by notice holds a RAGIONERIA grant to its types as
// every other API's grant is held for a pendenza: an application granted
// one type of the entity does not read another application's pendenza of
// another type (its payer included), and learns a notice is missing only
// with every type, else the same 403 as for one outside its types.
func TestRagioneriaByAvvisoKeepsTheGrantsTypes(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.putApp(t, "appT1", "appT1", pw, true, apiGrant("RAGIONERIA", []string{d1}, []string{t1}))
	mine := w.createPendenza(t, "appA", "bt1", d1, t1, citizen1)
	other := w.createPendenza(t, "appA", "bt2", d1, tSpont, citizen1)
	by := func(avviso string) string { return "/ragioneria/rs/basic/v3/pendenze/byAvviso/" + d1 + "/" + avviso }
	w.do(t, "GET", by(mine.NumeroAvviso), nil, as("appT1")).expect(t, http.StatusOK, "")
	outside := w.do(t, "GET", by(other.NumeroAvviso), nil, as("appT1"))
	outside.expect(t, http.StatusForbidden, "403000")
	missing := w.do(t, "GET", by("999999999999999999"), nil, as("appT1"))
	missing.expect(t, http.StatusForbidden, "403000")
	if a, b := outside.fault(t), missing.fault(t); a != b {
		t.Fatalf("a missing notice is told from one outside the grant's types: %+v, %+v", b, a)
	}
	w.do(t, "GET", by("999999999999999999"), nil, as("appC")).expect(t, http.StatusNotFound, "404000")
}

// TestGovPayPendenzaNamesItsDominio: a pendenza answers, on every API and
// in every answer that carries it (PUT, PATCH, GET by id and by notice,
// lists), GovPay's dominio object {idDominio, ragioneSociale}, which every
// GovPay schema of a pendenza requires, and its unit as GovPay's
// unitaOperativa {idUnita, ragioneSociale} when it has one; idDominio and
// idUnitaOperativa stay. A caller outside the pendenza still gets 403.
func TestGovPayPendenzaNamesItsDominio(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/UO1", map[string]any{"ragioneSociale": "Ufficio UO1", "abilitato": true})
	dominio := map[string]any{"idDominio": d1, "ragioneSociale": "Ente " + d1}
	check := func(t *testing.T, what string, v map[string]any, unit bool) {
		t.Helper()
		if !reflect.DeepEqual(v["dominio"], dominio) || v["idDominio"] != d1 {
			t.Fatalf("%s: dominio = %#v, idDominio = %#v, want %#v and %q", what, v["dominio"], v["idDominio"], dominio, d1)
		}
		wantUnit := any(nil)
		if unit {
			wantUnit = map[string]any{"idUnita": "UO1", "ragioneSociale": "Ufficio UO1"}
		}
		if !reflect.DeepEqual(v["unitaOperativa"], wantUnit) {
			t.Fatalf("%s: unitaOperativa = %#v, want %#v", what, v["unitaOperativa"], wantUnit)
		}
	}
	one := func(t *testing.T, r *response) map[string]any {
		t.Helper()
		var v map[string]any
		r.decode(t, &v)
		return v
	}
	inUnit := withField(pendenzaBodyFor(d1, t1, citizen1), "idUnitaOperativa", "UO1")
	check(t, "PUT created", one(t, w.must(t, "PUT", pe+"/pendenze/appA/dom1", pendenzaBodyFor(d1, t1, citizen1), as("appA"))), false)
	check(t, "PUT in a unit", one(t, w.must(t, "PUT", pe+"/pendenze/appA/dom2", inUnit, as("appA"))), true)
	check(t, "PUT updated", one(t, w.must(t, "PUT", pe+"/pendenze/appA/dom2", inUnit, as("appA"))), true)
	var p pendenzaView
	w.must(t, "GET", pe+"/pendenze/appA/dom1", nil, as("appA")).decode(t, &p)
	check(t, "PATCH", one(t, w.must(t, "PATCH", pe+"/pendenze/appA/dom1", patchStato("ANNULLATA"), as("appA"))), false)
	for _, path := range []string{
		pe + "/pendenze/appA/dom1", pg + "/pendenze/appA/dom1", bo + "/pendenze/appA/dom1",
		pe + "/pendenze/byAvviso/" + d1 + "/" + p.NumeroAvviso, pg + "/pendenze/byAvviso/" + d1 + "/" + p.NumeroAvviso,
		rg + "/pendenze/byAvviso/" + d1 + "/" + p.NumeroAvviso,
	} {
		user := "appA"
		if strings.HasPrefix(path, bo) {
			user = "opD1"
		} else if strings.HasPrefix(path, rg) {
			user = "appC"
		}
		check(t, "GET "+path, one(t, w.must(t, "GET", path, nil, as(user))), false)
	}
	for _, path := range []string{pe + "/pendenze", pg + "/pendenze", bo + "/pendenze"} {
		user := "appA"
		if strings.HasPrefix(path, bo) {
			user = "opD1"
		}
		var page Page[map[string]any]
		w.must(t, "GET", path+"?idDominio="+d1, nil, as(user)).decode(t, &page)
		if len(page.Risultati) != 2 {
			t.Fatalf("GET %s as %s: %d pendenze, want 2", path, user, len(page.Risultati))
		}
		for _, v := range page.Risultati {
			check(t, "GET "+path+" item "+v["idPendenza"].(string), v, v["idPendenza"] == "dom2")
		}
	}
	w.do(t, "GET", pe+"/pendenze/appA/dom1", nil, as("appB")).expect(t, 403, "403000")
	w.do(t, "GET", bo+"/pendenze/appA/dom1", nil, as("opNoRole")).expect(t, 403, "403000")
}

// TestGovPayTextLimitsCountCharacters: GovPay's maxLength counts
// characters, and so does every limit of a pendenza's text: a causale of
// 140 accented letters (280 bytes) is written, one of 141 is a 400 that
// writes nothing; the same for a voce's descrizione, the payer's address,
// the state's description and a spontaneous payment's causale. Before,
// the limits counted bytes and refused the 140 letters.
func TestGovPayTextLimitsCountCharacters(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	path := func(id string) string { return pe + "/pendenze/appA/" + id }
	letters := func(n int) string { return strings.Repeat("è", n) }
	body := func(k string, v any) map[string]any { return withField(pendenzaBodyFor(d1, t1, citizen1), k, v) }
	payer := func(k, v string) map[string]any {
		return map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi", k: v}
	}
	voce := func(descrizione string) []map[string]any {
		return []map[string]any{{"idVocePendenza": "v1", "importo": 123.45, "descrizione": descrizione, "codEntrata": "SRV-1"}}
	}
	spontaneous := func(causale string) map[string]any {
		return map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "idTipoPendenza": tSpont, "importo": 5,
			"causale": causale, "soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}}}}
	}
	w.createPendenza(t, "appA", "txt-patch", d1, t1, citizen1)
	descr := func(v string) []map[string]any {
		return patchStato("ANNULLATA", map[string]any{"op": "REPLACE", "path": "/descrizioneStato", "value": v})
	}
	runRows(t, w.harness, []row{
		{"causale_of_140_letters", "PUT", path("txt1"), body("causale", letters(140)), opts(as("appA")), 201, ""},
		{"causale_of_141_letters", "PUT", path("txt2"), body("causale", letters(141)), opts(as("appA")), 400, "SINTASSI"},
		{"voce_of_140_letters", "PUT", path("txt3"), body("voci", voce(letters(140))), opts(as("appA")), 201, ""},
		{"voce_of_141_letters", "PUT", path("txt4"), body("voci", voce(letters(141))), opts(as("appA")), 400, "SINTASSI"},
		{"localita_of_35_letters", "PUT", path("txt5"), body("soggettoPagatore", payer("localita", letters(35))), opts(as("appA")), 201, ""},
		{"localita_of_36_letters", "PUT", path("txt6"), body("soggettoPagatore", payer("localita", letters(36))), opts(as("appA")), 400, "SINTASSI"},
		{"tassonomia_of_35_letters", "PUT", path("txt7"), body("tassonomia", letters(35)), opts(as("appA")), 201, ""},
		{"tassonomia_of_36_letters", "PUT", path("txt8"), body("tassonomia", letters(36)), opts(as("appA")), 400, "SINTASSI"},
		{"descrizione_stato_of_256_letters", "PATCH", path("txt-patch"), descr(letters(256)), opts(as("appA")), 400, "SINTASSI"},
		{"descrizione_stato_of_255_letters", "PATCH", path("txt-patch"), descr(letters(255)), opts(as("appA")), 200, ""},
		{"spontaneous_causale_of_140_letters", "POST", pg + "/pagamenti", spontaneous(letters(140)), opts(as("appA")), 201, ""},
		{"spontaneous_causale_of_141_letters", "POST", pg + "/pagamenti", spontaneous(letters(141)), opts(as("appA")), 400, "SINTASSI"},
	})
	for _, id := range []string{"txt2", "txt4", "txt6", "txt8"} {
		w.do(t, "GET", path(id), nil, as("appA")).expect(t, 404, "404000")
	}
	if got := string(w.must(t, "GET", path("txt1"), nil, as("appA")).Body); !strings.Contains(got, `"causale":"`+letters(140)+`"`) {
		t.Fatalf("the causale of 140 letters reads %s", got)
	}
}

// TestCausaleRefusesControlCharacters: a causale is one line of text: a
// control character (C0, DEL, C1; a newline or tab too) is 400 naming
// the causale, in a pendenza, a spontaneous payment, a pendenza of the
// Pagamento API, an incasso and a reconciliation, and nothing is
// written; letters beyond ASCII stay accepted.
func TestCausaleRefusesControlCharacters(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	payer := map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}
	bodies := []struct {
		place, method, field string
		path                 func(i int) string
		body                 func(causale string) any
	}{
		{"pendenza", "PUT", "causale", func(i int) string { return fmt.Sprintf("%s/pendenze/appA/ctl-%d", pe, i) },
			func(c string) any { return withField(pendenzaBodyFor(d1, t1, citizen1), "causale", c) }},
		{"spontaneous", "POST", "pendenze[0].causale", func(int) string { return pg + "/pagamenti" },
			func(c string) any {
				return map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "idTipoPendenza": tSpont, "importo": 5,
					"causale": c, "soggettoPagatore": payer}}}
			}},
		{"pagamento_pendenza", "POST", "causale", func(int) string { return pg + "/pendenze/" + d1 + "/" + tSpont },
			func(c string) any { return map[string]any{"causale": c, "importo": 5, "soggettoPagatore": payer} }},
		{"incasso", "POST", "causale", func(int) string { return bo + "/incassi/" + d1 },
			func(c string) any { return map[string]any{"causale": c, "importo": 10.5} }},
		{"riconciliazione", "PUT", "causale", func(i int) string { return fmt.Sprintf("%s/riconciliazioni/%s/ctl-%d", rg, d1, i) },
			func(c string) any { return map[string]any{"causale": c, "importo": 10.5} }},
	}
	callers := map[string]reqOpt{"incasso": as("opD1")} // else appA
	count := func(list string) int {
		var page struct {
			NumRisultati int `json:"numRisultati"`
		}
		w.must(t, "GET", bo+"/"+list+"?risultatiPerPagina=1", nil, asAdmin()).decode(t, &page)
		return page.NumRisultati
	}
	lists := []string{"pendenze", "pagamenti", "incassi", "riconciliazioni"}
	before := map[string]int{}
	for _, l := range lists {
		before[l] = count(l)
	}
	for i, c := range []struct {
		name, causale string
		status        int
	}{
		{"letters_and_punctuation", "TARI 2026 – rata unica, è dovuta", 201},
		{"nul", "TARI\x002026", 400},
		{"bell", "TARI\a2026", 400},
		{"newline", "TARI 2026\nrata 1", 400},
		{"carriage_return", "TARI 2026\r", 400},
		{"tab", "TARI\t2026", 400},
		{"escape", "TARI \x1b[31m2026", 400},
		{"delete", "TARI\x7f2026", 400},
		{"c1_next_line", "TARI\u00852026", 400},
	} {
		for _, b := range bodies {
			t.Run(c.name+"/"+b.place, func(t *testing.T) {
				opt, ok := callers[b.place]
				if !ok {
					opt = as("appA")
				}
				r := w.do(t, b.method, b.path(i), b.body(c.causale), opt)
				if c.status < 400 {
					r.expect(t, c.status, "")
					return
				}
				r.expect(t, c.status, "SINTASSI")
				if d := r.fault(t).Dettaglio; !strings.Contains(d, b.field) || !strings.Contains(d, "control") {
					t.Fatalf("dettaglio %q does not say %s holds a control character", d, b.field)
				}
			})
		}
	}
	// The accepted row wrote one pendenza on each API (the spontaneous
	// payment is a payment), one payment, one incasso, one reconciliation.
	for l, n := range map[string]int{"pendenze": 2, "pagamenti": 1, "incassi": 1, "riconciliazioni": 1} {
		if got := count(l); got != before[l]+n {
			t.Fatalf("the Backoffice lists %d %s, want %d: a refused causale wrote something", got, l, before[l]+n)
		}
	}
}

// TestTassonomiaAvvisoIsGovPays: a pendenza's tassonomiaAvviso is one of
// the values of GovPay's TassonomiaAvviso (Pendenze v2), as written;
// anything else is 400 naming it, and nothing is written.
func TestTassonomiaAvvisoIsGovPays(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	path := func(id string) string { return pe + "/pendenze/appA/" + id }
	body := func(v string) map[string]any {
		return withField(pendenzaBodyFor(d1, t1, citizen1), "tassonomiaAvviso", v)
	}
	var rows []row
	for i, v := range []string{"Cartelle esattoriali", "Diritti e concessioni", "Imposte e tasse", "IMU, TASI e altre tasse comunali",
		"Ingressi a mostre e musei", "Multe e sanzioni amministrative", "Previdenza e infortuni", "Servizi erogati dal comune",
		"Servizi erogati da altri enti", "Servizi scolastici", "Tassa automobilistica", "Ticket e prestazioni sanitarie",
		"Trasporti, mobilità e parcheggi"} {
		rows = append(rows, row{"govpay_value_" + v, "PUT", path(fmt.Sprintf("tax-%d", i)), body(v), opts(as("appA")), 201, ""})
	}
	refused := map[string]string{"other": "Altro", "lower_case": "imposte e tasse", "trailing_space": "Imposte e tasse ",
		"ascii_for_accent": "Trasporti, mobilita e parcheggi"}
	for name, v := range refused {
		rows = append(rows, row{name, "PUT", path("tax-" + name), body(v), opts(as("appA")), 400, "SINTASSI"})
	}
	runRows(t, w.harness, rows)
	for name, v := range refused {
		r := w.do(t, "PUT", path("tax-"+name), body(v), as("appA"))
		if d := r.fault(t).Dettaglio; !strings.Contains(d, "tassonomiaAvviso") {
			t.Fatalf("dettaglio %q does not name tassonomiaAvviso", d)
		}
		w.do(t, "GET", path("tax-"+name), nil, as("appA")).expect(t, 404, "404000")
	}
	w.must(t, "GET", path("tax-12"), nil, as("appA")) // "Trasporti, mobilità e parcheggi", accent and all
}

// TestGovPayPendenzeStatoFilter: the lists of pendenze take the whole of
// GovPay's StatoPendenza as their API has it (Backoffice v1 and Pendenze
// v2: ESEGUITA, NON_ESEGUITA, ESEGUITA_PARZIALE, ANNULLATA, SCADUTA,
// ANOMALA, INCASSATA; Pagamento v2 the same without INCASSATA): a state a
// pendenza here holds lists those in it, one none holds lists nothing,
// and a value outside the API's vocabulary is 400 SINTASSI, as the
// document says; a caller the gate denies is 403 first. The values no
// pendenza here holds were 400, though a GovPay client may send them.
func TestGovPayPendenzeStatoFilter(t *testing.T) {
	w := newWorld(t)
	const pgSpid = "/pagamento/rs/spid/v2"
	w.createPendenza(t, "appA", "st-open", d1, t1, citizen1)
	w.createPendenza(t, "appA", "st-gone", d1, t1, citizen1)
	w.must(t, "PATCH", pe+"/pendenze/appA/st-gone", `[{"op":"REPLACE","path":"/stato","value":"ANNULLATA"}]`, as("appA"))
	lists := []struct {
		name, path string
		caller     reqOpt
		incassata  bool // INCASSATA is of the API's vocabulary
	}{
		{"backoffice", bo + "/pendenze", asAdmin(), true},
		{"pendenze", pe + "/pendenze", as("appA"), true},
		{"pagamento", pg + "/pendenze", as("appA"), false},
		{"pagamento_citizen", pgSpid + "/pendenze", asSPID(citizen1), false},
	}
	for _, l := range lists {
		t.Run(l.name, func(t *testing.T) {
			for _, c := range []struct {
				stato string
				want  []string
			}{
				{"NON_ESEGUITA", []string{"st-open"}},
				{"ANNULLATA", []string{"st-gone"}},
				{"ESEGUITA", nil},
				{"ESEGUITA_PARZIALE", nil},
				{"SCADUTA", nil},
				{"ANOMALA", nil},
			} {
				if got := w.listed(t, l.path+"?stato="+c.stato, "idPendenza", l.caller); !slices.Equal(got, c.want) {
					t.Fatalf("stato=%s lists %v, want %v", c.stato, got, c.want)
				}
				sameVerdict(t, w, l.path+"?stato="+c.stato, false, l.caller)
			}
			incassata := l.path + "?stato=INCASSATA"
			if l.incassata {
				if got := w.listed(t, incassata, "idPendenza", l.caller); len(got) != 0 {
					t.Fatalf("stato=INCASSATA lists %v, want nothing", got)
				}
			}
			sameVerdict(t, w, incassata, !l.incassata, l.caller)
			for _, bad := range []string{"PAGATA", "eseguita", "ESEGUITO", "SCADUTA_"} {
				sameVerdict(t, w, l.path+"?stato="+bad, true, l.caller)
			}
		})
	}
	// The gate first: a caller that may not list is 403 whatever stato.
	w.do(t, "GET", bo+"/pendenze?stato=SCADUTA", nil, as("opNoRole")).expect(t, http.StatusForbidden, "403000")
	w.do(t, "GET", pe+"/pendenze?stato=PAGATA", nil, as("appC")).expect(t, http.StatusForbidden, "403000")
	w.do(t, "GET", "/pagamento/rs/public/v2/pendenze?stato=INCASSATA", nil).expect(t, http.StatusForbidden, "403000")
}

// TestPatchPendenzaRepeatReplacesDescrizione: a PATCH to the state a
// pendenza already holds changes no state, but a /descrizioneStato it
// carries that differs from the one held replaces it, on both APIs: the
// 200 answered is the pendenza as asked, not a stale description (GovPay
// applies every op of the patch). A repeat without /descrizioneStato, or
// with the one held, writes nothing.
func TestPatchPendenzaRepeatReplacesDescrizione(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	descr := func(v string) map[string]any {
		return map[string]any{"op": "REPLACE", "path": "/descrizioneStato", "value": v}
	}
	for _, c := range []struct {
		name, prefix, idPendenza string
		caller                   reqOpt
	}{
		{"pendenze_api_creator", pe, "rd1", as("appA")},
		{"backoffice_operator", bo, "rd2", as("opD1")},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.createPendenza(t, "appA", c.idPendenza, d1, t1, citizen1)
			path := c.prefix + "/pendenze/appA/" + c.idPendenza
			first := w.must(t, "PATCH", path, patchStato("ANNULLATA", descr("Annullata per errore")), c.caller)
			r := w.must(t, "PATCH", path, patchStato("ANNULLATA", descr("Annullata su richiesta del debitore")), c.caller)
			if got := string(r.Body); !strings.Contains(got, `"descrizioneStato":"Annullata su richiesta del debitore"`) {
				t.Fatalf("the repeat with a new descrizioneStato answers %s", got)
			}
			if r.Header.Get(ConsistencyHeader) == first.Header.Get(ConsistencyHeader) {
				t.Fatalf("the new descrizioneStato was not written (token %s)", r.Header.Get(ConsistencyHeader))
			}
			got := string(w.must(t, "GET", pe+"/pendenze/appA/"+c.idPendenza, nil, as("appA")).Body)
			if !strings.Contains(got, `"descrizioneStato":"Annullata su richiesta del debitore"`) || !strings.Contains(got, `"stato":"ANNULLATA"`) {
				t.Fatalf("the pendenza reads %s", got)
			}
			// Without /descrizioneStato, or with the one held: nothing written.
			for _, patch := range [][]map[string]any{patchStato("ANNULLATA"), patchStato("ANNULLATA", descr("Annullata su richiesta del debitore"))} {
				again := w.must(t, "PATCH", path, patch, c.caller)
				if again.Header.Get(ConsistencyHeader) != r.Header.Get(ConsistencyHeader) ||
					!strings.Contains(string(again.Body), `"descrizioneStato":"Annullata su richiesta del debitore"`) {
					t.Fatalf("a repeat %v answers token %s (want %s): %s", patch, again.Header.Get(ConsistencyHeader), r.Header.Get(ConsistencyHeader), again.Body)
				}
			}
		})
	}
}

// TestPutKeepsPendenzaCancelled: a PUT of a cancelled pendenza rewrites
// its content (200) and keeps it ANNULLATA, its descrizioneStato too: only
// a PATCH to NON_ESEGUITA reopens it. GovPay reloads a pendenza as
// NON_ESEGUITA; here a retried or late PUT does not make a cancelled debt
// payable again.
func TestPutKeepsPendenzaCancelled(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	p := w.createPendenza(t, "appA", "kc1", d1, t1, citizen1)
	path := pe + "/pendenze/appA/kc1"
	w.must(t, "PATCH", path, patchStato("ANNULLATA", map[string]any{"op": "REPLACE", "path": "/descrizioneStato", "value": "Annullata"}), as("appA"))
	r := w.do(t, "PUT", path, withField(pendenzaBodyFor(d1, t1, citizen1), "importo", 99.5), as("appA"))
	r.expect(t, 200, "")
	for _, got := range []string{string(r.Body), string(w.must(t, "GET", path, nil, as("appA")).Body)} {
		if !strings.Contains(got, `"stato":"ANNULLATA"`) || !strings.Contains(got, `"descrizioneStato":"Annullata"`) || !strings.Contains(got, `"importo":99.50`) {
			t.Fatalf("the cancelled pendenza after a PUT reads %s", got)
		}
	}
	w.do(t, "POST", "/pagamento/rs/spid/v2/pagamenti", map[string]any{"pendenze": []map[string]any{
		{"idDominio": d1, "numeroAvviso": p.NumeroAvviso}}}, asSPID(citizen1)).expect(t, 422, "422000")
	w.must(t, "PATCH", path, patchStato("NON_ESEGUITA"), as("appA"))
	w.do(t, "POST", "/pagamento/rs/spid/v2/pagamenti", map[string]any{"pendenze": []map[string]any{
		{"idDominio": d1, "numeroAvviso": p.NumeroAvviso}}}, asSPID(citizen1)).expect(t, 201, "")
}

// TestPatchPendenzaEmptyDescrizione: a /descrizioneStato whose value is
// empty or null is 400 SINTASSI, as GovPay answers a value not valid for
// its path, and nothing is written: before, it was read as no description,
// so a patch meant to clear one answered 200 with the one held.
func TestPatchPendenzaEmptyDescrizione(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "ed1", d1, t1, citizen1)
	path := pe + "/pendenze/appA/ed1"
	descr := func(v any) []map[string]any {
		return patchStato("ANNULLATA", map[string]any{"op": "REPLACE", "path": "/descrizioneStato", "value": v})
	}
	w.must(t, "PATCH", path, descr("Annullata"), as("appA"))
	runRows(t, w.harness, []row{
		{"empty_value", "PATCH", path, descr(""), opts(as("appA")), 400, "SINTASSI"},
		{"null_value", "PATCH", path, descr(nil), opts(as("appA")), 400, "SINTASSI"},
		{"empty_value_on_backoffice", "PATCH", bo + "/pendenze/appA/ed1", descr(""), opts(as("opD1")), 400, "SINTASSI"},
		{"reopen_with_empty_value", "PATCH", path, patchStato("NON_ESEGUITA", map[string]any{"op": "REPLACE", "path": "/descrizioneStato", "value": ""}), opts(as("appA")), 400, "SINTASSI"},
	})
	if got := string(w.must(t, "GET", path, nil, as("appA")).Body); !strings.Contains(got, `"stato":"ANNULLATA"`) || !strings.Contains(got, `"descrizioneStato":"Annullata"`) {
		t.Fatalf("the pendenza after refused patches reads %s", got)
	}
}

// TestPutPendenzaNoticeInUse: a PUT whose numeroAvviso another pendenza
// holds at the entity, given on creation or carried by a move to another
// entity, is 409 saying so (GovPay's VER_025 names it too), not a
// concurrent change to retry; nothing is written. The same number at
// another entity is free.
func TestPutPendenzaNoticeInUse(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	a := w.createPendenza(t, "appA", "ni1", d1, t1, citizen1)
	q := w.createPendenza(t, "appB", "ni2", d1, t1, citizen1)
	w.do(t, "PUT", pe+"/pendenze/appB/ni3", withField(pendenzaBodyFor(d2, t1, citizen1), "numeroAvviso", q.NumeroAvviso), as("appB")).expect(t, 201, "")
	taken := func(n, dominio string) string {
		return "numeroAvviso " + n + " is already used at idDominio " + dominio
	}
	w.do(t, "PUT", pe+"/pendenze/appB/ni4", withField(pendenzaBodyFor(d1, t1, citizen1), "numeroAvviso", a.NumeroAvviso), as("appB")).
		expectDetail(t, 409, "409000", taken(a.NumeroAvviso, d1))
	w.do(t, "PUT", pe+"/pendenze/appB/ni2", pendenzaBodyFor(d2, t1, citizen1), as("appB")).
		expectDetail(t, 409, "409000", taken(q.NumeroAvviso, d2))
	w.do(t, "GET", pe+"/pendenze/appB/ni4", nil, as("appB")).expect(t, 404, "404000")
	if got := string(w.must(t, "GET", pe+"/pendenze/appB/ni2", nil, as("appB")).Body); !strings.Contains(got, `"idDominio":"`+d1+`"`) {
		t.Fatalf("the pendenza refused a move reads %s", got)
	}
}

// TestPutPendenzaNoticeCannotChange: a PUT of a stored pendenza with a
// numeroAvviso other than the one assigned is 422 (a well-formed value
// the pendenza's state refuses, GovPay's VER_024), not 400, and nothing is
// written; the number assigned, or none, is accepted.
func TestPutPendenzaNoticeCannotChange(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	p := w.createPendenza(t, "appA", "nc1", d1, t1, citizen1)
	other := "301234567890123456"
	if other == p.NumeroAvviso {
		other = "301234567890123457"
	}
	path := pe + "/pendenze/appA/nc1"
	runRows(t, w.harness, []row{
		{"other_number", "PUT", path, withField(withField(pendenzaBodyFor(d1, t1, citizen1), "numeroAvviso", other), "importo", 5), opts(as("appA")), 422, "422000"},
		{"same_number", "PUT", path, withField(pendenzaBodyFor(d1, t1, citizen1), "numeroAvviso", p.NumeroAvviso), opts(as("appA")), 200, ""},
		{"no_number", "PUT", path, pendenzaBodyFor(d1, t1, citizen1), opts(as("appA")), 200, ""},
	})
	if got := string(w.must(t, "GET", path, nil, as("appA")).Body); !strings.Contains(got, `"numeroAvviso":"`+p.NumeroAvviso+`"`) || !strings.Contains(got, `"importo":123.45`) {
		t.Fatalf("the pendenza reads %s", got)
	}
}

// TestPatchPendenzaPathBeforeValue: a PATCH of a path no pendenza patch
// takes (GovPay's /ack, a boolean) is 400 naming the path, not the form
// of a value that would never be read.
func TestPatchPendenzaPathBeforeValue(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "pv1", d1, t1, citizen1)
	w.do(t, "PATCH", pe+"/pendenze/appA/pv1", []map[string]any{{"op": "REPLACE", "path": "/ack", "value": true}}, as("appA")).
		expectDetail(t, 400, "SINTASSI", "path /ack cannot be patched (only /stato and /descrizioneStato)")
}
