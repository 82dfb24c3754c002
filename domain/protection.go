package domain

// Protection of the public Pagamento API (API.md section 7). The HTTP
// layer gathers the facts (the setting, whether a UUID matched in constant
// time, what the captcha service answered); the decision is here.

// RulePublicProtection denies a request on the public Pagamento mount that
// the enabled protection does not let through (section 7).
const RulePublicProtection = "public-protection"

// CaptchaOutcome is what the captcha check of a request found. The zero
// value is CaptchaMissing, which never passes an enabled protection.
type CaptchaOutcome struct{ i uint8 }

var (
	// CaptchaMissing: the request carried no token.
	CaptchaMissing = CaptchaOutcome{0}
	// CaptchaPassed: siteverify answered success (and, for v3, a score at
	// or above the threshold).
	CaptchaPassed = CaptchaOutcome{1}
	// CaptchaFailed: siteverify answered, and the token did not pass.
	CaptchaFailed = CaptchaOutcome{2}
	// CaptchaUnavailable: no usable answer (unreachable, timed out,
	// non-200, not a siteverify reply).
	CaptchaUnavailable = CaptchaOutcome{3}
)

var captchaNames = [...]string{"missing", "passed", "failed", "unavailable"}

func (o CaptchaOutcome) String() string { return captchaNames[o.i] }

// ProtectionView is the protection setting as decisions see it.
type ProtectionView struct {
	Enabled    bool
	DenyOnFail bool
}

// ProtectedRequest tells which public requests the protection covers.
type ProtectedRequest struct{ i uint8 }

var (
	// ProtectedPayment is POST /pagamenti: the captcha only.
	ProtectedPayment = ProtectedRequest{1}
	// ProtectedNotice is GET /avvisi/{idDominio}/{numeroAvviso}: the
	// captcha, or the pendenza's UUID.
	ProtectedNotice = ProtectedRequest{2}
)

// Protects reports whether the protection decides requests under auth:
// only the public mount's, only while pv.Enabled. Any other request
// passes it, whatever it carries (CanPassPublicProtection), so none of
// its facts need be gathered.
func Protects(auth AuthType, pv ProtectionView) bool {
	return auth == AuthPublic && pv.Enabled
}

// NeedsCaptcha reports whether CanPassPublicProtection's answer to req
// under auth turns on the captcha: a request the protection covers
// (Protects), but not a notice read its UUID passed (uuidMatched). When
// it does not, the answer is the same whatever the captcha outcome, and
// the captcha service need not be asked.
func NeedsCaptcha(auth AuthType, pv ProtectionView, req ProtectedRequest, uuidMatched bool) bool {
	return Protects(auth, pv) && req.covered() && !(req == ProtectedNotice && uuidMatched)
}

// covered reports whether req is a request the protection covers (not the
// zero ProtectedRequest).
func (req ProtectedRequest) covered() bool { return req == ProtectedPayment || req == ProtectedNotice }

// CanPassPublicProtection decides a request on the Pagamento API under
// auth: only the public mount is protected, and only while pv.Enabled.
// Then a notice read passes when uuidMatched (the UUID query parameter
// equals the pendenza's, compared in constant time by the caller), and any
// request passes with CaptchaPassed, or with CaptchaUnavailable when
// !pv.DenyOnFail. Everything else is denied by RulePublicProtection: no
// token, a token that failed, an unavailable service with denyOnFail, a
// UUID on a payment, and the zero ProtectedRequest.
func CanPassPublicProtection(auth AuthType, pv ProtectionView, req ProtectedRequest, uuidMatched bool, captcha CaptchaOutcome) error {
	if !Protects(auth, pv) {
		return nil
	}
	if !req.covered() {
		return deny(RulePublicProtection, DenyNotProtectable, "the request is not one the public API serves under protection")
	}
	if !NeedsCaptcha(auth, pv, req, uuidMatched) { // a notice its UUID passed
		return nil
	}
	switch captcha {
	case CaptchaPassed:
		return nil
	case CaptchaUnavailable:
		if !pv.DenyOnFail {
			return nil
		}
		return deny(RulePublicProtection, DenyCaptchaUnchecked, "the public API is protected and the captcha could not be verified")
	case CaptchaFailed:
		return deny(RulePublicProtection, DenyCaptchaFailed, "the public API is protected and the captcha check did not pass")
	}
	if req == ProtectedNotice {
		return deny(RulePublicProtection, DenyCaptchaOrUUID, "the public API is protected: a captcha token or the pendenza's UUID is required")
	}
	return deny(RulePublicProtection, DenyCaptchaRequired, "the public API is protected: a captcha token is required")
}
