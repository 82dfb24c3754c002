package domain

// Pendenze API rules (API.md section 5): an application acts only under its
// own idA2A, creates within its PENDENZE scope, and reads and updates only
// the pendenze it created. Every function first requires an active
// application authorized on PENDENZE (RuleUnknownPrincipal,
// RulePrincipalDisabled, RuleAPIEntry).

// CanCreatePendenza decides a new pendenza at pathIDA2A with idDominio ×
// idTipo: pathIDA2A must be the caller's own (RuleOwnIDA2A) and the pair in
// its PENDENZE grant (RuleAPIScope).
func CanCreatePendenza(p Principal, pathIDA2A, idDominio, idTipo string) error {
	if _, err := grantScope(&p, APIPendenze); err != nil {
		return err
	}
	if pathIDA2A != p.IDA2A {
		return deny(RuleOwnIDA2A, "an application writes pendenze only under its own idA2A")
	}
	return inGrant(&p, APIPendenze, idDominio, idTipo)
}

// CanUpdatePendenza decides an update of existing at pathIDA2A to
// newDominio × newTipo: pathIDA2A must be the caller's own (RuleOwnIDA2A),
// the caller must have created existing (RuleCreator), and the new pair
// must still be in its grant (RuleAPIScope). Whether the old pair is still
// in the grant does not matter: the creator may move a pendenza back into
// scope.
func CanUpdatePendenza(p Principal, existing PendenzaView, pathIDA2A, newDominio, newTipo string) error {
	if _, err := grantScope(&p, APIPendenze); err != nil {
		return err
	}
	if pathIDA2A != p.IDA2A {
		return deny(RuleOwnIDA2A, "an application writes pendenze only under its own idA2A")
	}
	if existing.IDA2A != p.IDA2A {
		return deny(RuleCreator, "only the application that created the pendenza may update it")
	}
	return inGrant(&p, APIPendenze, newDominio, newTipo)
}

// CanReadOwnPendenza decides a read on the Pendenze API: the creator only,
// whatever its current scope (RuleCreator).
func CanReadOwnPendenza(p Principal, v PendenzaView) error {
	if _, err := grantScope(&p, APIPendenze); err != nil {
		return err
	}
	if v.IDA2A != p.IDA2A {
		return deny(RuleCreator, "an application reads only the pendenze it created")
	}
	return nil
}

// CanWriteUnderIDA2A decides whether p may write pendenze under idA2A on
// the Pendenze API, before the body is read or the pendenza looked up:
// only under its own (RuleOwnIDA2A).
func CanWriteUnderIDA2A(p Principal, idA2A string) error {
	if _, err := grantScope(&p, APIPendenze); err != nil {
		return err
	}
	if idA2A != p.IDA2A {
		return deny(RuleOwnIDA2A, "an application writes pendenze only under its own idA2A")
	}
	return nil
}

// CanAskAboutIDA2A decides whether p may ask about pendenze under idA2A on
// the Pendenze API, before their existence is looked up (403 before 404).
func CanAskAboutIDA2A(p Principal, idA2A string) error {
	if _, err := grantScope(&p, APIPendenze); err != nil {
		return err
	}
	if idA2A != p.IDA2A {
		return deny(RuleCreator, "an application reads only the pendenze it created")
	}
	return nil
}
