package audit_test

import (
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// TestGrantEvidenceSaysWhatTheDecisionRestedOn: an application's grant
// covers what the operation allowed (copre repeats the verdict), and its
// motivo says the grant's scope found the resource only when the decision
// rested on that scope. gestionale's grants hold d2 alone; it reads its
// own pendenza and payment at another entity by ownership, and lists and
// reads its profile by itself: allowed, and the grant's note says the
// decision did not rest on its scope. Creating a pendenza at d2 rests on
// the scope, and says so, as before.
func TestGrantEvidenceSaysWhatTheDecisionRestedOn(t *testing.T) {
	const elsewhere, app = "01234567890", "gestionale"
	hash, err := domain.HashPassword("app-password-1")
	if err != nil {
		t.Fatal(err)
	}
	m := projections.New()
	if err := m.ApplyCommit(1,
		events.CreditorEntityRegistered{IDDominio: elsewhere, RagioneSociale: "E0", Enabled: true},
		events.CreditorEntityRegistered{IDDominio: d2, RagioneSociale: "E2", Enabled: true},
		events.PendenzaTypeRegistered{IDTipoPendenza: t1, Descrizione: "Tari", Enabled: true},
		events.ApplicationRegistered{IDA2A: app, Principal: app, Enabled: true, Roles: []string{}, PasswordHash: hash},
		events.ApplicationAPIAuthorized{IDA2A: app, API: "PENDENZE", Domini: []string{d2}, TipiPendenza: []string{t1}},
		events.ApplicationAPIAuthorized{IDA2A: app, API: "PAGAMENTO", Domini: []string{d2}, TipiPendenza: []string{t1}},
		events.PendenzaCreated{IDA2A: app, IDPendenza: "P001", IDDominio: elsewhere, IDTipoPendenza: t1, Causale: "c", AmountCents: 100},
		events.PaymentStarted{ID: "PAY1", CallerKind: events.CallerApplication, CallerID: app,
			Items: []events.PaymentItem{{IDA2A: app, IDPendenza: "P001", IDDominio: elsewhere, IDTipoPendenza: t1, AmountCents: 100}}},
	); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		api    domain.API
		op     string
		r      audit.Resource
		scoped bool // the decision rests on the grant's scope
	}{
		{"own_pendenza", domain.APIPendenze, "read", audit.Resource{IDA2A: app, IDPendenza: "P001"}, false},
		{"own_pendenze", domain.APIPendenze, "list", audit.Resource{}, false},
		{"pendenze_profile", domain.APIPendenze, "profilo", audit.Resource{}, false},
		{"own_payment", domain.APIPagamento, "read-payment", audit.Resource{IDPagamento: "PAY1"}, false},
		{"create_in_scope", domain.APIPendenze, "create", audit.Resource{IDDominio: d2, IDTipoPendenza: t1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := explain(t, m, audit.Query{Principal: app, API: tc.api, Operation: tc.op, Resource: tc.r})
			if x.Outcome != audit.OutcomeAllow || len(x.Evidence) != 1 {
				t.Fatalf("outcome %s/%s (%s), evidence %+v; want allow and one grant", x.Outcome, x.Rule, x.Detail, x.Evidence)
			}
			e := x.Evidence[0]
			if !e.Covers {
				t.Errorf("copre = false: the grant does not repeat the verdict")
			}
			inScope := strings.Contains(e.Why, "found the resource in this grant's scope")
			switch {
			case tc.scoped && (e.Code != audit.NoteGrantCovers || !inScope):
				t.Errorf("motivo = %s %q, want %s saying the grant's scope found the resource", e.Code, e.Why, audit.NoteGrantCovers)
			case !tc.scoped && (e.Code != audit.NoteGrantNotScope || inScope || !strings.Contains(e.Why, "did not rest on this grant's scope")):
				t.Errorf("motivo = %s %q, want %s saying the decision did not rest on the grant's scope", e.Code, e.Why, audit.NoteGrantNotScope)
			}
		})
	}
}
