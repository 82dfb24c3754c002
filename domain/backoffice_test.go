package domain

import (
	"slices"
	"testing"
)

func TestBackofficeScopes(t *testing.T) {
	t.Parallel()
	// Role A gives Pendenze R (and Rendicontazioni R) on d1, every type;
	// role B gives Pagamenti R and Pendenze W on d2, type tA only.
	a := role("A", map[Service]Rights{ServicePendenze: rd, ServiceRendicontazioniIncassi: rd}, ScopeOf(d1), ScopeAll())
	b := role("B", map[Service]Rights{ServicePagamenti: rd, ServicePendenze: wr}, ScopeOf(d2), ScopeOf(tA))
	p := operator(a, b)
	appP := app("X")
	appP.Roles = []Role{a}
	empty := operator(role("E", map[Service]Rights{ServicePendenze: rw, ServiceAnagraficaRuoli: rw}, ScopeNone(), ScopeNone()))
	zeroScope := operator(NewRole("Z", map[Service]Rights{ServicePendenze: rw}, Scope{}, Scope{}))
	payIn := PaymentView{Items: []PaymentItemView{{IDDominio: d2, IDTipoPendenza: tA}}}
	payMixed := PaymentView{Items: []PaymentItemView{{IDDominio: d2, IDTipoPendenza: tA}, {IDDominio: d1, IDTipoPendenza: tA}}}
	// Two roles each giving Pagamenti R cover one item each.
	c := role("C", map[Service]Rights{ServicePagamenti: rd}, ScopeOf(d1), ScopeOf(tB))
	payTwoRoles := PaymentView{Items: []PaymentItemView{{IDDominio: d2, IDTipoPendenza: tA}, {IDDominio: d1, IDTipoPendenza: tB}}}
	runDecisions(t, []decision{
		{"right_held", HasServiceRight(p, ServicePendenze, RightRead), ""},
		{"right_held_by_application", HasServiceRight(appP, ServicePendenze, RightRead), ""},
		{"right_not_held", HasServiceRight(p, ServiceAnagraficaRuoli, RightWrite), RuleServiceRight},
		{"read_does_not_give_write", HasServiceRight(operator(a), ServicePendenze, RightWrite), RuleServiceRight},
		{"right_from_role_with_empty_scope", HasServiceRight(empty, ServiceAnagraficaRuoli, RightWrite), ""},
		{"no_roles", HasServiceRight(operator(), ServicePendenze, RightRead), RuleServiceRight},
		{"citizen_no_backoffice", HasServiceRight(Citizen("CIT"), ServicePendenze, RightRead), RuleAPIEntry},
		{"anonymous_no_backoffice", HasServiceRight(Anonymous("s"), ServicePendenze, RightRead), RuleAPIEntry},

		{"dominio_in_roles_scope", CanOnDominio(p, ServicePendenze, RightRead, d1), ""},
		{"dominio_of_other_role_not_reached", CanOnDominio(p, ServicePendenze, RightRead, d2), RuleRoleScope},
		{"dominio_right_from_b_scope_of_a", CanOnDominio(p, ServicePagamenti, RightRead, d1), RuleRoleScope},
		{"dominio_right_not_held", CanOnDominio(p, ServiceAnagraficaCreditore, RightWrite, d1), RuleServiceRight},
		{"dominio_ignores_role_tipi", CanOnDominio(operator(role("T", map[Service]Rights{ServiceAnagraficaCreditore: rw}, ScopeOf(d1), ScopeNone())), ServiceAnagraficaCreditore, RightWrite, d1), ""},
		{"dominio_empty_scope_denies", CanOnDominio(empty, ServicePendenze, RightRead, d1), RuleRoleScope},
		{"dominio_zero_scope_denies", CanOnDominio(zeroScope, ServicePendenze, RightRead, d1), RuleRoleScope},
		{"dominio_wildcard_is_not_an_id", CanOnDominio(operator(role("L", map[Service]Rights{ServicePendenze: rd}, ScopeOf(d1), ScopeAll())), ServicePendenze, RightRead, Wildcard), RuleRoleScope},

		{"pendenza_in_scope", CanOnPlace(p, ServicePendenze, RightRead, Place{IDDominio: d1, IDTipoPendenza: tB}), ""},
		{"pendenza_write_via_role_b", CanOnPlace(p, ServicePendenze, RightWrite, Place{IDDominio: d2, IDTipoPendenza: tA}), ""},
		{"pendenza_write_not_in_role_a_scope", CanOnPlace(p, ServicePendenze, RightWrite, Place{IDDominio: d1, IDTipoPendenza: tA}), RuleRoleScope},
		{"pendenza_read_not_in_role_b_scope", CanOnPlace(p, ServicePendenze, RightRead, Place{IDDominio: d2, IDTipoPendenza: tA}), RuleRoleScope},
		{"pendenza_type_out_of_role_b", CanOnPlace(p, ServicePagamenti, RightRead, Place{IDDominio: d2, IDTipoPendenza: tB}), RuleRoleScope},
		{"pendenza_via_role_b", CanOnPlace(p, ServicePagamenti, RightRead, Place{IDDominio: d2, IDTipoPendenza: tA}), ""},
		{"pendenza_zero_scope_denies", CanOnPlace(zeroScope, ServicePendenze, RightRead, Place{IDDominio: d1, IDTipoPendenza: tA}), RuleRoleScope},

		{"payment_all_items_in_scope", CanOnPayment(p, ServicePagamenti, RightRead, payIn), ""},
		{"payment_one_item_out_of_scope", CanOnPayment(p, ServicePagamenti, RightRead, payMixed), RuleRoleScope},
		{"payment_items_covered_by_two_roles", CanOnPayment(operator(b, c), ServicePagamenti, RightRead, payTwoRoles), ""},
		{"payment_without_items", CanOnPayment(p, ServicePagamenti, RightRead, PaymentView{}), RuleRoleScope},
		{"payment_right_not_held", CanOnPayment(operator(a), ServicePagamenti, RightRead, payIn), RuleServiceRight},

		{"profile_operator_with_role", HasAnyRole(p), ""},
		{"profile_application_with_role", HasAnyRole(appP), ""},
		{"profile_operator_without_role", HasAnyRole(operator()), RuleAPIEntry},
		{"profile_citizen", HasAnyRole(Citizen("CIT")), RuleAPIEntry},
	})
}

