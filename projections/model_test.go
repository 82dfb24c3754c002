package projections

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// feeder hands envelopes to a model in log order, one commit per call, the
// way a store delivers them.
type feeder struct {
	m   *ReadModel
	pos events.Position
}

func (f *feeder) commit(t testing.TB, evs ...events.Event) events.Position {
	t.Helper()
	f.pos++
	if err := f.m.ApplyCommit(f.pos, evs...); err != nil {
		t.Fatal(err)
	}
	return f.pos
}

var adminACL = func() []events.ACLEntry {
	var out []events.ACLEntry
	for _, s := range domain.Services {
		out = append(out, events.ACLEntry{Service: s.String(), Rights: []string{"R", "W"}})
	}
	return out
}()

func mustHash(t testing.TB, pw string) string {
	t.Helper()
	h, err := domain.HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestApplyIsIdempotentUnderRedelivery(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "A", Enabled: true})
	env := events.Envelope{ID: "x", Name: "PendenzaCreated", Position: 2, Index: 0, CommitSize: 1,
		Event: events.PendenzaCreated{IDA2A: "app", IDPendenza: "p1", IDDominio: "01234567890", IDTipoPendenza: "T",
			NumeroAvviso: "000000000000000001", UUID: "u"}}
	for range 3 {
		if err := m.Apply(env); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(m.Pendenze(PendenzeFilter{Creator: "app"})); got != 1 {
		t.Fatalf("pendenze after redelivery = %d, want 1", got)
	}
	if m.AppliedPosition() != 2 || m.AppliedEvents() != 2 {
		t.Fatalf("cursor = %d/%d, want 2/2", m.AppliedPosition(), m.AppliedEvents())
	}
}

func TestPartialCommitIsNotVisibleAsApplied(t *testing.T) {
	m := New()
	hash := mustHash(t, "password-1")
	app := events.ApplicationRegistered{IDA2A: "app", Principal: "app-user", PasswordHash: hash, Enabled: true, Roles: []string{}}
	grant := events.ApplicationAPIAuthorized{IDA2A: "app", API: "PENDENZE", Domini: []string{"*"}, TipiPendenza: []string{"*"}}
	if err := m.Apply(events.Envelope{Position: 1, Index: 0, CommitSize: 2, Name: app.EventName(), Event: app}); err != nil {
		t.Fatal(err)
	}
	if m.AppliedPosition() != 0 {
		t.Fatalf("applied = %d after half a commit, want 0", m.AppliedPosition())
	}
	// Redelivery of the first half is skipped, the second half completes it.
	for _, env := range []events.Envelope{
		{Position: 1, Index: 0, CommitSize: 2, Name: app.EventName(), Event: app},
		{Position: 1, Index: 1, CommitSize: 2, Name: grant.EventName(), Event: grant},
	} {
		if err := m.Apply(env); err != nil {
			t.Fatal(err)
		}
	}
	if m.AppliedPosition() != 1 || m.AppliedEvents() != 2 {
		t.Fatalf("cursor = %d/%d, want 1/2", m.AppliedPosition(), m.AppliedEvents())
	}
	rec, ok := m.Lookup("app-user")
	if !ok {
		t.Fatal("application not found")
	}
	if _, ok := rec.Principal.Grant(domain.APIPendenze); !ok {
		t.Fatal("grant not applied")
	}
}

// TestAuthenticateCachedAllocatesNothing: a password the cache holds as
// verified is checked with one keyed SHA-256 on the stack. The MAC the
// cache stores on a miss used to escape on every call, a hit included: 32
// bytes a request. Only a miss, after argon2id, stores one now.
func TestAuthenticateCachedAllocatesNothing(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.ApplicationRegistered{IDA2A: "a", Principal: "a", PasswordHash: mustHash(t, "password-1"), Enabled: true})
	if _, err := m.Authenticate("a", "password-1"); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := m.Authenticate("a", "password-1"); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("a cached authentication makes %v allocations, want 0", n)
	}
}

