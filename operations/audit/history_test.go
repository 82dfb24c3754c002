package audit_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/commands/commandstest"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

const (
	d1 = "11111111111"
	d2 = "22222222222"
	t1 = "TARI"
)

// history is a live service without HTTP: the real embedded store, the
// command handlers and the read models following the log.
type history struct{ *commandstest.Env }

func newHistory(t *testing.T) *history {
	t.Helper()
	return &history{commandstest.Start(t)}
}

func (h *history) do(t *testing.T, f func(ctx context.Context) (commands.Result, error)) events.Position {
	t.Helper()
	if _, err := f(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h.Sync(t)
}

func ptr(s string) *string { return &s }

func (h *history) putApp(t *testing.T, id string, enabled bool, password *string, grants ...commands.GrantInput) events.Position {
	t.Helper()
	return h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutApplication(ctx, h.Admin, commands.PutApplication{IDA2A: id, Principal: id, Credentials: commands.Credentials{Password: password, Enabled: enabled, Roles: []string{}}, Grants: grants})
	})
}

func (h *history) asApp(t *testing.T, id string) commands.Actor {
	t.Helper()
	rec, ok := h.Model.Lookup(id)
	if !ok {
		t.Fatalf("%s not projected", id)
	}
	return commands.Actor{Principal: rec.Principal}
}

