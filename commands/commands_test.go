package commands_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/commands/commandstest"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/eventstoretest"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections"
)

// env is a command handler over the real embedded store with its read
// models following the log.
type env struct{ *commandstest.Env }

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{commandstest.Start(t)}
}

// appendedNothingSince fails t when the log grew past last.
func (e *env) appendedNothingSince(t *testing.T, last events.Position) {
	t.Helper()
	if now, err := e.Store.LastPosition(context.Background()); err != nil || now != last {
		t.Fatalf("appended: last %d (%v), was %d", now, err, last)
	}
}

// putEntity registers the enabled creditor entity id named name.
func (e *env) putEntity(t *testing.T, id, name string) {
	t.Helper()
	if _, err := e.H.PutEntity(context.Background(), e.Admin, commands.PutEntity{IDDominio: id, RagioneSociale: name, Enabled: true}); err != nil {
		t.Fatal(err)
	}
}

func (e *env) principal(t *testing.T, name string) commands.Actor {
	t.Helper()
	e.Sync(t)
	rec, ok := e.Model.Lookup(name)
	if !ok {
		t.Fatalf("%s not projected", name)
	}
	return commands.Actor{Principal: rec.Principal}
}

func ptr[T any](v T) *T { return &v }

// pendenzeApp registers the entity 11111111111, the type T and the
// application "app" authorized on PENDENZE for domini × tipi, and returns
// it as an actor.
func (e *env) pendenzeApp(t *testing.T, domini, tipi []string) commands.Actor {
	t.Helper()
	ctx := context.Background()
	e.putEntity(t, "11111111111", "Ente")
	if _, err := e.H.PutPendenzaType(ctx, e.Admin, commands.PutPendenzaType{IDTipoPendenza: "T", Descrizione: "T", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	e.Sync(t)
	if _, err := e.H.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: "app", Principal: "app", Credentials: commands.Credentials{Enabled: true},
		Grants: []commands.GrantInput{{API: "PENDENZE", Domini: domini, TipiPendenza: tipi}}}); err != nil {
		t.Fatal(err)
	}
	return e.principal(t, "app")
}

func TestBootstrapOnlyOnce(t *testing.T) {
	e := newEnv(t)
	ok, err := e.H.Bootstrap(context.Background(), "admin2", "admin-pass-2")
	if err != nil || ok {
		t.Fatalf("second bootstrap: %v %v, want no-op", ok, err)
	}
	if _, found := e.Model.Lookup("admin2"); found {
		t.Fatal("second bootstrap created an operator")
	}
}

// failingOperatorAppend is the real store, except that the first append
// to an operator stream fails as an outage (or a crash) would.
type failingOperatorAppend struct {
	events.StreamStore
	failed atomic.Bool
}

func (s *failingOperatorAppend) Append(ctx context.Context, stream string, exp events.Expected, recs ...events.Record) (events.Position, error) {
	if strings.HasPrefix(stream, events.StreamOperatore) && !s.failed.Swap(true) {
		return 0, fmt.Errorf("append %s: %w: connection lost", stream, events.ErrUnavailable)
	}
	return s.StreamStore.Append(ctx, stream, exp, recs...)
}

// A first start interrupted between the bootstrap's two appends (the role,
// then the operator) leaves a log that the next start completes.
func TestInterruptedBootstrapCompletesOnRestart(t *testing.T) {
	ctx := context.Background()
	store := jetstreamtest.Open(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))

	// First start: the operator's append fails; serve exits with the error.
	first := commands.NewHandler(&failingOperatorAppend{StreamStore: store}, projections.New(), logger)
	if _, err := first.Bootstrap(ctx, "admin", "admin-pass-1"); err == nil {
		t.Fatal("bootstrap succeeded despite the failed append")
	}
	// Second start, everything working.
	second := commands.NewHandler(store, projections.New(), logger)
	did, err := second.Bootstrap(ctx, "admin", "admin-pass-1")
	if err != nil || !did {
		t.Fatalf("second bootstrap: %v %v, want done", did, err)
	}
	m := projections.New()
	if err := m.CatchUp(ctx, store, logger); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Authenticate("admin", "admin-pass-1"); err != nil {
		t.Fatalf("after a restart the administrator does not exist: %v", err)
	}
	// Set up now: a third start adds nobody.
	if did, err := second.Bootstrap(ctx, "admin2", "admin-pass-2"); err != nil || did {
		t.Fatalf("third bootstrap: %v %v, want no-op", did, err)
	}
}

