package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/payauthz/payauthz/projections"
)

// scrape reads /metrics as Prometheus does and returns the families by name.
func scrape(t *testing.T, h *harness) (map[string]*dto.MetricFamily, []byte) {
	t.Helper()
	res, err := http.Get(h.httpURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams, buf.Bytes()
}

// counterOf sums the samples of a counter family whose labels include want.
func counterOf(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	var sum float64
	f, ok := fams[name]
	if !ok {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum
}

// TestMetricsPassPromlintAndCountAsTheDecisionLog: /metrics passes the
// Prometheus linter; decisions are counted with the outcome the decision
// log gives them; appends, conflicts and retries, decision latency,
// snapshots and the build are exported; the lag is 0 when caught up.
func TestMetricsPassPromlintAndCountAsTheDecisionLog(t *testing.T) {
	h := newHarness(t)
	h.putEntity(t, "11111111111")
	h.putType(t, "TARI", false)
	h.do(t, "GET", "/backoffice/rs/basic/v1/domini/99999999999", nil, asAdmin()).expect(t, 404, "")
	h.do(t, "PUT", "/backoffice/rs/basic/v1/domini/bad", map[string]any{"ragioneSociale": "x"}, asAdmin())
	h.do(t, "GET", "/backoffice/rs/basic/v1/domini", nil, asBasic(adminUser, "wrong-password")).expect(t, 401, "")
	h.putApp(t, "app1", "app1", "app1-password-1", true)
	h.do(t, "GET", "/backoffice/rs/basic/v1/domini", nil, asBasic("app1", "app1-password-1")).expect(t, 403, "")
	if _, err := h.model.WriteSnapshot(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	last, _ := h.store.LastPosition(context.Background())
	if err := h.model.WaitFor(context.Background(), last); err != nil {
		t.Fatal(err)
	}

	fams, raw := scrape(t, h)
	problems, err := promlint.NewWithMetricFamilies(values(fams)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}

	for _, c := range []struct {
		name   string
		labels map[string]string
		min    float64
	}{
		{"payauthz_decisions_total", map[string]string{"outcome": "not-found", "rule": "granted"}, 1},
		{"payauthz_decisions_total", map[string]string{"outcome": "invalid", "rule": "request"}, 1},
		{"payauthz_decisions_total", map[string]string{"outcome": "unauthenticated"}, 1},
		{"payauthz_decisions_total", map[string]string{"outcome": "deny"}, 1},
		{"payauthz_decisions_total", map[string]string{"outcome": "allow", "rule": "granted"}, 3},
		{"payauthz_decision_duration_seconds", map[string]string{"api": "BACKOFFICE", "outcome": "not-found"}, 1},
		{"payauthz_store_append_duration_seconds", map[string]string{"outcome": "ok"}, 3},
		{"payauthz_command_retries_total", nil, 0}, // commands.TestObserverSeesConflictsAndRetries makes some
		{"payauthz_snapshot_writes_total", nil, 1},
		{"payauthz_snapshot_size_bytes", nil, 100},
		{"payauthz_projection_events_total", nil, 5},
	} {
		if got := counterOf(fams, c.name, c.labels); got < c.min {
			t.Errorf("%s%v = %v, want at least %v", c.name, c.labels, got, c.min)
		}
	}
	if !bytes.Contains(raw, []byte(`payauthz_build_info{goversion="go1.`)) {
		t.Errorf("no payauthz_build_info with the Go version:\n%s", grep(raw, "build_info"))
	}
	// A 404 is never counted as allowed: the only allow/granted decisions
	// are the successful writes and reads.
	if got := counterOf(fams, "payauthz_decisions_total", map[string]string{"outcome": "allow"}); got > 6 {
		t.Errorf("%v allow decisions, want at most 6 (404 and 400 are not allowed):\n%s", got, grep(raw, "payauthz_decisions_total"))
	}
	if got := counterOf(fams, "payauthz_projection_lag_seconds", nil); got != 0 {
		t.Errorf("caught up: lag %v s, want 0", got)
	}
	if got := counterOf(fams, "payauthz_projection_lag_positions", nil); got != 0 {
		t.Errorf("caught up: lag %v positions, want 0", got)
	}
}

// TestProjectionLagSeconds: 0 when caught up however old the last event,
// else the age of the oldest unapplied commit; measured at most once a
// period whatever the scrape rate.
func TestProjectionLagSeconds(t *testing.T) {
	h := newHarness(t)
	now := time.Now().Add(time.Hour)
	if positions, seconds := projectionLag(h.store, h.model, now); positions != 0 || seconds != 0 {
		t.Fatalf("caught up an hour later: %v positions, %v s, want 0 and 0", positions, seconds)
	}
	behind := projections.New() // has applied nothing of the log
	last, err := h.store.LastPosition(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	positions, seconds := projectionLag(h.store, behind, now)
	if positions != float64(last) || seconds < 3599 || seconds > 3700 {
		t.Fatalf("an hour behind: %v positions (log at %d), %v s", positions, last, seconds)
	}

	// /metrics answers anyone: its gauges measure at most once per probe
	// period, however often they are read.
	probe := &lagProbe{store: h.store, model: behind, every: time.Hour}
	p1, _ := probe.measure()
	h.must(t, "PUT", bo+"/tipiPendenza/LAGPROBE", map[string]any{"descrizione": "lag probe", "abilitato": true})
	if p2, _ := probe.measure(); p2 != p1 {
		t.Fatalf("measured again within the period: %v then %v positions", p1, p2)
	}
	probe.every = 0
	if p3, _ := probe.measure(); p3 != p1+1 {
		t.Fatalf("after the period: %v positions, want %v", p3, p1+1)
	}
}

// TestProcessFiguresReadOncePerSecond: /metrics answers anyone, and
// reading the process's figures (several /proc files, every open
// descriptor) costs about a millisecond, some twenty times any other
// request a stranger sends; they are read at most once a second however
// often /metrics is scraped. 16 connections opened between two scrapes
// within the second leave process_open_fds as it was; a second later it
// counts them.
func TestProcessFiguresReadOncePerSecond(t *testing.T) {
	h := newHarness(t)
	addr := strings.TrimPrefix(h.httpURL, "http://")
	const opened = 16
	openFDs := func() float64 {
		fams, _ := scrape(t, h)
		n := counterOf(fams, "process_open_fds", nil)
		if n <= 0 {
			t.Fatalf("process_open_fds = %v", n)
		}
		return n
	}
	// connect opens a connection the server has accepted (it answered on
	// it): a descriptor on each side, both in this process.
	connect := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: payauthz\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		return c
	}
	for attempt := 0; ; attempt++ {
		start := time.Now()
		before := openFDs()
		for range opened {
			connect()
		}
		within := openFDs()
		if time.Since(start) >= processReadEvery/2 {
			if attempt < 20 { // too slow a moment to tell: again
				continue
			}
			t.Fatalf("could not open %d connections within half a second in %d attempts", opened, attempt+1)
		}
		if within != before {
			t.Fatalf("process_open_fds read again within the second: %v, then %v", before, within)
		}
		time.Sleep(processReadEvery)
		if after := openFDs(); after < before+opened {
			t.Fatalf("process_open_fds %v a second after %d connections were opened, want at least %v", after, opened, before+opened)
		}
		return
	}
}

// TestPacedCollectorCollectsOncePerPeriod: the collector behind
// /metrics's process figures asks the one it paces at most once per
// period, and hands out what it gave meanwhile.
func TestPacedCollectorCollectsOncePerPeriod(t *testing.T) {
	for _, c := range []struct {
		name  string
		every time.Duration
		calls int
	}{{"within_the_period_once", time.Hour, 1}, {"after_the_period_again", 0, 3}} {
		t.Run(c.name, func(t *testing.T) {
			counted := &countingCollector{g: prometheus.NewGauge(prometheus.GaugeOpts{Name: "counted", Help: "counted"})}
			p := &pacedCollector{c: counted, every: c.every}
			reg := prometheus.NewPedanticRegistry()
			reg.MustRegister(p)
			for range 3 {
				fams, err := reg.Gather()
				if err != nil || len(fams) != 1 || fams[0].GetName() != "counted" {
					t.Fatalf("gather = %v, %v; want the paced gauge", fams, err)
				}
			}
			if counted.calls.Load() != int32(c.calls) {
				t.Fatalf("the paced collector was asked %d times in 3 scrapes, want %d", counted.calls.Load(), c.calls)
			}
		})
	}
}

// countingCollector counts how often it is collected.
type countingCollector struct {
	g     prometheus.Gauge
	calls atomic.Int32
}

func (c *countingCollector) Describe(ch chan<- *prometheus.Desc) { c.g.Describe(ch) }
func (c *countingCollector) Collect(ch chan<- prometheus.Metric) {
	c.calls.Add(1)
	c.g.Collect(ch)
}

func values(m map[string]*dto.MetricFamily) []*dto.MetricFamily {
	out := make([]*dto.MetricFamily, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	return out
}

func grep(raw []byte, s string) string {
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
