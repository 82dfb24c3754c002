package httpapi

import (
	"testing"
)

// TestGovPayRoleACLAlone: GovPay's role body {acl} alone is accepted; such
// a role gives its service rights on no entity and no type (issue 13 §1).
func TestGovPayRoleACLAlone(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	runRows(t, w.harness, []row{
		{"acl_alone_accepted", "PUT", bo + "/ruoli/soloAcl", map[string]any{"acl": acl{aclOf("Anagrafica Creditore", "R"),
			aclOf("Anagrafica Ruoli", "R")}}, opts(asAdmin()), 201, ""},
		{"acl_missing", "PUT", bo + "/ruoli/senzaAcl", map[string]any{"domini": []string{"*"}, "tipiPendenza": []string{"*"}},
			opts(asAdmin()), 400, "SINTASSI"},
		{"operator_with_it", "PUT", bo + "/operatori/opAcl", map[string]any{"ragioneSociale": "Operatore", "password": pw,
			"abilitato": true, "ruoli": []string{"soloAcl"}}, opts(asAdmin()), 201, ""},
		// Unscoped registries: the right is enough.
		{"reads_roles", "GET", bo + "/ruoli/soloAcl", nil, opts(as("opAcl")), 200, ""},
		// Scoped by entity or type: the role reaches none.
		{"no_entity_in_scope", "GET", bo + "/domini/" + d1, nil, opts(as("opAcl")), 403, "403000"},
		{"no_type_in_scope", "GET", bo + "/tipiPendenza/" + t1, nil, opts(as("opAcl")), 403, "403000"},
	})
	var v ruoloView
	w.must(t, "GET", bo+"/ruoli/soloAcl", nil).decode(t, &v)
	if v.Domini.IDs == nil || len(v.Domini.IDs) != 0 || v.TipiPendenza == nil || len(v.TipiPendenza) != 0 {
		t.Fatalf("role without scope reads %+v, want empty domini and tipiPendenza", v)
	}
}
