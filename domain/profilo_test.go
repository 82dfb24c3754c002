package domain

import (
	"errors"
	"testing"
)

func TestCanReadAPIProfile(t *testing.T) {
	t.Parallel()
	pen := app("P", Grant{API: APIPendenze, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()})
	rag := app("R", Grant{API: APIRagioneria, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()})
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

func TestCanChangeOwnProfile(t *testing.T) {
	op := operator(role("r", map[Service]Rights{ServicePendenze: rd}, ScopeAll(), ScopeAll()))
	runDecisions(t, []decision{
		{"operator_own_password", CanChangeOwnProfile(op, ProfilePassword), ""},
		{"operator_takes_roles", CanChangeOwnProfile(op, "ruoli"), RuleOwnProfile},
		{"operator_takes_acl", CanChangeOwnProfile(op, "acl"), RuleOwnProfile},
		{"operator_takes_scope", CanChangeOwnProfile(op, "domini"), RuleOwnProfile},
		{"disabled_operator", CanChangeOwnProfile(disabled(op), ProfilePassword), RulePrincipalDisabled},
		{"application", CanChangeOwnProfile(app("A"), ProfilePassword), RuleAPIEntry},
		{"citizen", CanChangeOwnProfile(Citizen("RSSMRA80A01H501U"), ProfilePassword), RuleAPIEntry},
	})
}

func TestPasswordChangeable(t *testing.T) {
	op := operator(role("r", map[Service]Rights{ServicePendenze: rd}, ScopeAll(), ScopeAll()))
	if err := PasswordChangeable(op); !errors.Is(err, ErrNoPassword) {
		t.Fatalf("an operator without a password: %v, want ErrNoPassword", err)
	}
	op.Password = true
	if err := PasswordChangeable(op); err != nil {
		t.Fatalf("an operator with a password: %v", err)
	}
}
