package projections

import (
	"errors"
	"testing"

	"github.com/payauthz/payauthz/events"
)

// blockingGate admits every verification, but first tells the test it was
// asked (asked) and waits until the test lets it go on (release): a test
// places a commit between a verification's read of the record and the end
// of its argon2id.
type blockingGate struct {
	asked   chan struct{}
	release chan struct{}
}

func (g *blockingGate) Admit(string, string, bool) (func(bool), error) {
	g.asked <- struct{}{}
	<-g.release
	return func(bool) {}, nil
}

// TestStaleVerificationCachesNothingAfterTheEvent: a verification of the
// old password that read the principal before a change and ends after it
// (argon2id takes tens of milliseconds) must not leave the old password
// verified: the next request with it is refused, whichever change came
// between (a new password, a disable then a new password, a rename).
func TestStaleVerificationCachesNothingAfterTheEvent(t *testing.T) {
	cases := []struct {
		name   string
		change func(f *feeder)
		// who presents the old password after the change
		as string
	}{
		{"password_changed", func(f *feeder) {
			f.commit(t, events.ApplicationUpdated{IDA2A: "a", Principal: "a", PasswordHash: mustHash(t, "password-2"), Enabled: true})
		}, "a"},
		{"roles_then_password_changed", func(f *feeder) {
			f.commit(t, events.ApplicationUpdated{IDA2A: "a", Principal: "a", Enabled: false})
			f.commit(t, events.ApplicationUpdated{IDA2A: "a", Principal: "a", PasswordHash: mustHash(t, "password-2"), Enabled: true})
		}, "a"},
		{"renamed_without_password", func(f *feeder) {
			f.commit(t, events.ApplicationUpdated{IDA2A: "a", Principal: "b", Enabled: true})
		}, "b"},
		{"renamed_away_and_back", func(f *feeder) {
			f.commit(t, events.ApplicationUpdated{IDA2A: "a", Principal: "b", Enabled: true})
			f.commit(t, events.ApplicationUpdated{IDA2A: "a", Principal: "a", Enabled: true})
		}, "a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			f := &feeder{m: m}
			f.commit(t, events.ApplicationRegistered{IDA2A: "a", Principal: "a", PasswordHash: mustHash(t, "password-1"), Enabled: true})
			g := &blockingGate{asked: make(chan struct{}), release: make(chan struct{})}
			done := make(chan error)
			go func() {
				_, err := m.AuthenticateGated(g, "127.0.0.1:1", "a", "password-1")
				done <- err
			}()
			<-g.asked // the record is read; argon2id has not run
			tc.change(f)
			close(g.release)
			if err := <-done; err != nil {
				t.Fatalf("the verification in flight: %v (it read the record before the change)", err)
			}
			if _, err := m.Authenticate(tc.as, "password-1"); !errors.Is(err, ErrUnauthenticated) {
				t.Fatalf("old password after the change, once the stale verification ended: %v, want ErrUnauthenticated", err)
			}
		})
	}
}
