package httpapi

import (
	"net/http"
	"slices"
	"testing"
)

// TestGovPayProfilo: GET /profilo on Pendenze v2 and Ragioneria v3 in
// GovPay's shape, to whoever may enter the API (issue 13 §4).
func TestGovPayProfilo(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const rag = "/ragioneria/rs/basic/v3"
	runRows(t, w.harness, []row{
		{"pendenze_app", "GET", pe + "/profilo", nil, opts(as("appA")), 200, ""},
		{"ragioneria_app", "GET", rag + "/profilo", nil, opts(as("appC")), 200, ""},
		{"ragioneria_only_app_on_pendenze", "GET", pe + "/profilo", nil, opts(as("appC")), 403, "403000"},
		{"app_without_grants", "GET", rag + "/profilo", nil, opts(as("appNone")), 403, "403000"},
		{"operator", "GET", pe + "/profilo", nil, opts(asAdmin()), 403, "403000"},
		{"disabled_app", "GET", pe + "/profilo", nil, opts(as("appDisabled")), 403, "403000"},
		{"no_credentials", "GET", pe + "/profilo", nil, nil, 401, "401000"},
	})
	var v govpayProfilo
	w.must(t, "GET", pe+"/profilo", nil, as("appA")).decode(t, &v)
	if v.Nome != "appA" || len(v.Domini) != 1 || v.Domini[0].IDDominio != d1 || v.Domini[0].RagioneSociale == "" {
		t.Fatalf("appA's profile: %+v", v)
	}
	if len(v.TipiPendenza) != 2 || v.ACL == nil || v.Additions.IDA2A != "appA" {
		t.Fatalf("appA's profile (types: every registered one; acl present): %+v", v)
	}
	var b govpayProfilo
	w.must(t, "GET", pe+"/profilo", nil, as("appB")).decode(t, &b)
	if len(b.Domini) != 2 {
		t.Fatalf(`appB's PENDENZE grant is "*": every entity, got %+v`, b.Domini)
	}
}

// TestGovPayProfiloPagamento: the Pagamento profile in GovPay's shape: an
// application sees the entities and types of its PAGAMENTO grant, a
// citizen the entities whose notices it may ask about and no type grant.
func TestGovPayProfiloPagamento(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	var app profiloView
	w.must(t, "GET", pg+"/profilo", nil, as("appA")).decode(t, &app)
	if app.Nome != "appA" || len(app.Domini) != 1 || app.Domini[0].IDDominio != d1 || len(app.TipiPendenza) != 2 {
		t.Fatalf("application profile = %+v", app)
	}
	var cit profiloView
	w.must(t, "GET", "/pagamento/rs/spid/v2/profilo", nil, asSPID(citizen1)).decode(t, &cit)
	if cit.Nome != citizen1 || len(cit.Domini) != 2 || len(cit.TipiPendenza) != 0 {
		t.Fatalf("citizen profile = %+v", cit)
	}
	w.do(t, "GET", pg+"/profilo", nil, as("appC")).expect(t, 403, "403000") // no PAGAMENTO grant
}

// TestPatchProfilo: GovPay's PATCH /profilo on the Backoffice (issue 13
// §4): an operator changes its own password, the old one stops working at
// once and the new one works; it cannot take rights, scope or roles
// (403 own-profile), and an application cannot patch a profile at all.
func TestPatchProfilo(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	patch := func(ops ...map[string]any) []map[string]any { return ops }
	op := func(o, path string, value any) map[string]any {
		return map[string]any{"op": o, "path": path, "value": value}
	}
	ff, bad := codiceOf(http.StatusForbidden), codiceOf(http.StatusBadRequest)
	const newPw = "nuova-password-di-opRO-1"
	runRows(t, w.harness, []row{
		{"takes_roles", "PATCH", bo + "/profilo", patch(op("ADD", "/ruoli", "Amministratore")), opts(as("opRO")), http.StatusForbidden, ff},
		{"takes_scope", "PATCH", bo + "/profilo", patch(op("ADD", "/domini", d2)), opts(as("opD1")), http.StatusForbidden, ff},
		{"takes_acl_with_password", "PATCH", bo + "/profilo", patch(op("REPLACE", "/password", newPw), op("ADD", "/acl", aclOf("Pendenze", "W"))), opts(as("opRO")), http.StatusForbidden, ff},
		{"application", "PATCH", bo + "/profilo", patch(op("REPLACE", "/password", newPw)), opts(as("appA")), http.StatusForbidden, ff},
		{"not_a_replace", "PATCH", bo + "/profilo", patch(op("ADD", "/password", newPw)), opts(as("opRO")), http.StatusBadRequest, bad},
		{"empty_password", "PATCH", bo + "/profilo", patch(op("REPLACE", "/password", "")), opts(as("opRO")), http.StatusBadRequest, bad},
		{"not_a_patch", "PATCH", bo + "/profilo", map[string]any{"password": newPw}, opts(as("opRO")), http.StatusBadRequest, bad},
		{"changes_own_password", "PATCH", bo + "/profilo", patch(op("REPLACE", "/password", newPw)), opts(as("opRO")), http.StatusOK, ""},
		{"old_password_refused", "GET", bo + "/profilo", nil, opts(as("opRO")), http.StatusUnauthorized, codiceOf(http.StatusUnauthorized)},
		{"new_password_works", "GET", bo + "/profilo", nil, opts(asBasic("opRO", newPw)), http.StatusOK, ""},
	})
	// Nothing but the password changed: the operator keeps exactly its role.
	var v operatoreView
	w.must(t, "GET", bo+"/operatori/opRO", nil).decode(t, &v)
	if !slices.Equal(v.Ruoli, []string{"readOnly"}) || v.ACL != nil {
		t.Fatalf("opRO after its patches = %+v", v)
	}
}
