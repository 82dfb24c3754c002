package domain

// A resource that does not exist has no idDominio or idTipoPendenza to
// check, so "may the caller ask for it?" cannot be answered from the
// resource. API.md section 2 puts authorization before existence: only a
// caller whose scope reaches every place the resource could be in learns
// that it is missing (404); anyone else gets the same 403 as for an
// existing resource outside its scope, so existence never leaks.

// CanLearnMissingInGrant decides whether application p learns that a
// pendenza or notice is missing on api. idDominio is the entity the caller
// named ("" when the path names none): the grant must contain it (or be
// all entities) and reach every pendenza type.
func CanLearnMissingInGrant(p Principal, api API, idDominio string) error {
	g, err := grantScope(&p, api)
	if err != nil {
		return err
	}
	if (idDominio == "" && !g.Domini.IsAll()) || (idDominio != "" && !g.Domini.Contains(idDominio)) || !g.Tipi.IsAll() {
		return deny(RuleAPIScope, "the pendenza is not in the application's %s scope", api)
	}
	return nil
}

// CanLearnMissingInRoles is CanLearnMissingInGrant for the Backoffice: one
// role of p must give right on s over every entity and every type.
func CanLearnMissingInRoles(p Principal, s Service, r Right) error {
	if err := HasServiceRight(p, s, r); err != nil {
		return err
	}
	for i := range p.Roles {
		role := &p.Roles[i]
		if role.Has(s, r) && role.Domini.IsAll() && role.Tipi.IsAll() {
			return nil
		}
	}
	return deny(RuleRoleScope, "the pendenza is not in the scope of a role giving %s %s", s, r)
}
