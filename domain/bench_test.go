package domain

import (
	"strings"
	"testing"
)

// allowedDecisions are hot-path decisions that must allow without
// allocating or locking: a principal from the read model, a view, a verdict.
func allowedDecisions() []struct {
	name   string
	decide func() error
} {
	roles := []Role{
		role("other", map[Service]Rights{ServicePagamenti: rd}, ScopeOf(d2), ScopeOf(tB)),
		role("pend", map[Service]Rights{ServicePendenze: rd, ServicePagamenti: rd}, ScopeOf(d1, d2), ScopeAll()),
	}
	op := operator(roles...)
	a := app("A",
		Grant{API: APIPendenze, Domini: Entities(ScopeOf(d1, d2)), Tipi: ScopeAll()},
		Grant{API: APIPagamento, Domini: Entities(ScopeOf(d1)), Tipi: ScopeOf(tA, tB)},
		Grant{API: APIRagioneria, Domini: Entities(ScopeOf(d1))})
	v := PendenzaView{IDA2A: "A", IDDominio: d1, IDTipoPendenza: tA, PayerID: "RSSMRA80A01H501U"}
	session := strings.Repeat("0123456789abcdef", 4)
	anon := Anonymous(session)
	cit := Citizen("RSSMRA80A01H501U")
	pay := PaymentView{CallerKind: KindAnonymous, SessionHash: strings.Clone(session), RemitterID: "X",
		Items: []PaymentItemView{{IDDominio: d2, IDTipoPendenza: tA, PayerID: "Y"}, {IDDominio: d1, IDTipoPendenza: tB, PayerID: "RSSMRA80A01H501U"}}}
	node := NodeCaller{Auth: AuthBasic, Username: "node-user", PasswordOK: true}
	interm := &IntermediaryView{IDIntermediario: "I1", Enabled: true, ConnectorPrincipal: "node-user"}
	entity := &EntityView{IDDominio: d1, IDIntermediario: "I1", Enabled: true}
	rec := &ReconciliationView{IDDominio: d1, ID: "r", IDA2A: "A"}
	return []struct {
		name   string
		decide func() error
	}{
		{"enter_backoffice", func() error { return CanEnterAPI(op, APIBackoffice) }},
		{"backoffice_pendenza_scope", func() error {
			return CanOnPlace(op, ServicePendenze, RightRead, Place{IDDominio: d2, IDTipoPendenza: tB})
		}},
		{"backoffice_payment", func() error { return CanOnPayment(op, ServicePagamenti, RightRead, pay) }},
		{"pendenze_create", func() error { return CanCreatePendenza(a, "A", Place{IDDominio: d1, IDTipoPendenza: tA}) }},
		{"pendenze_read_own", func() error { return CanReadOwnPendenza(a, v) }},
		{"pagamento_read_pendenza_app", func() error { return CanReadPendenzaPagamento(a, v) }},
		{"pagamento_read_pendenza_citizen", func() error { return CanReadPendenzaPagamento(cit, v) }},
		{"pagamento_read_payment_anonymous", func() error { return CanReadPayment(anon, pay) }},
		{"pagamento_read_payment_citizen", func() error { return CanReadPayment(cit, pay) }},
		{"ragioneria_write", func() error { return CanWriteReconciliation(a, d1, rec) }},
		{"node_basic", func() error { return CanActAsNode(node, interm, entity, true) }},
	}
}

// TestAllowedDecisionsDoNotAllocate holds the benchmarks' 0 allocs/op as a
// test, so that a regression fails CI rather than a reading of numbers.
func TestAllowedDecisionsDoNotAllocate(t *testing.T) {
	for _, d := range allowedDecisions() {
		if err := d.decide(); err != nil {
			t.Fatalf("%s: denied: %v", d.name, err)
		}
		if n := testing.AllocsPerRun(100, func() { _ = d.decide() }); n != 0 {
			t.Errorf("%s: %v allocs per allowed decision, want 0", d.name, n)
		}
	}
}

func BenchmarkDecision(b *testing.B) {
	for _, d := range allowedDecisions() {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d.decide() != nil {
					b.Fatal("denied")
				}
			}
		})
	}
}

func BenchmarkParseDN(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseDN("CN=node.example.it, OU=Servizi, O=Ente Esempio, L=Roma, C=IT"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNodeSSL is the ssl node decision: the caller's subject is parsed
// per request; the connector's DN comes parsed from the read model
// ("preparsed") or is parsed per decision ("unparsed").
func BenchmarkNodeSSL(b *testing.B) {
	entity := &EntityView{IDDominio: d1, IDIntermediario: "I1", Enabled: true}
	c := NodeCaller{Auth: AuthSSL, DN: "CN=node.example.it,O=PagoPA,C=IT"}
	for _, preparsed := range []bool{true, false} {
		interm := &IntermediaryView{IDIntermediario: "I1", Enabled: true, ConnectorPrincipal: "/C=IT/O=PagoPA/CN=node.example.it"}
		name := "unparsed"
		if preparsed {
			interm.ConnectorDN, _ = ParseDN(interm.ConnectorPrincipal)
			name = "preparsed"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if CanActAsNode(c, interm, entity, true) != nil {
					b.Fatal("denied")
				}
			}
		})
	}
}

// BenchmarkScopeDenial is what a Backoffice list pays for each row out of
// the caller's scope: the denial CanOnDominio builds (EntityScope.Admits).
func BenchmarkScopeDenial(b *testing.B) {
	op := operator(role("other", map[Service]Rights{ServicePagamenti: rd}, ScopeOf(d2), ScopeAll()))
	b.ReportAllocs()
	for b.Loop() {
		if CanOnDominio(op, ServicePagamenti, RightRead, d1) == nil {
			b.Fatal("allowed")
		}
	}
}
