package domain

import (
	"strings"
	"testing"
)

func TestPagamentoRules(t *testing.T) {
	t.Parallel()
	pag := Grant{API: APIPagamento, Domini: Entities(ScopeOf(d1)), Tipi: ScopeOf(tA)}
	a := app("A", pag)
	onlyPendenze := app("P", Grant{API: APIPendenze, Domini: Entities(ScopeAll()), Tipi: ScopeAll()})
	onU1 := app("U", Grant{API: APIPagamento, Domini: EntitiesOf(nil, map[string][]string{d1: {"U1"}}), Tipi: ScopeAll()})
	own := PendenzaView{IDA2A: "A", IDPendenza: "1", IDDominio: d1, IDTipoPendenza: tA, PayerID: "CIT"}
	other := PendenzaView{IDA2A: "B", IDPendenza: "2", IDDominio: d1, IDTipoPendenza: tA, PayerID: "CIT"}
	farEntity := PendenzaView{IDA2A: "B", IDPendenza: "3", IDDominio: d2, IDTipoPendenza: tA, PayerID: "OTHER"}
	farType := PendenzaView{IDA2A: "B", IDPendenza: "4", IDDominio: d1, IDTipoPendenza: tB, PayerID: "OTHER"}
	noPayer := PendenzaView{IDA2A: "B", IDPendenza: "5", IDDominio: d1, IDTipoPendenza: tA}
	cit := Citizen("CIT")
	session := strings.Repeat("ab", 32)
	anon := Anonymous(session)
	spont := TypeView{IDTipoPendenza: tA, Enabled: true, Spontaneous: true}
	notSpont := TypeView{IDTipoPendenza: tA, Enabled: true}
	spontDisabled := TypeView{IDTipoPendenza: tA, Spontaneous: true}
	byApp := func(id string) PaymentView { return PaymentView{CallerKind: KindApplication, CallerID: id} }
	runDecisions(t, []decision{
		{"read_pendenza_app_any_creator_in_scope", CanReadPendenzaPagamento(a, other), ""},
		{"read_pendenza_app_own", CanReadPendenzaPagamento(a, own), ""},
		{"read_pendenza_app_out_of_entity", CanReadPendenzaPagamento(a, farEntity), RuleAPIScope},
		{"read_pendenza_app_out_of_type", CanReadPendenzaPagamento(a, farType), RuleAPIScope},
		{"read_pendenza_app_without_pagamento_grant", CanReadPendenzaPagamento(onlyPendenze, own), RuleAPIEntry},
		{"read_pendenza_citizen_payer", CanReadPendenzaPagamento(cit, other), ""},
		{"read_pendenza_citizen_not_payer", CanReadPendenzaPagamento(cit, farEntity), RulePayer},
		{"read_pendenza_citizen_no_payer", CanReadPendenzaPagamento(cit, noPayer), RulePayer},
		{"read_pendenza_anonymous", CanReadPendenzaPagamento(anon, own), RuleSession},
		{"read_pendenza_operator", CanReadPendenzaPagamento(operator(), own), RuleAPIEntry},

		{"list_pendenze_app", CanListPendenzePagamento(a), ""},
		{"list_pendenze_app_without_grant", CanListPendenzePagamento(onlyPendenze), RuleAPIEntry},
		{"list_pendenze_citizen", CanListPendenzePagamento(cit), ""},
		{"list_pendenze_anonymous", CanListPendenzePagamento(anon), RuleAnonymous},

		{"pay_by_id_app_in_scope", CanPayPendenza(a, other), ""},
		{"pay_by_id_app_out_of_scope", CanPayPendenza(a, farEntity), RuleAPIScope},
		{"pay_by_id_citizen_payer", CanPayPendenza(cit, own), ""},
		{"pay_by_id_citizen_not_payer", CanPayPendenza(cit, farEntity), RulePayer},
		{"pay_by_id_anonymous", CanPayPendenza(anon, own), RuleAnonymous},
		{"pay_by_id_operator", CanPayPendenza(operator(), own), RuleAPIEntry},

		{"pay_notice_app_in_scope", CanPayNotice(a, other), ""},
		{"pay_notice_app_out_of_scope", CanPayNotice(a, farEntity), RuleAPIScope},
		{"pay_notice_citizen_any", CanPayNotice(cit, farEntity), ""},
		{"pay_notice_anonymous_any", CanPayNotice(anon, farEntity), ""},
		{"pay_notice_operator", CanPayNotice(operator(), own), RuleAPIEntry},

		{"spontaneous_app_in_scope", CanPaySpontaneous(a, d1, spont), ""},
		{"spontaneous_app_out_of_entity", CanPaySpontaneous(a, d2, spont), RuleAPIScope},
		{"spontaneous_app_out_of_type", CanPaySpontaneous(a, d1, TypeView{IDTipoPendenza: tB, Enabled: true, Spontaneous: true}), RuleAPIScope},
		{"spontaneous_app_scope_before_type", CanPaySpontaneous(a, d2, notSpont), RuleAPIScope},
		{"spontaneous_app_not_spontaneous_type", CanPaySpontaneous(a, d1, notSpont), RuleSpontaneous},
		{"spontaneous_citizen", CanPaySpontaneous(cit, d2, spont), ""},
		{"spontaneous_anonymous", CanPaySpontaneous(anon, d2, spont), ""},
		{"spontaneous_not_spontaneous_type", CanPaySpontaneous(anon, d1, notSpont), RuleSpontaneous},
		{"spontaneous_disabled_type_is_the_commands_422_not_a_denial", CanPaySpontaneous(cit, d1, spontDisabled), ""},
		{"spontaneous_zero_type", CanPaySpontaneous(anon, d1, TypeView{}), RuleSpontaneous},
		{"spontaneous_operator", CanPaySpontaneous(operator(), d1, spont), RuleAPIEntry},

		{"payment_own_app", CanReadPayment(a, byApp("A")), ""},
		{"payment_other_app", CanReadPayment(a, byApp("B")), RulePaymentOwner},
		{"payment_citizen_payment_same_id_as_app", CanReadPayment(app("CIT", pag), PaymentView{CallerKind: KindCitizen, CallerID: "CIT"}), RulePaymentOwner},
		{"payment_app_without_grant", CanReadPayment(onlyPendenze, byApp("P")), RuleAPIEntry},
		{"payment_citizen_remitter", CanReadPayment(cit, PaymentView{RemitterID: "CIT"}), ""},
		{"payment_citizen_payer_of_one_item", CanReadPayment(cit, PaymentView{Items: []PaymentItemView{{PayerID: "X"}, {PayerID: "CIT"}}}), ""},
		{"payment_citizen_unrelated", CanReadPayment(cit, PaymentView{RemitterID: "X", Items: []PaymentItemView{{PayerID: "Y"}}}), RulePayer},
		{"payment_citizen_empty_ids", CanReadPayment(cit, PaymentView{Items: []PaymentItemView{{}}}), RulePayer},
		{"payment_citizen_named_remitter_of_anonymous_payment", CanReadPayment(cit, PaymentView{CallerKind: KindAnonymous, SessionHash: session, RemitterID: "CIT"}), RulePayer},
		{"payment_citizen_payer_of_anonymous_payment", CanReadPayment(cit, PaymentView{CallerKind: KindAnonymous, SessionHash: session, RemitterID: "X", Items: []PaymentItemView{{PayerID: "CIT"}}}), ""},
		{"payment_citizen_remitter_of_app_payment", CanReadPayment(cit, PaymentView{CallerKind: KindApplication, CallerID: "A", RemitterID: "CIT"}), ""},
		{"payment_same_session", CanReadPayment(anon, PaymentView{CallerKind: KindAnonymous, SessionHash: session}), ""},
		{"payment_other_session", CanReadPayment(anon, PaymentView{CallerKind: KindAnonymous, SessionHash: strings.Repeat("ab", 31) + "ac"}), RuleSession},
		{"payment_session_prefix", CanReadPayment(anon, PaymentView{CallerKind: KindAnonymous, SessionHash: session[:10]}), RuleSession},
		{"payment_same_hash_not_anonymous", CanReadPayment(anon, PaymentView{CallerKind: KindCitizen, SessionHash: session}), RuleSession},
		{"payment_no_session", CanReadPayment(Anonymous(""), PaymentView{CallerKind: KindAnonymous}), RuleSession},
		{"payment_operator", CanReadPayment(operator(), byApp("A")), RuleAPIEntry},

		{"notice_app_in_scope", CanReadNotice(a, other), ""},
		{"notice_app_out_of_scope", CanReadNotice(a, farType), RuleAPIScope},
		{"notice_citizen_any", CanReadNotice(cit, farEntity), ""},
		{"notice_anonymous_any", CanReadNotice(anon, farEntity), ""},
		{"notice_operator", CanReadNotice(operator(), own), RuleAPIEntry},
		{"ask_notice_app_in_scope", CanAskNotice(a, d1), ""},
		{"ask_notice_app_out_of_scope", CanAskNotice(a, d2), RuleAPIScope},
		{"ask_notice_anonymous", CanAskNotice(anon, d2), ""},
		{"ask_notice_operator", CanAskNotice(operator(), d1), RuleAPIEntry},
		{"unit_app_whole_entity", CanSeeUnitPagamento(a, d1, "U1"), ""},
		{"unit_app_of_its_unit", CanSeeUnitPagamento(onU1, d1, "U1"), ""},
		{"unit_app_another_unit", CanSeeUnitPagamento(onU1, d1, "U2"), RuleAPIScope},
		{"unit_app_other_entity", CanSeeUnitPagamento(a, d2, "U1"), RuleAPIScope},
		{"unit_citizen_any", CanSeeUnitPagamento(cit, d2, "U2"), ""},
		{"unit_anonymous_any", CanSeeUnitPagamento(anon, d2, "U2"), ""},
		{"unit_operator", CanSeeUnitPagamento(operator(), d1, "U1"), RuleAPIEntry},

		{"profile_app", CanReadProfile(a), ""},
		{"profile_citizen", CanReadProfile(cit), ""},
		{"profile_anonymous", CanReadProfile(anon), ""},
		{"profile_app_without_grant", CanReadProfile(onlyPendenze), RuleAPIEntry},
		{"profile_operator", CanReadProfile(operator()), RuleAPIEntry},
	})
}

