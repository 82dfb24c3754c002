package domain

// CanOnTipoPendenza decides whether one role of p gives right on s with
// idTipo in that same role's Tipi (its Domini do not matter: a pendenza
// type is shared by every entity). It is the check for reading, listing
// and writing the registry of pendenza types: an operator whose role
// covers [SEGRETERIA] neither creates nor disables another type.
// RuleServiceRight when no role gives the right, RuleRoleScope when none
// giving it covers idTipo.
func CanOnTipoPendenza(p Principal, s Service, r Right, idTipo string) error {
	return inRoleScope(&p, s, r, func(role *Role) bool { return role.Covers(Place{IDTipoPendenza: idTipo}) }, func() error {
		return deny(RuleRoleScope, DenyTipoScope, "no role giving %s %s has idTipoPendenza %s in its scope", s, r, idTipo)
	})
}
