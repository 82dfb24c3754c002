package operations_test

import (
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// model builds read models with apps applications authorized on PENDENZE
// and PAGAMENTO at one entity each, and pendenze pendenze spread over them,
// plus a spontaneous, a disabled and an ordinary type.
func model(tb testing.TB, apps, pendenze int) *projections.ReadModel {
	tb.Helper()
	m := projections.New()
	pos := events.Position(0)
	commit := func(evs ...events.Event) {
		pos++
		for i, e := range evs {
			env := events.Envelope{ID: fmt.Sprintf("e%d-%d", pos, i), Name: e.EventName(), Position: pos,
				Version: events.Version(pos), Index: i, CommitSize: len(evs), Time: time.Now(), Event: e}
			if err := m.Apply(env); err != nil {
				tb.Fatalf("apply %s: %v", e.EventName(), err)
			}
		}
	}
	for i := range 100 {
		commit(events.CreditorEntityRegistered{IDDominio: dominio(i), RagioneSociale: "Ente", Enabled: true})
	}
	commit(events.PendenzaTypeRegistered{IDTipoPendenza: "TARI", Descrizione: "Tari", Enabled: true})
	commit(events.PendenzaTypeRegistered{IDTipoPendenza: "DONO", Descrizione: "Dono", Enabled: true, Spontaneous: true})
	commit(events.PendenzaTypeRegistered{IDTipoPendenza: "SPENTO", Descrizione: "Spento", Spontaneous: true})
	for i := range apps {
		id := fmt.Sprintf("app%05d", i)
		commit(events.ApplicationRegistered{IDA2A: id, Principal: id, Enabled: true, Roles: []string{}},
			events.ApplicationAPIAuthorized{IDA2A: id, API: "PENDENZE", Domini: []string{dominio(i)}, TipiPendenza: []string{"*"}},
			events.ApplicationAPIAuthorized{IDA2A: id, API: "PAGAMENTO", Domini: []string{dominio(i)}, TipiPendenza: []string{"*"}})
	}
	for i := range pendenze {
		app := i % apps
		commit(events.PendenzaCreated{IDA2A: fmt.Sprintf("app%05d", app), IDPendenza: fmt.Sprintf("P%07d", i),
			IDDominio: dominio(app), IDTipoPendenza: "TARI", Causale: "Tassa rifiuti", AmountCents: 12345,
			Payer:        events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H5010", Anagrafica: "Mario Rossi"},
			NumeroAvviso: fmt.Sprintf("%018d", i), UUID: fmt.Sprintf("%032x", i)})
	}
	return m
}

func dominio(i int) string { return fmt.Sprintf("%011d", i%100) }

func principal(tb testing.TB, m *projections.ReadModel, name string) domain.Principal {
	tb.Helper()
	rec, ok := m.Lookup(name)
	if !ok {
		tb.Fatalf("no principal %s", name)
	}
	return rec.Principal
}

// trail records the checks an operation reports.
type trail []string

func (t *trail) Check(name string, err error) {
	outcome := answer(err)
	if outcome == "" {
		outcome = "pass"
	}
	*t = append(*t, name+":"+outcome)
}

// answer names what err answers: "" allowed, "404", "422", the rule of a
// denial, or the error's text.
func answer(err error) string {
	var f *domain.ForbiddenError
	var u *operations.UnprocessableError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, domain.ErrNotFound):
		return "404"
	case errors.As(err, &u):
		return "422"
	case errors.As(err, &f):
		return f.Rule
	}
	return err.Error()
}

// errOf is the error of an operation that also returns a resource.
func errOf[T any](_ T, err error) error { return err }

