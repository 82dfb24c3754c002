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

// NoticeInUseError: the notice number a pendenza would hold at an entity
// is another pendenza's there (HTTP 409, as ErrConflict, which it wraps:
// the caller learns the number is taken, not that a write raced it).
type NoticeInUseError struct {
	IDDominio    string
	NumeroAvviso string
}

func (e *NoticeInUseError) Error() string {
	return fmt.Sprintf("%v: numeroAvviso %s is already used at idDominio %s", ErrConflict, e.NumeroAvviso, e.IDDominio)
}

func (e *NoticeInUseError) Unwrap() error { return ErrConflict }

// InvalidError is malformed input: a bad id, a missing or invalid field
// (HTTP 400, SINTASSI).
type InvalidError struct {
	Field  string
	Detail string
	// Code names the check Detail reports, for a client that words it
	// itself (the console, in Italian): one of the Invalid* codes, or ""
	// for a check only Detail words. Args are the values its code
	// documents; they never change Detail.
	Code string
	Args []any
}

func (e *InvalidError) Error() string { return fmt.Sprintf("invalid %s: %s", e.Field, e.Detail) }

func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Detail: fmt.Sprintf(format, args...)}
}

// invalidAs is invalid with the check's code and its Args (args).
func invalidAs(code, field, format string, args ...any) error {
	return &InvalidError{Field: field, Detail: fmt.Sprintf(format, args...), Code: code, Args: args}
}

// Codes of InvalidError, with the Args each carries.
const (
	InvalidDominio       = "dominio"        // not 11 digits
	InvalidID            = "id"             // not [A-Za-z0-9_.-]{1,35}, or . or ..
	InvalidPasswordShort = "password-short" // min: fewer characters
	InvalidPasswordLong  = "password-long"  // max: more bytes
	InvalidRequiredChars = "required-chars" // max: empty or more characters
	InvalidRequiredBytes = "required-bytes" // max: empty or more bytes
	InvalidRequired      = "required"       // empty
	InvalidUTF8          = "utf8"           // not valid UTF-8
	InvalidControl       = "control"        // holds control characters
	InvalidPasswordColon = "password-colon" // a principal holding ':' given a password
	InvalidTooLong       = "too-long"       // max: more characters
	InvalidLength        = "length"         // min, max: not that many characters
	InvalidListLength    = "list-length"    // max: more entries
	InvalidWildcard      = "wildcard"       // "*" with other entries
	InvalidBadID         = "bad-id"         // the id: not one of the list's format
	InvalidTwice         = "twice"          // the entry listed twice
	InvalidRange         = "range"          // min, max: a number outside
	InvalidURL           = "url"            // not an absolute http(s) URL
	InvalidSecret        = "secret"         // the captcha secret is required
	InvalidDate          = "date"           // not an RFC 3339 date-time or a date
	InvalidFlusso        = "flusso"         // not a settlement report id
	InvalidStato         = "stato"          // the parse's error: not a state a caller may set
)

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