func (h *history) at(t *testing.T, pos events.Position) *projections.ReadModel {
	t.Helper()
	m, st, err := projections.Rebuild(context.Background(), h.Store, projections.Until{Position: pos}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Position != pos {
		t.Fatalf("rebuilt to %d, want %d", st.Position, pos)
	}
	return m
}

func holders(t *testing.T, m *projections.ReadModel, api domain.API, op string, r audit.Resource) []string {
	t.Helper()
	res, err := audit.WhoCan(m, api, op, r)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, h := range res.Holders {
		out = append(out, h.Principal)
	}
	slices.Sort(out)
	return out
}

func explain(t *testing.T, m *projections.ReadModel, q audit.Query) *audit.Explanation {
	t.Helper()
	x, err := audit.Explain(m, q)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// fingerprint is what a replica's read models answer about principals and
// pendenze: equal fingerprints mean equal answers.
func fingerprint(t *testing.T, m *projections.ReadModel) string {
	t.Helper()
	var who []*audit.WhoCanResult
	for _, q := range []struct {
		api domain.API
		op  string
		r   audit.Resource
	}{
		{domain.APIPendenze, "create", audit.Resource{IDDominio: d1, IDTipoPendenza: t1}},
		{domain.APIPendenze, "create", audit.Resource{IDDominio: d2, IDTipoPendenza: t1}},
		{domain.APIPendenze, "list", audit.Resource{}},
		{domain.APIBackoffice, "servizio", audit.Resource{Service: "Pendenze", Right: "R", IDDominio: d1}},
		{domain.APIBackoffice, "servizio", audit.Resource{Service: "Pendenze", Right: "R", IDDominio: d2}},
	} {
		res, err := audit.WhoCan(m, q.api, q.op, q.r)
		if err != nil {
			t.Fatal(err)
		}
		who = append(who, res)
	}
	b, err := json.Marshal(map[string]any{"who": who, "apps": m.Applications(), "ops": m.Operators(), "roles": m.Roles(),
		"pendenze": m.Pendenze(projections.PendenzeFilter{}), "position": m.AppliedPosition(), "events": m.AppliedEvents()})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestScriptedHistory grants, uses, revokes, re-grants with a narrower
// scope, disables and changes a password, then asks who-can and explain at
// every point: each answer is the one of that time, never the present's,
// and a replay to each position equals the live read models then.
func TestScriptedHistory(t *testing.T) {
	h := newHistory(t)
	live := map[events.Position]string{}
	mark := func(pos events.Position) events.Position { live[pos] = fingerprint(t, h.Model); return pos }

	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutEntity(ctx, h.Admin, commands.PutEntity{IDDominio: d1, RagioneSociale: "Comune 1", Enabled: true})
	})
	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutEntity(ctx, h.Admin, commands.PutEntity{IDDominio: d2, RagioneSociale: "Comune 2", Enabled: true})
	})
	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutPendenzaType(ctx, h.Admin, commands.PutPendenzaType{IDTipoPendenza: t1, Descrizione: "Tari", Enabled: true})
	})
	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.DefineRole(ctx, h.Admin, commands.DefineRole{IDRuolo: "auditD1", Domini: []string{d1}, TipiPendenza: []string{"*"},
			ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}, {Service: "Giornale degli Eventi", Rights: []string{"R"}}}})
	})
	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutOperator(ctx, h.Admin, commands.PutOperator{Principal: "op1", RagioneSociale: "Ufficio", Credentials: commands.Credentials{Password: ptr("op1-password"), Enabled: true, Roles: []string{"auditD1"}}})
	})
	before := mark(h.putApp(t, "app1", true, ptr("app1-password")))
	granted := mark(h.putApp(t, "app1", true, nil, commands.GrantInput{API: "PENDENZE", Domini: []string{d1, d2}, TipiPendenza: []string{"*"}}))
	used := mark(h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutPendenza(ctx, h.asApp(t, "app1"), commands.PutPendenza{IDA2A: "app1", IDPendenza: "P1", IDDominio: d2,
			IDTipoPendenza: t1, Causale: "Tari 2026", AmountCents: 1000,
			Payer: events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "Mario Rossi"}})
	}))
	revoked := mark(h.putApp(t, "app1", true, nil))
	app2 := mark(h.putApp(t, "app2", true, ptr("app2-password"), commands.GrantInput{API: "PENDENZE", Domini: []string{d2}, TipiPendenza: []string{"*"}}))
	narrower := mark(h.putApp(t, "app1", true, nil, commands.GrantInput{API: "PENDENZE", Domini: []string{d1}, TipiPendenza: []string{"*"}}))
	disabled := mark(h.putApp(t, "app1", false, nil, commands.GrantInput{API: "PENDENZE", Domini: []string{d1}, TipiPendenza: []string{"*"}}))
	newPassword := mark(h.putApp(t, "app1", true, ptr("app1-password-2"), commands.GrantInput{API: "PENDENZE", Domini: []string{d1}, TipiPendenza: []string{"*"}}))

	createIn := func(d string) audit.Resource { return audit.Resource{IDDominio: d, IDTipoPendenza: t1} }
	q := func(principal, op string, r audit.Resource) audit.Query {
		return audit.Query{Principal: principal, Auth: domain.AuthBasic, API: domain.APIPendenze, Operation: op, Resource: r}
	}
	steps := []struct {
		name               string
		pos                events.Position
		whoD1, whoD2       []string
		outcomeD2, ruleD2  string // app1 creating in d2
		outcomeApp2        string // app2 creating in d2
		readP1, readP1Rule string // app1 reading its pendenza P1
		app1ShapedAt       events.Position
	}{
		{"before_grant", before, []string{}, []string{}, "deny", domain.RuleAPIEntry, "unauthenticated", "deny", domain.RuleAPIEntry, before},
		{"granted", granted, []string{"app1"}, []string{"app1"}, "allow", "granted", "unauthenticated", "not-found", "granted", granted},
		{"used", used, []string{"app1"}, []string{"app1"}, "allow", "granted", "unauthenticated", "allow", "granted", granted},
		{"revoked", revoked, []string{}, []string{}, "deny", domain.RuleAPIEntry, "unauthenticated", "deny", domain.RuleAPIEntry, revoked},
		{"app2_registered", app2, []string{}, []string{"app2"}, "deny", domain.RuleAPIEntry, "allow", "deny", domain.RuleAPIEntry, revoked},
		{"regranted_narrower", narrower, []string{"app1"}, []string{"app2"}, "deny", domain.RuleAPIScope, "allow", "allow", "granted", narrower},
		{"disabled", disabled, []string{}, []string{"app2"}, "deny", domain.RulePrincipalDisabled, "allow", "deny", domain.RulePrincipalDisabled, disabled},
		{"password_changed", newPassword, []string{"app1"}, []string{"app2"}, "deny", domain.RuleAPIScope, "allow", "allow", "granted", newPassword},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			m := h.at(t, s.pos)
			if got := fingerprint(t, m); got != live[s.pos] {
				t.Fatalf("replay to %d differs from the live read models then:\nreplay %s\nlive   %s", s.pos, got, live[s.pos])
			}
			if got := holders(t, m, domain.APIPendenze, "create", createIn(d1)); !slices.Equal(got, s.whoD1) {
				t.Errorf("who can create in d1 = %v, want %v", got, s.whoD1)
			}
			if got := holders(t, m, domain.APIPendenze, "create", createIn(d2)); !slices.Equal(got, s.whoD2) {
				t.Errorf("who can create in d2 = %v, want %v", got, s.whoD2)
			}
			x := explain(t, m, q("app1", "create", createIn(d2)))
			if x.Outcome != s.outcomeD2 || x.Rule != s.ruleD2 || x.Position != uint64(s.pos) {
				t.Errorf("explain app1 create d2 = %s/%s at %d, want %s/%s at %d", x.Outcome, x.Rule, x.Position, s.outcomeD2, s.ruleD2, s.pos)
			}
			if x.PrincipalPosition != uint64(s.app1ShapedAt) {
				t.Errorf("app1 shaped at %d, want %d", x.PrincipalPosition, s.app1ShapedAt)
			}
			if x := explain(t, m, q("app2", "create", createIn(d2))); x.Outcome != s.outcomeApp2 {
				t.Errorf("explain app2 create d2 = %s/%s, want %s", x.Outcome, x.Rule, s.outcomeApp2)
			}
			r := explain(t, m, q("app1", "read", audit.Resource{IDA2A: "app1", IDPendenza: "P1"}))
			if r.Outcome != s.readP1 || r.Rule != s.readP1Rule {
				t.Errorf("explain app1 read P1 = %s/%s, want %s/%s", r.Outcome, r.Rule, s.readP1, s.readP1Rule)
			}
		})
	}

	t.Run("trail_names_the_failing_scope", func(t *testing.T) {
		x := explain(t, h.at(t, narrower), q("app1", "create", createIn(d2)))
		lastStep := x.Trail[len(x.Trail)-1]
		if lastStep.Passed || lastStep.Rule != domain.RuleAPIScope || lastStep.Check != "PENDENZE/create" {
			t.Fatalf("last step = %+v", lastStep)
		}
		if len(x.Evidence) != 1 || x.Evidence[0].Covers || !slices.Equal(x.Evidence[0].Domini, []string{d1}) {
			t.Fatalf("evidence = %+v", x.Evidence)
		}
		ok := explain(t, h.at(t, granted), q("app1", "create", createIn(d2)))
		if len(ok.Evidence) != 1 || !ok.Evidence[0].Covers || !slices.Equal(ok.Evidence[0].Domini, []string{d1, d2}) {
			t.Fatalf("evidence when granted = %+v", ok.Evidence)
		}
	})
	t.Run("backoffice_roles_scope_who_can", func(t *testing.T) {
		m := h.at(t, newPassword)
		r := audit.Resource{Service: "Pendenze", Right: "R", IDDominio: d1}
		if got := holders(t, m, domain.APIBackoffice, "servizio", r); !slices.Equal(got, []string{"admin", "op1"}) {
			t.Fatalf("who reads pendenze of d1 = %v", got)
		}
		r.IDDominio = d2
		if got := holders(t, m, domain.APIBackoffice, "servizio", r); !slices.Equal(got, []string{"admin"}) {
			t.Fatalf("who reads pendenze of d2 = %v", got)
		}
		x := explain(t, m, audit.Query{Principal: "op1", API: domain.APIBackoffice, Operation: "servizio", Resource: r})
		if x.Outcome != "deny" || x.Rule != domain.RuleRoleScope || len(x.Evidence) != 1 || x.Evidence[0].ID != "auditD1" || x.Evidence[0].Covers {
			t.Fatalf("explain op1 = %+v", x)
		}
	})
	t.Run("time_cut_by_at", func(t *testing.T) {
		m, st, err := projections.Rebuild(context.Background(), h.Store, projections.Until{Time: h.Model.LastEventTime().Add(-365 * 24 * 3600 * 1e9)}, nil)
		if err != nil || st.Events != 0 || m.AppliedPosition() != 0 {
			t.Fatalf("a year before the log: %d events at %d, %v", st.Events, m.AppliedPosition(), err)
		}
		_, st, err = projections.Rebuild(context.Background(), h.Store, projections.Until{Time: h.Model.LastEventTime()}, nil)
		if err != nil || st.Position != newPassword {
			t.Fatalf("at the last event's time: position %d, want %d (%v)", st.Position, newPassword, err)
		}
	})
	t.Run("bad_queries", func(t *testing.T) {
		m := h.Model
		if _, err := audit.Explain(m, audit.Query{Principal: "app1", API: domain.APIPendenze, Operation: "nope"}); err == nil {
			t.Fatal("unknown operation accepted")
		}
		if _, err := audit.Explain(m, q("app1", "read", audit.Resource{IDA2A: "app1"})); err == nil {
			t.Fatal("read without idPendenza accepted")
		}
		if _, err := audit.Explain(m, audit.Query{Principal: "admin", API: domain.APIBackoffice, Operation: "servizio",
			Resource: audit.Resource{Service: "Nope"}}); err == nil {
			t.Fatal("unknown service accepted")
		}
	})
}

