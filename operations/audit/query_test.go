package audit_test

import (
	"errors"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// TestABadQueryIsRefusedWhoeverItAsksAbout: a question its operation
// cannot decide (a field it needs left out, a servizio that is none, a
// payment naming nothing) is ErrBadQuery at every point of history, not
// only when some principal reaches the operation: who-can on a log where
// no principal enters the API, and explain about a principal that is not
// registered, refuse it as they do on a log where one does, instead of
// answering "nobody" or "unauthenticated" to a question that asks nothing.
func TestABadQueryIsRefusedWhoeverItAsksAbout(t *testing.T) {
	passwordHash, err := domain.HashPassword("app-password-1")
	if err != nil {
		t.Fatal(err)
	}
	empty := projections.New() // no principal at all
	if err := empty.ApplyCommit(1, events.CreditorEntityRegistered{IDDominio: d1, RagioneSociale: "E1", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	peopled := projections.New()
	if err := peopled.ApplyCommit(1,
		events.CreditorEntityRegistered{IDDominio: d1, RagioneSociale: "E1", Enabled: true},
		events.ApplicationRegistered{IDA2A: "app", Principal: "app", Enabled: true, Roles: []string{}, PasswordHash: passwordHash},
		events.ApplicationAPIAuthorized{IDA2A: "app", API: "PENDENZE", Domini: []string{"*"}, TipiPendenza: []string{"*"}},
		events.ApplicationAPIAuthorized{IDA2A: "app", API: "PAGAMENTO", Domini: []string{"*"}, TipiPendenza: []string{"*"}},
		events.ApplicationAPIAuthorized{IDA2A: "app", API: "RAGIONERIA", Domini: []string{"*"}, TipiPendenza: []string{"*"}},
	); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		api  domain.API
		op   string
		r    audit.Resource
	}{
		{"pendenza_without_id", domain.APIPendenze, "read", audit.Resource{IDA2A: "app"}},
		{"create_without_type", domain.APIPendenze, "create", audit.Resource{IDDominio: d1}},
		{"reconciliation_without_id", domain.APIRagioneria, "read-reconciliation", audit.Resource{IDDominio: d1}},
		{"payment_naming_nothing", domain.APIPagamento, "pay", audit.Resource{}},
		{"unknown_servizio", domain.APIBackoffice, "servizio", audit.Resource{Service: "Nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, m := range map[string]*projections.ReadModel{"no_principal": empty, "a_principal": peopled} {
				if res, err := audit.WhoCan(m, tc.api, tc.op, tc.r); !errors.Is(err, audit.ErrBadQuery) {
					t.Errorf("%s: who-can = %+v, %v; want ErrBadQuery", name, res, err)
				}
				for _, who := range []string{"app", "nobody"} {
					x, err := audit.Explain(m, audit.Query{Principal: who, API: tc.api, Operation: tc.op, Resource: tc.r})
					if !errors.Is(err, audit.ErrBadQuery) {
						t.Errorf("%s: explain %s = %+v, %v; want ErrBadQuery", name, who, x, err)
					}
				}
			}
		})
	}
}
