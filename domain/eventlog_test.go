package domain

import (
	"errors"
	"slices"
	"testing"

	"github.com/payauthz/payauthz/events"
)

func TestEventLogAndAuditScoping(t *testing.T) {
	t.Parallel()
	everywhere := operator(role("all", map[Service]Rights{ServiceGiornaleEventi: rd}, ScopeAll(), ScopeAll()))
	oneEntity := operator(role("one", map[Service]Rights{ServiceGiornaleEventi: rd}, ScopeOf(d1), ScopeAll()))
	oneType := operator(role("typ", map[Service]Rights{ServiceGiornaleEventi: rd}, ScopeOf(d1), ScopeOf(tA)))
	allEntitiesOneType := operator(role("ty*", map[Service]Rights{ServiceGiornaleEventi: rd}, ScopeAll(), ScopeOf(tA)))
	noRight := operator(role("nor", map[Service]Rights{ServicePendenze: rd}, ScopeAll(), ScopeAll()))
	registry := []Place(nil)
	entity1 := []Place{{IDDominio: d1}}
	pendenza1A := []Place{{IDDominio: d1, IDTipoPendenza: tA}}
	pendenza1B := []Place{{IDDominio: d1, IDTipoPendenza: tB}}
	paymentBoth := []Place{{IDDominio: d1, IDTipoPendenza: tA}, {IDDominio: d2, IDTipoPendenza: tA}}
	runDecisions(t, []decision{
		{"whole_log_with_role_over_everything", CanReadWholeLog(everywhere), ""},
		{"whole_log_denied_to_one_entity", CanReadWholeLog(oneEntity), RuleRoleScope},
		{"whole_log_needs_the_right", CanReadWholeLog(noRight), RuleServiceRight},
		{"registry_event_denied_to_scoped", CanReadEvent(oneEntity, registry), RuleRoleScope},
		{"entity_event_in_scope", CanReadEvent(oneEntity, entity1), ""},
		{"pendenza_event_in_type_scope", CanReadEvent(oneType, pendenza1A), ""},
		{"pendenza_event_out_of_type_scope", CanReadEvent(oneType, pendenza1B), RuleRoleScope},
		{"payment_touching_an_entity_out_of_scope", CanReadEvent(oneEntity, paymentBoth), RuleRoleScope},
		{"payment_all_in_scope", CanReadEvent(everywhere, paymentBoth), ""},
		{"audit_without_place_needs_the_whole_log", CanAudit(oneEntity, nil), RuleRoleScope},
		{"audit_without_place_every_type_too", CanAudit(allEntitiesOneType, nil), RuleRoleScope},
		{"audit_without_place_everywhere", CanAudit(everywhere, nil), ""},
		{"audit_entity_in_scope", CanAudit(oneEntity, entity1), ""},
		{"audit_one_entity_out_of_scope", CanAudit(oneEntity, paymentBoth), RuleRoleScope},
		{"audit_pendenza_in_type_scope", CanAudit(oneType, pendenza1A), ""},
		{"audit_pendenza_out_of_type_scope", CanAudit(oneType, pendenza1B), RuleRoleScope},
		{"audit_needs_the_right", CanAudit(noRight, entity1), RuleServiceRight},
	})
	// A question about no place (a registry entry, a missing pendenza or
	// payment) is denied to a scoped auditor exactly as one about a
	// resource out of its scope: the denial never tells a missing
	// resource from another entity's.
	for _, p := range []Principal{oneEntity, oneType, allEntitiesOneType} {
		missing, elsewhere := CanAudit(p, registry), CanAudit(p, []Place{{IDDominio: d2, IDTipoPendenza: tB}})
		if missing == nil || elsewhere == nil || missing.Error() != elsewhere.Error() {
			t.Errorf("role %s: no place denied with %v, a place out of scope with %v", p.Roles[0].ID, missing, elsewhere)
		}
	}
}

