package projections

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// TestReadersSeeWholeCommits applies, again and again, a two-event commit
// that changes an application's roles and then its grant (authorize with
// role "granted", revoke with role "revoked"), while readers look the
// principal up. A reader must never see the first event of a commit
// without the second (role "revoked" with the grant still there, or role
// "granted" without it), and the position Consistent reports must be the
// commit that built the record the reader saw.
func TestReadersSeeWholeCommits(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	for _, id := range []string{"granted", "revoked"} {
		f.commit(t, events.RoleDefined{IDRuolo: id, ACL: adminACL, Domini: []string{"*"}, TipiPendenza: []string{"*"}})
	}
	app := func(role string) events.ApplicationUpdated {
		return events.ApplicationUpdated{IDA2A: "app", Principal: "app-user", Enabled: true, Roles: []string{role}}
	}
	authorize := events.ApplicationAPIAuthorized{IDA2A: "app", API: "PENDENZE", Domini: []string{"*"}, TipiPendenza: []string{"*"}}
	revoke := events.ApplicationAPIRevoked{IDA2A: "app", API: "PENDENZE"}
	f.commit(t, events.ApplicationRegistered(app("granted")), authorize)

	half := func(rec *PrincipalRecord) bool {
		_, granted := rec.Principal.Grant(domain.APIPendenze)
		roleGranted := slices.ContainsFunc(rec.Principal.Roles, func(r domain.Role) bool { return r.ID == "granted" })
		return granted != roleGranted
	}

	const commits = 3000
	var done atomic.Bool
	var halves, misplaced atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				if rec, ok := m.Lookup("app-user"); ok && half(rec) {
					halves.Add(1)
				}
				var rec *PrincipalRecord
				pos := m.Consistent(func() { rec, _ = m.Lookup("app-user") })
				if half(rec) {
					halves.Add(1)
				}
				if rec.Position != pos {
					misplaced.Add(1)
				}
			}
		}()
	}
	for i := range commits {
		if i%2 == 0 {
			f.commit(t, app("revoked"), revoke)
		} else {
			f.commit(t, app("granted"), authorize)
		}
	}
	done.Store(true)
	wg.Wait()
	if n := halves.Load(); n > 0 {
		t.Errorf("readers saw half a commit %d times", n)
	}
	if n := misplaced.Load(); n > 0 {
		t.Errorf("the reported position disagreed with the record read %d times", n)
	}
	rec, _ := m.Lookup("app-user")
	if _, granted := rec.Principal.Grant(domain.APIPendenze); !granted || m.AppliedPosition() != f.pos {
		t.Fatalf("after the last commit: granted %v at %d, want true at %d", granted, m.AppliedPosition(), f.pos)
	}
}