// TestDetailsDoNotLeakStoredScope checks that a denial about a stored
// pendenza does not name its entity or type, which belong to its creator.
func TestDetailsDoNotLeakStoredScope(t *testing.T) {
	t.Parallel()
	a := app("A", Grant{API: APIPagamento, Domini: Entities(ScopeOf(d1)), Tipi: ScopeOf(tA)})
	far := PendenzaView{IDA2A: "B", IDPendenza: "3", IDDominio: d2, IDTipoPendenza: tB}
	op := operator(role("r", map[Service]Rights{ServicePendenze: rd}, ScopeOf(d1), ScopeAll()))
	for _, err := range []error{
		CanReadPendenzaPagamento(a, far), CanPayPendenza(a, far), CanPayNotice(a, far), CanReadNotice(a, far),
		CanOnPlace(op, ServicePendenze, RightRead, Place{IDDominio: d2, IDTipoPendenza: tB}),
		CanOnPayment(op, ServicePendenze, RightRead, PaymentView{Items: []PaymentItemView{{IDDominio: d2, IDTipoPendenza: tB}}}),
	} {
		if err == nil || strings.Contains(err.Error(), d2) || strings.Contains(err.Error(), tB) {
			t.Errorf("denial %v names the stored pendenza's scope", err)
		}
	}
}

