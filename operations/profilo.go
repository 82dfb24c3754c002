package operations

import "github.com/payauthz/payauthz/domain"

// ProfiloAPI is GET /profilo on the Pendenze v2 and Ragioneria v3 APIs:
// the caller's own profile, to whoever may enter api.
func ProfiloAPI(p domain.Principal, api domain.API, rec Recorder) error {
	return check(rec, "CanReadAPIProfile", domain.CanReadAPIProfile(p, api))
}
