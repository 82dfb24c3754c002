package domain

import "errors"

// Backoffice rules (API.md section 4). A caller's rights are the union over
// its roles, each right carrying its own role's scope: a right from role A
// never reaches role B's entities, so every scoped check looks for one
// single role that both gives the right and covers the resource.

func backofficeActor(p *Principal) error {
	if err := active(p); err != nil {
		return err
	}
	if p.Kind != KindOperator && p.Kind != KindApplication {
		return deny(RuleAPIEntry, DenyBackofficeActor, "only operators and applications act on the BACKOFFICE API")
	}
	return nil
}

// hasRight reports whether any role of p gives right on s.
func hasRight(p *Principal, s Service, r Right) bool {
	for i := range p.Roles {
		if p.Roles[i].Has(s, r) {
			return true
		}
	}
	return false
}

// roleCovers reports whether one role of p gives right on s with pl (its
// entity and unit, and its type) in that role's scope.
func roleCovers(p *Principal, s Service, r Right, pl *Place) bool {
	for i := range p.Roles {
		if role := &p.Roles[i]; role.Has(s, r) && role.covers(pl) {
			return true
		}
	}
	return false
}

// covers reports whether the stored resource at pl is in the role's
// scope: Covers, with the entity every stored resource has required.
func (r *Role) covers(pl *Place) bool {
	return pl.IDDominio != "" && r.Covers(*pl)
}

// Covers reports whether the role's scope holds pl: the entity pl names
// (whole, or the unit it names) and the type it names; a part pl leaves
// empty is not asked about, and a place naming neither is held by no role.
// It is the scope test of the role-scoped decisions on a place:
// CanOnPlace and CanOnPayment ask it of a stored resource's place,
// CanOnDominio of a place naming the entity alone, and CanOnTipoPendenza
// of one naming the type alone; explanations ask it of the places those
// decisions rested on. (CanReachDominio asks less: some unit of the
// entity.)
func (r *Role) Covers(pl Place) bool {
	return (pl.IDDominio != "" || pl.IDTipoPendenza != "") &&
		(pl.IDDominio == "" || r.Domini.ContainsUnit(pl.IDDominio, pl.IDUnita)) &&
		(pl.IDTipoPendenza == "" || r.Tipi.Contains(pl.IDTipoPendenza))
}

// someRole reports whether one role of p gives right on s and holds in its
// scope what covers asks for.
func someRole(p *Principal, s Service, r Right, covers func(*Role) bool) bool {
	for i := range p.Roles {
		if role := &p.Roles[i]; role.Has(s, r) && covers(role) {
			return true
		}
	}
	return false
}

// inRoleScope is a scoped Backoffice rule: RuleServiceRight when no role
// gives right on s at all, else the denial denied describes when no role
// giving it covers what covers asks for.
func inRoleScope(p *Principal, s Service, r Right, covers func(*Role) bool, denied func() error) error {
	if err := HasServiceRight(*p, s, r); err != nil {
		return err
	}
	if someRole(p, s, r, covers) {
		return nil
	}
	return denied()
}

// HasServiceRight decides whether some role of p gives right on s,
// whatever that role's scope (even none). It is the check for the
// registries that are not scoped by entity: tipiPendenza, intermediari,
// ruoli, operatori, applicazioni, eventi, configurazioni. Denials carry
// RuleServiceRight, or RuleAPIEntry for a caller that is not an operator
// or application.
func HasServiceRight(p Principal, s Service, r Right) error {
	if err := backofficeActor(&p); err != nil {
		return err
	}
	if !hasRight(&p, s, r) {
		return denyRight(detailNoRole, s, r)
	}
	return nil
}

// CanOnDominio decides whether one role of p gives right on s with
// idDominio in that same role's Domini (its Tipi do not matter: the
// resource has no pendenza type). RuleServiceRight when no role gives the
// right at all, RuleRoleScope when none giving it covers idDominio.
func CanOnDominio(p Principal, s Service, r Right, idDominio string) error {
	return inRoleScope(&p, s, r, func(role *Role) bool { return role.Covers(Place{IDDominio: idDominio}) }, func() error {
		return denyDominioScope(s, r, idDominio)
	})
}

// CanReachDominio is the gate of a Backoffice read of what may lie in one
// of idDominio's units (receipts, collections), before the lookup: one role
// giving right on s reaches idDominio, whole or in some of its units
// (RuleRoleScope otherwise). The stored resource is then decided by
// CanOnPlace.
func CanReachDominio(p Principal, s Service, r Right, idDominio string) error {
	return inRoleScope(&p, s, r, func(role *Role) bool { return role.Domini.Reaches(idDominio) }, func() error {
		return denyDominioScope(s, r, idDominio)
	})
}

