package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestGovPayPersonalRoles: an operator's or application's own acl over
// its own domini and tipiPendenza (GovPay's per-user scope) is a personal
// role, decided like a named role and held by that principal alone
// (issue 13 §1).
func TestGovPayPersonalRoles(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "P-D1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "P-D2", d2, t1, citizen1)
	personal := func(domini []string, entries ...map[string]any) map[string]any {
		return map[string]any{"ragioneSociale": "Mario Bianchi", "password": pw, "abilitato": true, "ruoli": []string{},
			"acl": entries, "domini": domini, "tipiPendenza": []string{"*"}}
	}
	pendenzeR := aclOf("Pendenze", "R")
	creditoreR := aclOf("Anagrafica Creditore", "R")
	w.must(t, "PUT", bo+"/operatori/opPers", personal([]string{d1}, pendenzeR, creditoreR))
	app := map[string]any{"principal": "appPers", "password": pw, "abilitato": true, "ruoli": []string{},
		"acl": []map[string]any{pendenzeR}, "domini": []string{d1}, "tipiPendenza": []string{"*"}}
	w.must(t, "PUT", bo+"/applicazioni/appPers", app)
	w.must(t, "PUT", bo+"/operatori/opD2", personal([]string{d2}, pendenzeR))

	runRows(t, w.harness, []row{
		// The personal role's rights, in its scope only.
		{name: "operator_reads_pendenza_in_personal_scope", method: "GET", path: bo + "/pendenze/appA/P-D1", opts: []reqOpt{as("opPers")}, status: http.StatusOK},
		{name: "operator_pendenza_outside_personal_scope", method: "GET", path: bo + "/pendenze/appB/P-D2", opts: []reqOpt{as("opPers")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},
		{name: "operator_reads_entity_in_personal_scope", method: "GET", path: bo + "/domini/" + d1, opts: []reqOpt{as("opPers")}, status: http.StatusOK},
		{name: "operator_entity_outside_personal_scope", method: "GET", path: bo + "/domini/" + d2, opts: []reqOpt{as("opPers")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},
		{name: "operator_right_not_in_personal_acl", method: "PUT", path: bo + "/domini/" + d1,
			body: map[string]any{"ragioneSociale": "Comune", "abilitato": true}, opts: []reqOpt{as("opPers")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},
		{name: "application_reads_pendenza_in_personal_scope", method: "GET", path: bo + "/pendenze/appA/P-D1", opts: []reqOpt{as("appPers")}, status: http.StatusOK},
		{name: "application_pendenza_outside_personal_scope", method: "GET", path: bo + "/pendenze/appB/P-D2", opts: []reqOpt{as("appPers")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},

		// Delegation: a personal role is granted like a named role.
		// opD1 holds every right on d1 only.
		{name: "delegation_within_granter_scope", method: "PUT", path: bo + "/operatori/opDeleg",
			body: personal([]string{d1}, pendenzeR), opts: []reqOpt{as("opD1")}, status: http.StatusCreated},
		{name: "delegation_beyond_granter_scope", method: "PUT", path: bo + "/operatori/opBeyond",
			body: personal([]string{d2}, pendenzeR), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},
		{name: "granter_changes_a_personal_role_it_could_grant", method: "PUT", path: bo + "/operatori/opPers",
			body: personal([]string{d1}, pendenzeR), opts: []reqOpt{as("opD1")}, status: http.StatusOK},
		{name: "granter_cannot_change_a_personal_role_it_could_not_grant", method: "PUT", path: bo + "/operatori/opD2",
			body: personal([]string{d1}, pendenzeR), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},

		// Bad input: the contract's 400, nothing written.
		{name: "unknown_servizio", method: "PUT", path: bo + "/operatori/opBad",
			body: personal([]string{d1}, aclOf("Nope", "R")), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "bad_right", method: "PUT", path: bo + "/operatori/opBad",
			body: personal([]string{d1}, aclOf("Pendenze", "X")), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "bad_dominio", method: "PUT", path: bo + "/operatori/opBad",
			body: personal([]string{"d1"}, pendenzeR), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "nothing_was_written", method: "GET", path: bo + "/operatori/opBad", opts: []reqOpt{asAdmin()}, status: http.StatusNotFound, codice: codiceOf(http.StatusNotFound)},
	})

	t.Run("get_shows_the_personal_role", func(t *testing.T) {
		var op operatoreView
		w.must(t, "GET", bo+"/operatori/opPers", nil).decode(t, &op)
		if len(op.ACL) != 1 || op.ACL[0].Servizio != "Pendenze" || !slices.Equal(op.Domini.IDs, []string{d1}) ||
			!slices.Equal(op.TipiPendenza, []string{"*"}) || len(op.Ruoli) != 0 {
			t.Fatalf("operator = %+v", op)
		}
		var a applicazioneView
		w.must(t, "GET", bo+"/applicazioni/appPers", nil).decode(t, &a)
		if len(a.ACL) != 1 || a.ACL[0].Servizio != "Pendenze" || !slices.Equal(a.Domini.IDs, []string{d1}) {
			t.Fatalf("application = %+v", a)
		}
	})
	t.Run("profile_lists_its_rights_not_a_named_role", func(t *testing.T) {
		var p profiloView
		w.must(t, "GET", bo+"/profilo", nil, as("opPers")).decode(t, &p)
		if len(p.Ruoli) != 0 || len(p.ACL) != 1 || p.ACL[0].Servizio != "Pendenze" || !slices.Equal(p.ACL[0].Domini.IDs, []string{d1}) {
			t.Fatalf("profilo = %+v", p)
		}
	})
	t.Run("repeat_changes_nothing", func(t *testing.T) {
		w.do(t, "PUT", bo+"/operatori/opPers", personal([]string{d1}, pendenzeR), asAdmin()).expect(t, http.StatusOK, "")
		before := w.must(t, "GET", bo+"/eventi", nil).Body
		w.do(t, "PUT", bo+"/operatori/opPers", map[string]any{"ragioneSociale": "Mario Bianchi", "abilitato": true, "ruoli": []string{},
			"acl": []map[string]any{pendenzeR}, "domini": []string{d1}, "tipiPendenza": []string{"*"}}, asAdmin()).expect(t, http.StatusOK, "")
		if after := w.must(t, "GET", bo+"/eventi", nil).Body; string(after) != string(before) {
			t.Fatal("an unchanged personal role wrote an event")
		}
	})
	t.Run("removing_the_acl_removes_the_rights", func(t *testing.T) {
		w.must(t, "PUT", bo+"/operatori/opPers", map[string]any{"ragioneSociale": "Mario Bianchi", "abilitato": true, "ruoli": []string{}})
		w.do(t, "GET", bo+"/pendenze/appA/P-D1", nil, as("opPers")).expect(t, http.StatusForbidden, codiceOf(http.StatusForbidden))
		var op operatoreView
		w.must(t, "GET", bo+"/operatori/opPers", nil).decode(t, &op)
		if op.ACL != nil || op.Domini != nil {
			t.Fatalf("operator still shows a personal role: %+v", op)
		}
	})
}

// TestGovPayDominiEntries: GovPay's domini entries may be ids or objects
// {idDominio, unitaOperative}; an object without units is its id, and
// units, a scope this service does not hold yet, are refused with 422
// rather than silently widened to the whole entity.
func TestGovPayDominiEntries(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	app := func(domini any) map[string]any {
		return map[string]any{"principal": "appObj", "password": pw, "abilitato": true, "ruoli": []string{},
			"apiPendenze": true, "domini": domini, "tipiPendenza": []string{"*"}}
	}
	h.do(t, "PUT", bo+"/applicazioni/appObj", app([]any{map[string]any{"idDominio": d1}}), asAdmin()).expect(t, http.StatusCreated, "")
	var a applicazioneView
	h.must(t, "GET", bo+"/applicazioni/appObj", nil).decode(t, &a)
	if !slices.Equal(a.Domini.IDs, []string{d1}) || len(a.AutorizzazioniAPI) != 1 {
		t.Fatalf("application = %+v", a)
	}
	// An entity named whole and with units is covered whole.
	h.do(t, "PUT", bo+"/applicazioni/appObj", app([]any{d1, map[string]any{"idDominio": d1, "unitaOperative": []string{"UO1"}}}), asAdmin()).
		expect(t, http.StatusOK, "")
	h.must(t, "GET", bo+"/applicazioni/appObj", nil).decode(t, &a)
	if !slices.Equal(a.Domini.IDs, []string{d1}) || a.Domini.Units != nil {
		t.Fatalf("application = %+v", a)
	}
	h.do(t, "PUT", bo+"/applicazioni/appObj", app([]any{map[string]any{"idDominio": d1, "unitaOperative": []string{"bad unit!"}}}), asAdmin()).
		expect(t, http.StatusBadRequest, codiceOf(http.StatusBadRequest))
	h.do(t, "PUT", bo+"/applicazioni/appObj", app([]any{map[string]any{"idDominio": d1, "other": 1}}), asAdmin()).
		expect(t, http.StatusBadRequest, codiceOf(http.StatusBadRequest))
	h.do(t, "PUT", bo+"/applicazioni/appObj", app([]any{42}), asAdmin()).expect(t, http.StatusBadRequest, codiceOf(http.StatusBadRequest))
	h.do(t, "PUT", bo+"/operatori/opObj", map[string]any{"ragioneSociale": "Op", "password": pw, "abilitato": true, "ruoli": []string{},
		"acl": []map[string]any{aclOf("Pendenze", "R")}, "domini": []any{map[string]any{"idDominio": d1, "unitaOperative": []string{}}},
		"tipiPendenza": []string{"*"}}, asAdmin()).expect(t, http.StatusCreated, "")
	// Nothing the refused PUTs carried was written.
	h.must(t, "GET", bo+"/applicazioni/appObj", nil).decode(t, &a)
	if !slices.Equal(a.Domini.IDs, []string{d1}) {
		t.Fatalf("application after refused PUTs = %+v", a)
	}
}

// TestGovPayApplicazioneBody: GovPay's applicazione body as its spec's
// example shapes it (issue 13 §1): codificaAvvisi is kept and returned;
// the integration connector, which may hold credentials, is kept but
// never returned nor shown by the event log.
func TestGovPayApplicazioneBody(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	h.putType(t, t1, false)
	body := func(connector bool, iuv string) map[string]any {
		b := map[string]any{"principal": "gestionale", "password": pw, "abilitato": true,
			"codificaAvvisi": map[string]any{"codificaIuv": iuv, "regExpIuv": "[0,1]*", "generazioneIuvInterna": true},
			"domini":         []any{d1}, "tipiPendenza": []string{t1}, "apiPagamenti": true, "apiPendenze": true, "apiRagioneria": false,
			"acl": []map[string]any{aclOf("Pendenze", "R")}, "ruoli": []string{}}
		if connector {
			b["servizioIntegrazione"] = map[string]any{"url": "https://ente.example/govpay", "versioneApi": "REST v1",
				"auth": map[string]any{"username": "gp", "password": "integration-secret"}}
		}
		return b
	}
	h.do(t, "PUT", bo+"/applicazioni/gestionale", body(true, "01"), asAdmin()).expect(t, http.StatusCreated, "")
	res := h.must(t, "GET", bo+"/applicazioni/gestionale", nil)
	var a applicazioneView
	res.decode(t, &a)
	if a.CodificaAvvisi == nil || a.CodificaAvvisi.CodificaIuv != "01" || a.CodificaAvvisi.RegExpIuv != "[0,1]*" ||
		len(a.ACL) != 1 || !a.APIPagamenti || !a.APIPendenze || a.APIRagioneria {
		t.Fatalf("application = %+v", a)
	}
	for _, secret := range []string{"servizioIntegrazione", "integration-secret"} {
		if strings.Contains(string(res.Body), secret) {
			t.Fatalf("GET returned %s: %s", secret, res.Body)
		}
		if log := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body); strings.Contains(log, "integration-secret") {
			t.Fatalf("the event log shows the connector's password: %s", log)
		}
	}
	before := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body)
	repeat := body(false, "01")
	delete(repeat, "password") // a password sent is a new hash, so a change
	h.do(t, "PUT", bo+"/applicazioni/gestionale", repeat, asAdmin()).expect(t, http.StatusOK, "")
	if after := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body); after != before {
		t.Fatal("a PUT that left the connector out changed the application")
	}
	h.do(t, "PUT", bo+"/applicazioni/gestionale", body(false, "ABC"), asAdmin()).expect(t, http.StatusBadRequest, codiceOf(http.StatusBadRequest))
	h.must(t, "GET", bo+"/applicazioni/gestionale", nil).decode(t, &a)
	if a.CodificaAvvisi.CodificaIuv != "01" {
		t.Fatalf("a refused PUT changed codificaAvvisi: %+v", a.CodificaAvvisi)
	}
}
