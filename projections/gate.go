package projections

import "github.com/payauthz/payauthz/domain"

// Gate admits password verifications: every argon2id/bcrypt verification
// the read model would run (a cache miss, an unknown principal) passes it
// first, so that the HTTP layer can bound how many run at once and throttle
// failed attempts. A cached verified credential never reaches it.
// Implementations must be safe for concurrent use.
type Gate interface {
	// Admit is asked before verifying a password of principal sent from the
	// client address from; registered reports whether principal names a
	// registered party (one without a password included), else it is
	// whatever name the caller sent, a password typed in the wrong field
	// among them. It returns an error to refuse the verification (which
	// then does not run), or done, which must be called once with whether
	// the password matched.
	Admit(from, principal string, registered bool) (done func(ok bool), err error)
}

func admit(gate Gate, from, principal string, registered bool) (func(bool), error) {
	if gate == nil {
		return func(bool) {}, nil
	}
	return gate.Admit(from, principal, registered)
}

// verifyDummy spends one verification against domain.DummyHash, through
// gate, for a principal without a password (registered or not): an unknown
// name costs what a wrong password costs and is throttled the same way.
func verifyDummy(gate Gate, from, principal string, registered bool, password string) error {
	done, err := admit(gate, from, principal, registered)
	if err != nil {
		return err
	}
	_, _ = domain.VerifyPassword(domain.DummyHash(), password)
	done(false)
	return nil
}
