package httpapi

import (
	"net/http"
	"slices"
	"testing"
)

// TestGovPayPatch: PATCH of applicazioni, operatori and ruoli with GovPay's
// patch operations is decided and written as the PUT of the patched
// resource (issue 13 §4): the service's W first (403 before 404), the
// delegation rule, and a bad patch writes nothing.
func TestGovPayPatch(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	op := func(o, path string, value any) map[string]any {
		m := map[string]any{"op": o, "path": path}
		if value != nil {
			m["value"] = value
		}
		return m
	}
	patch := func(ops ...map[string]any) []map[string]any { return ops }
	ff := codiceOf(http.StatusForbidden)
	runRows(t, w.harness, []row{
		{name: "add_role_to_application", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("ADD", "/ruoli", "readOnly")), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
		{name: "add_entity_to_application", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("ADD", "/domini", d2)), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
		{name: "read_only_operator", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("DELETE", "/ruoli", "readOnly")), opts: []reqOpt{as("opRO")}, status: http.StatusForbidden, codice: ff},
		{name: "forbidden_before_missing", method: "PATCH", path: bo + "/applicazioni/ghost", body: patch(op("ADD", "/ruoli", "readOnly")), opts: []reqOpt{as("opRO")}, status: http.StatusForbidden, codice: ff},
		{name: "missing", method: "PATCH", path: bo + "/applicazioni/ghost", body: patch(op("ADD", "/ruoli", "readOnly")), opts: []reqOpt{asAdmin()}, status: http.StatusNotFound, codice: codiceOf(http.StatusNotFound)},
		{name: "delegation_beyond_granter_scope", method: "PATCH", path: bo + "/applicazioni/appC", body: patch(op("ADD", "/domini", d2)), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},
		{name: "scope_per_api_cannot_take_domini", method: "PATCH", path: bo + "/applicazioni/appB", body: patch(op("ADD", "/domini", d1)), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "unknown_op", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("MOVE", "/ruoli", "readOnly")), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "path_not_patchable", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("REPLACE", "/idA2A", "other")), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "empty_patch", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "not_a_list", method: "PATCH", path: bo + "/applicazioni/appA", body: map[string]any{"op": "ADD"}, opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "undefined_role_is_the_puts_422", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("ADD", "/ruoli", "ghostRole")), opts: []reqOpt{asAdmin()}, status: http.StatusUnprocessableEntity, codice: codiceOf(http.StatusUnprocessableEntity)},

		{name: "disable_operator", method: "PATCH", path: bo + "/operatori/opNoRole", body: patch(op("REPLACE", "/abilitato", false)), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
		{name: "add_acl_to_role", method: "PATCH", path: bo + "/ruoli/readOnly", body: patch(op("DELETE", "/acl", aclOf("Pendenze", "R")), op("ADD", "/acl", aclOf("Pendenze", "R", "W"))), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
	})

	var a applicazioneView
	w.must(t, "GET", bo+"/applicazioni/appA", nil).decode(t, &a)
	if !slices.Equal(a.Ruoli, []string{"readOnly"}) || !slices.Equal(a.Domini.IDs, []string{d1, d2}) || len(a.AutorizzazioniAPI) != 3 {
		t.Fatalf("patched application = %+v", a)
	}
	for _, g := range a.AutorizzazioniAPI {
		if !slices.Equal(g.Domini.IDs, []string{d1, d2}) {
			t.Fatalf("grant %s after ADD /domini = %v", g.API, g.Domini)
		}
	}
	var o operatoreView
	w.must(t, "GET", bo+"/operatori/opNoRole", nil).decode(t, &o)
	if o.Abilitato {
		t.Fatalf("operator still enabled: %+v", o)
	}
	var r ruoloView
	w.must(t, "GET", bo+"/ruoli/readOnly", nil).decode(t, &r)
	for _, e := range r.ACL {
		if e.Servizio == "Pendenze" && !slices.Equal(e.Autorizzazioni, []string{"R", "W"}) {
			t.Fatalf("role after the patch: %+v", r.ACL)
		}
	}
	// The application a denied patch named is unchanged.
	w.must(t, "GET", bo+"/applicazioni/appC", nil).decode(t, &a)
	if len(a.AutorizzazioniAPI) != 1 || !slices.Equal(a.AutorizzazioniAPI[0].Domini.IDs, []string{d1}) {
		t.Fatalf("appC changed by a denied patch: %+v", a)
	}
}