// TestWhoCanNamesThePayerOnlyWhenACitizen: on the Pagamento API the payer
// of a pendenza reads it as a citizen, unless the payer is pagoPA's
// anonymous identificativo, which no citizen authenticates under (the
// identity proxy's "ANONIMO" is refused with 401).
func TestWhoCanNamesThePayerOnlyWhenACitizen(t *testing.T) {
	h := newHistory(t)
	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutEntity(ctx, h.Admin, commands.PutEntity{IDDominio: d1, RagioneSociale: "Comune 1", Enabled: true})
	})
	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutPendenzaType(ctx, h.Admin, commands.PutPendenzaType{IDTipoPendenza: t1, Descrizione: "Tari", Enabled: true})
	})
	h.putApp(t, "app1", true, ptr("app1-password"), commands.GrantInput{API: "PENDENZE", Domini: []string{d1}, TipiPendenza: []string{"*"}})
	create := func(id, payer string) {
		h.do(t, func(ctx context.Context) (commands.Result, error) {
			return h.H.PutPendenza(ctx, h.asApp(t, "app1"), commands.PutPendenza{IDA2A: "app1", IDPendenza: id, IDDominio: d1,
				IDTipoPendenza: t1, Causale: "Tari 2026", AmountCents: 1000,
				Payer: events.Subject{Tipo: "F", Identificativo: payer, Anagrafica: "Pagatore"}})
		})
	}
	create("P-CITIZEN", "RSSMRA80A01H501U")
	create("P-ANON", domain.AnonymousIdentificativo)
	for _, c := range []struct {
		name, id string
		want     []string
	}{
		{"citizen_payer", "P-CITIZEN", []string{"RSSMRA80A01H501U"}},
		{"anonymous_payer", "P-ANON", []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := holders(t, h.Model, domain.APIPagamento, "read-pendenza", audit.Resource{IDA2A: "app1", IDPendenza: c.id})
			if !slices.Equal(got, c.want) {
				t.Fatalf("who reads %s on PAGAMENTO = %v, want %v", c.id, got, c.want)
			}
		})
	}
}

