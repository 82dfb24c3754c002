package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/whatcan"
)

// TestUnitaOperative: the operational units of a creditor entity (issue 13
// §2's registry): Anagrafica Creditore on the unit's entity on the
// Backoffice, the entity's payable gate on the Pagamento API, and the
// event log scoped by the unit's entity.
func TestUnitaOperative(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	unit := func(name string, enabled bool) map[string]any {
		return map[string]any{"ragioneSociale": name, "abilitato": enabled, "indirizzo": "Borgo stretto", "civico": "55bis",
			"cap": "99999", "localita": "Milano", "email": "uo@ente.example", "area": "Affari generali"}
	}
	uo := func(d, id string) string { return bo + "/domini/" + d + "/unitaOperative/" + id }
	ff, nf := codiceOf(http.StatusForbidden), codiceOf(http.StatusNotFound)
	runRows(t, w.harness, []row{
		{name: "admin_registers", method: "PUT", path: uo(d1, "UO1"), body: unit("Ufficio uno", true), opts: []reqOpt{asAdmin()}, status: http.StatusCreated},
		{name: "admin_registers_disabled", method: "PUT", path: uo(d1, "UO2"), body: unit("Ufficio due", false), opts: []reqOpt{asAdmin()}, status: http.StatusCreated},
		{name: "admin_registers_other_entity", method: "PUT", path: uo(d2, "UO9"), body: unit("Ufficio nove", true), opts: []reqOpt{asAdmin()}, status: http.StatusCreated},
		{name: "repeat_is_200", method: "PUT", path: uo(d1, "UO1"), body: unit("Ufficio uno", true), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
		{name: "scoped_operator_in_scope", method: "PUT", path: uo(d1, "UO3"), body: unit("Ufficio tre", true), opts: []reqOpt{as("opD1")}, status: http.StatusCreated},
		{name: "scoped_operator_out_of_scope", method: "PUT", path: uo(d2, "UO4"), body: unit("Ufficio quattro", true), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},
		{name: "read_only_operator_cannot_write", method: "PUT", path: uo(d1, "UO5"), body: unit("Ufficio cinque", true), opts: []reqOpt{as("opRO")}, status: http.StatusForbidden, codice: ff},
		{name: "unknown_entity", method: "PUT", path: uo(dNone, "UO1"), body: unit("Ufficio", true), opts: []reqOpt{asAdmin()}, status: http.StatusUnprocessableEntity, codice: codiceOf(http.StatusUnprocessableEntity)},
		{name: "bad_unit_id", method: "PUT", path: uo(d1, "bad!id"), body: unit("Ufficio", true), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "field_in_no_govpay_schema", method: "PUT", path: uo(d1, "UO6"), body: map[string]any{"ragioneSociale": "U", "abilitato": true, "gln": "0011223344556"}, opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},

		{name: "read_in_scope", method: "GET", path: uo(d1, "UO1"), opts: []reqOpt{as("opD1")}, status: http.StatusOK},
		{name: "read_out_of_scope", method: "GET", path: uo(d2, "UO9"), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},
		{name: "unknown_out_of_scope_is_403", method: "GET", path: uo(d2, "GHOST"), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},
		{name: "unknown_in_scope_is_404", method: "GET", path: uo(d1, "GHOST"), opts: []reqOpt{as("opD1")}, status: http.StatusNotFound, codice: nf},
		{name: "list_in_scope", method: "GET", path: bo + "/domini/" + d1 + "/unitaOperative", opts: []reqOpt{as("opD1")}, status: http.StatusOK},
		{name: "list_out_of_scope", method: "GET", path: bo + "/domini/" + d2 + "/unitaOperative", opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},

		{name: "pagamento_units_of_a_payable_entity", method: "GET", path: pg + "/domini/" + d1 + "/unitaOperative", opts: []reqOpt{as("appA")}, status: http.StatusOK},
		{name: "pagamento_units_outside_the_grant", method: "GET", path: pg + "/domini/" + d2 + "/unitaOperative", opts: []reqOpt{as("appA")}, status: http.StatusForbidden, codice: ff},
	})

	var page struct {
		Risultati []unitaOperativaRef `json:"risultati"`
	}
	w.must(t, "GET", pg+"/domini/"+d1+"/unitaOperative", nil, as("appA")).decode(t, &page)
	if len(page.Risultati) != 2 || page.Risultati[0].IDUnita != "UO1" || page.Risultati[1].IDUnita != "UO3" {
		t.Fatalf("payable units = %+v (UO2 is disabled)", page.Risultati)
	}
	var u unitaOperativaView
	w.must(t, "GET", uo(d1, "UO1"), nil).decode(t, &u)
	if u.RagioneSociale != "Ufficio uno" || !u.Abilitato || u.Localita != "Milano" {
		t.Fatalf("unit = %+v", u)
	}
	log := string(w.must(t, "GET", bo+"/eventi?risultatiPerPagina=200", nil, as("opD1")).Body)
	if !strings.Contains(log, `"UO1"`) || strings.Contains(log, `"UO9"`) {
		t.Fatalf("opD1's event log shows another entity's unit, or not its own: %s", log)
	}
}

// TestUnitScopes: operational units as GovPay's third scope dimension
// (issue 13 §2). A grant or role naming an entity with units covers only
// those units' pendenze, payments and events, never one of that entity
// without a unit; an entity named alone still covers all of it. The
// scope is accepted and returned in GovPay's object form.
func TestUnitScopes(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	for _, u := range []string{"UO1", "UO2"} {
		w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/"+u, map[string]any{"ragioneSociale": "Ufficio " + u, "abilitato": true})
	}
	w.grantUO1(t, "appU", "PENDENZE", "opUO1", aclOf("Pendenze", "R"), aclOf("Giornale degli Eventi", "R"))

	// The scope is returned as it was given.
	var app applicazioneView
	w.must(t, "GET", bo+"/applicazioni/appU", nil).decode(t, &app)
	if g := app.AutorizzazioniAPI; len(g) != 1 || len(g[0].Domini.IDs) != 0 || !slices.Equal(g[0].Domini.Units[d1], []string{"UO1"}) {
		t.Fatalf("appU's grant = %+v", app.AutorizzazioniAPI)
	}
	if body := string(w.must(t, "GET", bo+"/ruoli/opUO1Role", nil).Body); !strings.Contains(body, `"domini":[{"idDominio":"`+d1+`","unitaOperative":["UO1"]}]`) {
		t.Fatalf("role = %s", body)
	}

	// A unit is added and removed by GovPay's PATCH like any domini entry.
	unitEntry := map[string]any{"idDominio": d2, "unitaOperative": []string{"UO7"}}
	w.must(t, "PATCH", bo+"/ruoli/opUO1Role", []map[string]any{{"op": "ADD", "path": "/domini", "value": unitEntry}})
	if body := string(w.must(t, "GET", bo+"/ruoli/opUO1Role", nil).Body); !strings.Contains(body, `{"idDominio":"`+d2+`","unitaOperative":["UO7"]}`) {
		t.Fatalf("role after PATCH ADD of a unit = %s", body)
	}
	w.must(t, "PATCH", bo+"/ruoli/opUO1Role", []map[string]any{{"op": "DELETE", "path": "/domini", "value": unitEntry}})
	if body := string(w.must(t, "GET", bo+"/ruoli/opUO1Role", nil).Body); strings.Contains(body, "UO7") || !strings.Contains(body, `"UO1"`) {
		t.Fatalf("role after PATCH DELETE of a unit = %s", body)
	}

	at := func(unit string) map[string]any {
		b := pendenzaBodyFor(d1, t1, citizen1)
		if unit != "" {
			b["idUnitaOperativa"] = unit
		}
		return b
	}
	const pePath = "/pendenze/rs/basic/v2/pendenze/"
	ff, unproc := codiceOf(http.StatusForbidden), codiceOf(http.StatusUnprocessableEntity)
	runRows(t, w.harness, []row{
		{name: "create_in_granted_unit", method: "PUT", path: pePath + "appU/P1", body: at("UO1"), opts: []reqOpt{as("appU")}, status: http.StatusCreated},
		{name: "create_in_other_unit", method: "PUT", path: pePath + "appU/P2", body: at("UO2"), opts: []reqOpt{as("appU")}, status: http.StatusForbidden, codice: ff},
		{name: "create_without_unit", method: "PUT", path: pePath + "appU/P3", body: at(""), opts: []reqOpt{as("appU")}, status: http.StatusForbidden, codice: ff},
		{name: "move_to_other_unit", method: "PUT", path: pePath + "appU/P1", body: at("UO2"), opts: []reqOpt{as("appU")}, status: http.StatusForbidden, codice: ff},
		{name: "whole_entity_creates_in_any_unit", method: "PUT", path: pePath + "appA/U1", body: at("UO1"), opts: []reqOpt{as("appA")}, status: http.StatusCreated},
		{name: "whole_entity_creates_in_unit_two", method: "PUT", path: pePath + "appA/U2", body: at("UO2"), opts: []reqOpt{as("appA")}, status: http.StatusCreated},
		{name: "whole_entity_creates_without_unit", method: "PUT", path: pePath + "appA/U0", body: at(""), opts: []reqOpt{as("appA")}, status: http.StatusCreated},
		{name: "unknown_unit_is_422", method: "PUT", path: pePath + "appA/U9", body: at("UO9"), opts: []reqOpt{as("appA")}, status: http.StatusUnprocessableEntity, codice: unproc},

		{name: "operator_reads_its_unit", method: "GET", path: bo + "/pendenze/appA/U1", opts: []reqOpt{as("opUO1")}, status: http.StatusOK},
		{name: "operator_not_other_unit", method: "GET", path: bo + "/pendenze/appA/U2", opts: []reqOpt{as("opUO1")}, status: http.StatusForbidden, codice: ff},
		{name: "operator_not_without_unit", method: "GET", path: bo + "/pendenze/appA/U0", opts: []reqOpt{as("opUO1")}, status: http.StatusForbidden, codice: ff},
		{name: "entity_wide_operator_reads_any_unit", method: "GET", path: bo + "/pendenze/appA/U2", opts: []reqOpt{as("opD1")}, status: http.StatusOK},
	})

	var pd pendenzaView
	w.must(t, "GET", pePath+"appU/P1", nil, as("appU")).decode(t, &pd)
	if pd.IDUnitaOperativa != "UO1" {
		t.Fatalf("pendenza = %+v", pd)
	}
	var list struct {
		Risultati []pendenzaView `json:"risultati"`
	}
	w.must(t, "GET", bo+"/pendenze?risultatiPerPagina=100", nil, as("opUO1")).decode(t, &list)
	for _, p := range list.Risultati {
		if p.IDUnitaOperativa != "UO1" {
			t.Fatalf("opUO1 lists a pendenza outside UO1: %+v", p)
		}
	}
	if len(list.Risultati) != 2 { // appU/P1 and appA/U1
		t.Fatalf("opUO1 lists %d pendenze, want 2: %+v", len(list.Risultati), list.Risultati)
	}
	// An auditor sees the unit scope: what-can probes each unit, explain
	// decides at a unit.
	var res whatcan.Result
	w.must(t, "GET", bo+"/autorizzazioni/principal?principal=appU", nil).decode(t, &res)
	var create *whatcan.Capability
	for i, c := range res.Capabilities {
		if c.API == "PENDENZE" && c.Operation == "create" {
			create = &res.Capabilities[i]
		}
	}
	if create == nil || !create.Allowed || len(create.Scope) != 1 || !slices.Equal(create.Scope[0].UnitaOperative[d1], []string{"UO1"}) {
		t.Fatalf("appU PENDENZE/create: %+v", create)
	}
	w.explainSays(t, "appU", "PENDENZE", "create", "allow", "idDominio", d1, "idTipoPendenza", t1, "idA2A", "appU", "idUnitaOperativa", "UO1")
	w.explainSays(t, "appU", "PENDENZE", "create", "deny", "idDominio", d1, "idTipoPendenza", t1, "idA2A", "appU", "idUnitaOperativa", "UO2")
	w.explainSays(t, "opUO1", "BACKOFFICE", "servizio", "allow", "servizio", "Pendenze", "autorizzazione", "R", "idA2A", "appA", "idPendenza", "U1")
	w.explainSays(t, "opUO1", "BACKOFFICE", "servizio", "deny", "servizio", "Pendenze", "autorizzazione", "R", "idA2A", "appA", "idPendenza", "U2")

	log := string(w.must(t, "GET", bo+"/eventi?risultatiPerPagina=200", nil, as("opUO1")).Body)
	if !strings.Contains(log, `"U1"`) || strings.Contains(log, `"U2"`) || strings.Contains(log, `"U0"`) {
		t.Fatalf("opUO1's event log is not its unit's: %s", log)
	}
}

// TestUnitScopedReceipts: receipts and collections lie in the unit of the
// pendenza they pay; a scope limited to units reaches only theirs, by id
// (403 for another unit's) and in the lists, on the Ragioneria API and
// the Backoffice alike.
func TestUnitScopedReceipts(t *testing.T) {
	t.Parallel() // each test runs its own service
	w, node, base := sslNodeServingD1(t)
	for _, u := range []string{"UO1", "UO2"} {
		w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/"+u, map[string]any{"ragioneSociale": "Ufficio " + u, "abilitato": true})
	}
	paid := map[string]pendenzaView{}
	for _, u := range []string{"UO1", "UO2"} {
		b := pendenzaBodyFor(d1, t1, citizen1)
		b["idUnitaOperativa"] = u
		var pd pendenzaView
		w.must(t, "PUT", pe+"/pendenze/appA/R"+u, b, as("appA")).decode(t, &pd)
		paid[u] = pd
		w.do(t, "POST", base+"/ricevute", ricevuta(pd, "IUR-"+u, 123.45, "ESEGUITO"), node).expect(t, http.StatusCreated, "")
	}
	w.grantUO1(t, "appRU", "RAGIONERIA", "opMoney", aclOf("Rendicontazioni e Incassi", "R"), aclOf("Pagamenti", "R"))

	ricevuta := func(api, u string) string {
		return api + "/ricevute/" + d1 + "/" + domain.IUVOfNotice(paid[u].NumeroAvviso) + "/IUR-" + u
	}
	riscossione := func(api, u string) string {
		return api + "/riscossioni/" + d1 + "/" + domain.IUVOfNotice(paid[u].NumeroAvviso) + "/IUR-" + u + "/1"
	}
	ff := codiceOf(http.StatusForbidden)
	runRows(t, w.harness, []row{
		{name: "ragioneria_receipt_of_its_unit", method: "GET", path: ricevuta(rg, "UO1"), opts: []reqOpt{as("appRU")}, status: http.StatusOK},
		{name: "ragioneria_receipt_of_other_unit", method: "GET", path: ricevuta(rg, "UO2"), opts: []reqOpt{as("appRU")}, status: http.StatusForbidden, codice: ff},
		{name: "ragioneria_collection_of_its_unit", method: "GET", path: riscossione(rg, "UO1"), opts: []reqOpt{as("appRU")}, status: http.StatusOK},
		{name: "ragioneria_collection_of_other_unit", method: "GET", path: riscossione(rg, "UO2"), opts: []reqOpt{as("appRU")}, status: http.StatusForbidden, codice: ff},
		{name: "ragioneria_whole_entity_reads_both", method: "GET", path: riscossione(rg, "UO2"), opts: []reqOpt{as("appC")}, status: http.StatusOK},
		{name: "backoffice_receipt_of_its_unit", method: "GET", path: ricevuta(bo, "UO1"), opts: []reqOpt{as("opMoney")}, status: http.StatusOK},
		{name: "backoffice_receipt_of_other_unit", method: "GET", path: ricevuta(bo, "UO2"), opts: []reqOpt{as("opMoney")}, status: http.StatusForbidden, codice: ff},
		{name: "backoffice_collection_of_other_unit", method: "GET", path: riscossione(bo, "UO2"), opts: []reqOpt{as("opMoney")}, status: http.StatusForbidden, codice: ff},
		{name: "backoffice_other_entity_before_lookup", method: "GET", path: bo + "/riscossioni/" + d2 + "/x/IUR-0/1", opts: []reqOpt{as("opMoney")}, status: http.StatusForbidden, codice: ff},
	})
	for _, q := range []struct{ path, who string }{{rg + "/riscossioni", "appRU"}, {rg + "/ricevute", "appRU"},
		{bo + "/riscossioni", "opMoney"}, {bo + "/ricevute", "opMoney"}} {
		body := string(w.must(t, "GET", q.path, nil, as(q.who)).Body)
		if !strings.Contains(body, "IUR-UO1") || strings.Contains(body, "IUR-UO2") {
			t.Fatalf("%s as %s lists another unit's, or not its own: %s", q.path, q.who, body)
		}
	}
}

// grantUO1 authorizes application app on api, and gives operator op a role
// with entries, both over unit UO1 of d1 alone; it returns that scope.
func (w *world) grantUO1(t *testing.T, app, api, op string, entries ...map[string]any) []any {
	t.Helper()
	onUO1 := []any{map[string]any{"idDominio": d1, "unitaOperative": []string{"UO1"}}}
	w.must(t, "PUT", bo+"/applicazioni/"+app, map[string]any{"principal": app, "password": pw, "abilitato": true, "ruoli": []string{},
		"autorizzazioniApi": []any{map[string]any{"api": api, "domini": onUO1, "tipiPendenza": []string{"*"}}}})
	w.must(t, "PUT", bo+"/ruoli/"+op+"Role", map[string]any{"acl": acl(entries), "domini": onUO1, "tipiPendenza": []string{"*"}})
	w.putOperator(t, op, pw, true, op+"Role")
	return onUO1
}