func TestEffectiveRights(t *testing.T) {
	t.Parallel()
	a := role("A", map[Service]Rights{ServicePendenze: rd, ServicePagamenti: rw}, ScopeOf(d1), ScopeAll())
	b := role("B", map[Service]Rights{ServicePendenze: wr}, ScopeOf(d2), ScopeOf(tA))
	got := EffectiveRights(operator(a, b))
	type flat struct {
		role, service string
		rights        []string
		domini, tipi  []string
	}
	var gotFlat []flat
	for _, e := range got {
		gotFlat = append(gotFlat, flat{e.Role, e.Service.String(), e.Rights.List(), e.Domini.List(), e.Tipi.List()})
	}
	want := []flat{
		{"A", "Pagamenti", []string{"R", "W"}, []string{d1}, []string{"*"}},
		{"A", "Pendenze", []string{"R"}, []string{d1}, []string{"*"}},
		{"B", "Pendenze", []string{"W"}, []string{d2}, []string{tA}},
	}
	if !slices.EqualFunc(gotFlat, want, func(x, y flat) bool {
		return x.role == y.role && x.service == y.service && slices.Equal(x.rights, y.rights) &&
			slices.Equal(x.domini, y.domini) && slices.Equal(x.tipi, y.tipi)
	}) {
		t.Fatalf("EffectiveRights = %+v, want %+v", gotFlat, want)
	}
	if EffectiveRights(operator()) != nil {
		t.Fatal("a principal without roles has no rights")
	}
}

// TestRoleCoversNamedPlacesOnly: Covers asks about the parts a place names,
// and no role, however wide, holds a place that names nothing: an empty
// idDominio or idTipoPendenza is never in scope.
func TestRoleCoversNamedPlacesOnly(t *testing.T) {
	t.Parallel()
	acl := map[Service]Rights{ServicePendenze: Rights(RightRead)}
	all := NewRole("all", acl, ScopeAll(), ScopeAll())
	d1 := NewRole("d1", acl, ScopeOf("11111111111"), ScopeOf("TARI"))
	held := []Place{{IDDominio: "11111111111"}, {IDTipoPendenza: "TARI"}, {IDDominio: "11111111111", IDTipoPendenza: "TARI"}}
	for _, pl := range held {
		if !all.Covers(pl) || !d1.Covers(pl) {
			t.Errorf("%+v: all %v, d1 %v; want both", pl, all.Covers(pl), d1.Covers(pl))
		}
	}
	for _, pl := range []Place{{IDDominio: "22222222222"}, {IDTipoPendenza: "IMU"}, {IDDominio: "11111111111", IDTipoPendenza: "IMU"}} {
		if d1.Covers(pl) || !all.Covers(pl) {
			t.Errorf("%+v: all %v, d1 %v; want all alone", pl, all.Covers(pl), d1.Covers(pl))
		}
	}
	if all.Covers(Place{}) || all.Covers(Place{IDUnita: "U1"}) {
		t.Error("a place naming no entity and no type is covered")
	}
	p := operator(all)
	if err := CanOnDominio(p, ServicePendenze, RightRead, ""); err == nil {
		t.Error(`CanOnDominio("") allowed`)
	}
	if err := CanOnTipoPendenza(p, ServicePendenze, RightRead, ""); err == nil {
		t.Error(`CanOnTipoPendenza("") allowed`)
	}
	if err := CanOnPlace(p, ServicePendenze, RightRead, Place{IDTipoPendenza: "TARI"}); err == nil {
		t.Error("CanOnPlace of a place without an entity allowed")
	}
}