// Replicas starting on one empty log at once each bootstrap with a
// password of their own: exactly one appends the administrator and says
// so, and its password is the one that works.
func TestConcurrentBootstrapsAppendOneAdministrator(t *testing.T) {
	ctx := context.Background()
	store := jetstreamtest.Open(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	passwords := []string{"replica-0-password", "replica-1-password", "replica-2-password"}
	did := make([]bool, len(passwords))
	errs := eventstoretest.Concurrently(len(passwords), func(i int) error {
		var err error
		did[i], err = commands.NewHandler(store, projections.New(), logger).Bootstrap(ctx, "admin", passwords[i])
		return err
	})
	m := projections.New()
	if err := m.CatchUp(ctx, store, logger); err != nil {
		t.Fatal(err)
	}
	winners := 0
	for i, ok := range did {
		if errs[i] != nil {
			t.Fatalf("replica %d: %v", i, errs[i])
		}
		_, err := m.Authenticate("admin", passwords[i])
		if ok != (err == nil) {
			t.Fatalf("replica %d says done %v, its password authenticates: %v", i, ok, err)
		}
		if ok {
			winners++
		}
	}
	if winners != 1 {
		t.Fatalf("%d replicas appended the administrator, want 1: %v", winners, did)
	}
}

func TestNoPlaintextPasswordInTheLog(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: "op", RagioneSociale: "Op",
		Credentials: commands.Credentials{Password: ptr("very-secret-1"), Enabled: true, Roles: []string{}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.H.PutIntermediary(ctx, e.Admin, commands.PutIntermediary{IDIntermediario: "I1", Denominazione: "I",
		Enabled: true, ConnectorPrincipal: "node", ConnectorPassword: ptr("node-secret-1")}); err != nil {
		t.Fatal(err)
	}
	err := e.Store.Read(ctx, 0, func(_ context.Context, env events.Envelope) error {
		s := string(env.Data)
		if strings.Contains(s, "very-secret-1") || strings.Contains(s, "node-secret-1") || strings.Contains(s, "admin-pass-1") {
			t.Fatalf("plaintext secret in %s: %s", env.Name, s)
		}
		if strings.Contains(s, "asswordHash") && !strings.Contains(s, "$argon2id$") {
			t.Fatalf("password hash that is not argon2id in %s: %s", env.Name, s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestValidationAndSemanticErrors(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var inv *commands.InvalidError
	var unp *commands.UnprocessableError
	if _, err := e.H.PutEntity(ctx, e.Admin, commands.PutEntity{IDDominio: "123", RagioneSociale: "x"}); !errors.As(err, &inv) {
		t.Fatalf("bad idDominio: %v", err)
	}
	if _, err := e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: "o", RagioneSociale: "x", Credentials: commands.Credentials{Password: ptr("short")}}); !errors.As(err, &inv) {
		t.Fatalf("short password: %v", err)
	}
	if _, err := e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: "o", RagioneSociale: "x", Credentials: commands.Credentials{Roles: []string{"ghost"}}}); !errors.As(err, &unp) {
		t.Fatalf("unknown role: %v", err)
	}
	if _, err := e.H.PutEntity(ctx, e.Admin, commands.PutEntity{IDDominio: "11111111111", RagioneSociale: "x", IDIntermediario: "NOPE"}); !errors.As(err, &unp) {
		t.Fatalf("unknown intermediary: %v", err)
	}
}

func TestIdempotentRepeatsAppendNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	put := commands.PutEntity{IDDominio: "11111111111", RagioneSociale: "Ente", Enabled: true}
	first, err := e.H.PutEntity(ctx, e.Admin, put)
	if err != nil || !first.Created || !first.Changed {
		t.Fatalf("first: %+v %v", first, err)
	}
	again, err := e.H.PutEntity(ctx, e.Admin, put)
	if err != nil || again.Changed || again.Created {
		t.Fatalf("repeat: %+v %v", again, err)
	}
	last, _ := e.Store.LastPosition(ctx)
	if last != first.Position {
		t.Fatalf("repeat appended: last %d, first at %d", last, first.Position)
	}
	role := commands.DefineRole{IDRuolo: "r", ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}},
		Domini: []string{"*"}, TipiPendenza: []string{"*"}}
	if _, err := e.H.DefineRole(ctx, e.Admin, role); err != nil {
		t.Fatal(err)
	}
	if res, err := e.H.DefineRole(ctx, e.Admin, role); err != nil || res.Changed {
		t.Fatalf("role repeat: %+v %v", res, err)
	}
}

