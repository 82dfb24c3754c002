package console

import (
	"testing"

	"github.com/payauthz/payauthz/domain"
)

// TestEveryDenialIsWorded: every code a domain denial carries
// (domain.DenyCodes) has its words in dinieghi, so that neither a console
// form nor the Audit page shows a domain denial in the API's English.
func TestEveryDenialIsWorded(t *testing.T) {
	for _, code := range domain.DenyCodes() {
		if dinieghi[code] == nil {
			t.Errorf("dinieghi has no words for %q", code)
		}
	}
}

// TestDenialWordsAgree: a denial's words agree with what they name: a
// plural member of the profile ("domini") is the subject of a field, not
// of a verb in the singular, and NODO's two authentication types are two.
func TestDenialWordsAgree(t *testing.T) {
	op := domain.Principal{Kind: domain.KindOperator, Name: "op", Enabled: true, Password: true}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"own_profile_member", domain.CanChangeOwnProfile(op, "domini"),
			"Un operatore cambia del proprio profilo solo la password: il campo domini si concede con Anagrafica Ruoli W."},
		{"nodo_auth", domain.CanActAsNode(domain.NodeCaller{Auth: domain.AuthAPIKey}, nil, nil, false),
			"L'API NODO accetta solo le autenticazioni ssl e basic."},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := messaggio(c.err)
			if !ok || got != c.want {
				t.Fatalf("words = %q (%v), want %q", got, ok, c.want)
			}
		})
	}
}
