package domain

import (
	"errors"
	"testing"
)

func TestPendenzeRules(t *testing.T) {
	t.Parallel()
	pend := Grant{API: APIPendenze, Domini: Entities(ScopeOf(d1)), Tipi: ScopeOf(tA)}
	pag := Grant{API: APIPagamento, Domini: Entities(ScopeAll()), Tipi: ScopeAll()}
	a := app("A", pend)
	own := PendenzaView{IDA2A: "A", IDPendenza: "1", IDDominio: d1, IDTipoPendenza: tA}
	ownOutOfScope := PendenzaView{IDA2A: "A", IDPendenza: "2", IDDominio: d2, IDTipoPendenza: tB}
	other := PendenzaView{IDA2A: "B", IDPendenza: "3", IDDominio: d1, IDTipoPendenza: tA}
	zeroScope := app("A", Grant{API: APIPendenze})
	runDecisions(t, []decision{
		{"create_in_scope", CanCreatePendenza(a, "A", Place{IDDominio: d1, IDTipoPendenza: tA}), ""},
		{"create_other_ida2a", CanCreatePendenza(a, "B", Place{IDDominio: d1, IDTipoPendenza: tA}), RuleOwnIDA2A},
		{"create_empty_path_ida2a", CanCreatePendenza(a, "", Place{IDDominio: d1, IDTipoPendenza: tA}), RuleOwnIDA2A},
		{"create_out_of_entity", CanCreatePendenza(a, "A", Place{IDDominio: d2, IDTipoPendenza: tA}), RuleAPIScope},
		{"create_out_of_type", CanCreatePendenza(a, "A", Place{IDDominio: d1, IDTipoPendenza: tB}), RuleAPIScope},
		{"create_with_zero_scope_grant", CanCreatePendenza(zeroScope, "A", Place{IDDominio: d1, IDTipoPendenza: tA}), RuleAPIScope},
		{"create_with_star_grant", CanCreatePendenza(app("A", Grant{API: APIPendenze, Domini: Entities(ScopeAll()), Tipi: ScopeAll()}), "A", Place{IDDominio: d2, IDTipoPendenza: tB}), ""},
		{"create_without_grant", CanCreatePendenza(app("X", pag), "X", Place{IDDominio: d1, IDTipoPendenza: tA}), RuleAPIEntry},
		{"create_by_operator", CanCreatePendenza(operator(), "A", Place{IDDominio: d1, IDTipoPendenza: tA}), RuleAPIEntry},
		{"create_by_citizen", CanCreatePendenza(Citizen("CIT"), "A", Place{IDDominio: d1, IDTipoPendenza: tA}), RuleAPIEntry},

		{"update_own", CanUpdatePendenza(a, own, "A", Place{IDDominio: d1, IDTipoPendenza: tA}), ""},
		{"update_own_back_into_scope", CanUpdatePendenza(a, ownOutOfScope, "A", Place{IDDominio: d1, IDTipoPendenza: tA}), ""},
		{"update_others", CanUpdatePendenza(a, other, "A", Place{IDDominio: d1, IDTipoPendenza: tA}), RuleCreator},
		{"update_under_other_ida2a", CanUpdatePendenza(a, other, "B", Place{IDDominio: d1, IDTipoPendenza: tA}), RuleOwnIDA2A},
		{"update_moves_out_of_entity", CanUpdatePendenza(a, own, "A", Place{IDDominio: d2, IDTipoPendenza: tA}), RuleAPIScope},
		{"update_moves_out_of_type", CanUpdatePendenza(a, own, "A", Place{IDDominio: d1, IDTipoPendenza: tB}), RuleAPIScope},

		{"read_own", CanReadOwnPendenza(a, own), ""},
		{"read_own_out_of_current_scope", CanReadOwnPendenza(a, ownOutOfScope), ""},
		{"read_others_in_scope", CanReadOwnPendenza(a, other), RuleCreator},
		{"read_without_grant", CanReadOwnPendenza(app("A", pag), own), RuleAPIEntry},

		{"ask_own_ida2a", CanAskAboutIDA2A(a, "A"), ""},
		{"ask_other_ida2a", CanAskAboutIDA2A(a, "B"), RuleCreator},
	})
}

// TestCreatorRuleIsOneForReadAndWrite: the creator-only rule that lets an
// application write a pendenza or a reconciliation again is the one that
// lets it read it (ownedBy): for every caller and creator, once the write's
// own gate passed, the write is denied by RuleCreator exactly when the
// read is.
func TestCreatorRuleIsOneForReadAndWrite(t *testing.T) {
	t.Parallel()
	all := []Grant{{API: APIPendenze, Domini: Entities(ScopeAll()), Tipi: ScopeAll()},
		{API: APIRagioneria, Domini: Entities(ScopeAll()), Tipi: ScopeAll()}}
	callers := []Principal{app("A", all...), app("B", all...), app("", all...), app("A", all[0]), app("A", all[1])}
	creator := func(err error) bool {
		var fe *ForbiddenError
		return errors.As(err, &fe) && fe.Rule == RuleCreator
	}
	for _, p := range callers {
		for _, owner := range []string{"A", "B", ""} {
			v := PendenzaView{IDA2A: owner, IDPendenza: "P1", IDDominio: d1, IDTipoPendenza: tA}
			if CanWriteUnderIDA2A(p, p.IDA2A) == nil {
				update, read := CanUpdatePendenza(p, v, p.IDA2A, v.Place()), CanReadOwnPendenza(p, v)
				if creator(update) != creator(read) {
					t.Errorf("%q on a pendenza of %q: update %v, read %v", p.IDA2A, owner, update, read)
				}
			}
			r := ReconciliationView{IDDominio: d1, ID: "r", IDA2A: owner}
			if CanAskWriteReconciliation(p, d1) == nil {
				write, read := CanWriteReconciliation(p, d1, &r), CanReadReconciliation(p, r)
				if creator(write) != creator(read) {
					t.Errorf("%q on a reconciliation of %q: write %v, read %v", p.IDA2A, owner, write, read)
				}
			}
		}
	}
}
