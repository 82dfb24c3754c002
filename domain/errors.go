package domain

import "fmt"

// ForbiddenError is a denied decision: Rule names the rule of the contract
// that denied, Detail says why in one sentence without other callers' data.
type ForbiddenError struct {
	Rule   string
	Detail string
	// Code names the message Detail is, for a client that words denials
	// itself (the console, in Italian): one of the Deny* codes, or "" for
	// a denial its Rule alone words. Args are the values that message
	// names, as its code documents; they never change Detail.
	Code string
	Args []any
}

// Codes of ForbiddenError, with the Args each carries.
const (
	DenyNoRole        = "no-role"        // Service, Right: no role gives it
	DenyPendenzaScope = "pendenza-scope" // Service, Right: no role giving it covers the pendenza
	DenyPaymentScope  = "payment-scope"  // Service, Right: none covers every pendenza of the payment
	DenyGranter       = "granter"        // Service, Right: the granter does not hold it
	DenyMissingScope  = "missing-scope"  // Service, Right: none covers every entity and type
	DenyEventScope    = "event-scope"    // Service, Right: none covers the event's place
	DenyDominioScope  = "dominio-scope"  // Service, Right, idDominio: none giving it has the entity
	DenyTipoScope     = "tipo-scope"     // Service, Right, idTipoPendenza: none giving it has the type
	// DenyGranterPlace: the granter does not hold a right on a place.
	// Args: Service, Right (the zero Service for "any role"), idDominio,
	// idUnitaOperativa, idTipoPendenza ("" where the place names none).
	DenyGranterPlace = "granter-place"
)

// denyAs is deny with the message's code and its Args (args). The denial
// and its Args are one allocation: a list makes one denial for each row out
// of the caller's scope (BenchmarkScopeDenial).
func denyAs(rule, code, format string, args ...any) error {
	d := &struct {
		ForbiddenError
		args [3]any
	}{ForbiddenError: ForbiddenError{Rule: rule, Code: code}}
	d.Args = append(d.args[:0:len(d.args)], args...)
	d.Detail = fmt.Sprintf(format, d.Args...)
	return &d.ForbiddenError
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
		return denyAs(rightRules[m], rightCodes[m], rightFormats[m], s, r)
	}
	return rightDenials[m][s.i][r]
}

// RuleAuthNotAccepted denies an {auth} segment the API does not accept; the
// HTTP layer answers it with codice "403" rather than "403000".
const RuleAuthNotAccepted = "auth-not-accepted"
