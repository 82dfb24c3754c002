package jetstream_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
)

func benchEvent(i int) events.Event {
	return events.PendenzaCreated{IDA2A: "app00042", IDPendenza: fmt.Sprintf("P%07d", i), IDDominio: "01234567890",
		IDTipoPendenza: "TARI", Causale: "Tassa rifiuti", AmountCents: 12345,
		Payer:        events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "Mario Rossi"},
		NumeroAvviso: fmt.Sprintf("%018d", i), UUID: fmt.Sprintf("%032x", i)}
}

// appendLoop appends one event per iteration with its expected version,
// over 64 streams, and reports the rate.
func appendLoop(b *testing.B, ctx context.Context, s *jetstream.Store) {
	b.Helper()
	versions := map[string]events.Version{}
	i := 0
	for b.Loop() {
		stream := "pendenza-bench/" + strconv.Itoa(i%64)
		pos, err := s.Append(ctx, stream, events.ExpectVersion(versions[stream]), events.Record{Event: benchEvent(i)})
		if err != nil {
			b.Fatal(err)
		}
		versions[stream] = events.Version(pos)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppend compares an append with expected version through the
// Store (embedded server, fsync on every write) with a raw js.Publish of
// the same payload size on the same server, in the same run.
func BenchmarkAppend(b *testing.B) {
	s, err := jetstream.Open(context.Background(), jetstream.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.Run("store_append_expected_version", func(b *testing.B) {
		appendLoop(b, ctx, s)
	})
	payload := make([]byte, 420) // about the size of one encoded commit above
	b.Run("raw_js_publish", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := s.JetStream().Publish(ctx, s.Subject("raw-"+strconv.Itoa(i%64)), payload); err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}

// BenchmarkRead compares reading the whole log through Store.Read
// (decoding every event) with a raw ordered consumer of the same stream.
// PAYAUTHZ_BENCH_EVENTS sets the log size (default 100000).
func BenchmarkRead(b *testing.B) {
	n := jetstreamtest.BenchEvents()
	s := jetstreamtest.OpenFilled(b, n)
	ctx := context.Background()
	b.Run("store_read", func(b *testing.B) {
		for b.Loop() {
			count := 0
			if err := s.Read(ctx, 0, func(context.Context, events.Envelope) error { count++; return nil }); err != nil {
				b.Fatal(err)
			}
			if count != n {
				b.Fatalf("read %d, want %d", count, n)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("raw_ordered_consumer", func(b *testing.B) {
		for b.Loop() {
			jetstreamtest.RawRead(b, ctx, s, n)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}
