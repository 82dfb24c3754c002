package domain

import (
	"errors"
	"testing"
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
	if !errors.As(decision, &d) || !errors.As(gate, &g) || *d != *g {
		t.Errorf("%s: decision = %v, want the gate's denial %v", name, decision, gate)
	}
	return 1
}
