package eventstoretest

import (
	"sync"
	"testing"

	"github.com/payauthz/payauthz/events"
)

// Server is a test server (a container, or one named by the environment)
// started at most once for a package's tests, on the first test that asks
// for it, and stopped by the package's TestMain after m.Run.
type Server struct {
	// Name is how failures name the server ("NATS container").
	Name string
	// Start starts the server and returns its URL; or a reason to skip
	// (no Docker engine, no image) and no error; stop may be nil.
	Start func() (url, skip string, stop func(), err error)

	once      sync.Once
	url, skip string
	err       error
	stop      func()
}

// URL returns the server's URL, starting it on the first call; it fails
// the test when the server cannot start and skips it, saying why, when the
// server is not available here.
func (s *Server) URL(t *testing.T) string {
	t.Helper()
	s.once.Do(func() { s.url, s.skip, s.stop, s.err = s.Start() })
	if s.err != nil {
		t.Fatalf("%s: %v", s.Name, s.err)
	}
	if s.skip != "" {
		t.Skip(s.skip)
	}
	return s.url
}

// Stop stops the server if it was started.
func (s *Server) Stop() {
	if s.stop != nil {
		s.stop()
	}
}

// HarnessFunc is a Harness made of one function: it sets up a fresh, empty
// log and returns how to open a store over it; the store is opened at once,
// again on Reopen, and closed when the test ends.
type HarnessFunc func(t *testing.T) (open func(t *testing.T) events.Store)

// Open sets up a fresh log and opens a store over it.
func (f HarnessFunc) Open(t *testing.T) Reopener {
	open := f(t)
	l := &reopenable{open: open, store: open(t)}
	t.Cleanup(func() { _ = l.store.Close() })
	return l
}

type reopenable struct {
	open  func(t *testing.T) events.Store
	store events.Store
}

func (l *reopenable) Store() events.Store { return l.store }

func (l *reopenable) Reopen(t *testing.T) events.Store {
	_ = l.store.Close()
	l.store = l.open(t)
	return l.store
}