// TestRenamedApplicationLosesItsPassword: a password is its principal's.
// An update that renames an application without a new password leaves it
// none, under either name, so a rename cannot carry a password to a name
// basic could not present (a principal with ':', which commands refuses a
// password) or open the API under the next name.
func TestRenamedApplicationLosesItsPassword(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.ApplicationRegistered{IDA2A: "a", Principal: "gest", PasswordHash: mustHash(t, "password-1"), Enabled: true})
	if _, err := m.Authenticate("gest", "password-1"); err != nil {
		t.Fatalf("before the rename: %v", err)
	}
	f.commit(t, events.ApplicationUpdated{IDA2A: "a", Principal: "ge:st", Enabled: true})
	for _, name := range []string{"gest", "ge:st"} {
		if _, err := m.Authenticate(name, "password-1"); !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("%s after the rename: %v, want ErrUnauthenticated", name, err)
		}
	}
	if app, ok := m.Application("a"); !ok || app.PasswordHash != "" {
		t.Fatalf("after the rename: %+v %v, want no password", app, ok)
	}
	// The same principal, no new password: kept.
	f.commit(t, events.ApplicationUpdated{IDA2A: "a", Principal: "ge:st", PasswordHash: mustHash(t, "password-2"), Enabled: true})
	f.commit(t, events.ApplicationUpdated{IDA2A: "a", Principal: "ge:st", Enabled: false})
	if app, _ := m.Application("a"); app.PasswordHash == "" {
		t.Fatal("an update of the same principal without a password dropped it")
	}
}

func TestCredentialCacheFollowsTheLog(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.RoleDefined{IDRuolo: "r", ACL: adminACL, Domini: []string{"*"}, TipiPendenza: []string{"*"}})
	f.commit(t, events.OperatorRegistered{Principal: "op", PasswordHash: mustHash(t, "first-pass"), Enabled: true, Roles: []string{"r"}})

	if _, err := m.Authenticate("op", "first-pass"); err != nil {
		t.Fatalf("right password: %v", err)
	}
	rec, _ := m.Lookup("op")
	if rec.verified.Load() == nil {
		t.Fatal("a successful verification was not cached")
	}
	if _, err := m.Authenticate("op", "wrong-pass"); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("wrong password: %v, want ErrUnauthenticated", err)
	}
	if _, err := m.Authenticate("nobody", "first-pass"); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("unknown user: %v, want ErrUnauthenticated", err)
	}

	// A change that keeps the password (here a second role) keeps the
	// verified credential: the next request runs no password hash.
	f.commit(t, events.RoleDefined{IDRuolo: "r2", ACL: adminACL, Domini: []string{"*"}, TipiPendenza: []string{"*"}})
	f.commit(t, events.OperatorUpdated{Principal: "op", Enabled: true, Roles: []string{"r", "r2"}})
	rec, _ = m.Lookup("op")
	if len(rec.Principal.Roles) != 2 {
		t.Fatalf("roles after the update: %d, want 2", len(rec.Principal.Roles))
	}
	if rec.verified.Load() == nil {
		t.Fatal("an update that kept the password dropped the verified credential")
	}

	// A password change replaces the record: the old password stops working at once.
	f.commit(t, events.OperatorUpdated{Principal: "op", PasswordHash: mustHash(t, "second-pass"), Enabled: true, Roles: []string{"r"}})
	if rec, _ := m.Lookup("op"); rec.verified.Load() != nil {
		t.Fatal("a password change kept the old password's verified credential")
	}
	if _, err := m.Authenticate("op", "first-pass"); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("old password after change: %v, want ErrUnauthenticated", err)
	}
	if _, err := m.Authenticate("op", "second-pass"); err != nil {
		t.Fatalf("new password: %v", err)
	}

	// An update without a hash keeps the password; disabling is visible at once.
	f.commit(t, events.OperatorUpdated{Principal: "op", Enabled: false, Roles: []string{"r"}})
	rec, err := m.Authenticate("op", "second-pass")
	if err != nil {
		t.Fatalf("password kept across update: %v", err)
	}
	if rec.Principal.Enabled {
		t.Fatal("operator still enabled after the disable event")
	}
}

func TestRoleRedefinitionReachesHolders(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.RoleDefined{IDRuolo: "r", ACL: adminACL, Domini: []string{"11111111111"}, TipiPendenza: []string{"*"}})
	f.commit(t, events.OperatorRegistered{Principal: "op", Enabled: true, Roles: []string{"r"}})
	rec, _ := m.Lookup("op")
	if !rec.Principal.Roles[0].Domini.Contains("11111111111") || rec.Principal.Roles[0].Domini.Contains("22222222222") {
		t.Fatal("initial role scope wrong")
	}
	f.commit(t, events.RoleDefined{IDRuolo: "r", ACL: adminACL, Domini: []string{"22222222222"}, TipiPendenza: []string{"*"}})
	rec, _ = m.Lookup("op")
	if rec.Principal.Roles[0].Domini.Contains("11111111111") || !rec.Principal.Roles[0].Domini.Contains("22222222222") {
		t.Fatal("redefined role did not reach its holder")
	}
}

