package httpapi

import (
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestFailedLoginBurstHoldsUnderConcurrency: the throttles bound the
// verifications one client address can make fail for one principal to the
// burst ("Limits": 5 per principal and address), also when the attempts
// come at once: wrong passwords sent together must not all pass the
// throttle because none of them had failed yet when each was admitted.
func TestFailedLoginBurstHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	const attempts = 64
	g := newLoginGuard(Config{Limits: Limits{PasswordVerifications: 4}}, slog.New(slog.NewTextHandler(io.Discard, nil)), prometheus.NewRegistry())
	var admitted atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range attempts {
		wg.Go(func() {
			<-start
			done, err := g.Admit("192.0.2.7:4444", "victim", true)
			if err != nil {
				return
			}
			admitted.Add(1)
			time.Sleep(20 * time.Millisecond) // argon2id, failing
			done(false)
		})
	}
	close(start)
	wg.Wait()
	if n := admitted.Load(); n > DefaultFailedLoginsPerPrincipal {
		t.Fatalf("%d of %d concurrent wrong passwords from one address for one principal were verified, want at most the burst %d",
			n, attempts, DefaultFailedLoginsPerPrincipal)
	}
}
