package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// TestGovPayServiziACLAndLogout: Backoffice /enumerazioni/serviziACL (any
// role) and /logout on the Backoffice and Pagamento (issue 13 §4).
func TestGovPayServiziACLAndLogout(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	runRows(t, w.harness, []row{
		{"servizi_read_only_operator", "GET", bo + "/enumerazioni/serviziACL", nil, opts(as("opRO")), 200, ""},
		{"servizi_operator_without_roles", "GET", bo + "/enumerazioni/serviziACL", nil, opts(as("opNoRole")), 403, "403000"},
		{"servizi_no_credentials", "GET", bo + "/enumerazioni/serviziACL", nil, nil, 401, "401000"},
		{"logout_operator", "GET", bo + "/logout", nil, opts(as("opRO")), 200, ""},
		{"logout_operator_without_roles", "GET", bo + "/logout", nil, opts(as("opNoRole")), 403, "403000"},
		{"logout_citizen", "GET", "/pagamento/rs/spid/v2/logout", nil, opts(asSPID(citizen1)), 200, ""},
		{"logout_application_without_pagamento", "GET", "/pagamento/rs/basic/v2/logout", nil, opts(as("appC")), 403, "403000"},
	})
	var servizi []string
	w.must(t, "GET", bo+"/enumerazioni/serviziACL", nil).decode(t, &servizi)
	if len(servizi) != len(allServices) || servizi[0] != "Anagrafica PagoPA" {
		t.Fatalf("serviziACL = %v", servizi)
	}
	t.Run("anonymous_logout_expires_the_session_cookie", func(t *testing.T) {
		res := w.do(t, "GET", "/pagamento/rs/public/v2/logout", nil)
		res.expect(t, http.StatusOK, "")
		ck := res.Header.Get("Set-Cookie")
		if !strings.HasPrefix(ck, SessionCookie+"=;") || !strings.Contains(ck, "Max-Age=0") {
			t.Fatalf("Set-Cookie = %q, want the session cookie expired", ck)
		}
	})
}