func TestOperationsAnswerAndRecordTheirChecks(t *testing.T) {
	t.Parallel()
	m := model(t, 2, 4)
	a0, a1 := principal(t, m, "app00000"), principal(t, m, "app00001")
	cit := domain.Citizen("RSSMRA80A01H5010")
	type result struct {
		err   error
		trail trail
	}
	run := func(f func(rec operations.Recorder) error) result {
		var tr trail
		return result{f(&tr), tr}
	}
	cases := []struct {
		name  string
		got   result
		want  string // "" allowed, "404", "422", "401" or a rule
		trail string // the last recorded check
	}{
		{"read_own", run(func(r operations.Recorder) error {
			return errOf(operations.ReadOwnPendenza(m, a0, "app00000", "P0000000", r))
		}), "", "CanReadOwnPendenza:pass"},
		{"read_own_missing_is_404", run(func(r operations.Recorder) error {
			return errOf(operations.ReadOwnPendenza(m, a0, "app00000", "nope", r))
		}), "404", "CanLearnMissing:pass"},
		{"read_under_other_ida2a_is_403_before_404", run(func(r operations.Recorder) error {
			return errOf(operations.ReadOwnPendenza(m, a0, "app00001", "nope", r))
		}), domain.RuleCreator, "CanAskAboutIDA2A:" + domain.RuleCreator},
		{"write_under_other_ida2a_is_the_own_ida2a_rule", run(func(r operations.Recorder) error {
			return operations.PutPendenza(m, a0, nil, "app00001", domain.Place{IDDominio: dominio(0), IDTipoPendenza: "TARI"}, r)
		}), domain.RuleOwnIDA2A, "CanWriteUnderIDA2A:" + domain.RuleOwnIDA2A},
		{"create_unknown_type_is_422", run(func(r operations.Recorder) error {
			return operations.PutPendenza(m, a0, nil, "app00000", domain.Place{IDDominio: dominio(0), IDTipoPendenza: "NOPE"}, r)
		}), "422", "type:422"},
		{"pay_missing_pendenza_outside_full_scope_is_403", run(func(r operations.Recorder) error { return errOf(operations.PayPendenza(m, a1, "app00000", "nope", r)) }), domain.RuleAPIScope, "CanLearnMissing:" + domain.RuleAPIScope},
		{"citizen_never_learns_a_missing_pendenza", run(func(r operations.Recorder) error {
			return errOf(operations.ReadPendenzaPagamento(m, cit, "app00000", "nope", r))
		}), domain.RulePayer, "CanLearnMissing:" + domain.RulePayer},
		{"citizen_learns_a_missing_notice", run(func(r operations.Recorder) error {
			return errOf(operations.ReadNotice(m, cit, dominio(0), "999999999999999999", nil, r))
		}), "404", "CanLearnMissing:pass"},
		{"spontaneous_allowed", run(func(r operations.Recorder) error {
			return operations.PaySpontaneous(m, cit, dominio(0), "DONO", r)
		}), "", "CanPaySpontaneous:pass"},
		{"spontaneous_unknown_type_is_422", run(func(r operations.Recorder) error {
			return operations.PaySpontaneous(m, cit, dominio(0), "NOPE", r)
		}), "422", "type:422"},
		{"spontaneous_disabled_type_is_422", run(func(r operations.Recorder) error {
			return operations.PaySpontaneous(m, cit, dominio(0), "SPENTO", r)
		}), "422", "type:422"},
		{"spontaneous_not_spontaneous_type_is_403", run(func(r operations.Recorder) error {
			return operations.PaySpontaneous(m, cit, dominio(0), "TARI", r)
		}), domain.RuleSpontaneous, "CanPaySpontaneous:" + domain.RuleSpontaneous},
		{"spontaneous_out_of_scope_before_422", run(func(r operations.Recorder) error {
			return operations.PaySpontaneous(m, a1, dominio(0), "NOPE", r)
		}), domain.RuleAPIScope, "CanAskSpontaneous:" + domain.RuleAPIScope},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := answer(tc.got.err)
			if got != tc.want {
				t.Fatalf("answer = %q (%v), want %q", got, tc.got.err, tc.want)
			}
			if n := len(tc.got.trail); n == 0 || tc.got.trail[n-1] != tc.trail {
				t.Fatalf("trail = %v, want it to end with %q", tc.got.trail, tc.trail)
			}
		})
	}
}

