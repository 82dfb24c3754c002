package domain

import "testing"

func TestCanReadAPIProfile(t *testing.T) {
	t.Parallel()
	pen := app("P", Grant{API: APIPendenze, Domini: ScopeOf(d1), Tipi: ScopeAll()})
	rag := app("R", Grant{API: APIRagioneria, Domini: ScopeOf(d1), Tipi: ScopeAll()})
	runDecisions(t, []decision{
		{"pendenze_app_on_pendenze", CanReadAPIProfile(pen, APIPendenze), ""},
		{"ragioneria_app_on_ragioneria", CanReadAPIProfile(rag, APIRagioneria), ""},
		{"pendenze_app_on_ragioneria", CanReadAPIProfile(pen, APIRagioneria), RuleAPIEntry},
		{"app_without_grants", CanReadAPIProfile(app("N"), APIPendenze), RuleAPIEntry},
		{"operator", CanReadAPIProfile(operator(role("A", map[Service]Rights{ServicePendenze: rd}, ScopeAll(), ScopeAll())), APIPendenze), RuleAPIEntry},
		{"citizen", CanReadAPIProfile(Citizen("CIT"), APIRagioneria), RuleAPIEntry},
		{"not_these_apis", CanReadAPIProfile(pen, APIPagamento), RuleAPIEntry},
	})
}