// TestSPIDPrincipalIsAFiscalCode: explain refuses a spid principal that
// is not a fiscal code, as the service answers its header 401: "*" too,
// which only who-can's own question uses for every citizen.
func TestSPIDPrincipalIsAFiscalCode(t *testing.T) {
	m := projections.New()
	for _, c := range []struct{ name, principal, want string }{
		{"fiscal_code", "RSSMRA80A01H501U", audit.OutcomeAllow},
		{"anonimo", "ANONIMO", audit.OutcomeUnauthenticated},
		{"every_citizen_stand_in", "*", audit.OutcomeUnauthenticated},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, err := audit.Explain(m, audit.Query{Principal: c.principal, Auth: domain.AuthSPID, API: domain.APIPagamento, Operation: "profilo"})
			if err != nil {
				t.Fatal(err)
			}
			if x.Outcome != c.want {
				t.Fatalf("explain PAGAMENTO/profilo as spid %q = %q (%s: %s), want %q", c.principal, x.Outcome, x.Rule, x.Detail, c.want)
			}
		})
	}
	t.Run("who_can_names_every_citizen", func(t *testing.T) {
		if got := holders(t, m, domain.APIPagamento, "profilo", audit.Resource{}); !slices.Contains(got, "*") {
			t.Fatalf("who-can PAGAMENTO/profilo = %v, want every citizen (*) among them", got)
		}
	})
}

