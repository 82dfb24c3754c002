package logtree_test

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections"
	"github.com/payauthz/payauthz/projections/logtree"
)

// openWithLog opens an embedded store in a temp dir of b and a Log over
// it signed with a fresh key, both closed when b ends.
func openWithLog(b *testing.B) (*jetstream.Store, *logtree.Log, string) {
	b.Helper()
	s := openStore(b)
	signer, vkey := newKey(b, "payauthz-test")
	l, err := logtree.NewLog(s, signer, vkey, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	return s, l, vkey
}

// BenchmarkVerify compares `audit verify` (read the whole log, hash every
// event into the tree, check every checkpoint) with reading the same log
// through Store.Read (first: the log's files are then in the page cache for
// all three) and with a raw ordered consumer, in the same run. The
// log is PAYAUTHZ_BENCH_EVENTS pendenze (default 100000; the README's
// figures use 1000000) with a signed checkpoint every tenth of it.
func BenchmarkVerify(b *testing.B) {
	n := jetstreamtest.BenchEvents()
	ctx := context.Background()
	s, l, vkey := openWithLog(b)
	fctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = l.Follow(fctx) }()
	const chunks = 10
	for c := range chunks {
		if err := jetstreamtest.FillFrom(ctx, s, c*n/chunks, n/chunks); err != nil {
			b.Fatal(err)
		}
		last, _ := s.LastPosition(ctx)
		if err := l.WaitFor(ctx, last); err != nil {
			b.Fatal(err)
		}
		if _, ok, err := l.Checkpoint(ctx); !ok || err != nil {
			b.Fatalf("checkpoint: %v %v", ok, err)
		}
	}
	stop()
	<-done
	total, _ := s.LastPosition(ctx)
	known, _ := logtree.Verifiers(vkey)
	b.Run("store_read", func(b *testing.B) {
		for b.Loop() {
			if err := s.Read(ctx, 0, func(context.Context, events.Envelope) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("audit_verify", func(b *testing.B) {
		for b.Loop() {
			rep, _, err := logtree.Verify(ctx, s, known, nil)
			if err != nil || !rep.OK() || len(rep.Checkpoints) != chunks {
				b.Fatalf("verify: %v %+v", err, rep)
			}
		}
		b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("raw_ordered_consumer", func(b *testing.B) {
		for b.Loop() {
			jetstreamtest.RawRead(b, ctx, s, int(total))
		}
		b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}

// BenchmarkAppendWithCheckpoints measures the cost of the verifiable log
// on appends: the same appends (expected version, fsync) on a store alone
// and on a store whose Log follows it into the tree and signs a checkpoint
// every 100 ms (sixty times the default rate), in the same run.
func BenchmarkAppendWithCheckpoints(b *testing.B) {
	ctx := context.Background()
	appendLoop := func(b *testing.B, s *jetstream.Store) {
		versions := map[string]events.Version{}
		i := 0
		for b.Loop() {
			stream := "pendenza-bench/" + strconv.Itoa(i%64)
			pos, err := s.Append(ctx, stream, events.ExpectVersion(versions[stream]), events.Record{Event: jetstreamtest.Event(i)})
			if err != nil {
				b.Fatal(err)
			}
			versions[stream] = events.Version(pos)
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	}
	b.Run("append", func(b *testing.B) {
		appendLoop(b, openStore(b))
	})
	b.Run("append_with_tree_and_checkpoints", func(b *testing.B) {
		s, l, _ := openWithLog(b)
		fctx, stop := context.WithCancel(ctx)
		done := make(chan struct{}, 2)
		go func() { _ = l.Follow(fctx); done <- struct{}{} }()
		go func() { l.RunCheckpoints(fctx, 100*time.Millisecond); done <- struct{}{} }()
		appendLoop(b, s)
		b.StopTimer()
		stop()
		<-done
		<-done
		if cps := l.Checkpoints(); b.Elapsed() > time.Second && len(cps) == 0 {
			b.Fatalf("no checkpoint signed in %s", b.Elapsed())
		}
	})
}

// BenchmarkTreeAppend is the tree's own cost per event (leaf encoding,
// SHA-256, the compact range), without reading a log.
func BenchmarkTreeAppend(b *testing.B) {
	data, _ := events.DefaultCodec.Encode(jetstreamtest.Event(42))
	env := events.Envelope{ID: "0123456789abcdef", Name: "PendenzaCreated", Stream: "pendenza-fill/42", CommitSize: 1,
		Time: time.Unix(1_800_000_000, 0), Data: data}
	tree := logtree.NewTree(nil)
	for b.Loop() {
		env.Position++
		tree.Append(env)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppendCheckpointCost is the verifiable log's cost on appends,
// paired, as the service runs it: two stores side by side, each followed
// by its read models (ReadModel.Run); on the second the projections also
// feed the tree (Log.Feed, no consumer of its own) and a checkpoint is
// signed every 100 ms (sixty times the default rate). Each round appends
// 100 events to one store and then to the other, alternating which goes
// first, so the disk's and the machine's drift falls on both. cost-% is
// the total time with the log over the total time without, minus one.
func BenchmarkAppendCheckpointCost(b *testing.B) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	alone, aloneModel := openStore(b), projections.New()
	followed, followedModel := openStore(b), projections.New()
	signer, vkey := newKey(b, "payauthz-test")
	l, err := logtree.NewLog(followed, signer, vkey, quiet)
	if err != nil {
		b.Fatal(err)
	}
	followedModel.OnApplied = l.Feed
	go func() { _ = aloneModel.Run(ctx, alone, quiet) }()
	go func() { _ = followedModel.Run(ctx, followed, quiet) }()
	go func() { _ = l.CatchUp(ctx) }()
	go l.RunCheckpoints(ctx, 100*time.Millisecond)
	versions := map[*jetstream.Store]map[string]events.Version{alone: {}, followed: {}}
	counts := map[*jetstream.Store]int{}
	round := func(s *jetstream.Store) time.Duration {
		start := time.Now()
		for range 100 {
			i := counts[s]
			stream := "pendenza-bench/" + strconv.Itoa(i%64)
			pos, err := s.Append(ctx, stream, events.ExpectVersion(versions[s][stream]), events.Record{Event: jetstreamtest.Event(i)})
			if err != nil {
				b.Fatal(err)
			}
			versions[s][stream] = events.Version(pos)
			counts[s]++
		}
		return time.Since(start)
	}
	var tAlone, tFollowed time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			tAlone += round(alone)
			tFollowed += round(followed)
		} else {
			tFollowed += round(followed)
			tAlone += round(alone)
		}
		n++
	}
	b.StopTimer()
	last, _ := followed.LastPosition(ctx)
	if err := l.WaitFor(ctx, last); err != nil {
		b.Fatal(err)
	}
	if len(l.Checkpoints()) == 0 && tFollowed > time.Second {
		b.Fatal("no checkpoint signed")
	}
	b.ReportMetric(100*(float64(tFollowed)/float64(tAlone)-1), "cost-%")
	b.ReportMetric(float64(counts[alone])/tAlone.Seconds(), "alone-events/s")
	b.ReportMetric(float64(counts[followed])/tFollowed.Seconds(), "with-log-events/s")
}
