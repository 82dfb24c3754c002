package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// floodRun is one run of the password-flood load: flooders send wrong
// passwords for made-up principals while legit clients make authorized
// requests with a verified credential.
type floodRun struct {
	flooders      int
	floodAddrs    int // distinct loopback source addresses the flooders use (1: all from 127.0.0.1)
	legit         int
	legitRequests int // per legit client
	maxFlood      int // per flooder, a bound on the run
}

type floodResult struct {
	legitStatus map[int]int
	floodStatus map[int]int
	latencies   []time.Duration // legit, sorted
	peakRSSKiB  int64
	elapsed     time.Duration
}

func (r floodResult) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(float64(len(r.latencies))*p))]
}

func (r floodResult) String() string {
	return fmt.Sprintf("legit p50=%s p99=%s statuses=%v | flood statuses=%v | peak RSS=%d MiB | %s",
		r.percentile(0.50).Round(10*time.Microsecond), r.percentile(0.99).Round(10*time.Microsecond),
		r.legitStatus, r.floodStatus, r.peakRSSKiB/1024, r.elapsed.Round(time.Millisecond))
}

// procStatusKiB reads a "Name:   123 kB" line of /proc/self/status.
func procStatusKiB(name string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return -1
}

// resetPeakRSS resets VmHWM to the current RSS (Linux: clear_refs 5).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// floodClient is an HTTP client bound to a loopback source address.
func floodClient(local string, conns int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: conns},
		Timeout: 30 * time.Second}
}

// runFlood sets up an application with a verified credential and runs r
// against h.
func runFlood(t testing.TB, h *harness, r floodRun) floodResult {
	t.Helper()
	const app, pw = "floodLegit", "legit-password-1"
	if _, ok := h.model.Application(app); !ok {
		h.putApp(t, app, app, pw, true, apiGrant("PENDENZE", []string{"*"}, []string{"*"}))
	}
	url := h.httpURL + "/pendenze/rs/basic/v2/pendenze"
	legitClient := floodClient("127.0.0.1", r.legit)
	get := func(c *http.Client, user, pass string) (int, error) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.SetBasicAuth(user, pass)
		res, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		return res.StatusCode, nil
	}
	if st, err := get(legitClient, app, pw); err != nil || st != http.StatusOK {
		t.Fatalf("legit warm-up: %d %v", st, err)
	}

	var (
		mu     sync.Mutex
		res    = floodResult{legitStatus: map[int]int{}, floodStatus: map[int]int{}}
		stop   atomic.Bool
		peak   atomic.Int64
		wg     sync.WaitGroup
		floods sync.WaitGroup
	)
	runtime.GC()
	resetPeakRSS()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // sample RSS; VmHWM catches what sampling misses
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
				if v := procStatusKiB("VmRSS"); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	start := time.Now()
	clients := make([]*http.Client, max(1, r.floodAddrs))
	for i := range clients {
		clients[i] = floodClient(fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250), r.flooders)
	}
	if r.floodAddrs == 1 {
		clients[0] = floodClient("127.0.0.1", r.flooders)
	}
	for i := range r.flooders {
		floods.Add(1)
		go func() {
			defer floods.Done()
			c := clients[i%len(clients)]
			local := map[int]int{}
			for n := 0; n < r.maxFlood && !stop.Load(); n++ {
				st, err := get(c, fmt.Sprintf("nouser%d-%d", i, n), "x")
				if err != nil {
					st = -1
				}
				local[st]++
			}
			mu.Lock()
			for k, v := range local {
				res.floodStatus[k] += v
			}
			mu.Unlock()
		}()
	}
	if r.flooders > 0 {
		time.Sleep(200 * time.Millisecond) // let the flood build up
	}
	for range r.legit {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[int]int{}
			lat := make([]time.Duration, 0, r.legitRequests)
			for range r.legitRequests {
				t0 := time.Now()
				st, err := get(legitClient, app, pw)
				lat = append(lat, time.Since(t0))
				if err != nil {
					st = -1
				}
				local[st]++
			}
			mu.Lock()
			for k, v := range local {
				res.legitStatus[k] += v
			}
			res.latencies = append(res.latencies, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	stop.Store(true)
	floods.Wait()
	res.elapsed = time.Since(start)
	cancel()
	res.peakRSSKiB = max(peak.Load(), procStatusKiB("VmHWM"))
	sort.Slice(res.latencies, func(i, j int) bool { return res.latencies[i] < res.latencies[j] })
	return res
}

// checkFlood asserts the qualitative outcome of a flood: every legit
// request succeeded and the flood got only 401 and 429.
func checkFlood(t *testing.T, r floodResult) {
	t.Helper()
	for st, n := range r.legitStatus {
		if st != http.StatusOK {
			t.Errorf("legit requests answered %d (%d times)", st, n)
		}
	}
	for st, n := range r.floodStatus {
		if st != http.StatusUnauthorized && st != http.StatusTooManyRequests {
			t.Errorf("flood answered %d (%d times)", st, n)
		}
	}
}

// TestPasswordFloodAnsweredWith401Or429 is a small flood (bounded in count)
// from one address and from many: the flood is refused with 401 or 429
// only, and legitimate requests with a verified credential all succeed.
func TestPasswordFloodAnsweredWith401Or429(t *testing.T) {
	h := newHarness(t, withLoginThrottle())
	for _, c := range []struct {
		name string
		run  floodRun
	}{
		{"one_address", floodRun{flooders: 16, floodAddrs: 1, legit: 2, legitRequests: 50, maxFlood: 60}},
		{"many_addresses", floodRun{flooders: 16, floodAddrs: 16, legit: 2, legitRequests: 50, maxFlood: 10}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runFlood(t, h, c.run)
			checkFlood(t, r)
			if r.floodStatus[http.StatusTooManyRequests] == 0 {
				t.Errorf("no flood request was refused with 429: %v", r.floodStatus)
			}
			t.Log(r)
		})
	}
}

