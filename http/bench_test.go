package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/payauthz/payauthz/events/jetstream"
)

// benchPendenza is the authorized GET both benchmarks of it serve: appA's
// pendenza on the Pendenze API, its path and the JSON it is answered with.
func benchPendenza(b *testing.B) (w *world, path string, body []byte) {
	w = newWorld(b)
	w.createPendenza(b, "appA", "bench1", d1, t1, citizen1)
	path = pe + "/pendenze/appA/bench1"
	r := w.do(b, "GET", path, nil, as("appA"))
	if r.Status != 200 {
		b.Fatalf("setup: %d %s", r.Status, r.Body)
	}
	return w, path, r.Body
}

// BenchmarkAuthorizedGet measures an authorized GET of a pendenza on the
// Pendenze API (basic authentication from the verified-credential cache,
// principal lookup, ownership decision, JSON) against a bare Echo handler
// returning the same JSON, both over real HTTP on loopback in the same
// run. It reports requests/s and p50/p99 latency, and in paired the two
// interleaved request by request with the ratio of their latencies.
func BenchmarkAuthorizedGet(b *testing.B) {
	w, path, body := benchPendenza(b)

	bareURL := serveBare(b, path, body)
	auth := basicHeader("appA", pw)
	b.Run("payauthz_authorized", func(b *testing.B) { loadHTTP(b, w.httpURL+path, auth) })
	b.Run("bare_echo", func(b *testing.B) { loadHTTP(b, bareURL, auth) })
	b.Run("paired", func(b *testing.B) { pairedHTTP(b, w.httpURL+path, bareURL, auth) })
}

// serveBare serves body at path from a bare Echo handler on loopback
// until the benchmark ends, and returns its URL.
func serveBare(b *testing.B, path string, body []byte) string {
	bare := echo.New()
	bare.GET(path, func(c *echo.Context) error { return c.JSONBlob(200, body) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: bare}
	go func() { _ = hs.Serve(ln) }()
	b.Cleanup(func() { _ = hs.Shutdown(context.Background()) })
	return "http://" + ln.Addr().String() + path
}

// timedGet sends req and reads the answer; ok is false (and the
// benchmark failed) on an error or a status other than 200.
func timedGet(b *testing.B, client *http.Client, req *http.Request) (took time.Duration, ok bool) {
	start := time.Now()
	res, err := client.Do(req)
	if err != nil {
		b.Error(err)
		return 0, false
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		b.Errorf("status %d", res.StatusCode)
		return 0, false
	}
	return time.Since(start), true
}

// pairedHTTP sends, from 8 concurrent clients, each request to url and
// then to bare, and reports the ratio of their total latencies (bare over
// url): on a shared machine both see the same load at the same moments,
// so this ratio, the throughput of url relative to bare's, is the figure
// to compare.
func pairedHTTP(b *testing.B, url, bare, auth string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
	var mu sync.Mutex
	var total [2]time.Duration
	var count int
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var local [2]time.Duration
		n := 0
		reqs := [2]*http.Request{}
		for i, u := range []string{url, bare} {
			reqs[i], _ = http.NewRequest("GET", u, nil)
			reqs[i].Header.Set("Authorization", auth)
		}
		for pb.Next() {
			for i, req := range reqs {
				took, ok := timedGet(b, client, req)
				if !ok {
					return
				}
				local[i] += took
			}
			n++
		}
		mu.Lock()
		total[0], total[1], count = total[0]+local[0], total[1]+local[1], count+n
		mu.Unlock()
	})
	b.StopTimer()
	if count > 0 {
		b.ReportMetric(total[1].Seconds()/total[0].Seconds(), "ratio")
		b.ReportMetric(float64(total[0].Microseconds())/float64(count), "authorized-µs")
		b.ReportMetric(float64(total[1].Microseconds())/float64(count), "bare-µs")
	}
}

func loadHTTP(b *testing.B, url, auth string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
	var mu sync.Mutex
	var lat []time.Duration
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", auth)
		for pb.Next() {
			took, ok := timedGet(b, client, req)
			if !ok {
				return
			}
			local = append(local, took)
		}
		mu.Lock()
		lat = append(lat, local...)
		mu.Unlock()
	})
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), "req/s")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}