func TestCanCreatePendenzaPagamento(t *testing.T) {
	spont := TypeView{IDTipoPendenza: tA, Enabled: true, Spontaneous: true}
	notSpont := TypeView{IDTipoPendenza: tA, Enabled: true}
	at := Place{IDDominio: d1, IDTipoPendenza: tA}
	a := app("A", Grant{API: APIPagamento, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()})
	pair := app("P", Grant{API: APIPagamento, Domini: Entities(ScopeOf(d1)), Tipi: ScopeOf(tA)})
	const sess, other = "aa11", "bb22"
	mine := PendenzaView{IDA2A: PortalIDA2A, IDPendenza: "x", IDDominio: d1, IDTipoPendenza: tA, SessionHash: sess}
	runDecisions(t, []decision{
		{"citizen_as_payer", CanCreatePendenzaPagamento(Citizen("CIT"), at, spont, "CIT"), ""},
		{"citizen_for_another", CanCreatePendenzaPagamento(Citizen("CIT"), at, spont, "OTHER"), RulePayer},
		{"citizen_type_not_spontaneous", CanCreatePendenzaPagamento(Citizen("CIT"), at, notSpont, "CIT"), RuleSpontaneous},
		{"anonymous", CanCreatePendenzaPagamento(Anonymous(sess), at, spont, "ANY"), ""},
		{"application_in_scope", CanCreatePendenzaPagamento(a, at, spont, "ANY"), ""},
		{"application_out_of_scope", CanCreatePendenzaPagamento(a, Place{IDDominio: d2, IDTipoPendenza: tA}, spont, "ANY"), RuleAPIScope},
		{"operator", CanCreatePendenzaPagamento(operator(), at, spont, "ANY"), RuleAPIEntry},
		{"ask_application_type_out_of_scope", CanAskCreatePendenzaPagamento(pair, Place{IDDominio: d1, IDTipoPendenza: tB}, "ANY"), RuleAPIScope},
		{"ask_application_pair_in_scope", CanAskCreatePendenzaPagamento(pair, at, "ANY"), ""},
		{"ask_citizen_for_another", CanAskCreatePendenzaPagamento(Citizen("CIT"), at, "OTHER"), RulePayer},
		{"ask_anonymous", CanAskCreatePendenzaPagamento(Anonymous(sess), at, "ANY"), ""},
		{"anonymous_reads_its_session", CanReadPendenzaPagamento(Anonymous(sess), mine), ""},
		{"anonymous_other_session", CanReadPendenzaPagamento(Anonymous(other), mine), RuleSession},
		{"anonymous_without_session", CanReadPendenzaPagamento(Anonymous(""), mine), RuleSession},
		{"anonymous_sessionless_pendenza", CanReadPendenzaPagamento(Anonymous(sess), PendenzaView{IDDominio: d1}), RuleSession},
		{"anonymous_may_ask", CanAskPendenzaPagamento(Anonymous(sess)), ""},
	})
}

