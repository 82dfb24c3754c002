package audit

import (
	"errors"
	"fmt"
)

var (
	// ErrUnknownOperation is returned for an operation that is not in the
	// catalogue of the named API.
	ErrUnknownOperation = errors.New("audit: unknown operation")
	// ErrBadQuery is returned for a query missing what its operation needs
	// (wrapped with which field).
	ErrBadQuery = errors.New("audit: bad query")
	// ErrBusy is returned for a who-can that commits kept interrupting on
	// the live read models: its answer would not be one position's. Ask
	// again, or at a position (posizione).
	ErrBusy = errors.New("audit: the log moved on while the answer was read; ask again, or at a posizione")
)

// MissingFieldError is ErrBadQuery for a query that left empty a field its
// operation needs: Field is the field's wire name (Resource's JSON name).
type MissingFieldError struct{ Field string }

func (e *MissingFieldError) Error() string {
	return fmt.Sprintf("%v: %s is required", ErrBadQuery, e.Field)
}

// Unwrap makes it ErrBadQuery.
func (e *MissingFieldError) Unwrap() error { return ErrBadQuery }
