package operations

import "github.com/payauthz/payauthz/domain"

// ServiziACL is GET /enumerazioni/serviziACL on the Backoffice (the
// services an ACL entry may name): any operator or application holding a
// role, like the profile.
func ServiziACL(p domain.Principal, rec Recorder) error {
	return check(rec, "HasAnyRole", domain.HasAnyRole(p))
}

// Logout is GET /logout on the Backoffice and Pagamento APIs: whoever
// entered api ends its own session (the anonymous payment session's
// cookie; the other authentications keep no session here).
func Logout(p domain.Principal, api domain.API, rec Recorder) error {
	return check(rec, "CanEnterAPI", domain.CanEnterAPI(p, api))
}