// TestRepeatWithJSONValuesAppendsNothing: GovPay's free JSON values (an
// entity's connector, a type's portal settings, an application's
// connector, a pendenza's datiAllegati and a voce's contabilita) as a
// client writes them, with spaces and characters encoding/json escapes: a
// repeat of the same request is recognised and appends nothing.
func TestRepeatWithJSONValuesAppendsNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	app := e.pendenzeApp(t, []string{"11111111111"}, []string{"T"})
	raw := func() json.RawMessage {
		return json.RawMessage(`{ "url": "https://x.example/?a=1&b=<2>",  "n": [1, 2] }`)
	}
	payer := events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "M R"}
	for _, tc := range []struct {
		name string
		put  func() (commands.Result, error)
	}{
		{"entity", func() (commands.Result, error) {
			c := commands.PutEntity{IDDominio: "11111111111", RagioneSociale: "Ente", Enabled: true}
			c.Fields.ServizioGovPay = raw()
			return e.H.PutEntity(ctx, e.Admin, c)
		}},
		{"type", func() (commands.Result, error) {
			c := commands.PutPendenzaType{IDTipoPendenza: "T", Descrizione: "T", Enabled: true}
			c.Fields.PortalePagamento = raw()
			return e.H.PutPendenzaType(ctx, e.Admin, c)
		}},
		{"application", func() (commands.Result, error) {
			c := commands.PutApplication{IDA2A: "other", Principal: "other", Credentials: commands.Credentials{Enabled: true}}
			c.Fields.ServizioIntegrazione = raw()
			return e.H.PutApplication(ctx, e.Admin, c)
		}},
		{"pendenza", func() (commands.Result, error) {
			c := commands.PutPendenza{IDA2A: "app", IDPendenza: "p", IDDominio: "11111111111", IDTipoPendenza: "T",
				Causale: "c", AmountCents: 100, Payer: payer}
			c.Details.DatiAllegati = raw()
			c.Details.Voci = []events.Voce{{AmountCents: 100, VoceFields: events.VoceFields{IDVocePendenza: "v", Descrizione: "v",
				CodEntrata: "E1", Contabilita: raw()}}}
			return e.H.PutPendenza(ctx, app, c)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.put(); err != nil {
				t.Fatal(err)
			}
			last, _ := e.Store.LastPosition(ctx)
			again, err := tc.put()
			if err != nil || again.Changed {
				t.Fatalf("repeat: %+v %v, want nothing changed", again, err)
			}
			e.appendedNothingSince(t, last)
		})
	}
}

// TestReceiptRepeatAfterItsPendenzaMoved: the node repeats a receipt
// (same idRicevuta, same content) after the pendenza it was recorded for
// moved to another entity, taking its notice number along. The repeat is
// the idempotent 200 of the first, appending nothing; with other content
// it is 409; a receipt never recorded for a notice unknown there is 404.
func TestReceiptRepeatAfterItsPendenzaMoved(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const d1, d2 = "11111111111", "22222222222"
	e.putEntity(t, d2, "Ente 2")
	app := e.pendenzeApp(t, []string{d1, d2}, []string{"T"})
	payer := events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "M R"}
	const avviso = "301234567890123456"
	put := func(idDominio string) {
		t.Helper()
		if _, err := e.H.PutPendenza(ctx, app, commands.PutPendenza{IDA2A: "app", IDPendenza: "p", IDDominio: idDominio,
			IDTipoPendenza: "T", Causale: "c", AmountCents: 100, Payer: payer, NumeroAvviso: avviso}); err != nil {
			t.Fatal(err)
		}
		e.Sync(t)
	}
	put(d1)
	receipt := commands.RecordReceipt{IDIntermediario: "I", IDDominio: d1, NumeroAvviso: avviso, IDRicevuta: "r1",
		AmountCents: 100, Esito: events.EsitoNonEseguito, DataPagamento: "2026-01-02"}
	if _, err := e.H.RecordReceipt(ctx, commands.System, receipt); err != nil {
		t.Fatal(err)
	}
	put(d2)
	last := e.Sync(t)
	if res, err := e.H.RecordReceipt(ctx, commands.System, receipt); err != nil || res.Changed {
		t.Fatalf("repeat: %+v %v, want the first's answer, nothing changed", res, err)
	}
	other := receipt
	other.AmountCents = 99
	if _, err := e.H.RecordReceipt(ctx, commands.System, other); !errors.Is(err, commands.ErrConflict) {
		t.Fatalf("repeat with other content: %v, want ErrConflict", err)
	}
	unknown := receipt
	unknown.IDRicevuta = "r2"
	if _, err := e.H.RecordReceipt(ctx, commands.System, unknown); !errors.Is(err, commands.ErrNotFound) {
		t.Fatalf("new receipt for a notice no longer at %s: %v, want ErrNotFound", d1, err)
	}
	e.appendedNothingSince(t, last)
}

func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	app := e.pendenzeApp(t, []string{"*"}, []string{"*"})
	payer := events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "M R"}
	if _, err := e.H.PutPendenza(ctx, app, commands.PutPendenza{IDA2A: "app", IDPendenza: "p", IDDominio: "11111111111",
		IDTipoPendenza: "T", Causale: "c0", AmountCents: 100, Payer: payer}); err != nil {
		t.Fatal(err)
	}
	const n = 8
	errs := eventstoretest.Concurrently(n, func(i int) error {
		_, err := e.H.PutPendenza(ctx, app, commands.PutPendenza{IDA2A: "app", IDPendenza: "p", IDDominio: "11111111111",
			IDTipoPendenza: "T", Causale: "c0", AmountCents: int64(200 + i), Payer: payer})
		return err
	})
	applied := eventstoretest.Wins(t, errs, commands.ErrConflict)
	envs, err := e.Store.Load(ctx, events.StreamPendenza+"app/p")
	if err != nil {
		t.Fatal(err)
	}
	if len(envs) != 1+applied || applied == 0 {
		t.Fatalf("%d applied but the stream holds %d events", applied, len(envs))
	}
	// Every stored update is one of the writers' values: none lost or merged.
	for _, env := range envs[1:] {
		u := env.Event.(events.PendenzaUpdated)
		if u.AmountCents < 200 || u.AmountCents >= 200+n || u.UUID != envs[0].Event.(events.PendenzaCreated).UUID {
			t.Fatalf("bad update %+v", u)
		}
	}
}