// TestCanSeePaymentItem: a citizen that is only payer of a payment's
// items is shown those items alone; its remitter, the starting
// application and session every item; any other caller none.
func TestCanSeePaymentItem(t *testing.T) {
	t.Parallel()
	v := PaymentView{CallerKind: KindApplication, CallerID: "A", RemitterID: "REM",
		Items: []PaymentItemView{{PayerID: "CIT"}, {PayerID: "OTHER"}}}
	for _, c := range []struct {
		name string
		p    Principal
		want []bool
	}{
		{"payer_its_item_only", Citizen("CIT"), []bool{true, false}},
		{"other_payer_its_item_only", Citizen("OTHER"), []bool{false, true}},
		{"remitter_every_item", Citizen("REM"), []bool{true, true}},
		{"unrelated_citizen_none", Citizen("NOBODY"), []bool{false, false}},
		{"application_every_item", app("A", Grant{API: APIPagamento, Domini: Entities(ScopeAll()), Tipi: ScopeAll()}), []bool{true, true}},
		{"anonymous_every_item", Anonymous(strings.Repeat("ab", 32)), []bool{true, true}},
		{"operator_none", operator(), []bool{false, false}},
		{"named_remitter_of_anonymous_payment_its_item_only", Citizen("REM"), []bool{true, false}},
	} {
		v := v
		if strings.HasPrefix(c.name, "named_remitter_of_anonymous") {
			v = PaymentView{CallerKind: KindAnonymous, SessionHash: strings.Repeat("ab", 32), RemitterID: "REM",
				Items: []PaymentItemView{{PayerID: "REM"}, {PayerID: "OTHER"}}}
		}
		t.Run(c.name, func(t *testing.T) {
			for i, want := range c.want {
				if got := CanSeePaymentItem(c.p, v, i); got != want {
					t.Fatalf("item %d shown = %v, want %v", i, got, want)
				}
			}
		})
	}
}

func TestCanSeeRemitter(t *testing.T) {
	t.Parallel()
	session := strings.Repeat("ab", 32)
	byApp := PaymentView{CallerKind: KindApplication, CallerID: "A", RemitterID: "REM",
		Items: []PaymentItemView{{PayerID: "CIT"}, {PayerID: "REM"}}}
	byCitizen := PaymentView{CallerKind: KindCitizen, CallerID: "REM", RemitterID: "REM",
		Items: []PaymentItemView{{PayerID: "CIT"}}}
	byAnon := PaymentView{CallerKind: KindAnonymous, SessionHash: session, RemitterID: "REM",
		Items: []PaymentItemView{{PayerID: "REM"}, {PayerID: "CIT"}}}
	for _, c := range []struct {
		name string
		p    Principal
		v    PaymentView
		want bool
	}{
		{"remitter_of_application_payment", Citizen("REM"), byApp, true},
		{"payer_not_remitter_of_application_payment", Citizen("CIT"), byApp, false},
		{"remitter_that_started_it", Citizen("REM"), byCitizen, true},
		{"payer_not_remitter_of_citizen_payment", Citizen("CIT"), byCitizen, false},
		{"payer_of_anonymous_payment", Citizen("CIT"), byAnon, false},
		{"named_remitter_of_anonymous_payment", Citizen("REM"), byAnon, false},
		{"unrelated_citizen", Citizen("NOBODY"), byApp, false},
		{"starting_application", app("A", Grant{API: APIPagamento, Domini: Entities(ScopeAll()), Tipi: ScopeAll()}), byApp, true},
		{"starting_session", Anonymous(session), byAnon, true},
		{"operator", operator(), byApp, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := CanSeeRemitter(c.p, c.v); got != c.want {
				t.Fatalf("remitter shown = %v, want %v", got, c.want)
			}
		})
	}
}