func TestGrantsAndRevokes(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.ApplicationRegistered{IDA2A: "a", Principal: "a-user", Enabled: true, Roles: []string{}},
		events.ApplicationAPIAuthorized{IDA2A: "a", API: "PENDENZE", Domini: []string{"11111111111"}, TipiPendenza: []string{"T"}})
	rec, _ := m.Lookup("a-user")
	g, ok := rec.Principal.Grant(domain.APIPendenze)
	if !ok || !g.Domini.Contains("11111111111") || g.Domini.Contains("22222222222") {
		t.Fatalf("grant = %+v, %v", g, ok)
	}
	if _, ok := rec.Principal.Grant(domain.APIPagamento); ok {
		t.Fatal("grant on an API never authorized")
	}
	f.commit(t, events.ApplicationAPIRevoked{IDA2A: "a", API: "PENDENZE"})
	rec, _ = m.Lookup("a-user")
	if _, ok := rec.Principal.Grant(domain.APIPendenze); ok {
		t.Fatal("revoked grant still present")
	}
	// A principal rename frees the old name.
	f.commit(t, events.ApplicationUpdated{IDA2A: "a", Principal: "a-renamed", Enabled: true, Roles: []string{}})
	if _, ok := m.Lookup("a-user"); ok {
		t.Fatal("old principal name still resolves")
	}
	if rec, ok := m.Lookup("a-renamed"); !ok || rec.Principal.IDA2A != "a" {
		t.Fatal("new principal name does not resolve")
	}
}

func TestPendenzeIndexes(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	p := events.PendenzaCreated{IDA2A: "app", IDPendenza: "p1", IDDominio: "11111111111", IDTipoPendenza: "T",
		Payer: events.Subject{Tipo: "F", Identificativo: "rssmra80a01h501u"}, NumeroAvviso: "000000000000000001",
		UUID: "0123456789abcdef0123456789abcdef", AmountCents: 1000}
	f.commit(t, p)
	v, ok := m.PendenzaView("app", "p1")
	if !ok || v.PayerID != "RSSMRA80A01H501U" || v.IDDominio != "11111111111" || v.UUID != p.UUID {
		t.Fatalf("view = %+v, %v", v, ok)
	}
	if _, ok := m.PendenzaView("other", "p1"); ok {
		t.Fatal("found a pendenza under another creator")
	}
	if got, ok := m.PendenzaByNotice("11111111111", "000000000000000001"); !ok || got.IDPendenza != "p1" {
		t.Fatal("notice index")
	}
	if got := m.Pendenze(PendenzeFilter{Payer: "RSSMRA80A01H501U"}); len(got) != 1 {
		t.Fatalf("by payer = %d", len(got))
	}
	f.commit(t, events.ReceiptRecorded{IDRicevuta: "r1", IDDominio: "11111111111", NumeroAvviso: "000000000000000001",
		IDA2A: "app", IDPendenza: "p1", Esito: "ESEGUITO", AmountCents: 1000})
	if got, _ := m.Pendenza("app", "p1"); got.Stato != StatoEseguita {
		t.Fatalf("stato = %s after receipt", got.Stato)
	}
}

// TestPendenzaCreatedIsItsFirstEventsTime: a pendenza's creation time is
// the time its log recorded in the envelope of the event that created it,
// not the time a replica applied it (feedAll's times are days away from
// now); an update, later in the log, keeps it; a second replica of the
// same log holds the same.
func TestPendenzaCreatedIsItsFirstEventsTime(t *testing.T) {
	p := events.PendenzaCreated{IDA2A: "app", IDPendenza: "p1", IDDominio: "11111111111", IDTipoPendenza: "T", Causale: "c",
		Payer: events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U"}, NumeroAvviso: "000000000000000001",
		UUID: "0123456789abcdef0123456789abcdef", AmountCents: 1000}
	changed := p
	changed.Causale = "changed"
	log := [][]events.Event{{p}, {events.PendenzaUpdated(changed)}, {events.PendenzaCreated(changed)}}
	base := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) // feedAll's first commit
	for _, replica := range []string{"first", "second"} {
		m := New()
		feedAll(t, m, log[:1], 0, 1)
		if got, _ := m.Pendenza("app", "p1"); !got.Created.Equal(base) {
			t.Fatalf("%s replica: created %v, want its event's %v", replica, got.Created, base)
		}
		feedAll(t, m, log, 1, len(log)) // an update, then a repeated creation (a log before PendenzaUpdated)
		if got, _ := m.Pendenza("app", "p1"); got.Causale != "changed" || !got.Created.Equal(base) {
			t.Fatalf("%s replica, after the updates: causale %q, created %v, want %v", replica, got.Causale, got.Created, base)
		}
	}
}