func TestDelegationInCommands(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	acl := []events.ACLEntry{{Service: "Anagrafica Ruoli", Rights: []string{"R", "W"}}, {Service: "Pendenze", Rights: []string{"R"}}}
	if _, err := e.H.DefineRole(ctx, e.Admin, commands.DefineRole{IDRuolo: "limited", ACL: acl, Domini: []string{"11111111111"}, TipiPendenza: []string{"*"}}); err != nil {
		t.Fatal(err)
	}
	e.Sync(t) // the next command reads the role from the read model
	if _, err := e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: "lim", RagioneSociale: "L", Credentials: commands.Credentials{Enabled: true, Roles: []string{"limited"}}}); err != nil {
		t.Fatal(err)
	}
	lim := e.principal(t, "lim")
	var fe *domain.ForbiddenError
	for _, domini := range [][]string{{"*"}, {"22222222222"}} {
		_, err := e.H.DefineRole(ctx, lim, commands.DefineRole{IDRuolo: "x", ACL: acl[1:], Domini: domini, TipiPendenza: []string{"*"}})
		if !errors.As(err, &fe) || fe.Rule != domain.RuleDelegation {
			t.Fatalf("grant %v: %v, want delegation denial", domini, err)
		}
	}
	if _, err := e.H.DefineRole(ctx, lim, commands.DefineRole{IDRuolo: "x", ACL: acl[1:], Domini: []string{"11111111111"}, TipiPendenza: []string{"*"}}); err != nil {
		t.Fatalf("own scope: %v", err)
	}
	if _, err := e.H.PutOperator(ctx, lim, commands.PutOperator{Principal: "o2", RagioneSociale: "x", Credentials: commands.Credentials{Enabled: true, Roles: []string{"Amministratore"}}}); !errors.As(err, &fe) {
		t.Fatalf("assigning admin: %v", err)
	}
	if _, err := e.H.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: "a", Principal: "lim", Credentials: commands.Credentials{Enabled: true}}); !errors.Is(err, commands.ErrPrincipalInUse) {
		t.Fatalf("principal clash: %v", err)
	}
}

func TestACertificateSubjectWrittenAnotherWayIsTheSamePrincipal(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.H.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: "app1", Principal: "CN=app1,O=Ente,C=IT", Credentials: commands.Credentials{Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	e.Sync(t)
	for _, name := range []string{"C=IT, O=Ente, CN=app1", "/C=IT/O=Ente/CN=app1", "cn=app1,o=Ente,c=IT"} {
		_, err := e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: name, RagioneSociale: "x", Credentials: commands.Credentials{Enabled: true}})
		if !errors.Is(err, commands.ErrPrincipalInUse) {
			t.Fatalf("operator %q: %v, want ErrPrincipalInUse", name, err)
		}
	}
	// The holder itself may rewrite its subject; a different subject is free.
	if _, err := e.H.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: "app1", Principal: "C=IT,O=Ente,CN=app1", Credentials: commands.Credentials{Enabled: true}}); err != nil {
		t.Fatalf("holder rewriting its own subject: %v", err)
	}
	if _, err := e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: "CN=app2,O=Ente,C=IT", RagioneSociale: "x", Credentials: commands.Credentials{Enabled: true}}); err != nil {
		t.Fatalf("another subject: %v", err)
	}
}

func TestRoleExistenceIsNotRevealedWithoutTheRight(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	reader := commands.DefineRole{IDRuolo: "reader", ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}},
		Domini: []string{"*"}, TipiPendenza: []string{"*"}}
	if _, err := e.H.DefineRole(ctx, e.Admin, reader); err != nil {
		t.Fatal(err)
	}
	e.Sync(t)
	if _, err := e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: "reader-op", RagioneSociale: "R", Credentials: commands.Credentials{Enabled: true, Roles: []string{"reader"}}}); err != nil {
		t.Fatal(err)
	}
	actor := e.principal(t, "reader-op")
	var fe *domain.ForbiddenError
	if _, err := e.H.PutOperator(ctx, actor, commands.PutOperator{Principal: "x", RagioneSociale: "x", Credentials: commands.Credentials{Roles: []string{"ghost"}}}); !errors.As(err, &fe) {
		t.Fatalf("operator with an undefined role, by a caller without Anagrafica Ruoli W: %v, want 403", err)
	}
	if _, err := e.H.PutApplication(ctx, actor, commands.PutApplication{IDA2A: "x", Principal: "x", Credentials: commands.Credentials{Roles: []string{"ghost"}}}); !errors.As(err, &fe) {
		t.Fatalf("application with an undefined role, by a caller without Anagrafica Applicazioni W: %v, want 403", err)
	}
	var unp *commands.UnprocessableError
	if _, err := e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: "x", RagioneSociale: "x", Credentials: commands.Credentials{Roles: []string{"ghost"}}}); !errors.As(err, &unp) {
		t.Fatalf("undefined role by the admin: %v, want 422", err)
	}
}