// TestPlacesOfEvents: each event lies where a read of the resource it
// makes decides that resource lies (an entity's at the entity, a unit's
// at its unit, a pendenza's at its entity, unit and type, a receipt at its
// ReceiptPlace, a payment at every item's place), and registry events
// nowhere; PlacesOf appends to what it is given.
func TestPlacesOfEvents(t *testing.T) {
	t.Parallel()
	const u1 = "U1"
	entity := []Place{{IDDominio: d1}}
	pendenza := []Place{{IDDominio: d1, IDUnita: u1, IDTipoPendenza: tA}}
	cases := []struct {
		name string
		e    events.Event
		want []Place
	}{
		{"entity_registered", events.CreditorEntityRegistered{IDDominio: d1}, entity},
		{"entity_updated", events.CreditorEntityUpdated{IDDominio: d1}, entity},
		{"unit_registered", events.UnitRegistered{IDDominio: d1, IDUnita: u1}, []Place{{IDDominio: d1, IDUnita: u1}}},
		{"unit_updated", events.UnitUpdated{IDDominio: d1, IDUnita: u1}, []Place{{IDDominio: d1, IDUnita: u1}}},
		{"pendenza_created", events.PendenzaCreated{IDDominio: d1, IDUnitaOperativa: u1, IDTipoPendenza: tA}, pendenza},
		{"pendenza_updated", events.PendenzaUpdated{IDDominio: d1, IDUnitaOperativa: u1, IDTipoPendenza: tA}, pendenza},
		{"pendenza_status_changed", events.PendenzaStatusChanged{IDDominio: d1, IDUnitaOperativa: u1, IDTipoPendenza: tA}, pendenza},
		{"pendenza_without_unit", events.PendenzaCreated{IDDominio: d1, IDTipoPendenza: tA}, []Place{{IDDominio: d1, IDTipoPendenza: tA}}},
		{"receipt_at_its_pendenzas_unit", events.ReceiptRecorded{IDDominio: d1, IDUnitaOperativa: u1}, []Place{{IDDominio: d1, IDUnita: u1}}},
		{"receipt_of_the_entity", events.ReceiptRecorded{IDDominio: d1}, entity},
		{"settlement_report", events.SettlementReportRecorded{IDDominio: d1}, entity},
		{"reconciliation", events.ReconciliationCreated{IDDominio: d1}, entity},
		{"incasso", events.IncassoRecorded{IDDominio: d1}, entity},
		{"payment_at_every_item", events.PaymentStarted{Items: []events.PaymentItem{
			{IDDominio: d1, IDUnitaOperativa: u1, IDTipoPendenza: tA}, {IDDominio: d2, IDTipoPendenza: tB}}},
			[]Place{{IDDominio: d1, IDUnita: u1, IDTipoPendenza: tA}, {IDDominio: d2, IDTipoPendenza: tB}}},
		{"type_registry", events.PendenzaTypeRegistered{IDTipoPendenza: tA}, nil},
		{"intermediary_registry", events.IntermediaryRegistered{IDIntermediario: "I"}, nil},
		{"role_registry", events.RoleDefined{IDRuolo: "r"}, nil},
		{"principal_registry", events.OperatorRegistered{Principal: "op"}, nil},
		{"settings", events.PublicAPIProtectionConfigured{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := PlacesOf(c.e, nil); !slices.Equal(got, c.want) {
				t.Fatalf("PlacesOf = %v, want %v", got, c.want)
			}
			before := Place{IDDominio: "kept"}
			if got := PlacesOf(c.e, []Place{before}); len(got) != 1+len(c.want) || got[0] != before {
				t.Fatalf("PlacesOf after a place = %v, want it kept before %v", got, c.want)
			}
		})
	}
}

