package audit

import "errors"

var (
	// ErrUnknownOperation is returned for an operation that is not in the
	// catalogue of the named API.
	ErrUnknownOperation = errors.New("audit: unknown operation")
	// ErrBadQuery is returned for a query missing what its operation needs
	// (wrapped with which field).
	ErrBadQuery = errors.New("audit: bad query")
	// errNotFound ends an operation whose resource does not exist after
	// every check that precedes existence passed (the HTTP 404).
	errNotFound = errors.New("audit: resource not found")
)
