package audit_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// gateTrail records a gate's checks as Explain's trail names them.
type gateTrail []audit.Step

func (g *gateTrail) Check(name string, err error) {
	st := audit.Step{Check: name, Passed: err == nil}
	if f := (*domain.ForbiddenError)(nil); errors.As(err, &f) {
		st.Rule, st.Detail = f.Rule, f.Detail
	}
	if err != nil {
		st.Code, st.Args = audit.NoteCheck, []any{err}
	}
	*g = append(*g, st)
}

// TestExplainCreatePendenzaStartsWithTheHandlersGate: POST
// /pendenze/{idDominio}/{idTipoPendenza} on the Pagamento API runs its
// gate (operations.AskCreatePendenzaPagamento) before the body is read,
// then the command decides the rest; Explain's trail of create-pendenza
// starts with that gate's checks, allowed or denied, so it shows what the
// live request was decided by, in the same order.
func TestExplainCreatePendenzaStartsWithTheHandlersGate(t *testing.T) {
	passwordHash, err := domain.HashPassword("app-password-1")
	if err != nil {
		t.Fatal(err)
	}
	m := projections.New()
	if err := m.ApplyCommit(1,
		events.CreditorEntityRegistered{IDDominio: d1, RagioneSociale: "E1", Enabled: true},
		events.CreditorEntityRegistered{IDDominio: d2, RagioneSociale: "E2", Enabled: true},
		events.PendenzaTypeRegistered{IDTipoPendenza: "DONO", Descrizione: "Dono", Enabled: true, Spontaneous: true},
		events.ApplicationRegistered{IDA2A: "app", Principal: "app", Enabled: true, Roles: []string{}, PasswordHash: passwordHash},
		events.ApplicationAPIAuthorized{IDA2A: "app", API: "PAGAMENTO", Domini: []string{d1}, TipiPendenza: []string{"DONO"}},
	); err != nil {
		t.Fatal(err)
	}
	rec, ok := m.Lookup("app")
	if !ok {
		t.Fatal("app not projected")
	}
	for _, tc := range []struct {
		name, idDominio, outcome string
	}{
		{"in_scope", d1, audit.OutcomeAllow},
		{"entity_out_of_scope", d2, audit.OutcomeDeny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var gate gateTrail
			gateErr := operations.AskCreatePendenzaPagamento(rec.Principal, tc.idDominio, &gate)
			x := explain(t, m, audit.Query{Principal: "app", API: domain.APIPagamento, Operation: "create-pendenza",
				Resource: audit.Resource{IDDominio: tc.idDominio, IDTipoPendenza: "DONO"}})
			if x.Outcome != tc.outcome {
				t.Fatalf("explain %s/%s (%s), want %s", x.Outcome, x.Rule, x.Detail, tc.outcome)
			}
			checks := x.Trail[len(x.Trail)-1].Checks
			if len(gate) == 0 || !reflect.DeepEqual(checks[:min(len(gate), len(checks))], []audit.Step(gate)) {
				t.Fatalf("operation's checks %+v do not start with its gate's %+v", checks, gate)
			}
			if gateErr != nil && len(checks) != len(gate) {
				t.Fatalf("denied by the gate, yet checked on: %+v", checks)
			}
		})
	}
}
