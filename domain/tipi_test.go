package domain

import "testing"

func TestCanOnTipoPendenza(t *testing.T) {
	t.Parallel()
	// seg gives Anagrafica Creditore RW on every entity, type tA only;
	// all gives it R on d1, every type.
	seg := role("SEG", map[Service]Rights{ServiceAnagraficaCreditore: rw}, ScopeAll(), ScopeOf(tA))
	all := role("ALL", map[Service]Rights{ServiceAnagraficaCreditore: rd}, ScopeOf(d1), ScopeAll())
	zero := NewRole("Z", map[Service]Rights{ServiceAnagraficaCreditore: rw}, Scope{}, Scope{})
	c := ServiceAnagraficaCreditore
	runDecisions(t, []decision{
		{"write_type_in_scope", CanOnTipoPendenza(operator(seg), c, RightWrite, tA), ""},
		{"write_type_out_of_scope", CanOnTipoPendenza(operator(seg), c, RightWrite, tB), RuleRoleScope},
		{"read_type_out_of_scope", CanOnTipoPendenza(operator(seg), c, RightRead, tB), RuleRoleScope},
		{"read_via_other_role_all_types", CanOnTipoPendenza(operator(seg, all), c, RightRead, tB), ""},
		{"write_not_given_by_role_with_all_types", CanOnTipoPendenza(operator(seg, all), c, RightWrite, tB), RuleRoleScope},
		{"domini_do_not_matter", CanOnTipoPendenza(operator(all), c, RightRead, tA), ""},
		{"zero_scope_denies", CanOnTipoPendenza(operator(zero), c, RightWrite, tA), RuleRoleScope},
		{"wildcard_is_not_an_id", CanOnTipoPendenza(operator(seg), c, RightWrite, Wildcard), RuleRoleScope},
		{"right_not_held", CanOnTipoPendenza(operator(all), c, RightWrite, tA), RuleServiceRight},
		{"application_with_role", CanOnTipoPendenza(withRoles(app("X"), seg), c, RightWrite, tA), ""},
		{"citizen", CanOnTipoPendenza(Citizen("CIT"), c, RightRead, tA), RuleAPIEntry},
	})
}

func withRoles(p Principal, roles ...Role) Principal {
	p.Roles = roles
	return p
}
