package domain

import (
	"fmt"
	"maps"
	"slices"
)

// Delegation (API.md section 4): a caller may grant, in a role, an
// application's API scope or an operator's roles, only scopes and rights it
// holds itself, and granting "*" needs "*".
//
// The check is exact and per role of the granter, like every scoped check:
//   - every service right granted must be given by some role of the
//     granter (this alone covers the unscoped registries, which
//     HasServiceRight opens to any role whatever its scope);
//   - every idDominio granted must be covered by one granter role giving
//     that right (CanOnDominio reaches a role's Domini even when its Tipi
//     are empty, so an empty Tipi does not make Domini harmless);
//   - every (idDominio, idTipoPendenza) pair granted must be covered by one
//     granter role giving that right: two roles d1×t1 and d2×t2 do not let
//     the granter hand out d1×t2;
//   - every idTipoPendenza granted must be covered by one granter role
//     giving that right, whatever the entities (CanOnTipoPendenza reaches a
//     role's Tipi even when its Domini are empty, so an empty Domini does
//     not make Tipi harmless; with any entity granted, the pairs already
//     cover it);
//   - a role that gives no right still grants its scope (GET /profilo
//     names its entities and types): the same three checks, against any
//     role of the granter.
//
// "*" is the single value all; only an all-scope covers it.

// scopeValues lists a scope's members for the pairwise check; all is the
// single value "*".
func scopeValues(s Scope) []string {
	if s.IsAll() {
		return []string{Wildcard}
	}
	return s.IDs()
}

// covers reports whether s covers v, where "*" stands for all.
func covers(s Scope, v string) bool {
	if v == Wildcard {
		return s.IsAll()
	}
	return s.Contains(v)
}

// entityValues lists an entity scope's members for the pairwise check:
// each entity covered whole (all is the single value "*"), then each unit
// of an entity covered only in some.
func entityValues(s EntityScope) []Place {
	var out []Place
	for _, d := range scopeValues(s.Scope) {
		out = append(out, Place{IDDominio: d})
	}
	units := s.Units()
	for _, d := range slices.Sorted(maps.Keys(units)) {
		for _, u := range units[d] {
			out = append(out, Place{IDDominio: d, IDUnita: u})
		}
	}
	return out
}

// coversEntity reports whether s covers the entity place pl: a whole
// entity ("*" standing for all) only whole, a unit whole or as a unit.
func coversEntity(s EntityScope, pl Place) bool {
	if pl.IDUnita == "" {
		return covers(s.Scope, pl.IDDominio)
	}
	return s.ContainsUnit(pl.IDDominio, pl.IDUnita)
}

// holding is what a granter role must give to hold a scope for a grant:
// a service right (each right granted is held over the grant's scope by
// roles giving it), or, for a role that gives no right, any role at all
// (its scope is still granted: the profile names its entities and types).
type holding struct {
	s   Service
	r   Right
	any bool
}

// gives reports whether role counts towards h.
func (h holding) gives(role *Role) bool { return h.any || role.Has(h.s, h.r) }

// String names h in a denial.
func (h holding) String() string {
	if h.any {
		return "any role"
	}
	return h.s.String() + " " + h.r.String()
}

// holdsPlace reports whether one role of granter giving h covers the
// entity place pl when it names one and, when t is not "", the type t.
func holdsPlace(granter *Principal, h holding, pl Place, t string) bool {
	for i := range granter.Roles {
		role := &granter.Roles[i]
		if h.gives(role) && (pl.IDDominio == "" || coversEntity(role.Domini, pl)) && (t == "" || covers(role.Tipi, t)) {
			return true
		}
	}
	return false
}

// denyOn denies by delegation the place pl (its entity, if any) with the
// type t (if not ""): DenyGranterPlace, Detail format with args.
func (h holding) denyOn(pl Place, t, format string, args ...any) error {
	s := h.s
	if h.any {
		s = Service{}
	}
	return &ForbiddenError{Rule: RuleDelegation, Detail: fmt.Sprintf(format, args...), Code: DenyGranterPlace,
		Args: []any{s, h.r, pl.IDDominio, pl.IDUnita, t}}
}

// where names an entity place in a denial.
func where(pl Place) string {
	if pl.IDUnita == "" {
		return "idDominio " + pl.IDDominio
	}
	return "idUnitaOperativa " + pl.IDUnita + " of idDominio " + pl.IDDominio
}

// holdsScope checks that granter holds h over domini, domini × tipi and
// tipi.
func holdsScope(granter *Principal, h holding, domini EntityScope, tipi Scope) error {
	ds := entityValues(domini)
	for _, d := range ds {
		if !holdsPlace(granter, h, d, "") {
			return h.denyOn(d, "", "the granter does not hold %s on %s", h, where(d))
		}
	}
	ts := scopeValues(tipi)
	for _, d := range ds {
		for _, t := range ts {
			if !holdsPlace(granter, h, d, t) {
				return h.denyOn(d, t, "the granter does not hold %s on %s with idTipoPendenza %s", h, where(d), t)
			}
		}
	}
	if len(ds) > 0 {
		return nil // each type was held with an entity, so held alone
	}
	for _, t := range ts {
		if !holdsPlace(granter, h, Place{}, t) {
			return h.denyOn(Place{}, t, "the granter does not hold %s on idTipoPendenza %s", h, t)
		}
	}
	return nil
}

var bothRights = [...]Right{RightRead, RightWrite}

// CanGrantRole decides whether granter may define role or hand it out: for
// every service right role gives, granter must hold it (RuleDelegation
// otherwise), over role's whole scope as described above; a role that
// gives no right still grants its scope, which some role of granter must
// hold ("*" needs "*"). Whether the endpoint itself is open to granter
// (Anagrafica Ruoli W) is the caller's HasServiceRight check, not
// repeated here.
func CanGrantRole(granter Principal, role Role) error {
	if err := backofficeActor(&granter); err != nil {
		return err
	}
	rightless := true
	for _, s := range Services {
		for _, r := range bothRights {
			if !role.Has(s, r) {
				continue
			}
			rightless = false
			if !hasRight(&granter, s, r) {
				return denyRight(detailGranter, s, r)
			}
			if err := holdsScope(&granter, holding{s: s, r: r}, role.Domini, role.Tipi); err != nil {
				return err
			}
		}
	}
	if rightless {
		return holdsScope(&granter, holding{any: true}, role.Domini, role.Tipi)
	}
	return nil
}

// CanAssignRoles decides whether granter may give an operator or
// application every one of roles; the first role it may not grant denies.
// An empty list grants nothing and is allowed to any Backoffice actor.
func CanAssignRoles(granter Principal, roles []Role) error {
	if err := backofficeActor(&granter); err != nil {
		return err
	}
	for _, r := range roles {
		if err := CanGrantRole(granter, r); err != nil {
			return err
		}
	}
	return nil
}

// CanGrantAPI decides whether granter may authorize an application on
// g.API with g's scope: it needs Anagrafica Applicazioni W (RuleServiceRight
// when no role gives it) from roles covering g.Domini and g.Domini × g.Tipi
// by the rule above (RuleDelegation). The grant's Tipi are checked even for
// RAGIONERIA, whose decisions ignore them, so that what is stored is never
// more than the granter holds.
func CanGrantAPI(granter Principal, g Grant) error {
	if err := HasServiceRight(granter, ServiceAnagraficaApplicazioni, RightWrite); err != nil {
		return err
	}
	return holdsScope(&granter, holding{s: ServiceAnagraficaApplicazioni, r: RightWrite}, g.Domini, g.Tipi)
}
