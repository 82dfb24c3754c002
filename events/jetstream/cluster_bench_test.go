package jetstream_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
)

// BenchmarkAppendCluster compares appends with expected version on a
// stream of 1 replica and a stream of 3 replicas of the same in-process
// 3-node cluster (every node fsyncs each write), in the same run: one
// writer, and 16 concurrent writers on distinct streams.
func BenchmarkAppendCluster(b *testing.B) {
	c := jetstreamtest.NewCluster(b, 3)
	ctx := context.Background()
	run := 0 // b.Run calls a sub-benchmark more than once: fresh streams each time
	for _, replicas := range []int{1, 3} {
		s, err := jetstream.Open(ctx, jetstream.Config{URLs: c.URLs(), Replicas: replicas,
			StreamName: "BENCH_R" + strconv.Itoa(replicas), SubjectPrefix: "bench.r" + strconv.Itoa(replicas)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		b.Run("R"+strconv.Itoa(replicas)+"/one_writer", func(b *testing.B) {
			appendLoop(b, ctx, s)
		})
		b.Run("R"+strconv.Itoa(replicas)+"/16_writers", func(b *testing.B) {
			const writers = 16
			var wg sync.WaitGroup
			errs := make(chan error, writers)
			per := b.N/writers + 1
			var conflicts atomic.Int64
			run++
			b.ResetTimer()
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					stream := "pendenza-par/" + strconv.Itoa(run) + "/" + strconv.Itoa(w)
					var v events.Version
					for i := 0; i < per; {
						pos, err := s.Append(ctx, stream, events.ExpectVersion(v), events.Record{Event: benchEvent(i)})
						if errors.Is(err, events.ErrConflict) {
							// Commands reload and retry a conflict; so does the
							// benchmark, and it counts them.
							conflicts.Add(1)
							envs, lerr := s.Load(ctx, stream)
							if lerr != nil {
								errs <- lerr
								return
							}
							if len(envs) > 0 {
								v = envs[len(envs)-1].Version
							}
							continue
						}
						if err != nil {
							errs <- err
							return
						}
						v = events.Version(pos)
						i++
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			b.ReportMetric(float64(per*writers)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(conflicts.Load()), "conflicts")
		})
	}
}
