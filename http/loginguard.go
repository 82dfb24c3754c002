package httpapi

import (
	"context"
	"log/slog"
	"math"
	"net/netip"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
)

// Password-verification limits. A verification (argon2id, 19 MiB, about
// 30–60 ms of one core) runs only for a credential the read model has not
// verified before, so these limits touch failed and first logins, never a
// caller whose credential is already verified.
const (
	// passwordWait is how long a verification waits for a free slot of the
	// budget before it is refused with 429.
	passwordWait = 200 * time.Millisecond
	// argon2MemoryPerVerification is what one verification allocates, for
	// the memory side of the automatic budget.
	argon2MemoryPerVerification = 20 << 20
	// passwordMemoryBudget bounds the memory verifications hold at once
	// when the budget is chosen automatically.
	passwordMemoryBudget = 256 << 20

	// Failed verifications per client address refill at one per second,
	// per (principal, client address) at one every 5 seconds.
	addrFailRate      = rate.Limit(1)
	principalFailRate = rate.Limit(0.2)
	// throttleEntries bounds each throttle table; see limiterTable.
	throttleEntries = 65536
	// loggedPrincipalBytes is how much of a registered principal's name a
	// failed-login log line keeps.
	loggedPrincipalBytes = 64
)

// Default bursts of failed verifications (see Config).
const (
	DefaultFailedLoginsPerAddress   = 30
	DefaultFailedLoginsPerPrincipal = 5
)

// DefaultPasswordVerifications is the automatic budget of concurrent
// password verifications: half the usable cores (at least one), so that
// authorized traffic keeps the other half, and no more than a 256 MiB
// memory budget allows.
func DefaultPasswordVerifications() int {
	n := max(1, runtime.GOMAXPROCS(0)/2)
	return min(n, passwordMemoryBudget/argon2MemoryPerVerification)
}

// tooManyRequests is a password verification refused by the budget or the
// throttle (429 with Retry-After).
type tooManyRequests struct {
	retryAfter time.Duration
	reason     string
}

func (e *tooManyRequests) Error() string { return "too many requests: " + e.reason }

// retryAfterSeconds is the Retry-After value: whole seconds, at least 1.
func (e *tooManyRequests) retryAfterSeconds() string {
	return strconv.Itoa(max(1, int(math.Ceil(e.retryAfter.Seconds()))))
}

// loginGuard is the server's projections.Gate: a budget of concurrent
// password verifications and two throttles of failed ones.
//
// Why these throttles: failures are counted per client address (a flood
// from one address stops costing argon2id after 30 failures) and per
// (principal, client address), each verification in flight counting as a
// failure until it ends (limiterTable.start), so that attempts sent at
// once cannot exceed the bursts. There is deliberately no throttle per
// principal alone: it would let anyone lock a user out from anywhere by
// sending wrong passwords for its name. A refused attempt costs no hash, a
// credential already verified is never throttled (it never reaches the
// guard), and a drained bucket refills in seconds (1 s per address, 5 s
// per principal and address), so the longest lock-out an attacker can cause
// is to callers sharing its own address, for as long as it keeps failing
// plus a few seconds. Brute force from many addresses is bounded by the
// budget: at most N verifications at once, whatever their origin.
type loginGuard struct {
	slots  chan struct{}
	wait   time.Duration
	addrs  *limiterTable
	pairs  *limiterTable
	logger *slog.Logger
	failed *prometheus.CounterVec // reason
}

func newLoginGuard(cfg Config, logger *slog.Logger, reg prometheus.Registerer) *loginGuard {
	n := cfg.PasswordVerifications
	if n <= 0 {
		n = DefaultPasswordVerifications()
	}
	addrBurst, pairBurst := cfg.FailedLoginsPerAddress, cfg.FailedLoginsPerPrincipal
	if addrBurst <= 0 {
		addrBurst = DefaultFailedLoginsPerAddress
	}
	if pairBurst <= 0 {
		pairBurst = DefaultFailedLoginsPerPrincipal
	}
	g := &loginGuard{slots: make(chan struct{}, n), wait: passwordWait, logger: logger,
		addrs: newLimiterTable(addrFailRate, addrBurst, throttleEntries),
		pairs: newLimiterTable(principalFailRate, pairBurst, throttleEntries)}
	g.failed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payauthz_login_failures_total",
		Help: "Failed password logins by reason (wrong_credentials, throttled, busy).",
	}, []string{"reason"})
	for _, r := range []string{"wrong_credentials", "throttled", "busy"} {
		g.failed.WithLabelValues(r)
	}
	reg.MustRegister(g.failed)
	return g
}

// Admit implements projections.Gate. The throttles key an unregistered
// name as they key a registered one; the 'login failed' line names only a
// registered principal, as the decision log names no unverified caller:
// another name is the caller's to choose, a password typed in the wrong
// field among them (TestFailedLoginLogNamesRegisteredPrincipalsOnly).
func (g *loginGuard) Admit(from, principal string, registered bool) (func(bool), error) {
	addrKey := clientKey(from)
	pairKey := addrKey + "\x00" + truncateUTF8(principal, loggedPrincipalBytes)
	now := time.Now()
	// Each attempt admitted counts against both buckets until it ends, as
	// the failure it may be: attempts sent at once cannot all pass the
	// throttles because none of them had failed yet.
	d := g.addrs.start(addrKey, now)
	if d == 0 {
		if d = g.pairs.start(pairKey, now); d > 0 {
			g.addrs.end(addrKey, now, false)
		}
	} else {
		d = max(d, g.pairs.delay(pairKey, now))
	}
	if d > 0 {
		g.failed.WithLabelValues("throttled").Inc()
		return nil, &tooManyRequests{retryAfter: d, reason: "failed logins throttled"}
	}
	if !g.acquire() {
		g.addrs.end(addrKey, now, false)
		g.pairs.end(pairKey, now, false)
		g.failed.WithLabelValues("busy").Inc()
		return nil, &tooManyRequests{retryAfter: time.Second, reason: "password verification budget exhausted"}
	}
	return func(ok bool) {
		<-g.slots
		now := time.Now()
		g.addrs.end(addrKey, now, !ok)
		g.pairs.end(pairKey, now, !ok)
		if ok {
			return
		}
		g.failed.WithLabelValues("wrong_credentials").Inc()
		named := ""
		if registered {
			named = strconv.Quote(truncateUTF8(principal, loggedPrincipalBytes))
		}
		g.logger.LogAttrs(context.Background(), slog.LevelWarn, "login failed",
			slog.String("principal", named), slog.String("client", from))
	}, nil
}