// TestConcurrentRegistrationsOfOnePrincipal: of concurrent registrations
// of one new principal (by applications and operators, in different
// spellings of one certificate subject) exactly one succeeds; the others
// are 409, however far the read model lags.
func TestConcurrentRegistrationsOfOnePrincipal(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	spellings := []string{"CN=shared,O=Ente,C=IT", "C=IT, O=Ente, CN=shared", "/C=IT/O=Ente/CN=shared"}
	const n = 6 // every registration a different holder (three operators, three applications)
	errs := eventstoretest.Concurrently(n, func(i int) error {
		name := spellings[i%len(spellings)]
		var err error
		if i%2 == 0 {
			_, err = e.H.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: fmt.Sprintf("app%d", i), Principal: name, Credentials: commands.Credentials{Enabled: true}})
		} else {
			_, err = e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: name, RagioneSociale: "x", Credentials: commands.Credentials{Enabled: true}})
		}
		return err
	})
	exactlyOneWins(t, errs, commands.ErrPrincipalInUse)
}

// TestConcurrentRegistrationsOfOneAppID: of an application and an
// operator registered at once that one new X-APP-ID would name (the
// application's idA2A, the operator's principal; their principals differ),
// exactly one succeeds and the other is 409. A replica whose read model
// has not applied the winner refuses the other kind too.
func TestConcurrentRegistrationsOfOneAppID(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	lagging := projections.New() // replica B: up to date before the writes below
	if err := lagging.CatchUp(ctx, e.Store, logger); err != nil {
		t.Fatal(err)
	}
	hB := commands.NewHandler(e.Store, lagging, logger)
	putApp := func(h *commands.Handler, id string) error {
		_, err := h.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: id, Principal: id + "-app", Credentials: commands.Credentials{Enabled: true}})
		return err
	}
	putOp := func(h *commands.Handler, principal string) error {
		_, err := h.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: principal, RagioneSociale: "x", Credentials: commands.Credentials{Enabled: true}})
		return err
	}
	for round := range 5 {
		name := fmt.Sprintf("shared%d", round)
		errs := eventstoretest.Concurrently(2, func(i int) error {
			if i == 0 {
				return putApp(e.H, name)
			}
			return putOp(e.H, name)
		})
		exactlyOneWins(t, errs, commands.ErrPrincipalInUse)
		// The loser again, on the lagging replica, which knows neither.
		err := putOp(hB, name)
		if errs[0] != nil {
			err = putApp(hB, name)
		}
		if !errors.Is(err, commands.ErrPrincipalInUse) {
			t.Fatalf("%s: the kind that lost, on a lagging replica: %v, want ErrPrincipalInUse", name, err)
		}
	}
	e.Sync(t)
	for round := range 5 {
		name := fmt.Sprintf("shared%d", round)
		_, isApp := e.Model.Application(name)
		_, isOp := e.Model.Operator(name)
		if isApp == isOp {
			t.Fatalf("%s is an application: %v, an operator: %v; want exactly one", name, isApp, isOp)
		}
	}
}

// exactlyOneWins asserts that one of concurrent writes succeeded and every
// other failed with loser.
func exactlyOneWins(t *testing.T, errs []error, loser error) {
	t.Helper()
	if won := eventstoretest.Wins(t, errs, loser); won != 1 {
		t.Fatalf("%d concurrent writes of one identifier succeeded, want exactly 1 (%v)", won, errs)
	}
}

// TestRenamedPrincipalIsFreeAgain: an application that changes its
// principal releases the old one, which another may then take; a
// registration refused for another reason leaves the principal free.
func TestRenamedPrincipalIsFreeAgain(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.H.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: "a", Principal: "first", Credentials: commands.Credentials{Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	e.Sync(t)
	if _, err := e.H.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: "b", Principal: "first", Credentials: commands.Credentials{Enabled: true}}); !errors.Is(err, commands.ErrPrincipalInUse) {
		t.Fatalf("taking a held principal: %v, want ErrPrincipalInUse", err)
	}
	if _, err := e.H.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: "a", Principal: "second", Credentials: commands.Credentials{Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	e.Sync(t)
	if _, err := e.H.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: "b", Principal: "first", Credentials: commands.Credentials{Enabled: true}}); err != nil {
		t.Fatalf("the renamed-away principal: %v, want it free", err)
	}
	// A refused registration (an undefined role: 422) does not keep the claim.
	var unp *commands.UnprocessableError
	if _, err := e.H.PutApplication(ctx, e.Admin, commands.PutApplication{IDA2A: "c", Principal: "third", Credentials: commands.Credentials{Enabled: true, Roles: []string{"ghost"}}}); !errors.As(err, &unp) {
		t.Fatalf("undefined role: %v", err)
	}
	if _, err := e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: "third", RagioneSociale: "x", Credentials: commands.Credentials{Enabled: true}}); err != nil {
		t.Fatalf("a principal whose registration was refused: %v, want it free", err)
	}
}

