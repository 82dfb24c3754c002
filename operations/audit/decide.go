package audit

import (
	"errors"

	"github.com/payauthz/payauthz/domain"
)

// Decide runs the operation's domain decisions, in the handler's order,
// for principal p on resource r against m: nil (allowed), a
// *domain.ForbiddenError, an error for a resource that does not exist at
// m's position, or ErrBadQuery for a resource missing a field the
// operation needs. It skips Explain's trail and evidence, for tools that
// decide many resources (what-can's resource lists). Safe for concurrent
// use.
func (o *Operation) Decide(m Model, p domain.Principal, r Resource) error {
	return o.decide(m, p, r, nil)
}

// check reports ErrBadQuery when r is a question o cannot decide, whoever
// it is asked about: every decide reads the fields it needs (and parses
// its servizio and right) before it decides anything of the caller, so
// asked of an anonymous caller it finds what any caller's would. Explain
// and WhoCan refuse such a question before they resolve a principal: a
// question that asks nothing is not answered "unauthenticated" about an
// unregistered principal, nor "nobody" where no principal reaches the
// operation.
func (o *Operation) check(m Model, r Resource) error {
	if err := o.decide(m, domain.Anonymous(""), r, nil); errors.Is(err, ErrBadQuery) {
		return err
	}
	return nil
}
