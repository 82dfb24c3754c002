package operations_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// units is an operations.Units over a fixed set of units.
type units map[[2]string]events.UnitRegistered

func (u units) Unit(idDominio, idUnita string) (events.UnitRegistered, bool) {
	r, ok := u[[2]string{idDominio, idUnita}]
	return r, ok
}

// TestReadGatesNameWhatTheyGate: a read by id is gated by the gate named
// for it (AskUnit, AskByAvvisoPendenze), not by a list's, and that gate
// is what the read decides first: a caller it denies is denied alike by
// the read, whether the resource exists or not, one it admits reaches the
// resource, and the read's trail starts with the gate's.
func TestReadGatesNameWhatTheyGate(t *testing.T) {
	t.Parallel()
	m := model(t, 2, 4)
	a0, a1 := principal(t, m, "app00000"), principal(t, m, "app00001")
	cit := domain.Citizen("RSSMRA80A01H5010")
	d0, d1 := dominio(0), dominio(1)
	role, err := domain.ParseRole("anagrafica", maps.All(map[string][]string{
		domain.ServiceAnagraficaCreditore.String(): {"R"},
	}), []string{d0}, nil, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	reader := domain.Principal{Kind: domain.KindOperator, Name: "op", Enabled: true, Roles: []domain.Role{role}}
	u := units{{d0, "U1"}: {IDDominio: d0, IDUnita: "U1", Enabled: true}, {d1, "U1"}: {IDDominio: d1, IDUnita: "U1", Enabled: true}}
	notice := fmt.Sprintf("%018d", 0) // a0's first pendenza, at d0

	type op = func(p domain.Principal, present bool, rec operations.Recorder) error
	readUnit := func(idDominio string) (gate, read op) {
		return func(p domain.Principal, _ bool, rec operations.Recorder) error {
				return operations.AskUnit(p, idDominio, rec)
			},
			func(p domain.Principal, present bool, rec operations.Recorder) error {
				id := "U1"
				if !present {
					id = "U9"
				}
				return errOf(operations.ReadUnit(u, p, idDominio, id, rec))
			}
	}
	askByAvviso := func(p domain.Principal, _ bool, rec operations.Recorder) error {
		return operations.AskByAvvisoPendenze(p, rec)
	}
	readByAvviso := func(p domain.Principal, present bool, rec operations.Recorder) error {
		n := notice
		if !present {
			n = "999999999999999999"
		}
		return errOf(operations.ReadByAvvisoPendenze(m, p, d0, n, rec))
	}
	unitD0, readUnitD0 := readUnit(d0)
	unitD1, readUnitD1 := readUnit(d1)
	cases := []struct {
		name             string
		p                domain.Principal
		gate, read       op
		want             string // the gate's answer: "" admitted, else the rule
		present, missing string // the read's answers past an admitting gate
	}{
		{"unit_of_an_entity_in_the_role", reader, unitD0, readUnitD0, "", "", "404"},
		{"unit_of_an_entity_outside_the_role", reader, unitD1, readUnitD1, domain.RuleRoleScope, "", ""},
		{"unit_read_by_an_application", a0, unitD0, readUnitD0, domain.RuleServiceRight, "", ""},
		{"byavviso_by_the_creator", a0, askByAvviso, readByAvviso, "", "", "404"},
		{"byavviso_by_another_application", a1, askByAvviso, readByAvviso, "", domain.RuleCreator, domain.RuleCreator},
		{"byavviso_by_a_citizen", cit, askByAvviso, readByAvviso, domain.RuleAPIEntry, "", ""},
		{"byavviso_by_an_operator", reader, askByAvviso, readByAvviso, domain.RuleAPIEntry, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var gateTrail trail
			if got := answer(tc.gate(tc.p, true, &gateTrail)); got != tc.want {
				t.Fatalf("gate answers %q, want %q", got, tc.want)
			}
			for present, want := range map[bool]string{true: tc.present, false: tc.missing} {
				if tc.want != "" {
					want = tc.want // denied by the gate, whether the resource exists or not
				}
				var readTrail trail
				if got := answer(tc.read(tc.p, present, &readTrail)); got != want {
					t.Errorf("present %v: read answers %q, want %q", present, got, want)
				}
				if !slices.Equal(readTrail[:min(len(gateTrail), len(readTrail))], gateTrail) {
					t.Errorf("present %v: read's trail %v does not start with its gate's %v", present, readTrail, gateTrail)
				}
			}
		})
	}
}

