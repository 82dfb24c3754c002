package domain

import (
	"errors"
	"testing"
)

func TestMissingResourcesNeverLeakOutsideAFullScope(t *testing.T) {
	t.Parallel()
	full := app("F", Grant{API: APIPagamento, Domini: Entities(ScopeAll()), Tipi: ScopeAll()})
	entityAllTypes := app("E", Grant{API: APIPagamento, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()})
	pair := app("P", Grant{API: APIPagamento, Domini: Entities(ScopeOf(d1)), Tipi: ScopeOf(tA)})
	onlyPendenze := app("Q", Grant{API: APIPendenze, Domini: Entities(ScopeAll()), Tipi: ScopeAll()})
	everywhere := role("all", map[Service]Rights{ServicePendenze: rd}, ScopeAll(), ScopeAll())
	oneEntity := role("one", map[Service]Rights{ServicePendenze: rd}, ScopeOf(d1), ScopeAll())
	allTypesNoRight := role("nor", map[Service]Rights{ServicePagamenti: rd}, ScopeAll(), ScopeAll())
	runDecisions(t, []decision{
		{"full_scope_learns_missing_pendenza", CanLearnMissingInGrant(full, APIPagamento, ""), ""},
		{"entity_scope_does_not_learn_missing_pendenza", CanLearnMissingInGrant(entityAllTypes, APIPagamento, ""), RuleAPIScope},
		{"entity_times_all_types_learns_missing_notice_there", CanLearnMissingInGrant(entityAllTypes, APIPagamento, d1), ""},
		{"entity_times_all_types_not_elsewhere", CanLearnMissingInGrant(entityAllTypes, APIPagamento, d2), RuleAPIScope},
		{"pair_scope_does_not_learn_missing_notice", CanLearnMissingInGrant(pair, APIPagamento, d1), RuleAPIScope},
		{"no_grant_on_the_api", CanLearnMissingInGrant(onlyPendenze, APIPagamento, ""), RuleAPIEntry},
		{"citizen_holds_no_grant", CanLearnMissingInGrant(Citizen("CIT"), APIPagamento, ""), RuleAPIEntry},
		{"role_over_everything_learns", CanLearnMissingInRoles(operator(everywhere), ServicePendenze, RightRead), ""},
		{"role_on_one_entity_does_not", CanLearnMissingInRoles(operator(oneEntity), ServicePendenze, RightRead), RuleRoleScope},
		{"role_without_the_right", CanLearnMissingInRoles(operator(allTypesNoRight), ServicePendenze, RightRead), RuleServiceRight},
		{"disabled_caller", CanLearnMissingInGrant(disabled(full), APIPagamento, ""), RulePrincipalDisabled},
	})
}

func TestMissingRule(t *testing.T) {
	t.Parallel()
	full := app("F", Grant{API: APIPagamento, Domini: Entities(ScopeAll()), Tipi: ScopeAll()})
	pair := app("P", Grant{API: APIPagamento, Domini: Entities(ScopeOf(d1)), Tipi: ScopeOf(tA)})
	entityAllTypes := app("E", Grant{API: APIPagamento, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()})
	cit, anon := Citizen("CIT"), Anonymous("h")
	if err := Missing(nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Missing(nil) = %v, want ErrNotFound", err)
	}
	if err := Missing(CanLearnMissingNotice(pair, d1)); errors.Is(err, ErrNotFound) {
		t.Fatalf("Missing(denial) = %v, want the denial", err)
	}
	runDecisions(t, []decision{
		{"pendenza_app_full_scope_learns", CanLearnMissingPendenzaPagamento(full, CanReadPendenzaPagamento), ""},
		{"pendenza_app_pair_scope_does_not", CanLearnMissingPendenzaPagamento(pair, CanReadPendenzaPagamento), RuleAPIScope},
		{"pendenza_citizen_never", CanLearnMissingPendenzaPagamento(cit, CanReadPendenzaPagamento), RulePayer},
		{"pendenza_anonymous_never", CanLearnMissingPendenzaPagamento(anon, CanPayPendenza), RuleAnonymous},
		{"notice_app_entity_scope_learns", CanLearnMissingNotice(entityAllTypes, d1), ""},
		{"notice_app_pair_scope_does_not", CanLearnMissingNotice(pair, d1), RuleAPIScope},
		{"notice_citizen_always", CanLearnMissingNotice(cit, d2), ""},
		{"notice_anonymous_always", CanLearnMissingNotice(anon, d2), ""},
		{"payment_app_learns", CanLearnMissingPaymentPagamento(pair), ""},
		{"payment_app_without_the_grant_does_not", CanLearnMissingPaymentPagamento(app("Q", Grant{API: APIPendenze,
			Domini: Entities(ScopeAll()), Tipi: ScopeAll()})), RuleAPIEntry},
		{"payment_disabled_app_does_not", CanLearnMissingPaymentPagamento(disabled(pair)), RulePrincipalDisabled},
		{"payment_citizen_never", CanLearnMissingPaymentPagamento(cit), RulePayer},
		{"payment_anonymous_never", CanLearnMissingPaymentPagamento(anon), RuleSession},
	})
}
