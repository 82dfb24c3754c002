package httpapi

import (
	"net/http"
	"strings"
	"testing"
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