// BenchmarkOperation is the hot path's operation, GET of an own pendenza,
// against read models holding 10,000 applications and 200,000 pendenze:
// principal lookup, gate, pendenza view, decision, no recorder.
func BenchmarkOperation(b *testing.B) {
	m := model(b, 10_000, 200_000)
	b.Run("read_own_pendenza_allowed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec, _ := m.Lookup("app04242")
			if _, err := operations.ReadOwnPendenza(m, rec.Principal, "app04242", "P0004242", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	p := principal(b, m, "app04242")
	b.Run("read_other_pendenza_denied", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := operations.ReadOwnPendenza(m, p, "app00001", "P0000001", nil); err == nil {
				b.Fatal("allowed another application's pendenza")
			}
		}
	})
	d := dominio(4242)
	b.Run("create_in_scope_allowed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := operations.PutPendenza(m, p, nil, "app04242", domain.Place{IDDominio: d, IDTipoPendenza: "TARI"}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPendenzeListsKeepWhatTheReadAdmits: the lists of GET /pendenze
// decide each pendenza with their API's read decision, after their gate:
// an application lists its own on Pendenze; a citizen the pendenze it
// pays on Pagamento (its payer index).
func TestPendenzeListsKeepWhatTheReadAdmits(t *testing.T) {
	m := model(t, 3, 9)
	app := principal(t, m, "app00001")
	own, err := operations.OwnPendenze(m, app, nil)
	if err != nil || len(own) != 3 {
		t.Fatalf("own pendenze of app00001: %d, %v; want its 3", len(own), err)
	}
	for _, pd := range own {
		if pd.IDA2A != "app00001" {
			t.Fatalf("listed another application's pendenza %s/%s", pd.IDA2A, pd.IDPendenza)
		}
	}
	citizen := domain.Citizen("RSSMRA80A01H5010")
	paid, err := operations.PendenzePagamento(m, citizen, nil)
	if err != nil || len(paid) != 9 {
		t.Fatalf("a citizen's pendenze: %d, %v; want the 9 it pays", len(paid), err)
	}
	if other, err := operations.PendenzePagamento(m, domain.Citizen("VRDLGU70B02F205X"), nil); err != nil || len(other) != 0 {
		t.Fatalf("another citizen's pendenze: %d, %v; want none", len(other), err)
	}
	var f *domain.ForbiddenError
	if _, err := operations.PendenzePagamento(m, domain.Anonymous(""), nil); !errors.As(err, &f) {
		t.Fatalf("an anonymous caller's list: %v, want the gate's denial", err)
	}
}

// TestBackofficePendenzeListKeepsWhatTheReadAdmits: the Backoffice's list
// of pendenze (the API's and the console's) keeps a pendenza exactly when
// GET /pendenze/{idA2A}/{idPendenza} lets the caller read it, for roles
// scoped every way.
func TestBackofficePendenzeListKeepsWhatTheReadAdmits(t *testing.T) {
	m := model(t, 3, 9)
	operator := func(name string, rights []string, domini, tipi []string) domain.Principal {
		role, err := domain.ParseRole(name, maps.All(map[string][]string{domain.ServicePendenze.String(): rights}), domini, nil, tipi)
		if err != nil {
			t.Fatal(err)
		}
		return domain.Principal{Kind: domain.KindOperator, Name: name, Enabled: true, Roles: []domain.Role{role}}
	}
	callers := []domain.Principal{
		operator("everything", []string{"R"}, []string{"*"}, []string{"*"}),
		operator("one_entity", []string{"R"}, []string{dominio(1)}, []string{"*"}),
		operator("two_entities_one_type", []string{"R"}, []string{dominio(0), dominio(2)}, []string{"TARI"}),
		operator("another_type", []string{"R"}, []string{"*"}, []string{"DONO"}),
		operator("writer_only", []string{"W"}, []string{"*"}, []string{"*"}),
	}
	for _, p := range callers {
		scope, gateErr := operations.PendenzeList(p, nil)
		kept := 0
		for _, pd := range m.Pendenze(projections.PendenzeFilter{}) {
			_, readErr := operations.ReadPendenzaBackoffice(m, p, pd.IDA2A, pd.IDPendenza, nil)
			listed := gateErr == nil && scope.AdmitsPendenza(pd.View())
			if listed != (readErr == nil) {
				t.Errorf("%s, pendenza %s/%s: listed %v, read %v", p.Name, pd.IDA2A, pd.IDPendenza, listed, readErr)
			}
			if listed {
				kept++
			}
		}
		t.Logf("%s: %d of 9 listed (gate %v)", p.Name, kept, gateErr)
	}
}
