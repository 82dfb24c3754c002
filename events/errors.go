package events

import (
	"errors"
	"sync"
)

var (
	// ErrConflict is returned by Store.Append when the stream's version is
	// not the expected one. Every backend maps its own conflict error to it.
	ErrConflict = errors.New("events: wrong expected stream version")
	// ErrUnknownEvent is returned by the codec for an event name that is not
	// registered.
	ErrUnknownEvent = errors.New("events: unknown event name")
	// ErrDecode is returned by the codec for a payload that does not decode.
	ErrDecode = errors.New("events: bad event payload")
	// ErrUnavailable is returned when the store cannot be reached.
	ErrUnavailable = errors.New("events: store unavailable")
	// ErrClosed is returned by a Store after Close.
	ErrClosed = errors.New("events: store closed")
	// ErrTooLarge is returned by Store.Append for a commit larger than the
	// backend accepts in one message; nothing is written.
	ErrTooLarge = errors.New("events: commit too large for the store")
	// ErrReadOnly is returned by Append on a store opened read-only.
	ErrReadOnly = errors.New("events: store opened read-only")
)

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
