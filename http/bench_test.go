package httpapi

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v5"
)

// BenchmarkAuthorizedGet measures an authorized GET of a pendenza on the
// Pendenze API (basic authentication from the verified-credential cache,
// principal lookup, ownership decision, JSON) against a bare Echo handler
// returning the same JSON, both over real HTTP on loopback in the same
// run. It reports requests/s and p50/p99 latency.
func BenchmarkAuthorizedGet(b *testing.B) {
	w := newWorld(b)
	w.createPendenza(b, "appA", "bench1", d1, t1, citizen1)
	path := pe + "/pendenze/appA/bench1"
	r := w.do(b, "GET", path, nil, as("appA"))
	if r.Status != 200 {
		b.Fatalf("setup: %d %s", r.Status, r.Body)
	}
	body := r.Body

	bare := echo.New()
	bare.GET(path, func(c *echo.Context) error { return c.JSONBlob(200, body) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: bare}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Shutdown(context.Background())

	auth := basicHeader("appA", pw)
	b.Run("payauthz_authorized", func(b *testing.B) { loadHTTP(b, w.httpURL+path, auth) })
	b.Run("bare_echo", func(b *testing.B) { loadHTTP(b, "http://"+ln.Addr().String()+path, auth) })
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
			start := time.Now()
			res, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				b.Errorf("status %d", res.StatusCode)
				return
			}
			local = append(local, time.Since(start))
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
