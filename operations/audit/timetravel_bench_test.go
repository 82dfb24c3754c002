package audit_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// BenchmarkTimeTravel measures an auditor's question about the past on a
// log of 1,000 applications (each authorized on PENDENZE for one entity)
// followed by PAYAUTHZ_BENCH_EVENTS pendenze (default 100000; the closing
// note uses 1000000). Cold: rebuild the read models from the log up to the
// position (a full partial replay, no snapshot) and explain one decision.
// Warm: the same questions against read models already at that position.
func BenchmarkTimeTravel(b *testing.B) {
	n := jetstreamtest.BenchEvents()
	ctx := context.Background()
	s, err := jetstream.Open(ctx, jetstream.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	// The entities and the type the pendenze name: a creation at an
	// entity or of a type not registered is 422, and who-can lists no one.
	for i := range 100 {
		id := fmt.Sprintf("%011d", i)
		if _, err := s.Append(ctx, events.StreamDominio+id, events.ExpectNoStream(),
			events.Record{Event: events.CreditorEntityRegistered{IDDominio: id, RagioneSociale: "Ente " + id, Enabled: true}}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Append(ctx, events.StreamTipoPendenza+"TARI", events.ExpectNoStream(),
		events.Record{Event: events.PendenzaTypeRegistered{IDTipoPendenza: "TARI", Descrizione: "Tassa rifiuti", Enabled: true}}); err != nil {
		b.Fatal(err)
	}
	// Basic needs a password to pass: one hash serves every application.
	hash, err := domain.HashPassword("bench-password-1")
	if err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		id := fmt.Sprintf("app%05d", i)
		if _, err := s.Append(ctx, events.StreamApplicazione+id, events.ExpectNoStream(),
			events.Record{Event: events.ApplicationRegistered{IDA2A: id, Principal: id, Enabled: true, Roles: []string{}, PasswordHash: hash}},
			events.Record{Event: events.ApplicationAPIAuthorized{IDA2A: id, API: "PENDENZE", Domini: []string{fmt.Sprintf("%011d", i%100)},
				TipiPendenza: []string{"*"}}}); err != nil {
			b.Fatal(err)
		}
	}
	if err := jetstreamtest.Fill(ctx, s, n); err != nil {
		b.Fatal(err)
	}
	last, err := s.LastPosition(ctx)
	if err != nil {
		b.Fatal(err)
	}
	mid := last / 2
	read := audit.Query{Principal: "app00042", API: domain.APIPendenze, Operation: "read",
		Resource: audit.Resource{IDA2A: "app00042", IDPendenza: "P0000042"}}
	create := audit.Resource{IDDominio: "00000000042", IDTipoPendenza: "TARI"}

	cold := func(b *testing.B, to events.Position) {
		for b.Loop() {
			m, _, err := projections.Rebuild(ctx, s, projections.Until{Position: to}, nil)
			if err != nil {
				b.Fatal(err)
			}
			x, err := audit.Explain(m, read)
			if err != nil || x.Outcome != audit.OutcomeAllow {
				b.Fatalf("explain: %v %+v", err, x)
			}
		}
		b.ReportMetric(float64(to), "position")
	}
	b.Run("cold_explain_at_middle", func(b *testing.B) { cold(b, mid) })
	b.Run("cold_explain_at_end", func(b *testing.B) { cold(b, last) })

	m, _, err := projections.Rebuild(ctx, s, projections.Until{Position: mid}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("warm_explain", func(b *testing.B) {
		for b.Loop() {
			if x, err := audit.Explain(m, read); err != nil || !x.Allowed() {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm_who_can_1000_applications", func(b *testing.B) {
		for b.Loop() {
			r, err := audit.WhoCan(m, domain.APIPendenze, "create", create)
			if err != nil || len(r.Holders) != 10 {
				b.Fatalf("%v %d holders", err, len(r.Holders))
			}
		}
	})

	// Cold again, as the service's snapshot history allows: snapshots at
	// the middle and 20,000 events before the end (the service writes one
	// a minute once 10,000 events were applied), then the question loads
	// the newest one at or before its point and replays the rest.
	dir := b.TempDir()
	if _, err := m.WriteSnapshot(dir); err != nil {
		b.Fatal(err)
	}
	near := last - min(last/2, 20_000)
	if _, _, err := projections.RebuildFrom(ctx, s, m, projections.Until{Position: near}, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := m.WriteSnapshot(dir); err != nil {
		b.Fatal(err)
	}
	viaSnapshot := func(b *testing.B, to events.Position) {
		for b.Loop() {
			m, st, err := projections.RebuildWithSnapshots(ctx, s, dir, projections.Until{Position: to}, nil)
			if err != nil || st.From == 0 {
				b.Fatalf("rebuild: %v from %d", err, st.From)
			}
			if x, err := audit.Explain(m, read); err != nil || x.Outcome != audit.OutcomeAllow {
				b.Fatalf("explain: %v %+v", err, x)
			}
		}
		b.ReportMetric(float64(to), "position")
	}
	b.Run("cold_via_snapshot_explain_at_end", func(b *testing.B) { viaSnapshot(b, last) })
	b.Run("cold_via_snapshot_explain_at_middle_plus_10000", func(b *testing.B) { viaSnapshot(b, min(mid+10_000, last)) })
}
