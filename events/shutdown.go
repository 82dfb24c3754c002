package events

import "sync"

// Shutdown is a store's closed state, one for every backend: Once runs the
// release of the first Close and marks the store closed, after which
// Closed is true and Done is closed, and the store returns ErrClosed.
type Shutdown struct {
	once sync.Once
	done chan struct{}
}

// NewShutdown returns the state of a store that is open.
func NewShutdown() *Shutdown { return &Shutdown{done: make(chan struct{})} }

// Once marks the store closed and runs release, the first time only.
func (s *Shutdown) Once(release func()) {
	s.once.Do(func() {
		close(s.done)
		release()
	})
}

// Done is closed once the store is closed.
func (s *Shutdown) Done() <-chan struct{} { return s.done }

// Closed reports whether the store is closed, without blocking.
func (s *Shutdown) Closed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}
