package domain

import "testing"

func TestRagioneriaRules(t *testing.T) {
	t.Parallel()
	// Ragioneria ignores the grant's Tipi: an empty Tipi still reaches d1.
	a := app("A", Grant{API: APIRagioneria, Domini: Entities(ScopeOf(d1)), Tipi: ScopeNone()})
	star := app("S", Grant{API: APIRagioneria, Domini: Entities(ScopeAll())})
	onlyPagamento := app("P", Grant{API: APIPagamento, Domini: Entities(ScopeAll()), Tipi: ScopeAll()})
	mine := ReconciliationView{IDDominio: d1, ID: "r", IDA2A: "A"}
	theirs := ReconciliationView{IDDominio: d1, ID: "r", IDA2A: "B"}
	runDecisions(t, []decision{
		{"write_in_scope_new", CanWriteReconciliation(a, d1, nil), ""},
		{"write_repeat_by_creator", CanWriteReconciliation(a, d1, &mine), ""},
		{"write_created_by_other", CanWriteReconciliation(a, d1, &theirs), RuleCreator},
		{"write_out_of_scope", CanWriteReconciliation(a, d2, nil), RuleAPIScope},
		{"write_scope_before_creator", CanWriteReconciliation(a, d2, &theirs), RuleAPIScope},
		{"write_star_scope", CanWriteReconciliation(star, d2, nil), ""},
		{"write_without_grant", CanWriteReconciliation(onlyPagamento, d1, nil), RuleAPIEntry},
		{"write_zero_scope_grant", CanWriteReconciliation(app("Z", Grant{API: APIRagioneria}), d1, nil), RuleAPIScope},

		{"read_own", CanReadReconciliation(a, mine), ""},
		{"read_other", CanReadReconciliation(a, theirs), RuleCreator},
		{"read_other_with_star_scope", CanReadReconciliation(star, theirs), RuleCreator},
		{"read_without_grant", CanReadReconciliation(onlyPagamento, mine), RuleAPIEntry},

		{"report_in_scope", CanReadRagioneriaDominio(a, d1), ""},
		{"report_out_of_scope", CanReadRagioneriaDominio(a, d2), RuleAPIScope},
		{"use_with_grant", CanUseRagioneria(a), ""},
		{"use_without_grant", CanUseRagioneria(onlyPagamento), RuleAPIEntry},
		{"use_by_citizen", CanUseRagioneria(Citizen("CIT")), RuleAPIEntry},

		{"payment_touching_scope", CanReadPaymentRagioneria(a, PaymentView{Items: []PaymentItemView{{IDDominio: d2}, {IDDominio: d1}}}), ""},
		{"payment_outside_scope", CanReadPaymentRagioneria(a, PaymentView{Items: []PaymentItemView{{IDDominio: d2}}}), RuleAPIScope},
		{"payment_without_items", CanReadPaymentRagioneria(star, PaymentView{}), RuleAPIScope},
	})
}