// TestDataCaricamentoIsTheDayInRome: dataCaricamento is the date in
// Rome of the pendenza's creation, GovPay's and its users' day, not UTC's:
// on either side of midnight there, and of both changes of the clock.
func TestDataCaricamentoIsTheDayInRome(t *testing.T) {
	for _, c := range []struct {
		created time.Time
		want    string
	}{
		{time.Date(2026, 3, 28, 23, 30, 0, 0, time.UTC), "2026-03-29"}, // 00:30 CET
		{time.Date(2026, 3, 28, 22, 59, 59, 0, time.UTC), "2026-03-28"},
		{time.Date(2026, 3, 29, 21, 59, 59, 0, time.UTC), "2026-03-29"}, // 23:59:59 CEST
		{time.Date(2026, 6, 30, 22, 0, 0, 0, time.UTC), "2026-07-01"},
		{time.Date(2026, 10, 24, 22, 0, 0, 0, time.UTC), "2026-10-25"},   // midnight CEST
		{time.Date(2026, 10, 25, 22, 59, 59, 0, time.UTC), "2026-10-25"}, // 23:59:59 CET
		{time.Date(2026, 10, 25, 23, 0, 0, 0, time.UTC), "2026-10-26"},
	} {
		if got := (Pendenza{Created: c.created}).DataCaricamento(); got != c.want {
			t.Errorf("created %s: dataCaricamento %s, want %s", c.created.Format(time.RFC3339), got, c.want)
		}
	}
	if got := (Pendenza{}).DataCaricamento(); got != "" {
		t.Errorf("created unknown: dataCaricamento %q, want none", got)
	}
}

// TestStateOfMissingPendenzaMakesNone: a receipt or a status change that
// names a pendenza the model does not hold (another writer's log, a
// receipt for a notice paid elsewhere) changes nothing, and above all
// creates no empty record that a read would then find, with the details of
// whatever pendenza came first.
func TestStateOfMissingPendenzaMakesNone(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.PendenzaCreated{IDA2A: "app", IDPendenza: "p1", IDDominio: "11111111111", IDTipoPendenza: "TARI",
		Causale: "first", AmountCents: 1000, NumeroAvviso: "000000000000000001"})
	f.commit(t, events.ReceiptRecorded{IDRicevuta: "r9", IDDominio: "11111111111", NumeroAvviso: "000000000000000009",
		IDA2A: "app", IDPendenza: "ghost", Esito: "ESEGUITO", AmountCents: 1000})
	f.commit(t, events.PendenzaStatusChanged{IDA2A: "app", IDPendenza: "ghost2", IDDominio: "11111111111", IDTipoPendenza: "TARI", Stato: "ANNULLATA"})
	for _, id := range []string{"ghost", "ghost2"} {
		if v, ok := m.PendenzaView("app", id); ok {
			t.Errorf("PendenzaView(app, %s) = %+v, want none", id, v)
		}
		if p, ok := m.Pendenza("app", id); ok {
			t.Errorf("Pendenza(app, %s) = %+v, want none", id, p)
		}
	}
	if n := m.PendenzeCount(); n != 1 {
		t.Errorf("PendenzeCount = %d, want 1", n)
	}
	if got, ok := m.Pendenza("app", "p1"); !ok || got.Stato != StatoNonEseguita || got.Causale != "first" {
		t.Errorf("Pendenza(app, p1) = %+v, %v; want the open pendenza", got, ok)
	}
}

func TestWaitFor(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := m.WaitFor(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitFor before apply = %v, want deadline", err)
	}
	done := make(chan error, 1)
	go func() { done <- m.WaitFor(context.Background(), 1) }()
	f.commit(t, events.CreditorEntityRegistered{IDDominio: "11111111111", RagioneSociale: "A", Enabled: true})
	if err := <-done; err != nil {
		t.Fatalf("WaitFor after apply = %v", err)
	}
}

// TestWaitWithinKeepsTheWaitDeadline: the waits made with a context that
// carries a wait deadline (one request's) end by it, however long each
// may last on its own; the context itself gets no deadline, which a store
// call made with it would take for its own timeout.
func TestWaitWithinKeepsTheWaitDeadline(t *testing.T) {
	m := New()
	start := time.Now()
	ctx := WithWaitDeadline(context.Background(), start.Add(50*time.Millisecond))
	if _, ok := ctx.Deadline(); ok {
		t.Fatal("the context has a deadline")
	}
	for range 3 {
		if err := m.WaitWithin(ctx, 1, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitWithin = %v, want deadline", err)
		}
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("three waits of up to a minute with a deadline 50ms away took %v", took)
	}
	if d := WaitBound(ctx, time.Minute); d != 0 {
		t.Fatalf("WaitBound past the deadline = %v, want 0", d)
	}
	if d := WaitBound(context.Background(), time.Minute); d != time.Minute {
		t.Fatalf("WaitBound without a wait deadline = %v, want its own d", d)
	}
}
