package operations

import (
	"github.com/payauthz/payauthz/domain"
)

// ProfiloAPI is GET /profilo on the Pendenze v2 and Ragioneria v3 APIs:
// the caller's own profile, to whoever may enter api.
func ProfiloAPI(p domain.Principal, api domain.API, rec Recorder) error {
	return check(rec, "CanReadAPIProfile", domain.CanReadAPIProfile(p, api))
}

// ChangeOwnProfile is the gate of PATCH /profilo on the Backoffice,
// decided before the patch's syntax: each member the patch touches (none:
// its password), in order, must be one the caller may change itself.
func ChangeOwnProfile(p domain.Principal, members []string, rec Recorder) error {
	if len(members) == 0 {
		members = []string{domain.ProfilePassword}
	}
	for _, m := range members {
		if err := check(rec, "CanChangeOwnProfile", domain.CanChangeOwnProfile(p, m)); err != nil {
			return err
		}
	}
	return nil
}

// ChangeOwnPassword is PATCH /profilo's change of the password, once the
// patch is well formed: the caller may change its own password
// (ChangeOwnProfile), then must have one (422 for an operator that
// authenticates without one, domain.PasswordChangeable).
func ChangeOwnPassword(p domain.Principal, rec Recorder) error {
	if err := ChangeOwnProfile(p, []string{domain.ProfilePassword}, rec); err != nil {
		return err
	}
	err := domain.PasswordChangeable(p)
	if err != nil {
		err = UnprocessableAs(UnprocessablePassword, "operator %s cannot change its password: %v", p.Name, err)
	}
	return check(rec, "PasswordChangeable", err)
}

// ProfiloDomini reports whether the Backoffice profile of p names entity
// idDominio: GovPay's profile has one scope per user, here what any of
// p's roles reaches.
func ProfiloDomini(p domain.Principal) func(idDominio string) bool {
	return inRoles(p, func(r *domain.Role, id string) bool { return r.Domini.Reaches(id) })
}

// ProfiloAPIDomini reports whether the profile of p on api (Pendenze,
// Ragioneria) names entity idDominio:
// its grant on api reaches it, whole or in some of its units, as
// ProfiloDomini does for roles.
func ProfiloAPIDomini(p domain.Principal, api domain.API) func(idDominio string) bool {
	g, _ := p.Grant(api)
	return g.Domini.Reaches
}

// ProfiloAPITipi reports whether the profile of p on api names pendenza
// type idTipo: its grant on api holds it.
func ProfiloAPITipi(p domain.Principal, api domain.API) func(idTipo string) bool {
	g, _ := p.Grant(api)
	return g.Tipi.Contains
}

// ProfiloTipi reports whether the Backoffice profile of p names pendenza
// type idTipo: one of p's roles holds it.
func ProfiloTipi(p domain.Principal) func(idTipo string) bool {
	return inRoles(p, func(r *domain.Role, id string) bool { return r.Tipi.Contains(id) })
}

// inRoles admits an id when in holds for one of p's roles.
func inRoles(p domain.Principal, in func(r *domain.Role, id string) bool) func(string) bool {
	return func(id string) bool {
		for i := range p.Roles {
			if in(&p.Roles[i], id) {
				return true
			}
		}
		return false
	}
}