// TestPatchPendenzaGateIsItsOperationsFirstCheck: PATCH of a pendenza is
// decided by one pair per API (operations.PatchPendenza), whose gate the
// route runs before the body is read and whose operation the command runs
// on the stream: a caller the gate denies is denied alike by the
// operation, whether the pendenza exists or not, and the operation's trail
// starts with the gate's. An API without the patch has none.
func TestPatchPendenzaGateIsItsOperationsFirstCheck(t *testing.T) {
	t.Parallel()
	m := model(t, 2, 4)
	a0, a1 := principal(t, m, "app00000"), principal(t, m, "app00001")
	operator := func(rights []string, domini ...string) domain.Principal {
		role, err := domain.ParseRole("pendenze", maps.All(map[string][]string{domain.ServicePendenze.String(): rights}),
			domini, nil, []string{"*"})
		if err != nil {
			t.Fatal(err)
		}
		return domain.Principal{Kind: domain.KindOperator, Name: "op", Enabled: true, Roles: []domain.Role{role}}
	}
	writerD0, writerD1, reader := operator([]string{"W"}, dominio(0)), operator([]string{"W"}, dominio(1)), operator([]string{"R"}, "*")
	writerAll := operator([]string{"W"}, "*")
	cases := []struct {
		name             string
		api              domain.API
		p                domain.Principal
		want             string // the gate's answer: "" admitted, else the rule
		present, missing string // the operation's answers past an admitting gate
	}{
		{"pendenze_by_the_creator", domain.APIPendenze, a0, "", "", "404"},
		{"pendenze_under_another_ida2a", domain.APIPendenze, a1, domain.RuleOwnIDA2A, "", ""},
		{"pendenze_by_an_operator", domain.APIPendenze, writerAll, domain.RuleAPIEntry, "", ""},
		{"backoffice_by_a_writer_of_every_entity", domain.APIBackoffice, writerAll, "", "", "404"},
		{"backoffice_by_a_writer_of_its_entity", domain.APIBackoffice, writerD0, "", "", domain.RuleRoleScope},
		{"backoffice_by_a_writer_of_another_entity", domain.APIBackoffice, writerD1, "", domain.RuleRoleScope, domain.RuleRoleScope},
		{"backoffice_by_a_reader", domain.APIBackoffice, reader, domain.RuleServiceRight, "", ""},
		{"backoffice_by_an_application", domain.APIBackoffice, a0, domain.RuleServiceRight, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			op, ok := operations.PatchPendenza(tc.api)
			if !ok {
				t.Fatalf("no patch on the %s API", tc.api)
			}
			var gateTrail trail
			if got := answer(op.Gate(tc.p, "app00000", &gateTrail)); got != tc.want {
				t.Fatalf("gate answers %q, want %q", got, tc.want)
			}
			for present, want := range map[bool]string{true: tc.present, false: tc.missing} {
				if tc.want != "" {
					want = tc.want // denied by the gate, whether the pendenza exists or not
				}
				id := "P0000000" // app00000's, at dominio(0)
				if !present {
					id = "P9999999"
				}
				var opTrail trail
				if got := answer(errOf(op.Authorize(m, tc.p, "app00000", id, &opTrail))); got != want {
					t.Errorf("present %v: operation answers %q, want %q", present, got, want)
				}
				if !slices.Equal(opTrail[:min(len(gateTrail), len(opTrail))], gateTrail) {
					t.Errorf("present %v: operation's trail %v does not start with its gate's %v", present, opTrail, gateTrail)
				}
			}
		})
	}
	for _, api := range []domain.API{domain.APIPagamento, domain.APIRagioneria, domain.APINodo, {}} {
		if _, ok := operations.PatchPendenza(api); ok {
			t.Errorf("the %s API has a patch of pendenze", api)
		}
	}
}

// TestRegistryGatesTakeTheRegistrysService: the read, list, write and
// PATCH of each unscoped Backoffice registry admit a caller holding exactly
// the registry's service (API.md section 4) with the right they need, and
// deny, by the service-right rule, a caller holding any other service or
// only the other right.
func TestRegistryGatesTakeTheRegistrysService(t *testing.T) {
	t.Parallel()
	registries := []struct {
		registry domain.Registry
		label    string // API.md's service of the registry
	}{
		{domain.RegistryIntermediari, "Anagrafica PagoPA"},
		{domain.RegistryRuoli, "Anagrafica Ruoli"},
		{domain.RegistryOperatori, "Anagrafica Ruoli"},
		{domain.RegistryApplicazioni, "Anagrafica Applicazioni"},
	}
	holding := func(s domain.Service, right string) domain.Principal {
		role, err := domain.ParseRole("r", maps.All(map[string][]string{s.String(): {right}}), []string{"*"}, nil, []string{"*"})
		if err != nil {
			t.Fatal(err)
		}
		return domain.Principal{Kind: domain.KindOperator, Name: "op", Enabled: true, Roles: []domain.Role{role}}
	}
	lookup := func(string) (string, bool) { return "entry", true }
	gates := []struct {
		name, right string // the right the gate needs
		decide      func(domain.Principal, domain.Registry) error
	}{
		{"read", "R", func(p domain.Principal, r domain.Registry) error {
			return errOf(operations.ReadRegistry(lookup, p, r, "id", nil))
		}},
		{"list", "R", func(p domain.Principal, r domain.Registry) error {
			return errOf(operations.ListRegistry(func() []string { return nil }, p, r, nil))
		}},
		{"write", "W", func(p domain.Principal, r domain.Registry) error { return operations.WriteRegistry(p, r, nil) }},
		{"patch", "W", func(p domain.Principal, r domain.Registry) error {
			return errOf(operations.PatchRegistry(lookup, p, r, "id", func() error { return nil }, nil))
		}},
	}
	for _, reg := range registries {
		for _, g := range gates {
			t.Run(reg.registry.String()+"_"+g.name, func(t *testing.T) {
				t.Parallel()
				for _, s := range domain.Services {
					for _, right := range []string{"R", "W"} {
						want := domain.RuleServiceRight
						if s.String() == reg.label && right == g.right {
							want = ""
						}
						if got := answer(g.decide(holding(s, right), reg.registry)); got != want {
							t.Errorf("%s %s: answers %q, want %q", s, right, got, want)
						}
					}
				}
			})
		}
	}
}
