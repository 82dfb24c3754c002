package domain

import "testing"

func TestCanPassPublicProtection(t *testing.T) {
	t.Parallel()
	on := ProtectionView{Enabled: true, DenyOnFail: true}
	lenient := ProtectionView{Enabled: true, DenyOnFail: false}
	off := ProtectionView{Enabled: false, DenyOnFail: true}
	pay, notice := ProtectedPayment, ProtectedNotice
	runDecisions(t, []decision{
		{"off_no_token", CanPassPublicProtection(AuthPublic, off, pay, false, CaptchaMissing), ""},
		{"off_failed_token", CanPassPublicProtection(AuthPublic, off, notice, false, CaptchaFailed), ""},
		{"other_mount_not_protected", CanPassPublicProtection(AuthSPID, on, pay, false, CaptchaMissing), ""},
		{"basic_mount_not_protected", CanPassPublicProtection(AuthBasic, on, notice, false, CaptchaFailed), ""},
		{"payment_captcha_passed", CanPassPublicProtection(AuthPublic, on, pay, false, CaptchaPassed), ""},
		{"payment_no_token", CanPassPublicProtection(AuthPublic, on, pay, false, CaptchaMissing), RulePublicProtection},
		{"payment_captcha_failed", CanPassPublicProtection(AuthPublic, on, pay, false, CaptchaFailed), RulePublicProtection},
		{"payment_unavailable_deny_on_fail", CanPassPublicProtection(AuthPublic, on, pay, false, CaptchaUnavailable), RulePublicProtection},
		{"payment_unavailable_lenient", CanPassPublicProtection(AuthPublic, lenient, pay, false, CaptchaUnavailable), ""},
		{"payment_failed_lenient_still_denied", CanPassPublicProtection(AuthPublic, lenient, pay, false, CaptchaFailed), RulePublicProtection},
		{"payment_uuid_does_not_pass", CanPassPublicProtection(AuthPublic, on, pay, true, CaptchaMissing), RulePublicProtection},
		{"notice_uuid_matched", CanPassPublicProtection(AuthPublic, on, notice, true, CaptchaMissing), ""},
		{"notice_uuid_matched_captcha_failed", CanPassPublicProtection(AuthPublic, on, notice, true, CaptchaFailed), ""},
		{"notice_no_uuid_no_token", CanPassPublicProtection(AuthPublic, on, notice, false, CaptchaMissing), RulePublicProtection},
		{"notice_wrong_uuid_captcha_passed", CanPassPublicProtection(AuthPublic, on, notice, false, CaptchaPassed), ""},
		{"notice_unavailable_lenient", CanPassPublicProtection(AuthPublic, lenient, notice, false, CaptchaUnavailable), ""},
		{"notice_unavailable_deny_on_fail", CanPassPublicProtection(AuthPublic, on, notice, false, CaptchaUnavailable), RulePublicProtection},
		{"zero_request_denied", CanPassPublicProtection(AuthPublic, on, ProtectedRequest{}, true, CaptchaPassed), RulePublicProtection},
	})
}

// TestNeedsCaptchaIsWhatTheDecisionTurnsOn: NeedsCaptcha is true exactly
// when CanPassPublicProtection answers differently for some captcha
// outcome, on every mount, setting and request; where Protects is false
// every request passes.
func TestNeedsCaptchaIsWhatTheDecisionTurnsOn(t *testing.T) {
	t.Parallel()
	outcomes := []CaptchaOutcome{CaptchaMissing, CaptchaPassed, CaptchaFailed, CaptchaUnavailable}
	for _, auth := range append(AuthTypes, AuthType{}) {
		for _, pv := range []ProtectionView{{}, {Enabled: true}, {DenyOnFail: true}, {Enabled: true, DenyOnFail: true}} {
			for _, req := range []ProtectedRequest{ProtectedPayment, ProtectedNotice, {}} {
				for _, uuid := range []bool{false, true} {
					first := CanPassPublicProtection(auth, pv, req, uuid, outcomes[0])
					turns := false
					for _, o := range outcomes[1:] {
						if (CanPassPublicProtection(auth, pv, req, uuid, o) == nil) != (first == nil) {
							turns = true
						}
					}
					if got := NeedsCaptcha(auth, pv, req, uuid); got != turns {
						t.Errorf("%s %+v %v uuid %v: NeedsCaptcha %v, the decision turns on the captcha: %v", auth, pv, req, uuid, got, turns)
					}
					if !Protects(auth, pv) && first != nil {
						t.Errorf("%s %+v %v: not protected, yet denied: %v", auth, pv, req, first)
					}
				}
			}
		}
	}
}
