package domain

import "testing"

func TestDelegation(t *testing.T) {
	t.Parallel()
	both := map[Service]Rights{ServicePendenze: rw, ServiceAnagraficaApplicazioni: rw, ServiceAnagraficaCreditore: rw}
	all := role("all", both, ScopeAll(), ScopeAll())
	onD1 := role("d1", both, ScopeOf(d1), ScopeAll())
	onD1TA := role("d1tA", both, ScopeOf(d1), ScopeOf(tA))
	allDominiTA := role("allD", both, ScopeAll(), ScopeOf(tA))
	// The mixed-role product: d1×tA and d2×tB do not give d1×tB or d2×tA.
	split := operator(role("x", map[Service]Rights{ServicePendenze: rw}, ScopeOf(d1), ScopeOf(tA)),
		role("y", map[Service]Rights{ServicePendenze: rw}, ScopeOf(d2), ScopeOf(tB)))
	// Rights and scopes from different roles do not combine either: the
	// granter has Pendenze R on d1 (role r) and Pagamenti W on d2 (role w).
	crossed := operator(role("r", map[Service]Rights{ServicePendenze: rd}, ScopeOf(d1), ScopeAll()),
		role("w", map[Service]Rights{ServicePagamenti: wr}, ScopeOf(d2), ScopeAll()))
	pendR := func(domini, tipi Scope) Role {
		return role("new", map[Service]Rights{ServicePendenze: rd}, domini, tipi)
	}
	creditore := func(domini, tipi Scope) Role {
		return role("new", map[Service]Rights{ServiceAnagraficaCreditore: wr}, domini, tipi)
	}
	grant := func(api API, domini, tipi Scope) Grant { return Grant{API: api, Domini: Entities(domini), Tipi: tipi} }
	runDecisions(t, []decision{
		{"all_grants_all", CanGrantRole(operator(all), pendR(ScopeAll(), ScopeAll())), ""},
		{"all_grants_any_entity", CanGrantRole(operator(all), pendR(ScopeOf(d1, d2), ScopeOf(tB))), ""},
		{"limited_grants_own_entity", CanGrantRole(operator(onD1), pendR(ScopeOf(d1), ScopeOf(tA))), ""},
		{"limited_grants_own_entity_all_types", CanGrantRole(operator(onD1), pendR(ScopeOf(d1), ScopeAll())), ""},
		{"limited_cannot_grant_star", CanGrantRole(operator(onD1), pendR(ScopeAll(), ScopeAll())), RuleDelegation},
		{"limited_cannot_grant_star_domini", CanGrantRole(operator(onD1), pendR(ScopeAll(), ScopeOf(tA))), RuleDelegation},
		{"limited_cannot_grant_other_entity", CanGrantRole(operator(onD1), pendR(ScopeOf(d2), ScopeAll())), RuleDelegation},
		{"limited_cannot_grant_own_plus_other", CanGrantRole(operator(onD1), pendR(ScopeOf(d1, d2), ScopeOf(tA))), RuleDelegation},
		{"limited_types_cannot_grant_star_types", CanGrantRole(operator(onD1TA), pendR(ScopeOf(d1), ScopeAll())), RuleDelegation},
		{"limited_types_cannot_grant_other_type", CanGrantRole(operator(onD1TA), pendR(ScopeOf(d1), ScopeOf(tB))), RuleDelegation},
		{"star_domini_grants_listed_entities", CanGrantRole(operator(allDominiTA), pendR(ScopeOf(d1, d2), ScopeOf(tA))), ""},
		{"limited_cannot_grant_unheld_right", CanGrantRole(operator(onD1), role("w", map[Service]Rights{ServiceGiornaleEventi: rd}, ScopeOf(d1), ScopeAll())), RuleDelegation},
		{"read_does_not_grant_write", CanGrantRole(crossed, role("w", map[Service]Rights{ServicePendenze: wr}, ScopeOf(d1), ScopeAll())), RuleDelegation},
		{"right_of_one_role_scope_of_another", CanGrantRole(crossed, role("w", map[Service]Rights{ServicePagamenti: wr}, ScopeOf(d1), ScopeAll())), RuleDelegation},
		{"crossed_roles_each_in_own_scope", CanGrantRole(crossed, role("ok", map[Service]Rights{ServicePagamenti: wr, ServicePendenze: rd}, ScopeNone(), ScopeNone())), ""},
		{"split_roles_cover_each_pair", CanGrantRole(split, pendR(ScopeOf(d1), ScopeOf(tA))), ""},
		{"split_roles_cover_second_pair", CanGrantRole(split, pendR(ScopeOf(d2), ScopeOf(tB))), ""},
		{"split_roles_do_not_mix", CanGrantRole(split, pendR(ScopeOf(d1), ScopeOf(tB))), RuleDelegation},
		{"split_roles_do_not_mix_product", CanGrantRole(split, pendR(ScopeOf(d1, d2), ScopeOf(tA, tB))), RuleDelegation},
		{"empty_scope_role_needs_rights_only", CanGrantRole(operator(onD1TA), pendR(ScopeNone(), ScopeNone())), ""},
		{"empty_scope_role_still_needs_rights", CanGrantRole(operator(onD1TA), role("n", map[Service]Rights{ServiceGiornaleEventi: rd}, ScopeNone(), ScopeNone())), RuleDelegation},
		{"empty_types_still_reach_entity", CanGrantRole(operator(role("c2", map[Service]Rights{ServiceAnagraficaCreditore: wr}, ScopeOf(d2), ScopeNone())), creditore(ScopeOf(d1), ScopeNone())), RuleDelegation},
		{"empty_types_star_entity", CanGrantRole(operator(onD1), creditore(ScopeAll(), ScopeNone())), RuleDelegation},
		{"empty_types_own_entity", CanGrantRole(operator(onD1TA), creditore(ScopeOf(d1), ScopeNone())), ""},
		// Empty domini still reach types: a type alone is the scope of the
		// type registry (CanOnTipoPendenza), so the types are the granter's too.
		{"empty_domini_still_reach_types", CanOnTipoPendenza(operator(creditore(ScopeNone(), ScopeAll())), ServiceAnagraficaCreditore, RightWrite, tB), ""},
		{"empty_domini_star_types", CanGrantRole(operator(onD1TA), creditore(ScopeNone(), ScopeAll())), RuleDelegation},
		{"empty_domini_other_type", CanGrantRole(operator(onD1TA), creditore(ScopeNone(), ScopeOf(tB))), RuleDelegation},
		{"empty_domini_own_type", CanGrantRole(operator(onD1TA), creditore(ScopeNone(), ScopeOf(tA))), ""},
		{"empty_domini_star_types_by_star_types", CanGrantRole(operator(onD1), creditore(ScopeNone(), ScopeAll())), ""},
		{"empty_domini_type_of_a_role_without_the_right", CanGrantRole(operator(
			role("r", map[Service]Rights{ServiceAnagraficaCreditore: rd}, ScopeOf(d1), ScopeAll()),
			role("w", map[Service]Rights{ServiceAnagraficaCreditore: wr}, ScopeOf(d1), ScopeOf(tA))),
			creditore(ScopeNone(), ScopeOf(tB))), RuleDelegation},
		{"granter_without_roles", CanGrantRole(operator(), pendR(ScopeNone(), ScopeNone())), RuleDelegation},
		{"granting_no_rights_nor_scope_is_allowed", CanGrantRole(operator(), role("nothing", nil, ScopeNone(), ScopeNone())), ""},
		{"granting_no_rights_still_grants_the_scope", CanGrantRole(operator(), role("nothing", nil, ScopeAll(), ScopeAll())), RuleDelegation},
		{"granting_no_rights_star_needs_star", CanGrantRole(operator(onD1), role("nothing", nil, ScopeAll(), ScopeOf(tA))), RuleDelegation},
		{"granting_no_rights_other_entity", CanGrantRole(operator(onD1TA), role("nothing", nil, ScopeOf(d2), ScopeNone())), RuleDelegation},
		{"granting_no_rights_other_type", CanGrantRole(operator(onD1TA), role("nothing", nil, ScopeNone(), ScopeOf(tB))), RuleDelegation},
		{"granting_no_rights_in_held_scope", CanGrantRole(operator(onD1TA), role("nothing", nil, ScopeOf(d1), ScopeOf(tA))), ""},
		{"citizen_cannot_grant", CanGrantRole(Citizen("CIT"), pendR(ScopeNone(), ScopeNone())), RuleAPIEntry},

		{"assign_roles_each_grantable", CanAssignRoles(operator(onD1), []Role{pendR(ScopeOf(d1), ScopeAll()), pendR(ScopeOf(d1), ScopeOf(tA))}), ""},
		{"assign_roles_all_must_pass", CanAssignRoles(operator(onD1), []Role{pendR(ScopeOf(d1), ScopeAll()), pendR(ScopeAll(), ScopeAll())}), RuleDelegation},
		{"assign_no_roles", CanAssignRoles(operator(onD1), nil), ""},

		{"api_grant_in_scope", CanGrantAPI(operator(onD1), grant(APIPendenze, ScopeOf(d1), ScopeAll())), ""},
		{"api_grant_all_by_all", CanGrantAPI(operator(all), grant(APIPagamento, ScopeAll(), ScopeAll())), ""},
		{"api_grant_star", CanGrantAPI(operator(onD1), grant(APIPendenze, ScopeAll(), ScopeAll())), RuleDelegation},
		{"api_grant_other_entity", CanGrantAPI(operator(onD1), grant(APIPagamento, ScopeOf(d2), ScopeOf(tA))), RuleDelegation},
		{"api_grant_star_types", CanGrantAPI(operator(onD1TA), grant(APIPagamento, ScopeOf(d1), ScopeAll())), RuleDelegation},
		{"api_grant_ragioneria_empty_types_other_entity", CanGrantAPI(operator(onD1), grant(APIRagioneria, ScopeOf(d2), ScopeNone())), RuleDelegation},
		{"api_grant_ragioneria_empty_types_star", CanGrantAPI(operator(onD1), grant(APIRagioneria, ScopeAll(), ScopeNone())), RuleDelegation},
		{"api_grant_ragioneria_own_entity", CanGrantAPI(operator(onD1TA), grant(APIRagioneria, ScopeOf(d1), ScopeNone())), ""},
		{"api_grant_empty_scope", CanGrantAPI(operator(onD1TA), grant(APIPendenze, ScopeNone(), ScopeNone())), ""},
		{"api_grant_empty_domini_star_types", CanGrantAPI(operator(onD1TA), grant(APIPendenze, ScopeNone(), ScopeAll())), RuleDelegation},
		{"api_grant_without_right", CanGrantAPI(split, grant(APIPendenze, ScopeOf(d1), ScopeOf(tA))), RuleServiceRight},
		{"api_grant_read_right_only", CanGrantAPI(operator(role("r", map[Service]Rights{ServiceAnagraficaApplicazioni: rd}, ScopeAll(), ScopeAll())), grant(APIPendenze, ScopeOf(d1), ScopeOf(tA))), RuleServiceRight},
		{"api_grant_right_and_scope_in_different_roles", CanGrantAPI(operator(
			role("w", map[Service]Rights{ServiceAnagraficaApplicazioni: wr}, ScopeOf(d2), ScopeAll()),
			role("s", map[Service]Rights{ServicePendenze: rw}, ScopeOf(d1), ScopeAll())),
			grant(APIPendenze, ScopeOf(d1), ScopeOf(tA))), RuleDelegation},
	})
}
