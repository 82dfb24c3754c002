package projections

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

const (
	benchApps     = 10_000
	benchPendenze = 1_000_000
)

var warm struct {
	once sync.Once
	m    *ReadModel
}

// warmModel builds (once per test binary) read models holding 10,000
// applications, each authorized on the Pendenze API, and 1,000,000
// pendenze spread over them.
func warmModel(b *testing.B) *ReadModel {
	warm.once.Do(func() {
		m := New()
		f := &feeder{m: m}
		for i := range benchApps {
			id := fmt.Sprintf("app%05d", i)
			f.commit(b, events.ApplicationRegistered{IDA2A: id, Principal: id, Enabled: true, Roles: []string{}},
				events.ApplicationAPIAuthorized{IDA2A: id, API: "PENDENZE", Domini: []string{fmt.Sprintf("%011d", i%100)},
					TipiPendenza: []string{"*"}})
		}
		for i := range benchPendenze {
			app := i % benchApps
			f.commit(b, events.PendenzaCreated{IDA2A: fmt.Sprintf("app%05d", app), IDPendenza: fmt.Sprintf("P%07d", i),
				IDDominio: fmt.Sprintf("%011d", app%100), IDTipoPendenza: "TARI", Causale: "Tassa rifiuti",
				AmountCents: 12345, Payer: events.Subject{Tipo: "F", Identificativo: fmt.Sprintf("RSSMRA80A01H%04d", i%10000), Anagrafica: "Mario Rossi"},
				NumeroAvviso: fmt.Sprintf("%018d", i), UUID: fmt.Sprintf("%032x", i)})
		}
		warm.m = m
		runtime.GC() // the fixture's garbage is collected before anything is timed
	})
	return warm.m
}

// BenchmarkDecision is one permission decision on the hot path: find the
// caller's principal, find the pendenza's ownership view, decide.
func BenchmarkDecision(b *testing.B) {
	m := warmModel(b)
	rec, ok := m.Lookup("app04242")
	if !ok {
		b.Fatal("no application")
	}
	b.Run("read_own_pendenza_allowed", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			rec, _ := m.Lookup("app04242")
			v, ok := m.PendenzaView("app04242", "P0004242")
			if !ok {
				b.Fatal("missing pendenza")
			}
			if err := domain.CanReadOwnPendenza(rec.Principal, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read_other_pendenza_denied", func(b *testing.B) {
		v, _ := m.PendenzaView("app00001", "P0000001")
		b.ReportAllocs()
		for b.Loop() {
			if err := domain.CanReadOwnPendenza(rec.Principal, v); err == nil {
				b.Fatal("allowed another application's pendenza")
			}
		}
	})
	b.Run("create_in_scope_allowed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec, _ := m.Lookup("app04242")
			if err := domain.CanCreatePendenza(rec.Principal, "app04242", domain.Place{IDDominio: "00000000042", IDTipoPendenza: "TARI"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAuthenticateCached is a basic-auth check after the first
// (argon2id) verification: one keyed SHA-256.
func BenchmarkAuthenticateCached(b *testing.B) {
	m := New()
	f := &feeder{m: m}
	f.commit(b, events.ApplicationRegistered{IDA2A: "a", Principal: "a", PasswordHash: mustHash(b, "password-1"), Enabled: true})
	if _, err := m.Authenticate("a", "password-1"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Authenticate("a", "password-1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPendenzaOwnershipBytes measures the heap held per pendenza by
// the ownership read model (ownership table, notice index, creator and
// payer lists) and, separately, by the response details, of pendenze
// written without GovPay's details, with two voci, and with two voci and
// the fields an integrator commonly sets (dataScadenza, annoRiferimento,
// tassonomiaAvviso, datiAllegati): all kept in the details.
func BenchmarkPendenzaOwnershipBytes(b *testing.B) {
	const n = 200_000
	twoVoci := []events.Voce{
		{AmountCents: 10000, VoceFields: events.VoceFields{IDVocePendenza: "V1", Descrizione: "Tassa rifiuti", CodEntrata: "TARI-1"}},
		{AmountCents: 2345, VoceFields: events.VoceFields{IDVocePendenza: "V2", Descrizione: "Addizionale provinciale",
			IBANAccredito: "IT60X0542811101000000123456", TipoContabilita: "SIOPE", CodiceContabilita: "3321"}},
	}
	dati := events.PendenzaFields{DataValidita: "2026-12-01", DataScadenza: "2026-12-31", AnnoRiferimento: 2026,
		TassonomiaAvviso: "Imposte e tasse", DatiAllegati: json.RawMessage(`{"pratica":"P-0001234"}`)}
	for _, c := range []struct {
		name string
		voci []events.Voce
		dati events.PendenzaFields
	}{{"no_voci", nil, events.PendenzaFields{}}, {"two_voci", twoVoci, events.PendenzaFields{}}, {"two_voci_dati", twoVoci, dati}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				p := newPendenze()
				for i := range n {
					e := events.PendenzaCreated{IDA2A: fmt.Sprintf("app%05d", i%benchApps), IDPendenza: fmt.Sprintf("P%07d", i),
						IDDominio: fmt.Sprintf("%011d", i%100), IDTipoPendenza: "TARI", Causale: "Tassa rifiuti",
						AmountCents: 12345, Payer: events.Subject{Tipo: "F", Identificativo: fmt.Sprintf("RSSMRA80A01H%04d", i%10000), Anagrafica: "Mario Rossi"},
						NumeroAvviso: fmt.Sprintf("%018d", i), UUID: fmt.Sprintf("%032x", i)}
					// Each event decoded from the log holds voci of its own.
					e.Voci, e.PendenzaFields = slices.Clone(c.voci), c.dati
					e.DatiAllegati = slices.Clone(c.dati.DatiAllegati)
					p.put(e, events.Position(i+1), time.Time{})
				}
				runtime.GC()
				var whole runtime.MemStats
				runtime.ReadMemStats(&whole)
				p.details = detailsLog{} // measure ownership alone
				runtime.GC()
				var after runtime.MemStats
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/pendenza")
				b.ReportMetric(float64(whole.HeapAlloc-after.HeapAlloc)/n, "details-bytes/pendenza")
				runtime.KeepAlive(p)
			}
		})
	}
}