// BenchmarkAuthorizedGetDecisionLog is BenchmarkAuthorizedGet's authorized
// request with the decision log off, on (slog JSON to a discarded stream)
// and on with NATS publishing, each against its own service, to measure
// the decision log's overhead.
func BenchmarkAuthorizedGetDecisionLog(b *testing.B) {
	jsonDiscard := slog.New(slog.NewJSONHandler(io.Discard, nil))
	for _, v := range []struct {
		name string
		opts []harnessOption
	}{
		{"decision_log_off", []harnessOption{withDecisionLog(nil)}},
		{"decision_log_slog", []harnessOption{withDecisionLog(jsonDiscard)}},
		{"decision_log_slog_nats", []harnessOption{withDecisionLog(jsonDiscard), withDecisionSubject("payauthz.decisions")}},
	} {
		w := newWorld(b, v.opts...)
		w.createPendenza(b, "appA", "bench1", d1, t1, citizen1)
		path := pe + "/pendenze/appA/bench1"
		b.Run(v.name, func(b *testing.B) {
			loadHTTP(b, w.httpURL+path, basicHeader("appA", pw))
			if w.srv.decisions != nil {
				b.ReportMetric(testutilCounter(w.srv.decisions.dropped), "dropped")
			}
		})
	}
}

func testutilCounter(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return -1
	}
	return m.GetCounter().GetValue()
}

// BenchmarkDecisionLog measures the decision log's own cost per decision:
// what a request pays (record: a non-blocking send) and what the writer
// goroutine pays to write one decision to a JSON slog stream, and to also
// publish it on a NATS subject of the embedded server.
func BenchmarkDecisionLog(b *testing.B) {
	store, err := jetstream.Open(context.Background(), jetstream.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	d := Decision{Time: time.Now(), RequestID: "0123456789abcdef0123456789abcdef", Principal: "appA", Kind: "APPLICATION",
		Auth: "basic", API: "PENDENZE", Method: "GET", Route: "/pendenze/rs/basic/v2/pendenze/:idA2A/:idPendenza",
		Resource: []string{"appA", "bench1"}, Outcome: "allow", Rule: "granted", Status: 200, Position: 123456}
	jsonDiscard := slog.New(slog.NewJSONHandler(io.Discard, nil))
	newLog := func(subject string) *decisionLog {
		cfg := Config{DecisionLogger: jsonDiscard}
		if subject != "" {
			cfg.DecisionPublisher, cfg.DecisionSubject = store.Conn(), subject
		}
		return newDecisionLog(cfg, jsonDiscard, prometheus.NewRegistry())
	}
	b.Run("record_hot_path", func(b *testing.B) {
		l := newLog("")
		defer l.close()
		b.ReportAllocs()
		for b.Loop() {
			l.record(d)
		}
	})
	for _, v := range []struct{ name, subject string }{{"write_slog_json", ""}, {"write_slog_json_and_nats", "payauthz.decisions"}} {
		b.Run(v.name, func(b *testing.B) {
			l := newLog(v.subject)
			l.close() // stop the writer: the benchmark is the writer
			b.ReportAllocs()
			for b.Loop() {
				l.write(d)
			}
		})
	}
}

// BenchmarkAuthorizedGetInProcess is BenchmarkAuthorizedGet's authorized
// request served in process (no network, no client), next to the bare
// Echo handler returning the same JSON: its allocs/op are what the
// service's own path allocates on top of Echo's.
func BenchmarkAuthorizedGetInProcess(b *testing.B) {
	w, path, body := benchPendenza(b)
	bare := echo.New()
	bare.GET(path, func(c *echo.Context) error { return c.JSONBlob(200, body) })
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", basicHeader("appA", pw))
	for _, v := range []struct {
		name string
		h    http.Handler
	}{{"payauthz_authorized", w.srv.Handler()}, {"bare_echo", bare}} {
		b.Run(v.name, func(b *testing.B) {
			rw := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(rw.h)
				rw.status = 0
				v.h.ServeHTTP(rw, req)
				if rw.status != 200 {
					b.Fatalf("status %d", rw.status)
				}
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps the status and discards
// the body, reused across a benchmark's requests.
type discardWriter struct {
	h      http.Header
	status int
}

func (d *discardWriter) Header() http.Header { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) {
	if d.status == 0 {
		d.status = 200
	}
	return len(p), nil
}
func (d *discardWriter) WriteHeader(status int) { d.status = status }
