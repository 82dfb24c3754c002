package commands

import (
	"errors"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
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

// AppIDInUseError: the X-APP-ID of a new application (its idA2A) or
// operator (its principal) names another principal already (HTTP 409, as
// ErrPrincipalInUse, which it wraps). Field is the field that holds it:
// "idA2A" for an application, "principal" for an operator.
type AppIDInUseError struct {
	Field string
	ID    string
}

func (e *AppIDInUseError) Error() string {
	return fmt.Sprintf("%v: %s (an X-APP-ID of another principal)", ErrPrincipalInUse, e.ID)
}

func (e *AppIDInUseError) Unwrap() error { return ErrPrincipalInUse }

// appIDInUse is the AppIDInUseError of the application idA2A id or the
// operator id, by kind.
func appIDInUse(kind domain.PrincipalKind, id string) error {
	if kind == domain.KindApplication {
		return &AppIDInUseError{Field: "idA2A", ID: id}
	}
	return &AppIDInUseError{Field: "principal", ID: id}
}

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

// StaleError is a write computed from a state of its aggregate older than
// the latest commit on its stream, at At (a PATCH of a registry entry read
// on a replica that had not applied that commit, a console form opened
// before it, see based): nothing was
// written. The caller reads the state at At and computes the write again;
// it is ErrConflict (HTTP 409) when it gives up.
type StaleError struct{ At events.Position }

func (e *StaleError) Error() string {
	return fmt.Sprintf("the write was computed from a state before the commit at %d", e.At)
}

func (e *StaleError) Unwrap() error { return ErrConflict }
