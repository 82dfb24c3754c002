package projections_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections"
)

// replayAll replays the whole log of s into fresh projections and checks
// that they hold its n pendenze.
func replayAll(b *testing.B, ctx context.Context, s events.Store, logger *slog.Logger, n int) {
	b.Helper()
	m := projections.New()
	if err := m.CatchUp(ctx, s, logger); err != nil {
		b.Fatal(err)
	}
	if m.PendenzeCount() != n {
		b.Fatalf("projected %d pendenze, want %d", m.PendenzeCount(), n)
	}
}

// BenchmarkReplay replays a whole log into every projection through the
// Watermill router (as `payauthz replay` and a starting replica do), next
// to a raw ordered-consumer read of the same stream, each alone and then
// paired (one of each per iteration, with their ratio). PAYAUTHZ_BENCH_EVENTS
// sets the log size (default 100000; the closing note uses 1000000).
func BenchmarkReplay(b *testing.B) {
	n := jetstreamtest.BenchEvents()
	ctx := context.Background()
	s := jetstreamtest.OpenFilled(b, n)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	b.Run("projections_via_watermill", func(b *testing.B) {
		for b.Loop() {
			replayAll(b, ctx, s, logger, n)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("raw_ordered_consumer", func(b *testing.B) {
		for b.Loop() {
			jetstreamtest.RawRead(b, ctx, s, n)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	// paired runs one of each per iteration, so that on a shared machine
	// both see the same load: its ratio is the figure to compare.
	b.Run("paired", func(b *testing.B) {
		var tReplay, tRaw time.Duration
		for b.Loop() {
			start := time.Now()
			jetstreamtest.RawRead(b, ctx, s, n)
			mid := time.Now()
			replayAll(b, ctx, s, logger, n)
			tRaw, tReplay = tRaw+mid.Sub(start), tReplay+time.Since(mid)
		}
		b.ReportMetric(float64(n)*float64(b.N)/tReplay.Seconds(), "replay-events/s")
		b.ReportMetric(float64(n)*float64(b.N)/tRaw.Seconds(), "raw-events/s")
		b.ReportMetric(tRaw.Seconds()/tReplay.Seconds(), "ratio")
	})
}