// TestEvidenceOfAPaymentAcrossTwoRoles: a payment whose items lie in two
// entities, read on the Backoffice by an operator holding one role for
// each, is allowed; neither role covers it alone, and each role's evidence
// is partial and says which of the payment's places it holds and which it
// does not. A role of a third entity holds none of them.
func TestEvidenceOfAPaymentAcrossTwoRoles(t *testing.T) {
	h := newHistory(t)
	const d3 = "33333333333"
	for _, d := range []string{d1, d2, d3} {
		h.do(t, func(ctx context.Context) (commands.Result, error) {
			return h.H.PutEntity(ctx, h.Admin, commands.PutEntity{IDDominio: d, RagioneSociale: "Comune " + d, Enabled: true})
		})
		h.do(t, func(ctx context.Context) (commands.Result, error) {
			return h.H.DefineRole(ctx, h.Admin, commands.DefineRole{IDRuolo: "pagamenti" + d, Domini: []string{d}, TipiPendenza: []string{"*"},
				ACL: []events.ACLEntry{{Service: "Pagamenti", Rights: []string{"R"}}}})
		})
	}
	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutPendenzaType(ctx, h.Admin, commands.PutPendenzaType{IDTipoPendenza: t1, Descrizione: "Tari", Enabled: true})
	})
	h.putApp(t, "app1", true, ptr("app1-password"),
		commands.GrantInput{API: "PENDENZE", Domini: []string{d1, d2}, TipiPendenza: []string{"*"}},
		commands.GrantInput{API: "PAGAMENTO", Domini: []string{d1, d2}, TipiPendenza: []string{"*"}})
	refs := []commands.PaymentRef{}
	for i, d := range []string{d1, d2} {
		id := "P" + strconv.Itoa(i)
		h.do(t, func(ctx context.Context) (commands.Result, error) {
			return h.H.PutPendenza(ctx, h.asApp(t, "app1"), commands.PutPendenza{IDA2A: "app1", IDPendenza: id, IDDominio: d,
				IDTipoPendenza: t1, Causale: "Tari 2026", AmountCents: 1000,
				Payer: events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "Mario Rossi"}})
		})
		refs = append(refs, commands.PaymentRef{IDA2A: "app1", IDPendenza: id})
	}
	id, _, err := h.H.StartPayment(context.Background(), h.asApp(t, "app1"), commands.StartPayment{Refs: refs})
	if err != nil {
		t.Fatal(err)
	}
	h.Sync(t)
	read := func(principal string) *audit.Explanation {
		return explain(t, h.Model, audit.Query{Principal: principal, API: domain.APIBackoffice, Operation: "servizio",
			Resource: audit.Resource{Service: "Pagamenti", Right: "R", IDPagamento: id}})
	}
	for _, op := range []struct {
		name  string
		roles []string
		want  string
	}{{"opBoth", []string{"pagamenti" + d1, "pagamenti" + d2}, audit.OutcomeAllow}, {"opOne", []string{"pagamenti" + d1}, audit.OutcomeDeny},
		{"opThird", []string{"pagamenti" + d3}, audit.OutcomeDeny}} {
		h.do(t, func(ctx context.Context) (commands.Result, error) {
			return h.H.PutOperator(ctx, h.Admin, commands.PutOperator{Principal: op.name, RagioneSociale: "Ufficio",
				Credentials: commands.Credentials{Password: ptr("op-password-1"), Enabled: true, Roles: op.roles}})
		})
		x := read(op.name)
		if x.Outcome != op.want || len(x.Evidence) != len(op.roles) {
			t.Fatalf("%s: %s/%s, evidence %+v", op.name, x.Outcome, x.Rule, x.Evidence)
		}
		if op.name == "opThird" {
			want := "gives Pagamenti R but idDominio " + d1 + " and idTipoPendenza " + t1 + " is not in its scope"
			if e := x.Evidence[0]; e.Covers || e.Partial || e.Why != want {
				t.Fatalf("opThird: evidence %+v, want neither covering nor partial, %q", e, want)
			}
			continue
		}
		for i, e := range x.Evidence {
			held, other := d1, d2
			if i == 1 {
				held, other = d2, d1
			}
			want := "gives Pagamenti R with idDominio " + held + " and idTipoPendenza " + t1 + " in scope but idDominio " + other +
				" and idTipoPendenza " + t1 + " is not in its scope"
			if e.Covers || !e.Partial || e.Why != want {
				t.Fatalf("%s: evidence of %s = %+v, want partial, %q", op.name, e.ID, e, want)
			}
		}
	}
	// Who can read it: the operator holding both roles, each listed as
	// covering part of it; not the one holding one.
	r, err := audit.WhoCan(h.Model, domain.APIBackoffice, "servizio", audit.Resource{Service: "Pagamenti", Right: "R", IDPagamento: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, hd := range r.Holders {
		switch hd.Principal {
		case "opBoth":
			if len(hd.Evidence) != 2 || !hd.Evidence[0].Partial || !hd.Evidence[1].Partial {
				t.Fatalf("opBoth's evidence = %+v", hd.Evidence)
			}
		case "opOne", "opThird":
			t.Fatalf("%s does not hold both roles and is listed", hd.Principal)
		}
	}
	if !slices.ContainsFunc(r.Holders, func(hd audit.Holder) bool { return hd.Principal == "opBoth" }) {
		t.Fatalf("holders = %+v, want opBoth", r.Holders)
	}
}

// TestWhoCanNamesTheCitizensOfAPaymentAndANotice: on the Pagamento API a
// citizen reads a payment it is the remitter of or the payer of an item
// of, and the pendenza of a notice it is the payer of; who-can lists each
// of them (it listed only the payer of a pendenza named by its ids).
func TestWhoCanNamesTheCitizensOfAPaymentAndANotice(t *testing.T) {
	const payer, remitter = "RSSMRA80A01H501U", "VRDGPP80A01H501X"
	h := newHistory(t)
	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutEntity(ctx, h.Admin, commands.PutEntity{IDDominio: d1, RagioneSociale: "Comune 1", Enabled: true})
	})
	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutPendenzaType(ctx, h.Admin, commands.PutPendenzaType{IDTipoPendenza: t1, Descrizione: "Tari", Enabled: true})
	})
	h.putApp(t, "app1", true, ptr("app1-password"),
		commands.GrantInput{API: "PENDENZE", Domini: []string{d1}, TipiPendenza: []string{"*"}},
		commands.GrantInput{API: "PAGAMENTO", Domini: []string{d1}, TipiPendenza: []string{"*"}})
	h.do(t, func(ctx context.Context) (commands.Result, error) {
		return h.H.PutPendenza(ctx, h.asApp(t, "app1"), commands.PutPendenza{IDA2A: "app1", IDPendenza: "P1", IDDominio: d1,
			IDTipoPendenza: t1, Causale: "Tari 2026", AmountCents: 1000,
			Payer: events.Subject{Tipo: "F", Identificativo: payer, Anagrafica: "Mario Rossi"}})
	})
	v, ok := h.Model.PendenzaView("app1", "P1")
	if !ok || v.NumeroAvviso == "" {
		t.Fatalf("pendenza P1 = %+v, %v", v, ok)
	}
	id, _, err := h.H.StartPayment(context.Background(), h.asApp(t, "app1"), commands.StartPayment{
		Refs:     []commands.PaymentRef{{IDA2A: "app1", IDPendenza: "P1"}},
		Remitter: &events.Subject{Tipo: "F", Identificativo: remitter, Anagrafica: "Giuseppe Verdi"}})
	if err != nil {
		t.Fatal(err)
	}
	h.Sync(t)
	for _, c := range []struct {
		name, op string
		r        audit.Resource
		want     []string
	}{
		{"payment_remitter_and_payer", "read-payment", audit.Resource{IDPagamento: id}, []string{payer, remitter, "app1"}},
		{"notice_pendenza_payer", "read-by-avviso", audit.Resource{IDDominio: d1, NumeroAvviso: v.NumeroAvviso}, []string{payer, "app1"}},
		{"pendenza_payer", "read-pendenza", audit.Resource{IDA2A: "app1", IDPendenza: "P1"}, []string{payer, "app1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := holders(t, h.Model, domain.APIPagamento, c.op, c.r)
			if !slices.Equal(got, c.want) {
				t.Fatalf("who-can PAGAMENTO/%s = %v, want %v", c.op, got, c.want)
			}
			for _, code := range c.want {
				if code == "app1" {
					continue
				}
				if x := explain(t, h.Model, audit.Query{Principal: code, Auth: domain.AuthSPID, API: domain.APIPagamento,
					Operation: c.op, Resource: c.r}); !x.Allowed() {
					t.Fatalf("explain %s as %s = %s (%s), want allow", c.op, code, x.Outcome, x.Detail)
				}
			}
		})
	}
}

