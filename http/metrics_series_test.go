package httpapi

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/payauthz/payauthz/projections"
)

// TestSeriesCacheLooksEachLabelUpOnce: requests racing on new and known
// label values all get the vector's series for their values, and the
// vector is asked once per value.
func TestSeriesCacheLooksEachLabelUpOnce(t *testing.T) {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "c", Help: "h"}, []string{"outcome", "rule"})
	var lookups atomic.Int64
	c := seriesCache[decisionLabels, prometheus.Counter]{series: func(l decisionLabels) prometheus.Counter {
		lookups.Add(1)
		return vec.WithLabelValues(l.outcome, l.rule)
	}}
	labels := []decisionLabels{{"allow", "granted"}, {"deny", "scope"}, {"deny", "own-idA2A"}, {"not-found", "granted"}}
	const workers, each = 8, 1000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				c.get(labels[(w+i)%len(labels)]).Inc()
			}
		})
	}
	wg.Wait()
	if got := lookups.Load(); got != int64(len(labels)) {
		t.Errorf("the vector was asked %d times, want once per label values (%d)", got, len(labels))
	}
	want := float64(workers * each / len(labels))
	var total float64
	for _, l := range labels {
		var d dto.Metric
		if err := vec.WithLabelValues(l.outcome, l.rule).Write(&d); err != nil {
			t.Fatal(err)
		}
		n := d.GetCounter().GetValue()
		if n != want {
			t.Errorf("%v counted %v, want %v", l, n, want)
		}
		total += n
	}
	if total != workers*each {
		t.Errorf("counted %v in all, want %d", total, workers*each)
	}
}

// BenchmarkRequestSeries is what one request's recording costs in the
// request metrics: the vectors' WithLabelValues (hash, shared lock) beside
// the series looked up once (seriesCache), from all CPUs at once.
func BenchmarkRequestSeries(b *testing.B) {
	m := newMetrics(projections.New())
	b.Run("with_label_values", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.decisions.WithLabelValues("pendenze", "allow", "granted").Inc()
				m.decisionLatency.WithLabelValues("pendenze", "allow").Observe(0.0001)
				m.requests.WithLabelValues("pendenze", "GET", strconv.Itoa(200)).Inc()
			}
		})
	})
	b.Run("series_cache", func(b *testing.B) {
		s := m.seriesOf("pendenze")
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s.decisions.get(decisionLabels{"allow", "granted"}).Inc()
				s.decisionLatency.get("allow").Observe(0.0001)
				s.requests.get(requestLabels{"GET", 200}).Inc()
			}
		})
	})
}
