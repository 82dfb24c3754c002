package projections_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	js "github.com/nats-io/nats.go/jetstream"

	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections"
)

// BenchmarkReplay replays a whole log into every projection through the
// Watermill router (as `payauthz replay` and a starting replica do), next
// to a raw ordered-consumer read of the same stream, each alone and then
// paired (one of each per iteration, with their ratio). PAYAUTHZ_BENCH_EVENTS
// sets the log size (default 100000; the closing note uses 1000000).
func BenchmarkReplay(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("PAYAUTHZ_BENCH_EVENTS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	s, err := jetstream.Open(ctx, jetstream.Config{DataDir: b.TempDir(), Unsynced: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := jetstreamtest.Fill(ctx, s, n); err != nil {
		b.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	replay := func(b *testing.B) {
		m := projections.New()
		if err := m.CatchUp(ctx, s, logger); err != nil {
			b.Fatal(err)
		}
		if m.PendenzeCount() != n {
			b.Fatalf("projected %d pendenze, want %d", m.PendenzeCount(), n)
		}
	}
	raw := func(b *testing.B) {
		cons, err := s.JetStream().OrderedConsumer(ctx, s.StreamName(), js.OrderedConsumerConfig{})
		if err != nil {
			b.Fatal(err)
		}
		it, err := cons.Messages(js.PullMaxMessages(4096))
		if err != nil {
			b.Fatal(err)
		}
		for range n {
			if _, err := it.Next(); err != nil {
				b.Fatal(err)
			}
		}
		it.Stop()
	}
	b.Run("projections_via_watermill", func(b *testing.B) {
		for b.Loop() {
			replay(b)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("raw_ordered_consumer", func(b *testing.B) {
		for b.Loop() {
			raw(b)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	// paired runs one of each per iteration, so that on a shared machine
	// both see the same load: its ratio is the figure to compare.
	b.Run("paired", func(b *testing.B) {
		var tReplay, tRaw time.Duration
		for b.Loop() {
			start := time.Now()
			raw(b)
			mid := time.Now()
			replay(b)
			tRaw, tReplay = tRaw+mid.Sub(start), tReplay+time.Since(mid)
		}
		b.ReportMetric(float64(n)*float64(b.N)/tReplay.Seconds(), "replay-events/s")
		b.ReportMetric(float64(n)*float64(b.N)/tRaw.Seconds(), "raw-events/s")
		b.ReportMetric(tRaw.Seconds()/tReplay.Seconds(), "ratio")
	})
}
