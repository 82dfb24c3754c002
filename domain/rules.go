package domain

import "crypto/subtle"

// Rules: one stable kebab-case name per rule of the contract (API.md
// sections 1 and 4–9). They are part of the wire behaviour (logs, tests,
// the FaultBean's dettaglio is derived from the Detail next to them), so a
// rule is never renamed; a new rule gets a new name.
const (
	// RuleUnknownPrincipal denies the zero principal, KindUnknown, and
	// principals missing the identity their kind needs (an application
	// without idA2A, a citizen without fiscal code).
	RuleUnknownPrincipal = "principal-unknown"
	// RulePrincipalDisabled denies a registered principal with abilitato
	// false (section 1: 403).
	RulePrincipalDisabled = "principal-disabled"
	// RuleAPIEntry denies a caller of a kind, or without the grant or role,
	// that the API's callers column (section 1) does not admit.
	RuleAPIEntry = "api-entry"
	// RuleServiceRight denies a Backoffice call when no role of the caller
	// gives the service right (section 4).
	RuleServiceRight = "backoffice-service-right"
	// RuleRoleScope denies a Backoffice call when no single role gives the
	// service right with the resource in that same role's scope (section 4).
	RuleRoleScope = "backoffice-role-scope"
	// RuleDelegation denies granting a right or scope the granter does not
	// hold itself (section 4, Delegation).
	RuleDelegation = "delegation"
	// RuleOwnIDA2A denies writing pendenze under another application's
	// idA2A (section 5).
	RuleOwnIDA2A = "pendenze-own-ida2a"
	// RuleAPIScope denies an idDominio or idTipoPendenza outside the
	// application's grant on the API (sections 5, 6, 8).
	RuleAPIScope = "api-scope"
	// RuleCreator denies reading or changing a pendenza or reconciliation
	// another application created (sections 5, 8).
	RuleCreator = "creator-only"
	// RulePayer denies a citizen what it is neither payer nor remitter of
	// (section 6).
	RulePayer = "citizen-payer"
	// RuleAnonymous denies anonymous callers the list of pendenze and
	// payments by pendenza id (section 6).
	RuleAnonymous = "anonymous-not-allowed"
	// RuleSpontaneous denies a spontaneous payment of a type that is not
	// spontaneous or not enabled (section 6).
	RuleSpontaneous = "spontaneous-type"
	// RuleSession denies an anonymous caller the payments and the pendenze
	// (by id) its own session did not create (section 6).
	RuleSession = "anonymous-session"
	// RulePaymentOwner denies an application payments it did not start
	// (section 6).
	RulePaymentOwner = "payment-owner"
	// RuleNodeConnector denies a node call whose credentials are not the
	// intermediary's node connector principal (section 9).
	RuleNodeConnector = "node-connector"
	// RuleNodeIntermediary denies a node call for an unknown intermediary
	// (in RuleNodeConnector's words), and its connector's call while it is
	// disabled (section 9).
	RuleNodeIntermediary = "node-intermediary"
	// RuleNodeEntity denies a node call about an entity the intermediary
	// does not serve (section 9).
	RuleNodeEntity = "node-entity"
	// RuleOwnProfile denies a change of one's own profile (PATCH
	// /profilo) beyond one's own password: rights, scope and roles are
	// granted under Anagrafica Ruoli W, never taken by their holder.
	RuleOwnProfile = "own-profile"
)

// active denies the zero principal, principals without the identity their
// kind needs, and disabled principals. It is the first check of every
// decision, so that nothing is allowed by default.
func active(p *Principal) error {
	switch p.Kind {
	case KindOperator, KindAnonymous:
	case KindApplication:
		if p.IDA2A == "" {
			return deny(RuleUnknownPrincipal, DenyNoIDA2A, "the application has no idA2A")
		}
	case KindCitizen:
		if p.Name == "" {
			return deny(RuleUnknownPrincipal, DenyNoFiscalCode, "the citizen has no fiscal code")
		}
	default:
		return deny(RuleUnknownPrincipal, DenyUnknownCaller, "the caller is not a known principal")
	}
	if !p.Enabled {
		return deny(RulePrincipalDisabled, DenyDisabled, "the principal is disabled")
	}
	return nil
}

// grantScope returns p's grant on api when p is an active application
// authorized on it.
func grantScope(p *Principal, api API) (*Grant, error) {
	if err := active(p); err != nil {
		return nil, err
	}
	if p.Kind != KindApplication {
		return nil, deny(RuleAPIEntry, DenyNotApplication, "only applications hold %s grants", api)
	}
	g := p.grants[api.i]
	if g == nil {
		return nil, deny(RuleAPIEntry, DenyNoGrant, "the application is not authorized on the %s API", api)
	}
	return g, nil
}

// inGrant checks a dominio (with unit, "" for none) × tipo the caller
// itself supplied (path or body) against p's grant on api; the denial
// names them.
func inGrant(p *Principal, api API, dominio, unit, tipo string) error {
	g, err := grantScope(p, api)
	if err != nil {
		return err
	}
	if !g.Domini.ContainsUnit(dominio, unit) {
		if unit != "" && g.Domini.Reaches(dominio) {
			return deny(RuleAPIScope, DenyGrantUnit, "idUnitaOperativa %s of idDominio %s is not in the application's %s scope", unit, dominio, api)
		}
		return denyGrantDominio(dominio, api)
	}
	if !g.Tipi.Contains(tipo) {
		return deny(RuleAPIScope, DenyGrantTipo, "idTipoPendenza %s is not in the application's %s scope", tipo, api)
	}
	return nil
}

// denyGrantDominio denies an idDominio outside the application's scope on
// api, whole (inGrant, reachedIn).
func denyGrantDominio(idDominio string, api API) error {
	return deny(RuleAPIScope, DenyGrantDominio, "idDominio %s is not in the application's %s scope", idDominio, api)
}

// pendenzaInGrant checks a stored pendenza against p's grant on api. The
// denial does not name the pendenza's entity or type: they are another
// caller's data.
func pendenzaInGrant(p *Principal, api API, v *PendenzaView) error {
	g, err := grantScope(p, api)
	if err != nil {
		return err
	}
	if !g.Domini.ContainsUnit(v.IDDominio, v.IDUnita) || !g.Tipi.Contains(v.IDTipoPendenza) {
		return denyPendenzaOutsideGrant(api)
	}
	return nil
}

// denyPendenzaOutsideGrant denies a stored pendenza outside the
// application's scope on api; a missing one the application may not learn
// of is denied alike (CanLearnMissingInGrant), so the two answer the same.
func denyPendenzaOutsideGrant(api API) error {
	return deny(RuleAPIScope, DenyGrantPendenza, "the pendenza's idDominio, unit and idTipoPendenza are not in the application's %s scope", api)
}

// ctEqual compares two strings in time that depends only on their lengths.
// It works on the strings directly so that it never allocates.
func ctEqual(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var v byte
	for i := 0; i < len(a); i++ {
		v |= a[i] ^ b[i]
	}
	return subtle.ConstantTimeByteEq(v, 0) == 1
}

// ConstantTimeEqual compares two secrets without leaking where they differ
// (only whether their lengths differ). It does not allocate.
func ConstantTimeEqual(a, b string) bool { return ctEqual(a, b) }
