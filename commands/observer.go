package commands

import (
	"time"
)

// Observer is told about every append a Handler makes, for metrics. Its
// methods are called from the goroutine executing the command and must
// not block.
type Observer interface {
	// Appended reports one append: how long the store took and its
	// error (nil, one matching events.ErrConflict, or another failure).
	Appended(d time.Duration, err error)
	// Retried reports that a command re-loads and re-decides after a
	// conflict (at most MaxConflictRetries times per command).
	Retried()
}

// SetObserver makes o the observer of every later append (nil: none). It
// is safe to call while commands run.
func (h *Handler) SetObserver(o Observer) {
	if o == nil {
		h.observer.Store(nil)
		return
	}
	h.observer.Store(&o)
}

func (h *Handler) observeAppend(d time.Duration, err error) {
	if o := h.observer.Load(); o != nil {
		(*o).Appended(d, err)
	}
}

func (h *Handler) observeRetry() {
	if o := h.observer.Load(); o != nil {
		(*o).Retried()
	}
}

// HashBudget bounds the password hashes commands compute at once: each is
// an argon2id run of 19 MiB, as a verification is, so a caller that may
// send passwords (an operator changing its own, over and over, at once)
// cannot make them hold the memory a flood of logins may not.
type HashBudget interface {
	// AdmitHash takes a slot for one hash and returns its release, or
	// refuses (the command fails with that error and writes nothing).
	AdmitHash() (release func(), err error)
}

// SetHashBudget makes b the budget of every later password hash (nil:
// none, every hash runs at once). It is safe to call while commands run.
func (h *Handler) SetHashBudget(b HashBudget) {
	if b == nil {
		h.hashes.Store(nil)
		return
	}
	h.hashes.Store(&b)
}
