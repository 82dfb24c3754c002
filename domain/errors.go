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

// rightDetail names a denial message about one service right ("%s %s":
// the service, then the right).
type rightDetail int

const (
	detailNoRole rightDetail = iota
	detailPendenzaScope
	detailPaymentScope
	detailGranter
	detailMissingScope
	numRightDetails
)

var rightFormats = [numRightDetails]string{
	detailNoRole:        "no role gives %s %s",
	detailPendenzaScope: "no role giving %s %s covers the pendenza's idDominio and idTipoPendenza",
	detailPaymentScope:  "no role giving %s %s covers every pendenza of the payment",
	detailGranter:       "the granter does not hold %s %s",
	detailMissingScope:  "the pendenza is not in the scope of a role giving %s %s",
}

// rightDetails are the messages formatted once for every service and
// right, so that the denials listings and who-can make by the thousand
// cost one small allocation and no formatting.
var rightDetails = func() (d [numRightDetails][numServices][RightWrite + 1]string) {
	for m, f := range rightFormats {
		for _, s := range Services {
			for _, r := range []Right{RightRead, RightWrite} {
				d[m][s.i][r] = fmt.Sprintf(f, s, r)
			}
		}
	}
	return d
}()

// denyRight denies with the message m about s and r.
func denyRight(rule string, m rightDetail, s Service, r Right) error {
	if r != RightRead && r != RightWrite || int(s.i) >= len(rightDetails[m]) {
		return deny(rule, rightFormats[m], s, r)
	}
	return &ForbiddenError{Rule: rule, Detail: rightDetails[m][s.i][r]}
}

// RuleAuthNotAccepted denies an {auth} segment the API does not accept; the
// HTTP layer answers it with codice "403" rather than "403000".
const RuleAuthNotAccepted = "auth-not-accepted"
