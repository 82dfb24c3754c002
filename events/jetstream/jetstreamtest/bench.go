package jetstreamtest

import (
	"context"
	"os"
	"strconv"
	"testing"

	js "github.com/nats-io/nats.go/jetstream"

	"github.com/payauthz/payauthz/events/jetstream"
)

// BenchEvents is the log size of the replay and read benchmarks:
// PAYAUTHZ_BENCH_EVENTS, or 100000 when it is unset or not a positive
// number (the closing notes use 1000000).
func BenchEvents() int {
	if v, err := strconv.Atoi(os.Getenv("PAYAUTHZ_BENCH_EVENTS")); err == nil && v > 0 {
		return v
	}
	return 100_000
}

// OpenFilled opens an unsynced embedded store (a throw-away benchmark
// log) in a temp dir of tb, closed when tb ends, holding n events of Fill.
func OpenFilled(tb testing.TB, n int) *jetstream.Store {
	tb.Helper()
	ctx := context.Background()
	s, err := jetstream.Open(ctx, jetstream.Config{DataDir: tb.TempDir(), Unsynced: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	if err := Fill(ctx, s, n); err != nil {
		tb.Fatal(err)
	}
	return s
}

// RawRead reads the first n messages of s's stream through a bare ordered
// consumer, decoding nothing: the baseline the store's reads are measured
// against.
func RawRead(tb testing.TB, ctx context.Context, s *jetstream.Store, n int) {
	tb.Helper()
	cons, err := s.JetStream().OrderedConsumer(ctx, s.StreamName(), js.OrderedConsumerConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	it, err := cons.Messages(js.PullMaxMessages(4096))
	if err != nil {
		tb.Fatal(err)
	}
	defer it.Stop()
	for range n {
		if _, err := it.Next(); err != nil {
			tb.Fatal(err)
		}
	}
}
