package domain

import (
	"slices"
	"testing"
)

// Units, GovPay's third scope dimension (issue 13 §2): an entity named
// alone covers all of it; an entity named with units covers only those
// units' resources, never one of that entity without a unit.

const u1, u2 = "UO1", "UO2"

func TestEntityScope(t *testing.T) {
	onU1 := EntitiesOf(nil, map[string][]string{d1: {u1}})
	whole := EntitiesOf([]string{d1}, nil)
	both := EntitiesOf([]string{d1}, map[string][]string{d1: {u1}}) // whole wins
	emptyUnits := EntitiesOf(nil, map[string][]string{d2: {}})      // no unit: the whole entity
	all := EntitiesOf([]string{Wildcard}, map[string][]string{d1: {u1}})
	for _, tc := range []struct {
		name string
		got  bool
		want bool
	}{
		{"unit_scope_covers_its_unit", onU1.ContainsUnit(d1, u1), true},
		{"unit_scope_not_another_unit", onU1.ContainsUnit(d1, u2), false},
		{"unit_scope_not_what_has_no_unit", onU1.ContainsUnit(d1, ""), false},
		{"unit_scope_not_the_entity_whole", onU1.Contains(d1), false},
		{"unit_scope_not_another_entity", onU1.ContainsUnit(d2, u1), false},
		{"unit_scope_reaches_its_entity", onU1.Reaches(d1), true},
		{"unit_scope_reaches_no_other_entity", onU1.Reaches(d2), false},
		{"whole_covers_every_unit", whole.ContainsUnit(d1, u2), true},
		{"whole_covers_what_has_no_unit", whole.ContainsUnit(d1, ""), true},
		{"whole_and_units_is_whole", both.ContainsUnit(d1, u2) && both.Units() == nil, true},
		{"empty_units_is_whole", emptyUnits.Contains(d2), true},
		{"all_is_all", all.ContainsUnit(d2, "") && all.Units() == nil, true},
		{"whole_covers_unit_scope", whole.Covers(onU1), true},
		{"unit_scope_does_not_cover_whole", onU1.Covers(whole), false},
		{"unit_scope_does_not_cover_other_unit", onU1.Covers(EntitiesOf(nil, map[string][]string{d1: {u2}})), false},
		{"equal_regardless_of_order", EntitiesOf(nil, map[string][]string{d1: {u2, u1}}).Equal(EntitiesOf(nil, map[string][]string{d1: {u1, u2}})), true},
		{"zero_is_none", EntityScope{}.IsNone() && !onU1.IsNone(), true},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if got := onU1.Units(); !slices.Equal(got[d1], []string{u1}) || len(got) != 1 {
		t.Errorf("Units() = %v", got)
	}
	if got := all.Labels(); !slices.Equal(got, []string{Wildcard}) {
		t.Errorf("Labels() of all = %v", got)
	}
	if got := EntitiesOf([]string{d2}, map[string][]string{d1: {u2, u1}}).Labels(); !slices.Equal(got, []string{d2, d1 + " (UO1, UO2)"}) {
		t.Errorf("Labels() = %v", got)
	}
}

func TestUnitScopedDecisions(t *testing.T) {
	unitsOnly := func(units ...string) EntityScope { return EntitiesOf(nil, map[string][]string{d1: units}) }
	opU1 := operator(Role{ID: "u1", ACL: NewRole("x", map[Service]Rights{ServicePendenze: rw, ServicePagamenti: rd, ServiceGiornaleEventi: rd,
		ServiceAnagraficaApplicazioni: wr}, ScopeNone(), ScopeNone()).ACL, Domini: unitsOnly(u1), Tipi: ScopeAll()})
	appU1 := app("A", Grant{API: APIPendenze, Domini: unitsOnly(u1), Tipi: ScopeAll()},
		Grant{API: APIPagamento, Domini: unitsOnly(u1), Tipi: ScopeAll()}, Grant{API: APIRagioneria, Domini: unitsOnly(u1), Tipi: ScopeAll()})
	at := func(u string) Place { return Place{IDDominio: d1, IDUnita: u, IDTipoPendenza: tA} }
	view := func(u string) PendenzaView {
		return PendenzaView{IDA2A: "A", IDPendenza: "P", IDDominio: d1, IDUnita: u, IDTipoPendenza: tA}
	}
	pay := func(units ...string) PaymentView {
		v := PaymentView{ID: "pay", CallerKind: KindApplication, CallerID: "A"}
		for _, u := range units {
			v.Items = append(v.Items, PaymentItemView{IDDominio: d1, IDUnita: u, IDTipoPendenza: tA})
		}
		return v
	}
	runDecisions(t, []decision{
		{"backoffice_read_in_unit", CanOnPlace(opU1, ServicePendenze, RightRead, at(u1)), ""},
		{"backoffice_read_other_unit", CanOnPlace(opU1, ServicePendenze, RightRead, at(u2)), RuleRoleScope},
		{"backoffice_read_without_unit", CanOnPlace(opU1, ServicePendenze, RightRead, at("")), RuleRoleScope},
		{"backoffice_entity_resource_needs_whole_entity", CanOnDominio(opU1, ServicePendenze, RightRead, d1), RuleRoleScope},
		{"backoffice_payment_in_unit", CanOnPayment(opU1, ServicePagamenti, RightRead, pay(u1)), ""},
		{"backoffice_payment_touching_other_unit", CanOnPayment(opU1, ServicePagamenti, RightRead, pay(u1, u2)), RuleRoleScope},
		{"event_of_unit", CanReadEvent(opU1, []Place{at(u1)}), ""},
		{"event_of_other_unit", CanReadEvent(opU1, []Place{at(u2)}), RuleRoleScope},
		{"event_of_the_entity_itself", CanReadEvent(opU1, []Place{{IDDominio: d1}}), RuleRoleScope},
		{"create_in_unit", CanCreatePendenza(appU1, "A", at(u1)), ""},
		{"create_in_other_unit", CanCreatePendenza(appU1, "A", at(u2)), RuleAPIScope},
		{"create_without_unit", CanCreatePendenza(appU1, "A", at("")), RuleAPIScope},
		{"move_to_other_unit", CanUpdatePendenza(appU1, view(u1), "A", at(u2)), RuleAPIScope},
		{"pagamento_read_in_unit", CanReadPendenzaPagamento(appU1, view(u1)), ""},
		{"pagamento_read_other_unit", CanReadPendenzaPagamento(appU1, view(u2)), RuleAPIScope},
		{"pagamento_ask_notice_of_reached_entity", CanAskNotice(appU1, d1), ""},
		{"pagamento_ask_notice_elsewhere", CanAskNotice(appU1, d2), RuleAPIScope},
		{"ragioneria_payment_in_unit", CanReadPaymentRagioneria(appU1, pay(u1)), ""},
		{"ragioneria_payment_other_unit", CanReadPaymentRagioneria(appU1, pay(u2)), RuleAPIScope},
		{"backoffice_reaches_entity_of_its_unit", CanReachDominio(opU1, ServicePagamenti, RightRead, d1), ""},
		{"backoffice_reaches_no_other_entity", CanReachDominio(opU1, ServicePagamenti, RightRead, d2), RuleRoleScope},
		{"ragioneria_asks_entity_of_its_unit", CanAskRagioneriaDominio(appU1, d1), ""},
		{"ragioneria_asks_no_other_entity", CanAskRagioneriaDominio(appU1, d2), RuleAPIScope},
		{"ragioneria_receipt_in_unit", CanReadRagioneriaPlace(appU1, Place{IDDominio: d1, IDUnita: u1}), ""},
		{"ragioneria_receipt_other_unit", CanReadRagioneriaPlace(appU1, Place{IDDominio: d1, IDUnita: u2}), RuleAPIScope},
		{"ragioneria_receipt_without_unit", CanReadRagioneriaPlace(appU1, Place{IDDominio: d1}), RuleAPIScope},
		{"ragioneria_entity_resource_needs_whole_entity", CanReadRagioneriaDominio(appU1, d1), RuleAPIScope},
		{"delegation_of_own_unit", CanGrantAPI(opU1, Grant{API: APIPendenze, Domini: unitsOnly(u1), Tipi: ScopeOf(tA)}), ""},
		{"delegation_of_other_unit", CanGrantAPI(opU1, Grant{API: APIPendenze, Domini: unitsOnly(u2), Tipi: ScopeOf(tA)}), RuleDelegation},
		{"delegation_of_whole_entity", CanGrantAPI(opU1, Grant{API: APIPendenze, Domini: Entities(ScopeOf(d1)), Tipi: ScopeOf(tA)}), RuleDelegation},
	})
}
