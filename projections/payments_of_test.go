package projections

import (
	"fmt"
	"slices"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

func paymentIDs(ps []*Payment) []string {
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.Event.ID)
	}
	return ids
}

// TestPaymentsOf: the Pagamento API's list reads a caller's candidate
// payments only: an application's, a citizen's as payer or remitter, an
// anonymous session's, oldest first and each once; none for anyone else.
func TestPaymentsOf(t *testing.T) {
	t.Parallel()
	m := New()
	f := &feeder{m: m}
	item := func(payer string) []events.PaymentItem {
		return []events.PaymentItem{{IDDominio: "00000000001", IDTipoPendenza: "TARI", AmountCents: 100, PayerID: payer}}
	}
	f.commit(t, events.PaymentStarted{ID: "p1", CallerKind: events.CallerApplication, CallerID: "appA", Items: item("rssmra80a01h501u")})
	f.commit(t, events.PaymentStarted{ID: "p2", CallerKind: events.CallerApplication, CallerID: "appB", Items: item("x")})
	f.commit(t, events.PaymentStarted{ID: "p3", CallerKind: events.CallerCitizen, CallerID: "RSSMRA80A01H501U",
		Remitter: &events.Subject{Tipo: "F", Identificativo: "rssmra80a01h501u"}, Items: item("RSSMRA80A01H501U")})
	f.commit(t, events.PaymentStarted{ID: "p4", CallerKind: events.CallerAnonymous, SessionHash: "s1", Items: item("")})
	f.commit(t, events.PaymentStarted{ID: "p5", CallerKind: events.CallerAnonymous, SessionHash: "s2", Items: item("")})
	f.commit(t, events.PaymentStarted{ID: "p6", CallerKind: events.CallerApplication, CallerID: "appA", Items: item("")})

	cases := []struct {
		name string
		p    domain.Principal
		want []string
	}{
		{"application_its_own", domain.Principal{Kind: domain.KindApplication, Name: "a", IDA2A: "appA"}, []string{"p1", "p6"}},
		{"other_application", domain.Principal{Kind: domain.KindApplication, Name: "b", IDA2A: "appB"}, []string{"p2"}},
		{"citizen_payer_and_remitter_once", domain.Principal{Kind: domain.KindCitizen, Name: "RSSMRA80A01H501U"}, []string{"p1", "p3"}},
		{"anonymous_its_session", domain.Principal{Kind: domain.KindAnonymous, SessionHash: "s1"}, []string{"p4"}},
		{"anonymous_without_session", domain.Principal{Kind: domain.KindAnonymous}, nil},
		{"operator_owns_none", domain.Principal{Kind: domain.KindOperator, Name: "appA"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := paymentIDs(m.PaymentsOf(c.p, nil)); !slices.Equal(got, c.want) {
				t.Fatalf("PaymentsOf = %v, want %v", got, c.want)
			}
		})
	}
	t.Run("keep_still_decides", func(t *testing.T) {
		got := m.PaymentsOf(cases[0].p, func(p *Payment) bool { return p.Event.ID != "p1" })
		if ids := paymentIDs(got); !slices.Equal(ids, []string{"p6"}) {
			t.Fatalf("PaymentsOf with keep = %v, want [p6]", ids)
		}
	})
}

// BenchmarkPaymentsOf: an anonymous session's list among many payments of
// others costs what its own payments cost, not a scan of the log's.
func BenchmarkPaymentsOf(b *testing.B) {
	m := New()
	f := &feeder{m: m}
	for i := range 100_000 {
		f.commit(b, events.PaymentStarted{ID: fmt.Sprintf("p%d", i), CallerKind: events.CallerAnonymous, SessionHash: fmt.Sprintf("s%d", i%50_000),
			Items: []events.PaymentItem{{IDDominio: "00000000001", IDTipoPendenza: "TARI", AmountCents: 100}}})
	}
	p := domain.Principal{Kind: domain.KindAnonymous, SessionHash: "s7"}
	b.ReportAllocs()
	for b.Loop() {
		if n := len(m.PaymentsOf(p, nil)); n != 2 {
			b.Fatalf("%d payments, want 2", n)
		}
	}
}
