package projections

import (
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
)

// refusingGate refuses every verification; the first (from "leader") only
// once the test lets it go on.
type refusingGate struct {
	asked   chan struct{}
	release chan struct{}
	byFrom  [2]atomic.Int32
}

var errRefused = errors.New("throttled")

func (g *refusingGate) Admit(from, _ string, _ bool) (func(bool), error) {
	if from == "leader" {
		g.byFrom[0].Add(1)
		if g.byFrom[0].Load() == 1 {
			g.asked <- struct{}{}
			<-g.release
		}
	} else {
		g.byFrom[1].Add(1)
	}
	return nil, errRefused
}

// waitingInSingleflight reports whether a goroutine waits for another's
// verification (it joined a singleflight call in flight).
func waitingInSingleflight() bool {
	buf := make([]byte, 1<<20)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "singleflight.(*Group).Do") && strings.Contains(g, "WaitGroup).Wait") {
			return true
		}
	}
	return false
}

// TestSharedRefusalAsksTheGateOncePerRequest: a verification the gate
// refused, that another request joined, is refused to the request that
// asked (its refusal counted once) and asked for again by the one that
// joined; the request that asked must not ask the gate a second time
// (one refusal counted twice, or admitted on its second try).
func TestSharedRefusalAsksTheGateOncePerRequest(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.ApplicationRegistered{IDA2A: "a", Principal: "a", PasswordHash: mustHash(t, "password-1"), Enabled: true})
	g := &refusingGate{asked: make(chan struct{}), release: make(chan struct{})}
	leader := make(chan error)
	go func() {
		_, err := m.AuthenticateGated(g, "leader", "a", "password-1")
		leader <- err
	}()
	<-g.asked
	follower := make(chan error)
	go func() {
		_, err := m.AuthenticateGated(g, "follower", "a", "password-1")
		follower <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); !waitingInSingleflight(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second request never joined the verification in flight")
		}
	}
	close(g.release)
	if err := <-leader; !errors.Is(err, errRefused) {
		t.Fatalf("the request the gate refused: %v, want the refusal", err)
	}
	if err := <-follower; !errors.Is(err, errRefused) {
		t.Fatalf("the request that joined: %v, want its own refusal", err)
	}
	if l, fo := g.byFrom[0].Load(), g.byFrom[1].Load(); l != 1 || fo != 1 {
		t.Fatalf("gate asked %d times for the first request, %d for the one that joined; want 1 and 1", l, fo)
	}
}
