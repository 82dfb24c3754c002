package audit

import "errors"

var (
	// ErrUnknownOperation is returned for an operation that is not in the
	// catalogue of the named API.
	ErrUnknownOperation = errors.New("audit: unknown operation")
	// ErrBadQuery is returned for a query missing what its operation needs
	// (wrapped with which field).
	ErrBadQuery = errors.New("audit: bad query")
)
