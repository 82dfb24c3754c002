package projections

import (
	"testing"

	"github.com/payauthz/payauthz/events"
)

func TestKnownNodeCredentials(t *testing.T) {
	t.Parallel()
	m := New()
	f := &feeder{m: m}
	hash := mustHash(t, "node-secret-1")
	f.commit(t, events.IntermediaryRegistered{IDIntermediario: "I1", Denominazione: "a", Enabled: true,
		ConnectorPrincipal: "node-1", ConnectorPasswordHash: hash})
	f.commit(t, events.IntermediaryRegistered{IDIntermediario: "I2", Denominazione: "b", Enabled: false,
		ConnectorPrincipal: "node-2", ConnectorPasswordHash: mustHash(t, "node-secret-2")})
	f.commit(t, events.IntermediaryRegistered{IDIntermediario: "I3", Denominazione: "c", Enabled: true,
		ConnectorPrincipal: "CN=node,O=PagoPA,C=IT"})
	check := func(name, user, pw string, want bool) {
		t.Helper()
		if got := m.KnownNodeCredentials(user, pw); got != want {
			t.Errorf("%s: KnownNodeCredentials(%q) = %v, want %v", name, user, got, want)
		}
	}
	check("connector_right_password", "node-1", "node-secret-1", true)
	check("connector_right_password_cached", "node-1", "node-secret-1", true)
	check("connector_wrong_password", "node-1", "node-secret-2", false)
	check("disabled_intermediarys_connector", "node-2", "node-secret-2", true)
	check("ssl_connector_has_no_password", "CN=node,O=PagoPA,C=IT", "", false)
	check("unknown_user", "nobody", "node-secret-1", false)

	// Renaming the connector without a password: the password was the old
	// name's, and follows it nowhere (as an application's, as the captcha
	// secret its server's): neither name authenticates with it.
	f.commit(t, events.IntermediaryUpdated{IDIntermediario: "I1", Denominazione: "a", Enabled: true,
		ConnectorPrincipal: "node-1b"})
	check("renamed_old_name", "node-1", "node-secret-1", false)
	check("renamed_new_name_without_password", "node-1b", "node-secret-1", false)
	// Same name, no password: kept.
	f.commit(t, events.IntermediaryUpdated{IDIntermediario: "I1", Denominazione: "a", Enabled: true,
		ConnectorPrincipal: "node-1b", ConnectorPasswordHash: hash})
	f.commit(t, events.IntermediaryUpdated{IDIntermediario: "I1", Denominazione: "a2", Enabled: true,
		ConnectorPrincipal: "node-1b"})
	check("renamed_new_name_with_its_password", "node-1b", "node-secret-1", true)
	in, _ := m.Intermediary("I1")
	if !m.VerifyConnectorPassword(in, "node-secret-1") || m.VerifyConnectorPassword(in, "node-secret-2") {
		t.Error("VerifyConnectorPassword after rename")
	}
	if in3, _ := m.Intermediary("I3"); in3.View().ConnectorDN.Len() != 3 {
		t.Errorf("connector DN not parsed: %+v", in3.View())
	}
}

func TestReceiptCompletesPaymentPerItem(t *testing.T) {
	t.Parallel()
	m := New()
	f := &feeder{m: m}
	items := []events.PaymentItem{{IDDominio: "01234567890", NumeroAvviso: "000000000000000001", AmountCents: 100},
		{IDDominio: "01234567890", NumeroAvviso: "000000000000000002", AmountCents: 200}}
	f.commit(t, events.PaymentStarted{ID: "pay", CallerKind: "APPLICATION", CallerID: "app", Items: items})
	receipt := func(id, avviso, esito string) {
		f.commit(t, events.ReceiptRecorded{IDRicevuta: id, IDDominio: "01234567890", NumeroAvviso: avviso,
			PaymentID: "pay", AmountCents: 100, Esito: esito, DataPagamento: "2026-01-02"})
	}
	stato := func() string { p, _ := m.Payment("pay"); return p.Stato }
	receipt("r1", "000000000000000001", "ESEGUITO")
	receipt("r2", "000000000000000001", "ESEGUITO") // same notice again
	receipt("r3", "000000000000000002", "NON_ESEGUITO")
	receipt("r4", "000000000000000009", "ESEGUITO") // not an item of the payment
	if s := stato(); s != PaymentInCorso {
		t.Fatalf("stato = %s, want %s", s, PaymentInCorso)
	}
	receipt("r5", "000000000000000002", "ESEGUITO")
	if s := stato(); s != PaymentEseguito {
		t.Fatalf("stato = %s, want %s", s, PaymentEseguito)
	}
	if n := len(m.Receipts(func(r *Receipt) bool { return r.Event.Esito == "ESEGUITO" })); n != 4 {
		t.Fatalf("collections = %d, want 4", n)
	}
}

// countingGate counts the verifications it admits.
type countingGate struct{ n int }

func (g *countingGate) Admit(_, _ string, _ bool) (func(bool), error) {
	g.n++
	return func(bool) {}, nil
}

// TestKnownNodeCredentialsCostOneVerification: whatever the user, a check
// costs exactly one hash verification (one slot of the verification budget,
// one throttle failure), so a connector name that several intermediaries
// share is not told from an unknown user by its cost. A shared name is
// verified against the lowest idIntermediario's password among those that
// have one.
func TestKnownNodeCredentialsCostOneVerification(t *testing.T) {
	t.Parallel()
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.IntermediaryRegistered{IDIntermediario: "I0", Denominazione: "no password", Enabled: true,
		ConnectorPrincipal: "node-shared"})
	f.commit(t, events.IntermediaryRegistered{IDIntermediario: "I2", Denominazione: "b", Enabled: true,
		ConnectorPrincipal: "node-shared", ConnectorPasswordHash: mustHash(t, "node-secret-2")})
	f.commit(t, events.IntermediaryRegistered{IDIntermediario: "I1", Denominazione: "a", Enabled: true,
		ConnectorPrincipal: "node-shared", ConnectorPasswordHash: mustHash(t, "node-secret-1")})
	f.commit(t, events.IntermediaryRegistered{IDIntermediario: "I3", Denominazione: "c", Enabled: true,
		ConnectorPrincipal: "CN=node,O=PagoPA,C=IT"})
	f.commit(t, events.IntermediaryRegistered{IDIntermediario: "I4", Denominazione: "d", Enabled: true,
		ConnectorPrincipal: "CN=node,O=PagoPA,C=IT"})
	for _, c := range []struct {
		name, user, password string
		want                 bool
	}{
		{"unknown_user", "nobody", "wrong-password", false},
		{"shared_name_wrong_password", "node-shared", "wrong-password", false},
		{"shared_name_lowest_ids_password", "node-shared", "node-secret-1", true},
		{"shared_name_another_ones_password", "node-shared", "node-secret-2", false},
		{"shared_certificate_name", "CN=node,O=PagoPA,C=IT", "wrong-password", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &countingGate{}
			got, err := m.KnownNodeCredentialsGated(g, "192.0.2.1:1", c.user, c.password)
			if err != nil || got != c.want {
				t.Fatalf("KnownNodeCredentialsGated(%q) = %v, %v; want %v", c.user, got, err, c.want)
			}
			if g.n != 1 {
				t.Fatalf("%d verifications, want 1", g.n)
			}
		})
	}
}
