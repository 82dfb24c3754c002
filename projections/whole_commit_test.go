package projections

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
)

// TestReadersSeeWholeCommits applies, again and again, a two-event commit
// that changes an application's roles and then its grant (authorize with
// role "granted", revoke with role "revoked"), while readers look the
// principal up. A reader must never see the first event of a commit
// without the second (role "revoked" with the grant still there, or role
// "granted" without it), and the position Consistent and
// LookupWithPosition report must be the commit that built the record the
// reader saw (the decision log names that position).
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
				if rec, pos, ok := m.LookupWithPosition("app-user"); !ok || rec.Position != pos {
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

// A commit with an event this build cannot fold (a log written by a newer
// build: an API, a right or a service it does not know) must stay
// invisible as a whole: readers must not see its first events while the
// applied position stays before it, and a principal it registers must not
// authenticate.
func TestFailedCommitStaysInvisible(t *testing.T) {
	cases := []struct {
		name string
		bad  events.Event
	}{
		{"unknown_api", events.ApplicationAPIAuthorized{IDA2A: "newapp", API: "FUTURE_API", Domini: []string{"*"}, TipiPendenza: []string{"*"}}},
		{"revoke_unknown_api", events.ApplicationAPIRevoked{IDA2A: "newapp", API: "FUTURE_API"}},
		{"grant_to_an_application_never_registered", events.ApplicationAPIAuthorized{IDA2A: "ghost", API: "PENDENZE", Domini: []string{"*"}, TipiPendenza: []string{"*"}}},
		{"role_with_an_unknown_right", events.RoleDefined{IDRuolo: "future", ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"X"}}}, Domini: []string{"*"}, TipiPendenza: []string{"*"}}},
		{"operator_with_an_unknown_service", events.OperatorRegistered{Principal: "newop", Enabled: true, Roles: []string{},
			PersonalRole: events.PersonalRole{ACL: []events.ACLEntry{{Service: "Future", Rights: []string{"R"}}}, Domini: []string{"*"}, TipiPendenza: []string{"*"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New()
			f := &feeder{m: m}
			f.commit(t, events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "A", Enabled: true})
			before := m.AppliedPosition()
			err := m.ApplyCommit(before+1,
				events.CreditorEntityRegistered{IDDominio: "09876543210", RagioneSociale: "B", Enabled: true},
				events.ApplicationRegistered{IDA2A: "newapp", Principal: "newapp", Enabled: true, Roles: []string{}},
				c.bad)
			if err == nil {
				t.Fatal("the commit applied; want an error")
			}
			var app, entity bool
			pos := m.Consistent(func() {
				_, app = m.Application("newapp")
				_, entity = m.Entity("09876543210")
			})
			if app || entity || pos != before {
				t.Errorf("after the commit at %d failed: position %d, its application visible %v, its entity visible %v; want position %d and neither",
					before+1, pos, app, entity, before)
			}
			if _, ok := m.Lookup("newapp"); ok {
				t.Errorf("principal newapp authenticates from a commit that was never applied (applied position %d)", m.AppliedPosition())
			}
			if n := m.AppliedEvents(); n != 1 {
				t.Errorf("%d events counted as applied, want 1", n)
			}
			// The projections stopped before the commit, for good: it is
			// delivered again and again alike, and what follows it
			// would rest on it.
			if err := m.Stopped(); !errors.Is(err, ErrStopped) {
				t.Errorf("Stopped() = %v, want ErrStopped", err)
			}
			err = m.ApplyCommit(before+2, events.ApplicationRegistered{IDA2A: "later", Principal: "later", Enabled: true, Roles: []string{}})
			if !errors.Is(err, ErrStopped) {
				t.Errorf("a commit after it: %v, want ErrStopped", err)
			}
			if _, ok := m.Lookup("later"); ok || m.AppliedPosition() != before {
				t.Errorf("a commit after it applied: position %d, want %d", m.AppliedPosition(), before)
			}
		})
	}
}

