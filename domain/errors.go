package domain

import "fmt"

// ForbiddenError is a denied decision: Rule names the rule of the contract
// that denied, Detail says why in one sentence without other callers' data.
type ForbiddenError struct {
	Rule   string
	Detail string
}

func (e *ForbiddenError) Error() string { return fmt.Sprintf("forbidden by %s: %s", e.Rule, e.Detail) }

// deny builds a denial; a detail without arguments is used as is, so
// most denials cost one small allocation.
func deny(rule, format string, args ...any) error {
	detail := format
	if len(args) > 0 {
		detail = fmt.Sprintf(format, args...)
	}
	return &ForbiddenError{Rule: rule, Detail: detail}
}

// RuleAuthNotAccepted denies an {auth} segment the API does not accept; the
// HTTP layer answers it with codice "403" rather than "403000".
const RuleAuthNotAccepted = "auth-not-accepted"
