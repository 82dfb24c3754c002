package domain

// CanOnTipoPendenza decides whether one role of p gives right on s with
// idTipo in that same role's Tipi (its Domini do not matter: a pendenza
// type is shared by every entity). It is the check for reading, listing
// and writing the registry of pendenza types: an operator whose role
// covers [SEGRETERIA] neither creates nor disables another type.
// RuleServiceRight when no role gives the right, RuleRoleScope when none
// giving it covers idTipo.
func CanOnTipoPendenza(p Principal, s Service, r Right, idTipo string) error {
	if err := HasServiceRight(p, s, r); err != nil {
		return err
	}
	for i := range p.Roles {
		if p.Roles[i].Has(s, r) && p.Roles[i].Tipi.Contains(idTipo) {
			return nil
		}
	}
	return deny(RuleRoleScope, "no role giving %s %s has idTipoPendenza %s in its scope", s, r, idTipo)
}
