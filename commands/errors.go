package commands

import (
	"errors"
	"fmt"

	"github.com/payauthz/payauthz/operations"
)

var (
	// ErrPrincipalInUse: the principal already belongs to another
	// application or operator (HTTP 409).
	ErrPrincipalInUse = errors.New("principal already in use")
	// ErrConflict: a write that retries could not resolve, or a repeat
	// that disagrees with what is stored (HTTP 409).
	ErrConflict = errors.New("conflicting write")
	// ErrNotFound: the resource does not exist (HTTP 404).
	ErrNotFound = errors.New("not found")
)

// InvalidError is malformed input: a bad id, a missing or invalid field
// (HTTP 400, SINTASSI).
type InvalidError struct {
	Field  string
	Detail string
}

func (e *InvalidError) Error() string { return fmt.Sprintf("invalid %s: %s", e.Field, e.Detail) }

func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Detail: fmt.Sprintf(format, args...)}
}

// UnprocessableError is well-formed but semantically invalid input: an
// unknown or disabled entity or type, an amount not above zero (HTTP 422).
// It is the operations layer's, which answers it for references too.
type UnprocessableError = operations.UnprocessableError

func unprocessable(format string, args ...any) error {
	return operations.Unprocessable(format, args...)
}