// TestFailedCommitRedeliveredInPart: the runner hands a commit over in
// batches, and a batch whose Apply failed is handed over again alone (its
// earlier batches were acked). A commit whose first event cannot be
// folded, redelivered from its second event on, must fail again and stay
// invisible as a whole, not be published as the part redelivered.
func TestFailedCommitRedeliveredInPart(t *testing.T) {
	bad := events.RoleDefined{IDRuolo: "future", ACL: []events.ACLEntry{{Service: "Future", Rights: []string{"R"}}},
		Domini: []string{"*"}, TipiPendenza: []string{"*"}}
	entity := events.CreditorEntityRegistered{IDDominio: "09876543210", RagioneSociale: "B", Enabled: true}
	commit := []events.Envelope{
		{ID: "e2-0", Name: bad.EventName(), Position: 2, Index: 0, CommitSize: 2, Event: bad},
		{ID: "e2-1", Name: entity.EventName(), Position: 2, Index: 1, CommitSize: 2, Event: entity},
	}
	for _, c := range []struct {
		name  string
		again []events.Envelope // what is delivered again after the failure
	}{
		{"its_last_batch", commit[1:]},
		{"its_last_batch_twice", []events.Envelope{commit[1], commit[1]}},
		{"the_whole_commit", commit},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := New()
			f := &feeder{m: m}
			f.commit(t, events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "A", Enabled: true})
			if err := m.Apply(commit[0]); err != nil { // the first batch: staged, acked
				t.Fatal(err)
			}
			if err := m.Apply(commit[1]); err == nil {
				t.Fatal("the commit applied; want an error")
			}
			var err error
			for _, env := range c.again {
				if err = m.Apply(env); err != nil {
					break
				}
			}
			if err == nil {
				t.Error("the commit delivered again applied; want the same error")
			}
			var entityVisible bool
			pos := m.Consistent(func() { _, entityVisible = m.Entity(entity.IDDominio) })
			if pos != 1 || entityVisible || m.AppliedEvents() != 1 {
				t.Errorf("position %d, %d events applied, the commit's entity visible %v; want position 1, 1 event and no entity",
					pos, m.AppliedEvents(), entityVisible)
			}
		})
	}
}

// A fold that panics (a bug) in the middle of a commit leaves part of it
// folded. The models must stop there: Apply answers an error, not a crash
// of the applier, nothing more is applied, waiters learn it, and no
// snapshot saves the half-folded state. The bug is simulated by taking
// away the table the commit's second event folds into.
func TestAFoldThatPanicsStopsTheModels(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "A", Enabled: true})
	before := m.AppliedPosition()
	m.registry.types = nil
	err := m.ApplyCommit(before+1,
		events.CreditorEntityRegistered{IDDominio: "09876543210", RagioneSociale: "B", Enabled: true},
		events.PendenzaTypeRegistered{IDTipoPendenza: "TARI", Enabled: true})
	if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "panic") {
		t.Fatalf("a commit whose fold panics: %v, want ErrStopped naming the panic", err)
	}
	if err := m.Stopped(); !errors.Is(err, ErrStopped) {
		t.Errorf("Stopped() = %v, want ErrStopped", err)
	}
	if err := m.ApplyCommit(before+2, events.CreditorEntityRegistered{IDDominio: "11111111111", RagioneSociale: "C", Enabled: true}); !errors.Is(err, ErrStopped) {
		t.Errorf("the next commit: %v, want ErrStopped", err)
	}
	if _, ok := m.Entity("11111111111"); ok || m.AppliedPosition() != before {
		t.Errorf("the next commit applied: position %d, want %d", m.AppliedPosition(), before)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.WaitFor(ctx, before+1); !errors.Is(err, ErrStopped) {
		t.Errorf("waiting for the commit: %v, want ErrStopped", err)
	}
	dir := t.TempDir()
	if _, err := m.WriteSnapshot(dir); !errors.Is(err, ErrStopped) {
		t.Errorf("snapshot of the stopped models: %v, want ErrStopped", err)
	}
	if _, err := os.Stat(filepath.Join(dir, SnapshotFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a snapshot of the stopped models was written (stat: %v)", err)
	}
}

// A commit whose checks panic (a bug) stops the models as a fold that
// panics does, under Run as under Apply: before, the panic escaped Apply,
// Run's recoverer turned it into a failed message, and the router sent
// the commit again for ever while the replica went on serving models that
// would never get past it. The bug is simulated by taking away the table
// the grant's check reads.
func TestRunEndsAtACommitWhoseCheckPanics(t *testing.T) {
	ctx := t.Context()
	s := jetstreamtest.Open(t)
	if _, err := s.Append(ctx, events.StreamDominio+"01234567890", events.ExpectNoStream(), events.Record{
		ID: "entity", Event: events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "A", Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, events.StreamApplicazione+"app", events.ExpectNoStream(), events.Record{
		ID: "grant", Event: events.ApplicationAPIAuthorized{IDA2A: "app", API: "PENDENZE", Domini: []string{"*"},
			TipiPendenza: []string{"*"}}}); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second) // bounds a hang only
	defer cancel()
	m := New()
	m.principals.apps = nil
	if err := m.Run(ctx, s, logger); !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "panic") {
		t.Fatalf("following a log with a commit whose check panics: %v, want ErrStopped naming the panic", err)
	}
	if _, ok := m.Entity("01234567890"); !ok || m.AppliedPosition() != 1 {
		t.Errorf("applied position %d, want the commit before it (1) applied", m.AppliedPosition())
	}
}

