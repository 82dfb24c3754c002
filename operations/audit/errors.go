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

// QueryError is ErrBadQuery for a value its operation cannot read, or a
// query naming nothing its operation decides about. Code says which, for
// a client that words it itself (the console, in Italian): one of the
// Query* codes, its Args the values that code documents; Detail is the
// English its Error says after ErrBadQuery's, which the Args never change.
type QueryError struct {
	Code   string
	Args   []any
	Detail string
}

// Codes of QueryError, with the Args each carries.
const (
	QueryUnknownService = "unknown-servizio"       // the servizio given
	QueryUnknownRight   = "unknown-autorizzazione" // the autorizzazione given
	QueryNoPayment      = "no-payment"             // none: no pendenza, notice or spontaneous payment named
)

func (e *QueryError) Error() string { return fmt.Sprintf("%v: %s", ErrBadQuery, e.Detail) }

// Unwrap makes it ErrBadQuery.
func (e *QueryError) Unwrap() error { return ErrBadQuery }