// denyDominioScope denies idDominio, outside every role of the caller
// giving r on s (CanOnDominio, CanReachDominio).
func denyDominioScope(s Service, r Right, idDominio string) error {
	return deny(RuleRoleScope, DenyDominioScope, "no role giving %s %s has idDominio %s in its scope", s, r, idDominio)
}

// CanOnPlace decides whether one role of p gives right on s with pl in
// that same role's scope: its entity (whole, or the unit pl names) and its
// type when it has one. The place usually comes from a stored pendenza or
// event, so the denial does not repeat it.
func CanOnPlace(p Principal, s Service, r Right, pl Place) error {
	if err := HasServiceRight(p, s, r); err != nil {
		return err
	}
	if !roleCovers(&p, s, r, &pl) {
		return denyRight(detailPendenzaScope, s, r)
	}
	return nil
}

// CanOnPayment decides whether p may see a payment through s. It is
// allowed only when every pendenza the payment covers is in the scope of a
// role giving the right (each item may be covered by a different role): a
// payment that also touches an entity outside the caller's scope stays
// hidden, so no other entity's data leaks through it. A payment with no
// item is denied.
func CanOnPayment(p Principal, s Service, r Right, v PaymentView) error {
	if err := HasServiceRight(p, s, r); err != nil {
		return err
	}
	if len(v.Items) == 0 {
		return deny(RuleRoleScope, DenyEmptyPayment, "the payment covers no pendenza in scope")
	}
	for i := range v.Items {
		if pl := v.Items[i].Place(); !roleCovers(&p, s, r, &pl) {
			return denyRight(detailPaymentScope, s, r)
		}
	}
	return nil
}

// HasAnyRole decides whether p is an operator or application holding at
// least one role (GET /profilo).
func HasAnyRole(p Principal) error {
	if err := backofficeActor(&p); err != nil {
		return err
	}
	if len(p.Roles) == 0 {
		return deny(RuleAPIEntry, DenyNoRoles, "the principal holds no role")
	}
	return nil
}

// ProfilePassword is the one member of its own profile a principal may
// change (PATCH /profilo).
const ProfilePassword = "password"

// CanChangeOwnProfile decides a change of member of p's own profile
// (GovPay's PATCH /profilo): an active operator (RuleAPIEntry for any other
// caller) may change its own password and nothing else (RuleOwnProfile):
// acl, domini, tipiPendenza and ruoli would be rights taken by their
// holder.
func CanChangeOwnProfile(p Principal, member string) error {
	if err := active(&p); err != nil {
		return err
	}
	if p.Kind != KindOperator {
		return deny(RuleAPIEntry, DenyProfileOperator, "only operators change their own profile")
	}
	if member != ProfilePassword {
		return deny(RuleOwnProfile, DenyOwnProfile, "an operator changes only its own password: %s is granted under Anagrafica Ruoli W", member)
	}
	return nil
}

// ErrNoPassword: an operator that authenticates without a password (a
// client certificate, an API key) has none to change.
var ErrNoPassword = errors.New("it authenticates without a password (client certificate or API key): there is none to change")

// PasswordChangeable decides, once p was found allowed to change its own
// password (CanChangeOwnProfile), whether it has one (ErrNoPassword).
func PasswordChangeable(p Principal) error {
	if !p.Password {
		return ErrNoPassword
	}
	return nil
}

// EffectiveRight is one service right of a caller with the scope it
// reaches and the role it comes from.
type EffectiveRight struct {
	Role    string
	Service Service
	Rights  Rights
	Domini  EntityScope
	Tipi    Scope
}

// EffectiveRights lists p's rights for GET /profilo: one entry per role and
// service the role gives any right on, roles in p's order and services in
// Services order. Rights are not merged across roles, because each keeps
// its own role's scope. It returns nil for a principal without roles.
func EffectiveRights(p Principal) []EffectiveRight {
	var out []EffectiveRight
	for _, role := range p.Roles {
		for _, s := range Services {
			if r := role.Rights(s); r != 0 {
				out = append(out, EffectiveRight{Role: role.ID, Service: s, Rights: r, Domini: role.Domini, Tipi: role.Tipi})
			}
		}
	}
	return out
}