// A hook that panics on a commit the models applied (OnApplied: the
// service's is the verifiable log's Feed) stops the models as a check or
// a fold that panics does. Before, the panic escaped Apply, Run's
// recoverer sent the commit again, Apply skipped it as applied, and the
// hook never saw the rest of that commit: the tree went on without those
// leaves, and every checkpoint after them was wrong, silently.
func TestRunEndsAtACommitWhoseOnAppliedPanics(t *testing.T) {
	s := logOfOneEntity(t)
	if _, err := s.Append(t.Context(), events.StreamDominio+"09876543210", events.ExpectNoStream(),
		events.Record{ID: "second", Event: events.CreditorEntityRegistered{IDDominio: "09876543210", RagioneSociale: "B", Enabled: true}},
		events.Record{ID: "third", Event: events.PendenzaTypeRegistered{IDTipoPendenza: "TARI", Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // bounds a hang only
	defer cancel()
	m := New()
	var fed []string
	m.OnApplied = func(env events.Envelope) {
		if env.ID == "second" {
			panic("the hook failed")
		}
		fed = append(fed, env.ID)
	}
	if err := m.Run(ctx, s, logger); !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "panic: the hook failed") {
		t.Fatalf("following a log whose hook panics: %v, want ErrStopped naming the panic", err)
	}
	if !errors.Is(m.Stopped(), ErrStopped) {
		t.Errorf("Stopped() = %v, want ErrStopped", m.Stopped())
	}
	if !slices.Equal(fed, []string{"entity"}) {
		t.Errorf("the hook was fed %v, want only the first commit's event", fed)
	}
}

// Run and CatchUp end, with Stopped's error, at a commit of the log the
// models cannot apply: they never get past it, and the service stops
// rather than follow the log no further (before, Run retried it for ever
// and CatchUp never returned).
func TestRunEndsAtACommitItCannotApply(t *testing.T) {
	s := logOfOneEntity(t)
	if _, err := s.Append(t.Context(), events.StreamRuolo+"future", events.ExpectNoStream(), events.Record{
		ID: "future-role", Event: events.RoleDefined{IDRuolo: "future", ACL: []events.ACLEntry{{Service: "Future", Rights: []string{"R"}}},
			Domini: []string{"*"}, TipiPendenza: []string{"*"}}}); err != nil {
		t.Fatal(err)
	}
	followersStopAfterTheFirstCommit(t, s, "Future")
}

// A commit the store cannot decode (an event name of a newer build, a
// payload this build does not read) is as deterministic as one the checks
// refuse: every subscription meets it again. Run and CatchUp end there
// with Stopped's error naming it, the commits before it applied; before,
// the subscription failed, the runner resubscribed every second for ever
// with a warning, and the replica kept answering from models that would
// never see a revocation after it.
func TestRunEndsAtACommitItCannotDecode(t *testing.T) {
	for name, payload := range map[string]string{
		"unknown_event": `[{"id":"x","name":"NoSuchEvent","time":"2026-01-01T00:00:00Z","data":{}}]`,
		"bad_payload":   `[{"id":"x","name":"CreditorEntityRegistered","time":"2026-01-01T00:00:00Z","data":{"abilitato":"yes"}}]`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := logOfOneEntity(t)
			if _, err := s.JetStream().PublishMsg(t.Context(), &nats.Msg{Subject: s.Subject("future"), Data: []byte(payload)}); err != nil {
				t.Fatal(err)
			}
			followersStopAfterTheFirstCommit(t, s, "at 2")
		})
	}
}

