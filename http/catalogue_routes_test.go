package httpapi

import (
	"regexp"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/audit"
)

// TestEveryRouteHasACatalogueEntry: each endpoint of the four APIs a
// principal enters is named, exactly, by an operation of the audit
// catalogue on its API, so that explain, who-can and what-can answer for
// it and an auditor reading `audit operations` finds it (GET /pagamenti
// of the Pagamento API once had none). The node API is entered by an
// intermediary's connector, never a principal (domain.CanActAsNode), and
// has no catalogue entry.
func TestEveryRouteHasACatalogueEntry(t *testing.T) {
	param := regexp.MustCompile(`:([A-Za-z0-9]+)`)
	s := &Server{}
	for _, r := range s.apiRoutes() {
		if r.api == domain.APINodo {
			continue
		}
		want := r.method + " " + param.ReplaceAllString(r.path, "{$1}")
		found := false
		for _, op := range audit.Catalogue() {
			if op.API != r.api {
				continue
			}
			for _, named := range op.Routes {
				if named == want || strings.HasPrefix(named, want+" ") {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%s %s: no operation of the audit catalogue names it", r.api, want)
		}
	}
}
