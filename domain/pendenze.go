package domain

// Pendenze API rules (API.md section 5): an application acts only under its
// own idA2A, creates within its PENDENZE scope, and reads and updates only
// the pendenze it created. Every function first requires an active
// application authorized on PENDENZE (RuleUnknownPrincipal,
// RulePrincipalDisabled, RuleAPIEntry).

// The ownership denials are fixed, so each exists once and a denial on
// the hot path does not allocate. Nothing changes a ForbiddenError once
// made.
var (
	errNotOwnIDA2A  = fixed(RuleOwnIDA2A, DenyNotOwnIDA2A, "an application writes pendenze only under its own idA2A")
	errNotCreator   = fixed(RuleCreator, DenyNotCreator, "an application reads only the pendenze it created")
	errNotUpdater   = fixed(RuleCreator, DenyNotUpdater, "only the application that created the pendenza may update it")
	errNotReconcile = fixed(RuleCreator, DenyNotReconciliation, "an application reads only the reconciliations it created")
	errNotRewriter  = fixed(RuleCreator, DenyNotRewriter, "another application created this reconciliation")
)

// ownedBy requires an active application authorized on api whose idA2A is
// owner, else denied. It allocates only to name a missing grant.
func ownedBy(p *Principal, api API, owner string, denied *ForbiddenError) error {
	if _, err := grantScope(p, api); err != nil {
		return err
	}
	if owner != p.IDA2A {
		return denied
	}
	return nil
}

// CanCreatePendenza decides a new pendenza at pathIDA2A placed at at (its
// entity, unit and type): the write gate, CanWriteUnderIDA2A (pathIDA2A
// must be the caller's own, RuleOwnIDA2A), then the place in its PENDENZE
// grant (RuleAPIScope).
func CanCreatePendenza(p Principal, pathIDA2A string, at Place) error {
	if err := CanWriteUnderIDA2A(p, pathIDA2A); err != nil {
		return err
	}
	return inGrant(&p, APIPendenze, at.IDDominio, at.IDUnita, at.IDTipoPendenza)
}

// CanUpdatePendenza decides an update of existing at pathIDA2A to the
// place to: the write gate, CanWriteUnderIDA2A (pathIDA2A must be the
// caller's own, RuleOwnIDA2A), then the caller must have created existing
// (RuleCreator, the rule CanReadOwnPendenza reads it by), and the new place must still be in its grant
// (RuleAPIScope). Whether the old place is still in the grant does not
// matter: the creator may move a pendenza back into scope.
func CanUpdatePendenza(p Principal, existing PendenzaView, pathIDA2A string, to Place) error {
	if err := CanWriteUnderIDA2A(p, pathIDA2A); err != nil {
		return err
	}
	if err := ownedBy(&p, APIPendenze, existing.IDA2A, errNotUpdater); err != nil {
		return err
	}
	return inGrant(&p, APIPendenze, to.IDDominio, to.IDUnita, to.IDTipoPendenza)
}

// CanReadOwnPendenza decides a read on the Pendenze API: the creator only,
// whatever its current scope (RuleCreator).
func CanReadOwnPendenza(p Principal, v PendenzaView) error {
	return ownedBy(&p, APIPendenze, v.IDA2A, errNotCreator)
}

// CanWriteUnderIDA2A decides whether p may write pendenze under idA2A on
// the Pendenze API, before the body is read or the pendenza looked up:
// only under its own (RuleOwnIDA2A).
func CanWriteUnderIDA2A(p Principal, idA2A string) error {
	return ownedBy(&p, APIPendenze, idA2A, errNotOwnIDA2A)
}

// CanAskAboutIDA2A decides whether p may ask about pendenze under idA2A on
// the Pendenze API, before their existence is looked up (403 before 404).
func CanAskAboutIDA2A(p Principal, idA2A string) error {
	return ownedBy(&p, APIPendenze, idA2A, errNotCreator)
}
