package events

import "sync"

// Shutdown is a store's closed state, one for every backend: Once runs the
// release of the first Close and marks the store closed, after which
// Closed is true and Done is closed, and the store returns ErrClosed. The
// zero Shutdown is an open store's.
type Shutdown struct {
	made, once sync.Once
	done       chan struct{}
}

// ch returns the channel Once closes, made on first use.
func (s *Shutdown) ch() chan struct{} {
	s.made.Do(func() { s.done = make(chan struct{}) })
	return s.done
}

// Once marks the store closed and runs release, the first time only.
func (s *Shutdown) Once(release func()) {
	s.once.Do(func() {
		close(s.ch())
		release()
	})
}

// Done is closed once the store is closed.
func (s *Shutdown) Done() <-chan struct{} { return s.ch() }

// Closed reports whether the store is closed, without blocking.
func (s *Shutdown) Closed() bool {
	select {
	case <-s.ch():
		return true
	default:
		return false
	}
}
