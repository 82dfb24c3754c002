package audit

import (
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
