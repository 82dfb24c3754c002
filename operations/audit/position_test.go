package audit_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// An answer states the log position it rests on. While commits are
// applied (the live POST /autorizzazioni/verifica and GET
// /autorizzazioni), the outcome must be the one the model gives at that
// position: here every odd position grants the application PENDENZE,
// every even one revokes it.
func TestAnswersAgreeWithTheirPosition(t *testing.T) {
	q := audit.Query{Principal: "app", API: domain.APIPendenze, Operation: "read",
		Resource: audit.Resource{IDA2A: "app", IDPendenza: "P1"}}
	// ask answers whether app may, and at which position.
	for name, ask := range map[string]func(m *projections.ReadModel) (allowed bool, pos uint64, err error){
		"explain": func(m *projections.ReadModel) (bool, uint64, error) {
			x, err := audit.Explain(m, q)
			if err != nil {
				return false, 0, err
			}
			return x.Allowed(), x.Position, nil
		},
		"who-can": func(m *projections.ReadModel) (bool, uint64, error) {
			res, err := audit.WhoCan(m, q.API, q.Operation, q.Resource)
			if err != nil {
				return false, 0, err
			}
			return slices.ContainsFunc(res.Holders, func(h audit.Holder) bool { return h.Principal == "app" }), res.Position, nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			// Basic needs a password to pass (explain: unauthenticated without).
			passwordHash, err := domain.HashPassword("app-password-1")
			if err != nil {
				t.Fatal(err)
			}
			m := projections.New()
			pos := events.Position(0)
			commit := func(evs ...events.Event) {
				pos++
				if err := m.ApplyCommit(pos, evs...); err != nil {
					t.Fatal(err)
				}
			}
			grant := events.ApplicationAPIAuthorized{IDA2A: "app", API: "PENDENZE", Domini: []string{d1}, TipiPendenza: []string{"*"}}
			revoke := events.ApplicationAPIRevoked{IDA2A: "app", API: "PENDENZE"}
			commit(events.ApplicationRegistered{IDA2A: "app", Principal: "app", Enabled: true, Roles: []string{}, PasswordHash: passwordHash},
				events.CreditorEntityRegistered{IDDominio: d1, RagioneSociale: "E", Enabled: true},
				events.PendenzaTypeRegistered{IDTipoPendenza: t1, Descrizione: "T", Enabled: true},
				events.PendenzaCreated{IDA2A: "app", IDPendenza: "P1", IDDominio: d1, IDTipoPendenza: t1, Causale: "c", AmountCents: 1,
					Payer: events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "M"}, NumeroAvviso: "300000000000000001", UUID: "u"},
				grant) // position 1: granted

			var done atomic.Bool
			var mismatches, answered, busy atomic.Int64
			var example atomic.Value
			var wg sync.WaitGroup
			for range 2 {
				wg.Go(func() {
					for !done.Load() {
						allowed, at, err := ask(m)
						if errors.Is(err, audit.ErrBusy) {
							busy.Add(1)
							continue
						}
						if err != nil {
							t.Error(err)
							return
						}
						answered.Add(1)
						if grantedAt := at%2 == 1; grantedAt != allowed {
							mismatches.Add(1)
							example.Store(fmt.Sprintf("allowed %v at position %d", allowed, at))
						}
					}
				})
			}
			for i := range 20000 {
				if i%2 == 0 {
					commit(revoke)
				} else {
					commit(grant)
				}
			}
			done.Store(true)
			wg.Wait()
			if n := mismatches.Load(); n > 0 {
				t.Errorf("%d of %d answers are not the model's at the position they report (e.g. %v)", n, answered.Load(), example.Load())
			}
			if answered.Load() == 0 {
				t.Fatalf("no answer (%d busy)", busy.Load())
			}
			t.Logf("%d answers, %d busy", answered.Load(), busy.Load())
		})
	}
}