// TestPasswordFloodFigures is the load measurement of issue 14: 96 clients
// sending wrong passwords while 8 make authorized requests, beside the same
// run without the flood. It reports figures rather than failing on them;
// opt in with PAYAUTHZ_FLOOD=1 (it takes about a minute on two cores):
//
//	PAYAUTHZ_FLOOD=1 go test ./http -run TestPasswordFloodFigures -count=1 -v
func TestPasswordFloodFigures(t *testing.T) {
	if os.Getenv("PAYAUTHZ_FLOOD") == "" {
		t.Skip("set PAYAUTHZ_FLOOD=1 to run the password-flood load measurement")
	}
	h := newHarness(t, withDecisionLog(nil), withLoginThrottle())
	runs := []struct {
		name string
		run  floodRun
	}{
		{"no_flood", floodRun{legit: 8, legitRequests: 2000}},
		{"flood_one_address", floodRun{flooders: 96, floodAddrs: 1, legit: 8, legitRequests: 2000, maxFlood: 100000}},
		{"flood_96_addresses", floodRun{flooders: 96, floodAddrs: 96, legit: 8, legitRequests: 2000, maxFlood: 100000}},
	}
	for _, c := range runs {
		r := runFlood(t, h, c.run)
		checkFlood(t, r)
		t.Logf("%-20s %s", c.name, r)
	}
}

// TestFailedLoginsThrottledWithoutLockingOut: wrong passwords for a
// principal from one address are refused with 429 and Retry-After after
// the per-(principal, address) burst, without running argon2id; the same
// principal's right password from another address still authenticates,
// and a credential already verified is never throttled.
func TestFailedLoginsThrottledWithoutLockingOut(t *testing.T) {
	h := newHarness(t, withLoginThrottle())
	const pw = "victim-password-1"
	h.putApp(t, "victim", "victim", pw, true, apiGrant("PENDENZE", []string{"*"}, []string{"*"}))
	h.putApp(t, "other", "other", pw, true, apiGrant("PENDENZE", []string{"*"}, []string{"*"}))
	pe := "/pendenze/rs/basic/v2/pendenze"
	h.do(t, "GET", pe, nil, asBasic("other", pw), fromLocalAddr("127.0.0.3")).expect(t, 200, "") // verified and cached
	for i := range DefaultFailedLoginsPerPrincipal {
		h.do(t, "GET", pe, nil, asBasic("victim", fmt.Sprintf("wrong-%d", i)), fromLocalAddr("127.0.0.3")).expect(t, 401, "401000")
	}
	res := h.do(t, "GET", pe, nil, asBasic("victim", "wrong-again"), fromLocalAddr("127.0.0.3"))
	res.expect(t, 429, "429000")
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// The attacker's address cannot verify even the right password now...
	h.do(t, "GET", pe, nil, asBasic("victim", pw), fromLocalAddr("127.0.0.3")).expect(t, 429, "429000")
	// ...but the victim, from its own address, is not locked out,
	h.do(t, "GET", pe, nil, asBasic("victim", pw), fromLocalAddr("127.0.0.4")).expect(t, 200, "")
	// and a verified credential passes from the attacker's address too.
	h.do(t, "GET", pe, nil, asBasic("other", pw), fromLocalAddr("127.0.0.3")).expect(t, 200, "")
	h.do(t, "GET", pe, nil, asBasic("victim", pw), fromLocalAddr("127.0.0.3")).expect(t, 200, "")
	// An unknown principal is throttled like a wrong password.
	for range DefaultFailedLoginsPerPrincipal {
		h.do(t, "GET", pe, nil, asBasic("ghost", "x"), fromLocalAddr("127.0.0.5")).expect(t, 401, "401000")
	}
	h.do(t, "GET", pe, nil, asBasic("ghost", "x"), fromLocalAddr("127.0.0.5")).expect(t, 429, "429000")
	metrics := string(h.do(t, "GET", "/metrics", nil).Body)
	for _, want := range []string{`payauthz_login_failures_total{reason="throttled"}`, `payauthz_login_failures_total{reason="wrong_credentials"} 10`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
