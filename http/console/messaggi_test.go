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