// putApp registers or updates the application id under principal on h.
func (e *env) putApp(h *commands.Handler, id, principal string) error {
	_, err := h.PutApplication(context.Background(), e.Admin, commands.PutApplication{IDA2A: id, Principal: principal,
		Credentials: commands.Credentials{Enabled: true}})
	return err
}

// TestConcurrentRenamesFreeTheLosingName: two renames of one application
// at once (x→y and x→z), both accepted: the application ends under one
// name; the other, and x, are free again.
func TestConcurrentRenamesFreeTheLosingName(t *testing.T) {
	e := newEnv(t)
	if err := e.putApp(e.H, "a", "x"); err != nil {
		t.Fatal(err)
	}
	e.Sync(t)
	names := []string{"y", "z"}
	errs := eventstoretest.Concurrently(2, func(i int) error { return e.putApp(e.H, "a", names[i]) })
	for _, err := range errs {
		if err != nil {
			t.Fatalf("renames: %v", errs)
		}
	}
	e.Sync(t)
	app, _ := e.Model.Application("a")
	other := "y"
	if app.Principal == "y" {
		other = "z"
	}
	for i, name := range []string{other, "x"} {
		if err := e.putApp(e.H, fmt.Sprintf("b%d", i), name); err != nil {
			t.Fatalf("application a is %q; registering another as %q (held by nobody): %v, want success", app.Principal, name, err)
		}
	}
}

// TestRenameOnALaggingReplicaFreesTheFormerName: a replica whose read
// model has not yet applied an application's registration renames it: the
// name it is renamed from is free afterwards.
func TestRenameOnALaggingReplicaFreesTheFormerName(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	lagging := projections.New()
	if err := lagging.CatchUp(ctx, e.Store, logger); err != nil { // replica B: up to date before "a" exists
		t.Fatal(err)
	}
	hB := commands.NewHandler(e.Store, lagging, logger)
	if err := e.putApp(e.H, "a", "x"); err != nil { // on replica A
		t.Fatal(err)
	}
	if err := e.putApp(hB, "a", "y"); err != nil { // on replica B, milliseconds later
		t.Fatal(err)
	}
	e.Sync(t)
	if app, _ := e.Model.Application("a"); app.Principal != "y" {
		t.Fatalf("a is %q, want y", app.Principal)
	}
	if err := e.putApp(e.H, "b", "x"); err != nil {
		t.Fatalf("registering b as x (a is now y, x is held by nobody): %v, want success", err)
	}
}

// lostAck is the real store, except that the first append to a stream
// with the given prefix is stored and then answered as an outage: the
// acknowledgement was lost (a connection cut mid-publish, a caller that
// stopped waiting).
type lostAck struct {
	events.StreamStore
	prefix string
	lost   atomic.Bool
}

func (s *lostAck) Append(ctx context.Context, stream string, exp events.Expected, recs ...events.Record) (events.Position, error) {
	pos, err := s.StreamStore.Append(ctx, stream, exp, recs...)
	if err == nil && strings.HasPrefix(stream, s.prefix) && !s.lost.Swap(true) {
		return 0, fmt.Errorf("append %s: %w: acknowledgement lost", stream, events.ErrUnavailable)
	}
	return pos, err
}

// TestAWriteWhoseAppendWentUnansweredKeepsItsClaim: a registration or a
// pendenza whose append the store stored but did not acknowledge fails
// (503), and may be there all the same: the principal or notice number it
// claimed stays claimed, so a replica whose read model has not applied it
// cannot give the identifier to a second holder.
func TestAWriteWhoseAppendWentUnansweredKeepsItsClaim(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	app := e.pendenzeApp(t, []string{"11111111111"}, []string{"T"})
	lagging := projections.New() // replica B: up to date before the writes below
	if err := lagging.CatchUp(ctx, e.Store, logger); err != nil {
		t.Fatal(err)
	}
	hB := commands.NewHandler(e.Store, lagging, logger)
	payer := events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "M R"}
	const avviso = "301234567890123456"
	pendenza := func(h *commands.Handler, id string) error {
		_, err := h.PutPendenza(ctx, app, commands.PutPendenza{IDA2A: "app", IDPendenza: id, IDDominio: "11111111111",
			IDTipoPendenza: "T", Causale: "c", AmountCents: 100, Payer: payer, NumeroAvviso: avviso})
		return err
	}
	for _, tc := range []struct {
		name   string
		prefix string
		first  func(h *commands.Handler) error // the write whose acknowledgement is lost
		second func() error                    // the same identifier for another holder, on replica B
		taken  error
	}{
		{"principal", events.StreamApplicazione,
			func(h *commands.Handler) error { return e.putApp(h, "a", "shared") },
			func() error { return e.putApp(hB, "b", "shared") }, commands.ErrPrincipalInUse},
		{"notice_number", events.StreamPendenza,
			func(h *commands.Handler) error { return pendenza(h, "p1") },
			func() error { return pendenza(hB, "p2") }, commands.ErrConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hA := commands.NewHandler(&lostAck{StreamStore: e.Store, prefix: tc.prefix}, e.Model, logger)
			if err := tc.first(hA); !errors.Is(err, events.ErrUnavailable) {
				t.Fatalf("the write whose acknowledgement was lost: %v, want ErrUnavailable", err)
			}
			if err := tc.second(); !errors.Is(err, tc.taken) {
				t.Fatalf("the same identifier for another holder on a lagging replica: %v, want %v (the first write was stored)", err, tc.taken)
			}
		})
	}
	e.Sync(t)
	if a, ok := e.Model.Application("a"); !ok || a.Principal != "shared" {
		t.Fatalf("application a: %+v %v, want it stored under shared", a, ok)
	}
	if pd, ok := e.Model.Pendenza("app", "p1"); !ok || pd.NumeroAvviso != avviso {
		t.Fatalf("pendenza p1: %+v %v, want it stored with %s", pd, ok, avviso)
	}
}