// logOfOneEntity is an embedded log whose one commit (position 1)
// registers entity 01234567890.
func logOfOneEntity(t *testing.T) *jetstream.Store {
	t.Helper()
	s := jetstreamtest.Open(t)
	if _, err := s.Append(t.Context(), events.StreamDominio+"01234567890", events.ExpectNoStream(), events.Record{
		ID: "entity", Event: events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "A", Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// followersStopAfterTheFirstCommit follows s with Run and with CatchUp,
// each into new read models, and checks that both end with Stopped's
// error saying want, the log's first commit applied and nothing after it.
func followersStopAfterTheFirstCommit(t *testing.T, s events.Store, want string) {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // bounds a hang only
	defer cancel()
	for name, follow := range map[string]func(m *ReadModel) error{
		"run":      func(m *ReadModel) error { return m.Run(ctx, s, logger) },
		"catch_up": func(m *ReadModel) error { return m.CatchUp(ctx, s, logger) },
	} {
		t.Run(name, func(t *testing.T) {
			m := New()
			if err := follow(m); !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), want) {
				t.Fatalf("following a log it cannot follow to its end: %v, want ErrStopped saying %q", err, want)
			}
			if !errors.Is(m.Stopped(), ErrStopped) {
				t.Errorf("Stopped() = %v, want ErrStopped", m.Stopped())
			}
			if _, ok := m.Entity("01234567890"); !ok || m.AppliedPosition() != 1 {
				t.Errorf("applied position %d, want the commit before it (1) applied", m.AppliedPosition())
			}
		})
	}
}

// Every event the codec knows has a projector, in check as in apply (an
// event check does not list would refuse every commit holding it).
func TestEveryEventHasAProjector(t *testing.T) {
	for _, name := range events.DefaultCodec.Names() {
		e, err := events.DefaultCodec.Decode(name, []byte("{}"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := New().ApplyCommit(1, e); err != nil && strings.Contains(err.Error(), "no projector") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// withOneEntity returns read models holding one creditor entity, named
// "1" after the position of the commit that registered it.
func withOneEntity(t *testing.T) (*ReadModel, events.CreditorEntityRegistered) {
	t.Helper()
	m := New()
	entity := events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "1", Enabled: true}
	if err := m.ApplyCommit(1, entity); err != nil {
		t.Fatal(err)
	}
	return m, entity
}

// TestConsistentWithinGivesUp: a long read that a commit interrupts every
// time is given up after its attempts (ok false), never answered from a
// mix of states; one left alone is answered with its state's position.
func TestConsistentWithinGivesUp(t *testing.T) {
	t.Parallel()
	m, entity := withOneEntity(t)
	runs := 0
	if _, ok := m.ConsistentWithin(3, func() {
		runs++
		done := make(chan error)
		go func() { done <- m.ApplyCommit(events.Position(runs+1), events.CreditorEntityUpdated(entity)) }()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}); ok || runs != 3 {
		t.Fatalf("interrupted every time: ok %v after %d runs, want false after 3", ok, runs)
	}
	pos, ok := m.ConsistentWithin(3, func() {})
	if !ok || pos != m.AppliedPosition() || pos != 4 {
		t.Fatalf("left alone: position %d, ok %v; applied %d", pos, ok, m.AppliedPosition())
	}
}

// TestLongReadOnABusyLogEnds: a read that a commit interrupts every time
// it runs still ends (after its lock-free attempts it holds publication
// off for one run) and answers one state: the entity's name is the one
// written by the commit at the position it reports.
func TestLongReadOnABusyLogEnds(t *testing.T) {
	t.Parallel()
	m, entity := withOneEntity(t)
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Go(func() {
		for pos := 2; ; pos++ {
			select {
			case <-stop:
				return
			default:
			}
			e := events.CreditorEntityUpdated(entity)
			e.RagioneSociale = strconv.Itoa(pos)
			if err := m.ApplyCommit(events.Position(pos), e); err != nil {
				t.Error(err)
				return
			}
		}
	})
	defer writer.Wait()
	defer close(stop)

	type answer struct {
		pos  events.Position
		name string
		runs int
	}
	done := make(chan answer, 1)
	go func() {
		var a answer
		a.pos = m.Consistent(func() {
			a.runs++
			e, _ := m.registry.entities.get(entity.IDDominio)
			a.name = e.RagioneSociale
			// Run until a commit is published, so that every run is
			// interrupted while publication goes on; a run during which
			// none can be (publication held off) gives up after 100ms.
			seen, until := m.applied.Load(), time.Now().Add(100*time.Millisecond)
			for m.applied.Load() == seen && time.Now().Before(until) {
				time.Sleep(50 * time.Microsecond)
			}
		})
		done <- a
	}()
	select {
	case a := <-done:
		if a.name != strconv.Itoa(int(a.pos)) {
			t.Fatalf("answered name %q at position %d: not one state", a.name, a.pos)
		}
		t.Logf("answered after %d runs", a.runs)
	case <-time.After(30 * time.Second):
		t.Fatal("a read that every commit interrupts never ended")
	}
}