// TestWhoCanAsksThroughTheCredentialAPrincipalHas: basic needs a password
// and apikey an API key (without one the service answers 401 whatever is
// sent: explain says unauthenticated); who-can lists each operator
// through the credential it has, and not one that has none.
func TestWhoCanAsksThroughTheCredentialAPrincipalHas(t *testing.T) {
	h := newHistory(t)
	const certificate, fiscalCode = "CN=op-ssl,O=Ente,C=IT", "RSSMRA80A01H501U"
	for _, op := range []struct {
		name             string
		password, apiKey *string
	}{
		{"opPassword", ptr("op-password-1"), nil}, {certificate, nil, nil}, {fiscalCode, nil, nil},
		{"opKey", nil, ptr("op-api-key-0123456789")}, {"opNone", nil, nil},
	} {
		h.do(t, func(ctx context.Context) (commands.Result, error) {
			return h.H.PutOperator(ctx, h.Admin, commands.PutOperator{Principal: op.name, RagioneSociale: "Ufficio",
				Credentials: commands.Credentials{Password: op.password, APIKey: op.apiKey, Enabled: true, Roles: []string{commands.AdminRole}}})
		})
	}
	res, err := audit.WhoCan(h.Model, domain.APIBackoffice, "profilo", audit.Resource{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, hd := range res.Holders {
		got[hd.Principal] = hd.Auth
	}
	want := map[string]string{"admin": "basic", "opPassword": "basic", certificate: "ssl", fiscalCode: "spid", "opKey": "apikey"}
	if !maps.Equal(got, want) {
		t.Fatalf("who-can lists %v, want %v", got, want)
	}
	for _, q := range []audit.Query{{Principal: "opNone"}, {Principal: certificate}, {Principal: "opPassword", Auth: domain.AuthAPIKey}} {
		q.API, q.Operation = domain.APIBackoffice, "profilo"
		if x := explain(t, h.Model, q); x.Outcome != audit.OutcomeUnauthenticated {
			t.Fatalf("%s via %s: %s/%s, want unauthenticated", q.Principal, q.Auth, x.Outcome, x.Rule)
		}
	}
}
