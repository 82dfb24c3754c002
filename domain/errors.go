package domain

import "fmt"

// ForbiddenError is a denied decision: Rule names the rule of the contract
// that denied, Detail says why in one sentence without other callers' data.
type ForbiddenError struct {
	Rule   string
	Detail string
	// Code names the message Detail is, for a client that words denials
	// itself (the console, in Italian): one of the Deny* codes, which every
	// denial of this package carries, or "" for one made elsewhere that its
	// Rule alone words. Args are the values that message names, as its
	// code documents; they never change Detail.
	Code string
	Args []any
}

func (e *ForbiddenError) Error() string { return fmt.Sprintf("forbidden by %s: %s", e.Rule, e.Detail) }

// deny builds a denial with its code (one of the Deny* codes, the message
// format is) and that message's Args (args). A message without arguments
// is used as is, so that it costs one small allocation; the denial and its
// Args are one allocation otherwise: a list makes one denial for each row
// out of the caller's scope (BenchmarkScopeDenial).
func deny(rule, code, format string, args ...any) error {
	if len(args) == 0 {
		return &ForbiddenError{Rule: rule, Detail: format, Code: code}
	}
	d := &struct {
		ForbiddenError
		args [3]any
	}{ForbiddenError: ForbiddenError{Rule: rule, Code: code}}
	d.Args = append(d.args[:0:len(d.args)], args...)
	d.Detail = fmt.Sprintf(format, d.Args...)
	return &d.ForbiddenError
}

// fixed is a denial whose message names nothing, made once: nothing
// changes a ForbiddenError once made, so every decision returns the same
// one without allocating.
func fixed(rule, code, detail string) *ForbiddenError {
	return &ForbiddenError{Rule: rule, Detail: detail, Code: code}
}

// rightDetail names a denial message about one service right ("%s %s":
// the service, then the right).
type rightDetail int

const (
	detailNoRole rightDetail = iota
	detailPendenzaScope
	detailPaymentScope
	detailGranter
	detailMissingScope
	detailEventScope
	numRightDetails
)

// rightCodes are the code of each message.
var rightCodes = [numRightDetails]string{
	detailNoRole:        DenyNoRole,
	detailPendenzaScope: DenyPendenzaScope,
	detailPaymentScope:  DenyPaymentScope,
	detailGranter:       DenyGranter,
	detailMissingScope:  DenyMissingScope,
	detailEventScope:    DenyEventScope,
}

// rightRules are the rule each message denies with.
var rightRules = [numRightDetails]string{
	detailNoRole:        RuleServiceRight,
	detailPendenzaScope: RuleRoleScope,
	detailPaymentScope:  RuleRoleScope,
	detailGranter:       RuleDelegation,
	detailMissingScope:  RuleRoleScope,
	detailEventScope:    RuleRoleScope,
}

var rightFormats = [numRightDetails]string{
	detailNoRole:        "no role gives %s %s",
	detailPendenzaScope: "no role giving %s %s covers the pendenza's idDominio and idTipoPendenza",
	detailPaymentScope:  "no role giving %s %s covers every pendenza of the payment",
	detailGranter:       "the granter does not hold %s %s",
	detailMissingScope:  "no role giving %s %s covers every entity and every type",
	detailEventScope:    "no role giving %s %s covers the event's entity, unit and type",
}

// rightDenials are these denials made once for every service and right:
// a ForbiddenError is never changed once made, so the denials listings
// and who-can make by the thousand share them and cost nothing.
var rightDenials = func() (d [numRightDetails][numServices][RightWrite + 1]*ForbiddenError) {
	for m, f := range rightFormats {
		for _, s := range Services {
			for _, r := range []Right{RightRead, RightWrite} {
				d[m][s.i][r] = &ForbiddenError{Rule: rightRules[m], Detail: fmt.Sprintf(f, s, r), Code: rightCodes[m], Args: []any{s, r}}
			}
		}
	}
	return d
}()

// denyRight denies with the message m about s and r.
func denyRight(m rightDetail, s Service, r Right) error {
	if r != RightRead && r != RightWrite || int(s.i) >= len(rightDenials[m]) || s.i == 0 {
		return deny(rightRules[m], rightCodes[m], rightFormats[m], s, r)
	}
	return rightDenials[m][s.i][r]
}

// RuleAuthNotAccepted denies an {auth} segment the API does not accept; the
// HTTP layer answers it with codice "403" rather than "403000".
const RuleAuthNotAccepted = "auth-not-accepted"
