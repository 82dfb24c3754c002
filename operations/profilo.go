package operations

import "github.com/payauthz/payauthz/domain"

// ProfiloAPI is GET /profilo on the Pendenze v2 and Ragioneria v3 APIs:
// the caller's own profile, to whoever may enter api.
func ProfiloAPI(p domain.Principal, api domain.API, rec Recorder) error {
	return check(rec, "CanReadAPIProfile", domain.CanReadAPIProfile(p, api))
}

// ChangeOwnProfile is PATCH /profilo on the Backoffice: each member the
// patch touches, in order, must be one the caller may change itself.
func ChangeOwnProfile(p domain.Principal, members []string, rec Recorder) error {
	if len(members) == 0 {
		return check(rec, "CanChangeOwnProfile", domain.CanChangeOwnProfile(p, domain.ProfilePassword))
	}
	for _, m := range members {
		if err := check(rec, "CanChangeOwnProfile", domain.CanChangeOwnProfile(p, m)); err != nil {
			return err
		}
	}
	return nil
}
