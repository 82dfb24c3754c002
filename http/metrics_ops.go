package httpapi

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// registerOperations adds the metrics operators watch besides requests:
// decision latency, store appends (latency, conflicts, retries), snapshot
// I/O and the build.
func (m *metrics) registerOperations(model *projections.ReadModel) {
	m.decisionLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "payauthz_decision_duration_seconds",
		Help:    "Time from a request's arrival to its authorization decision being answered, by API and outcome.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"api", "outcome"})
	m.appends = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "payauthz_store_append_duration_seconds",
		Help:    "Event store appends by outcome (ok, conflict, error): how long the store took.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	}, []string{"outcome"})
	m.retries = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "payauthz_command_retries_total",
		Help: "Commands re-loaded and re-decided after an append conflict.",
	})
	m.reg.MustRegister(m.decisionLatency, m.appends, m.retries)
	// Snapshot I/O, read from the model's stats at scrape time.
	for _, sm := range []struct {
		name, help string
		counter    bool
		value      func(projections.SnapshotStats) float64
	}{
		{"payauthz_snapshot_writes_total", "Read-model snapshots written since start.", true,
			func(s projections.SnapshotStats) float64 { return float64(s.Writes) }},
		{"payauthz_snapshot_write_failures_total", "Read-model snapshot writes that failed since start.", true,
			func(s projections.SnapshotStats) float64 { return float64(s.WriteFailures) }},
		{"payauthz_snapshot_write_duration_seconds", "How long the last read-model snapshot write took.", false,
			func(s projections.SnapshotStats) float64 { return s.LastWrite.Seconds() }},
		{"payauthz_snapshot_size_bytes", "Size of the last read-model snapshot written.", false,
			func(s projections.SnapshotStats) float64 { return float64(s.LastSize) }},
		{"payauthz_snapshot_load_duration_seconds", "How long loading the read-model snapshot took at start (0: started without one).", false,
			func(s projections.SnapshotStats) float64 { return s.Load.Seconds() }},
		{"payauthz_snapshot_load_size_bytes", "Size of the read-model snapshot loaded at start (0: none).", false,
			func(s projections.SnapshotStats) float64 { return float64(s.LoadSize) }},
	} {
		read := func() float64 { return sm.value(model.SnapshotStats()) }
		if sm.counter {
			m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: sm.name, Help: sm.help}, read))
		} else {
			m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: sm.name, Help: sm.help}, read))
		}
	}
}

// registerBuildInfo adds payauthz_build_info: 1, labelled with the module
// version, the commit and the Go version.
func (m *metrics) registerBuildInfo(b BuildInfo) {
	if info, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" {
			b.Version = info.Main.Version
		}
		if b.GoVersion == "" {
			b.GoVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && b.Commit == "" {
				b.Commit = s.Value
			}
		}
	}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "payauthz_build_info", Help: "Always 1; the labels name the build.",
		ConstLabels: prometheus.Labels{"version": orUnknown(b.Version), "revision": orUnknown(b.Commit), "goversion": orUnknown(b.GoVersion)},
	}, func() float64 { return 1 }))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// BuildInfo names the running build (payauthz_build_info); empty fields
// are read from the binary's embedded build information.
type BuildInfo struct {
	Version   string
	Commit    string
	GoVersion string
}

// Appended implements commands.Observer: one append and its outcome.
func (m *metrics) Appended(d time.Duration, err error) {
	outcome := "ok"
	switch {
	case errors.Is(err, events.ErrConflict):
		outcome = "conflict"
	case err != nil:
		outcome = "error"
	}
	m.appends.WithLabelValues(outcome).Observe(d.Seconds())
}

// Retried implements commands.Observer.
func (m *metrics) Retried() { m.retries.Inc() }

// errLagProbed stops the read of the first unapplied event.
var errLagProbed = errors.New("first unapplied event read")

// projectionLag is how far the projections are behind the log: in
// positions, and in seconds (0 when they applied the log's last position,
// else how long the oldest commit they have not applied has waited); -1
// for both when the log cannot be read.
func projectionLag(store events.LogReader, model *projections.ReadModel, now time.Time) (positions, seconds float64) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	last, err := store.LastPosition(ctx)
	if err != nil {
		return -1, -1
	}
	applied := model.AppliedPosition()
	positions = float64(last) - float64(applied)
	if applied >= last {
		return positions, 0
	}
	var oldest time.Time
	err = store.Read(ctx, applied, func(_ context.Context, env events.Envelope) error {
		oldest = env.Time
		return errLagProbed
	})
	if err != nil && !errors.Is(err, errLagProbed) {
		return positions, -1
	}
	if oldest.IsZero() { // applied in the meantime
		return positions, 0
	}
	return positions, max(now.Sub(oldest).Seconds(), 0)
}

// lagProbe measures projectionLag at most once per every (lagProbeEvery
// on /metrics), whatever the scrape rate: /metrics answers anyone, and
// each measure asks the store.
type lagProbe struct {
	store events.LogReader
	model *projections.ReadModel
	every time.Duration

	mu                 sync.Mutex
	at                 time.Time // of the last measure
	positions, seconds float64
}

const lagProbeEvery = time.Second

// pacedCollector collects c at most once per every and answers the
// scrapes in between with what that collection gave. /metrics answers
// anyone, and the process collector reads several /proc files at each
// collection (the network counters, the limits, every open descriptor):
// about a millisecond of CPU, some twenty times what any other request
// a stranger sends costs.
type pacedCollector struct {
	c     prometheus.Collector
	every time.Duration

	mu      sync.Mutex
	at      time.Time           // of the last collection
	metrics []prometheus.Metric // what it gave; replaced, never changed in place
}

// processReadEvery is how often /metrics reads the process's figures.
const processReadEvery = time.Second

// Describe implements prometheus.Collector.
func (p *pacedCollector) Describe(ch chan<- *prometheus.Desc) { p.c.Describe(ch) }

// Collect implements prometheus.Collector.
func (p *pacedCollector) Collect(ch chan<- prometheus.Metric) {
	p.mu.Lock()
	if now := time.Now(); p.at.IsZero() || now.Sub(p.at) >= p.every {
		p.at = now
		got := make(chan prometheus.Metric)
		go func() {
			p.c.Collect(got)
			close(got)
		}()
		metrics := make([]prometheus.Metric, 0, len(p.metrics))
		for m := range got {
			metrics = append(metrics, m)
		}
		p.metrics = metrics
	}
	metrics := p.metrics
	p.mu.Unlock()
	for _, m := range metrics {
		ch <- m
	}
}

func (p *lagProbe) measure() (positions, seconds float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := time.Now(); p.at.IsZero() || now.Sub(p.at) >= p.every {
		p.at = now
		p.positions, p.seconds = projectionLag(p.store, p.model, now)
	}
	return p.positions, p.seconds
}