// TestConcurrentPendenzeNeverShareANoticeNumber: pendenze created at once
// with the same explicit notice number at one entity: exactly one gets it,
// the others are 409.
func TestConcurrentPendenzeNeverShareANoticeNumber(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	app := e.pendenzeApp(t, []string{"11111111111"}, []string{"T"})
	payer := events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "M R"}
	const avviso = "301234567890123456"
	const n = 6
	errs := eventstoretest.Concurrently(n, func(i int) error {
		_, err := e.H.PutPendenza(ctx, app, commands.PutPendenza{IDA2A: "app", IDPendenza: fmt.Sprintf("p%d", i),
			IDDominio: "11111111111", IDTipoPendenza: "T", Causale: "c", AmountCents: 100, Payer: payer, NumeroAvviso: avviso})
		return err
	})
	exactlyOneWins(t, errs, commands.ErrConflict)
	e.Sync(t)
	if !e.Model.NoticeInUse("11111111111", avviso) {
		t.Fatal("the winner's notice number is not in use")
	}
}

// TestConcurrentCreationsOfOnePendenzaLeaveNoStrayNoticeClaim: concurrent
// PUTs creating one new pendenza without a numeroAvviso: one creates it,
// the others re-decide as updates after the conflict. The only notice
// claim left for the pendenza is its own notice number's.
func TestConcurrentCreationsOfOnePendenzaLeaveNoStrayNoticeClaim(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const d1, d2 = "11111111111", "22222222222"
	app := e.pendenzeApp(t, []string{d1, d2}, []string{"T"})
	e.putEntity(t, d2, "Ente 2")
	e.Sync(t)
	payer := events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "M R"}
	// Rounds of four writers at one entity, then rounds of two writers at
	// two entities: the loser then re-decides as an update that moves the
	// pendenza, and must release the number it claimed as a creation.
	// (Two moves of one pendenza in opposite directions at once are a
	// race of one holder's claims this test does not make.)
	const rounds = 20
	for round := range rounds {
		id := fmt.Sprintf("p%d", round)
		writers, domini := 4, []string{d1, d1, d1, d1}
		if round >= rounds/2 {
			writers, domini = 2, []string{d1, d2}
		}
		errs := eventstoretest.Concurrently(writers, func(i int) error {
			_, err := e.H.PutPendenza(ctx, app, commands.PutPendenza{IDA2A: "app", IDPendenza: id,
				IDDominio: domini[i], IDTipoPendenza: "T", Causale: "c", AmountCents: 100, Payer: payer})
			return err
		})
		for _, err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, errs)
			}
		}
	}
	e.Sync(t)
	held := map[string]string{} // claim id → holder, as the log leaves them
	if err := e.Store.Read(ctx, 0, func(_ context.Context, env events.Envelope) error {
		switch c := env.Event.(type) {
		case events.IdentifierClaimed:
			if c.Kind == "avviso" {
				held[c.ID] = c.Holder
			}
		case events.IdentifierReleased:
			if c.Kind == "avviso" {
				delete(held, c.ID)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(held) != rounds {
		t.Errorf("%d notice numbers claimed, want %d (one per pendenza): %v", len(held), rounds, held)
	}
	for round := range rounds {
		id := fmt.Sprintf("p%d", round)
		pd, ok := e.Model.Pendenza("app", id)
		if !ok {
			t.Fatalf("pendenza %s not created", id)
		}
		if h := held[pd.IDDominio+"/"+pd.NumeroAvviso]; h != "PENDENZA:app/"+id {
			t.Errorf("the notice of %s, %s, is claimed by %q", id, pd.NumeroAvviso, h)
		}
	}
}

// TestRepeatsAreDecidedOnTheStream repeats registry writes at once, before
// the projections could have applied the first: the repeat is recognised
// from the stream just loaded, never from a read model that may lag.
func TestRepeatsAreDecidedOnTheStream(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	typ := commands.PutPendenzaType{IDTipoPendenza: "T", Descrizione: "T", Enabled: true}
	pw := "connector-pass-1"
	interm := commands.PutIntermediary{IDIntermediario: "I1", Denominazione: "I", Enabled: true, ConnectorPrincipal: "conn",
		ConnectorPassword: &pw}
	same := interm
	same.ConnectorPassword = nil // keeps the password
	for _, tc := range []struct {
		name    string
		put     func() (commands.Result, error)
		changed bool
	}{
		{"type_created", func() (commands.Result, error) { return e.H.PutPendenzaType(ctx, e.Admin, typ) }, true},
		{"type_repeated", func() (commands.Result, error) { return e.H.PutPendenzaType(ctx, e.Admin, typ) }, false},
		{"type_changed", func() (commands.Result, error) {
			c := typ
			c.Enabled = false
			return e.H.PutPendenzaType(ctx, e.Admin, c)
		}, true},
		{"intermediary_created", func() (commands.Result, error) { return e.H.PutIntermediary(ctx, e.Admin, interm) }, true},
		{"intermediary_repeated_without_password", func() (commands.Result, error) { return e.H.PutIntermediary(ctx, e.Admin, same) }, false},
		{"intermediary_repeated_with_password", func() (commands.Result, error) { return e.H.PutIntermediary(ctx, e.Admin, interm) }, true},
	} {
		res, err := tc.put()
		if err != nil || res.Changed != tc.changed {
			t.Fatalf("%s: %+v %v, want changed %v", tc.name, res, err, tc.changed)
		}
	}
}

// TestPatchDecidesOnTheStreamItLoaded: a replica whose read model has not
// yet applied a pendenza's move to another entity patches it. The caller's
// right is decided at the place the stream it loaded holds, and
// PendenzaStatusChanged is recorded there, not at the former entity (the
// event log scopes the event by that place).
func TestPatchDecidesOnTheStreamItLoaded(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const former, moved = "11111111111", "22222222222"
	e.putEntity(t, moved, "Ente 2")
	app := e.pendenzeApp(t, []string{former, moved}, []string{"*"})
	operator := map[string]commands.Actor{}
	for _, d := range []string{former, moved} {
		if _, err := e.H.DefineRole(ctx, e.Admin, commands.DefineRole{IDRuolo: "w" + d, Domini: []string{d}, TipiPendenza: []string{"*"},
			ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R", "W"}}}}); err != nil {
			t.Fatal(err)
		}
		e.Sync(t)
		if _, err := e.H.PutOperator(ctx, e.Admin, commands.PutOperator{Principal: "op" + d, RagioneSociale: "O",
			Credentials: commands.Credentials{Enabled: true, Roles: []string{"w" + d}}}); err != nil {
			t.Fatal(err)
		}
		operator[d] = e.principal(t, "op"+d)
	}
	payer := events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "M R"}
	put := func(id, idDominio string) {
		t.Helper()
		if _, err := e.H.PutPendenza(ctx, app, commands.PutPendenza{IDA2A: "app", IDPendenza: id, IDDominio: idDominio,
			IDTipoPendenza: "T", Causale: "c", AmountCents: 100, Payer: payer}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, id string
		actor    commands.Actor
		api      domain.API
		allowed  bool
	}{
		{"creator_patches", "p1", app, domain.APIPendenze, true},
		{"operator_of_the_entity_it_moved_to", "p2", operator[moved], domain.APIBackoffice, true},
		{"operator_of_the_former_entity", "p3", operator[former], domain.APIBackoffice, false},
	}
	for _, tc := range cases {
		put(tc.id, former)
	}
	e.Sync(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	lagging := projections.New() // replica B: has every pendenza at the former entity
	if err := lagging.CatchUp(ctx, e.Store, logger); err != nil {
		t.Fatal(err)
	}
	hB := commands.NewHandler(e.Store, lagging, logger)
	for _, tc := range cases {
		put(tc.id, moved) // on replica A
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := hB.PatchPendenza(ctx, tc.actor, commands.PatchPendenza{API: tc.api, IDA2A: "app", IDPendenza: tc.id, Stato: "ANNULLATA"})
			var fe *domain.ForbiddenError
			if !tc.allowed {
				if !errors.As(err, &fe) {
					t.Fatalf("patch: %v, want 403 (the pendenza lies at %s)", err, moved)
				}
				return
			}
			if err != nil {
				t.Fatalf("patch: %v, want success", err)
			}
			envs, err := e.Store.Load(ctx, events.StreamPendenza+"app/"+tc.id)
			if err != nil {
				t.Fatal(err)
			}
			last, ok := envs[len(envs)-1].Event.(events.PendenzaStatusChanged)
			if !ok || last.IDDominio != moved {
				t.Fatalf("recorded %+v, want PendenzaStatusChanged at idDominio %s, where the stream it loaded puts the pendenza", envs[len(envs)-1].Event, moved)
			}
		})
	}
}
