package projections_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections"
)

// BenchmarkTimeToReady measures how long a starting replica takes to be
// ready (its projections at the log's last position) on a log of
// PAYAUTHZ_BENCH_EVENTS events (default 100000; the closing note uses
// 1000000): replaying the whole log, and loading a snapshot taken 10,000
// events before the end then replaying that tail. It also reports the
// snapshot's write time and size.
func BenchmarkTimeToReady(b *testing.B) {
	n := jetstreamtest.BenchEvents()
	tail := min(10_000, n/2) // a small PAYAUTHZ_BENCH_EVENTS still leaves a head to snapshot
	ctx := context.Background()
	s := jetstreamtest.OpenFilled(b, n-tail)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	snapDir := b.TempDir()
	head := projections.New()
	if err := head.CatchUp(ctx, s, logger); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := head.WriteSnapshot(snapDir); err != nil {
		b.Fatal(err)
	}
	writeTook := time.Since(start)
	fi, err := os.Stat(snapDir + "/" + projections.SnapshotFile)
	if err != nil {
		b.Fatal(err)
	}
	head = nil
	if err := jetstreamtest.FillFrom(ctx, s, n-tail, tail); err != nil {
		b.Fatal(err)
	}
	b.Run("full_replay", func(b *testing.B) {
		for b.Loop() {
			replayAll(b, ctx, s, logger, n)
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/ready")
	})
	b.Run("snapshot_plus_tail", func(b *testing.B) {
		for b.Loop() {
			m, err := projections.LoadSnapshot(snapDir)
			if err != nil {
				b.Fatal(err)
			}
			if err := m.CatchUp(ctx, s, logger); err != nil {
				b.Fatal(err)
			}
			if m.PendenzeCount() != n {
				b.Fatalf("projected %d pendenze, want %d", m.PendenzeCount(), n)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/ready")
		b.ReportMetric(writeTook.Seconds(), "s/snapshot_write")
		b.ReportMetric(float64(fi.Size())/(1<<20), "MiB/snapshot")
	})
}