// AdmitHash implements commands.HashBudget: a password or API key a write
// carries is hashed in a slot of the same budget, without the throttles
// (the caller is authenticated and authorized by then).
func (g *loginGuard) AdmitHash() (func(), error) {
	if !g.acquire() {
		return nil, &tooManyRequests{retryAfter: time.Second, reason: "password hashing budget exhausted"}
	}
	return func() { <-g.slots }, nil
}

// acquire takes a slot of the budget, waiting up to g.wait for one; false
// when none freed.
func (g *loginGuard) acquire() bool {
	select {
	case g.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// clientKey is the throttle key of a RemoteAddr: its IP address, an IPv6
// address reduced to its /64 (one subscriber's usual allocation).
func clientKey(remoteAddr string) string {
	a, ok := remoteIP(remoteAddr)
	if !ok {
		return truncateUTF8(remoteAddr, 64)
	}
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// remoteIP is the IP address of a RemoteAddr (host:port), an IPv4-mapped
// IPv6 address as IPv4; false when it is not an address and port.
func remoteIP(remoteAddr string) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}

// truncateUTF8 returns at most n bytes of s, cut on a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// limiterTable holds one token bucket of failures per key, at most max
// keys. A key whose bucket is full again, with no attempt in flight, is
// indistinguishable from a new one, so when the table is full such keys
// are dropped; if that frees too little (a flood from more addresses than
// the table holds), the table is reset: the budget still bounds the cost
// of what gets through.
type limiterTable struct {
	mu    sync.Mutex
	m     map[string]*bucket // guarded by mu
	limit rate.Limit
	burst int
	max   int
}

// bucket is one key's token bucket and its attempts in flight.
type bucket struct {
	*rate.Limiter
	// pending counts the attempts started (start) and not yet ended: each
	// may yet fail, so each holds a token back from the next attempt.
	pending int
}

func newLimiterTable(limit rate.Limit, burst, maxKeys int) *limiterTable {
	return &limiterTable{m: map[string]*bucket{}, limit: limit, burst: burst, max: maxKeys}
}

// delay returns how long until key may fail once more; 0 when it may now.
func (t *limiterTable) delay(key string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, ok := t.m[key]
	if !ok {
		return 0
	}
	return t.wait(b, now)
}

// start admits one attempt of key that may fail, returning 0, when the
// bucket holds a token for it beside those the attempts in flight may
// take; otherwise it admits nothing and returns how long until it may be
// asked again. An admitted attempt must end (end).
func (t *limiterTable) start(key string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.bucket(key, now)
	if d := t.wait(b, now); d > 0 {
		return d
	}
	b.pending++
	return 0
}

// end ends an attempt start admitted; a failed one takes its token
// (attempts admitted together may push the bucket slightly below zero).
func (t *limiterTable) end(key string, now time.Time, failed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b, ok := t.m[key]; ok && b.pending > 0 {
		b.pending-- // a reset table (sweep) forgot it
	}
	if failed {
		t.bucket(key, now).ReserveN(now, 1)
	}
}

// take spends one token of key's bucket and returns 0 when there is one;
// otherwise it spends nothing and returns how long until there is:
// concurrent callers cannot overspend the budget.
func (t *limiterTable) take(key string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.bucket(key, now)
	if d := t.wait(b, now); d > 0 {
		return d
	}
	b.ReserveN(now, 1)
	return 0
}

// bucket returns key's bucket, made full when key has none; mu held.
func (t *limiterTable) bucket(key string, now time.Time) *bucket {
	b, ok := t.m[key]
	if !ok {
		if len(t.m) >= t.max {
			t.sweep(now)
		}
		b = &bucket{Limiter: rate.NewLimiter(t.limit, t.burst)}
		t.m[key] = b
	}
	return b
}

// wait is how long until b holds a whole token beside those its attempts
// in flight may take; 0 when it does now. Attempts in flight alone
// refusing it, it is a second: they end within one verification.
func (t *limiterTable) wait(b *bucket, now time.Time) time.Duration {
	tokens := b.TokensAt(now)
	if tokens-float64(b.pending) >= 1 {
		return 0
	}
	if tokens >= 1 {
		return time.Second
	}
	return time.Duration((1 - tokens) / float64(t.limit) * float64(time.Second))
}

// sweep drops the keys whose bucket is full and that have no attempt in
// flight; mu held.
func (t *limiterTable) sweep(now time.Time) {
	for k, b := range t.m {
		if b.pending == 0 && b.TokensAt(now) >= float64(t.burst) {
			delete(t.m, k)
		}
	}
	if len(t.m) > t.max*3/4 {
		t.m = map[string]*bucket{}
	}
}
