package operations

import (
	"errors"
	"fmt"

	"github.com/payauthz/payauthz/domain"
)

// ErrUnauthenticated is a caller whose credentials do not authenticate it
// (HTTP 401), decided by an operation (the node API's connector check).
var ErrUnauthenticated = errors.New("not authenticated")

// UnprocessableError is well-formed but semantically invalid input: an
// unknown or disabled entity or type, an amount not above zero (HTTP 422).
type UnprocessableError struct {
	Detail string
	// Code names the reason Detail gives, for a client that words it
	// itself (the console, in Italian): one of the Unprocessable* codes,
	// or "" for a reason only Detail words. Args are the values its code
	// documents; they never change Detail.
	Code string
	Args []any
}

func (e *UnprocessableError) Error() string { return e.Detail }

// Unprocessable returns an *UnprocessableError with a formatted detail.
func Unprocessable(format string, args ...any) error {
	return &UnprocessableError{Detail: fmt.Sprintf(format, args...)}
}

// UnprocessableAs is Unprocessable with the reason's code and its Args
// (args).
func UnprocessableAs(code, format string, args ...any) error {
	return &UnprocessableError{Detail: fmt.Sprintf(format, args...), Code: code, Args: args}
}

// Codes of UnprocessableError, with the Args each carries.
const (
	UnprocessableEntityUnknown       = "entity-unknown"       // idDominio
	UnprocessableEntityDisabled      = "entity-disabled"      // idDominio
	UnprocessableUnitUnknown         = "unit-unknown"         // idUnitaOperativa, idDominio
	UnprocessableUnitDisabled        = "unit-disabled"        // idUnitaOperativa, idDominio
	UnprocessableTypeUnknown         = "type-unknown"         // idTipoPendenza
	UnprocessableTypeDisabled        = "type-disabled"        // idTipoPendenza
	UnprocessableIntermediaryUnknown = "intermediary-unknown" // idIntermediario
	UnprocessableRoleUndefined       = "role-undefined"       // idRuolo
	UnprocessableAmount              = "amount"               // importo not above zero
	UnprocessableStato               = "stato"                // idA2A, idPendenza, what, the rule's error: its state forbids it
	UnprocessableStatoChange         = "stato-change"         // the change's error: the pendenza cannot take that state
	UnprocessablePassword            = "password"             // the operator, the rule's error: it has no password to change
)

// Recorder receives the trail of an operation: each check by name (the
// domain function that decided), with its outcome (nil when it passed).
// Explain uses it; the live path passes nil.
type Recorder interface {
	Check(name string, err error)
}

// PlaceRecorder is a Recorder that also keeps what a role-scoped
// Backoffice decision rests on: the service right it asks of a role, and
// the places that role's scope must hold (the stored pendenza's, each
// item's of a payment, the entity or type named), each reported before
// the check that decides on it. Explain's evidence asks each role about
// exactly those.
type PlaceRecorder interface {
	Recorder
	Right(s domain.Service, r domain.Right)
	Place(pl domain.Place)
	// Reach records an entity a role must reach, whole or in some of its
	// units (a gate before the lookup of what may lie in one unit).
	Reach(idDominio string)
}

// everywhere is the place of a decision that needs a role on every entity
// and type (learning that a resource is missing, the whole event log).
var everywhere = domain.Place{IDDominio: domain.Wildcard, IDTipoPendenza: domain.Wildcard}

// reached reports idDominio to rec when it keeps places.
func reached(rec Recorder, idDominio string) {
	if pr, ok := rec.(PlaceRecorder); ok {
		pr.Reach(idDominio)
	}
}

// placed reports pl to rec when it keeps places.
func placed(rec Recorder, pl domain.Place) {
	if pr, ok := rec.(PlaceRecorder); ok {
		pr.Place(pl)
	}
}

// needs reports the service right s r to rec when it keeps places.
func needs(rec Recorder, s domain.Service, r domain.Right) {
	if pr, ok := rec.(PlaceRecorder); ok {
		pr.Right(s, r)
	}
}

// check reports one check to rec (when not nil) and returns err.
func check(rec Recorder, name string, err error) error {
	if rec != nil {
		rec.Check(name, err)
	}
	return err
}

// find is the shape of every read by id: the gate, decided before the
// lookup (403 before 404, so nothing leaks outside the caller's scope);
// the lookup; a missing resource answered by the missing-resource rule,
// where canLearn (nil: the caller may learn it) decides whether this
// caller may learn that it is missing. It runs only when it is.
func find[T any](rec Recorder, gate error, lookup func() (T, bool), canLearn func() error) (T, error) {
	var v T
	if gate != nil {
		return v, gate
	}
	v, ok := lookup()
	if ok {
		return v, nil
	}
	var learn error
	if canLearn != nil {
		learn = canLearn()
	}
	return v, missing(rec, learn)
}

// decided finishes a read whose resource v was found (err nil) by the
// rule named name, decided on v's view.
func decided[T interface{ View() V }, V any](rec Recorder, name string, rule func(domain.Principal, V) error, p domain.Principal, v T, err error) (T, error) {
	if err != nil {
		return v, err
	}
	return v, check(rec, name, rule(p, v.View()))
}

// missing applies the missing-resource rule, recording whether the caller
// may learn that the resource is missing.
func missing(rec Recorder, canLearn error) error {
	return domain.Missing(check(rec, "CanLearnMissing", canLearn))
}