// TestEventVisible: a caller that sees the whole log sees every event; any
// other sees an event when each of its places is in the scope of a role
// giving Giornale degli Eventi R, as far as the role is scoped (a unit, a
// type), and never a registry event.
func TestEventVisible(t *testing.T) {
	t.Parallel()
	const u1, u2 = "U1", "U2"
	log := map[Service]Rights{ServiceGiornaleEventi: rd}
	unitRole := role("unit", log, ScopeNone(), ScopeAll())
	unitRole.Domini = EntitiesOf(nil, map[string][]string{d1: {u1}})
	unit1 := operator(unitRole)
	entity1 := operator(role("one", log, ScopeOf(d1), ScopeAll()))
	typeA := operator(role("typ", log, ScopeOf(d1), ScopeOf(tA)))
	noRight := operator(role("nor", map[Service]Rights{ServicePendenze: rd}, ScopeAll(), ScopeAll()))
	receipt := func(unit string) events.Event { return events.ReceiptRecorded{IDDominio: d1, IDUnitaOperativa: unit} }
	pendenza := func(d, typ string) events.Event { return events.PendenzaCreated{IDDominio: d, IDTipoPendenza: typ} }
	payment := events.PaymentStarted{Items: []events.PaymentItem{{IDDominio: d1, IDTipoPendenza: tA}, {IDDominio: d2, IDTipoPendenza: tA}}}
	registry := events.RoleDefined{IDRuolo: "r"}
	cases := []struct {
		name   string
		p      Principal
		seeAll bool
		e      events.Event
		want   bool
	}{
		{"whole_log_sees_a_registry_event", entity1, true, registry, true},
		{"scoped_never_sees_a_registry_event", entity1, false, registry, false},
		{"unit_role_sees_its_units_receipt", unit1, false, receipt(u1), true},
		{"unit_role_not_another_units_receipt", unit1, false, receipt(u2), false},
		{"unit_role_not_the_entitys_own_receipt", unit1, false, receipt(""), false},
		{"entity_role_sees_every_units_receipt", entity1, false, receipt(u2), true},
		{"type_role_sees_its_types_pendenza", typeA, false, pendenza(d1, tA), true},
		{"type_role_not_another_types_pendenza", typeA, false, pendenza(d1, tB), false},
		{"entity_role_not_another_entitys_pendenza", entity1, false, pendenza(d2, tA), false},
		{"payment_needs_every_item_in_scope", entity1, false, payment, false},
		{"entity_event_needs_the_right", noRight, false, events.CreditorEntityRegistered{IDDominio: d1}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := EventVisible(c.p, c.seeAll, c.e); got != c.want {
				t.Fatalf("EventVisible = %v, want %v", got, c.want)
			}
		})
	}
}

func TestWriteGatesNameWhatTheyGate(t *testing.T) {
	t.Parallel()
	pen := app("A", Grant{API: APIPendenze, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()})
	rag := app("R", Grant{API: APIRagioneria, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()})
	runDecisions(t, []decision{
		{"own_ida2a", CanWriteUnderIDA2A(pen, "A"), ""},
		{"other_ida2a_is_the_own_ida2a_rule", CanWriteUnderIDA2A(pen, "B"), RuleOwnIDA2A},
		{"write_gate_needs_pendenze_grant", CanWriteUnderIDA2A(rag, "R"), RuleAPIEntry},
		{"reconciliation_in_scope", CanAskWriteReconciliation(rag, d1), ""},
		{"reconciliation_out_of_scope", CanAskWriteReconciliation(rag, d2), RuleAPIScope},
		{"reconciliation_needs_ragioneria_grant", CanAskWriteReconciliation(pen, d1), RuleAPIEntry},
	})
}

// TestWriteDecisionsStartWithTheirGate: wherever a write's gate denies,
// the write's decision denies with the gate's own rule and detail: it
// composes the gate, so the own-idA2A and Ragioneria scope rules are
// written once, and a change to a gate reaches its decision.
func TestWriteDecisionsStartWithTheirGate(t *testing.T) {
	t.Parallel()
	pen := app("A", Grant{API: APIPendenze, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()})
	rag := app("A", Grant{API: APIRagioneria, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()})
	at := Place{IDDominio: d1, IDTipoPendenza: tA}
	mine := PendenzaView{IDA2A: "A", IDDominio: d1, IDTipoPendenza: tA}
	denials := 0
	for _, p := range []Principal{pen, rag, disabled(pen), operator(), {}} {
		for _, id := range []string{"A", "B", ""} {
			gate := CanWriteUnderIDA2A(p, id)
			denials += sameDenial(t, "create", CanCreatePendenza(p, id, at), gate)
			denials += sameDenial(t, "update", CanUpdatePendenza(p, mine, id, at), gate)
		}
		for _, d := range []string{d1, d2} {
			denials += sameDenial(t, "write_reconciliation", CanWriteReconciliation(p, d, nil), CanAskWriteReconciliation(p, d))
		}
	}
	if denials == 0 {
		t.Fatal("no gate denied: the test compares nothing")
	}
}

// sameDenial asserts that decision denies as gate does, when gate denies
// (it returns 1 then, else 0); past the gate the decision's own rules
// decide.
func sameDenial(t *testing.T, name string, decision, gate error) int {
	t.Helper()
	if gate == nil {
		return 0
	}
	var d, g *ForbiddenError
	if !errors.As(decision, &d) || !errors.As(gate, &g) || d.Rule != g.Rule || d.Detail != g.Detail || d.Code != g.Code {
		t.Errorf("%s: decision = %v, want the gate's denial %v", name, decision, gate)
	}
	return 1
}
