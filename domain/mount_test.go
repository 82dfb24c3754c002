package domain

import (
	"errors"
	"testing"
)

func TestAcceptsAuth(t *testing.T) {
	t.Parallel()
	// The full table of API.md section 1.
	accepted := map[API][]AuthType{
		APIBackoffice: {AuthBasic, AuthSSL, AuthSPID, AuthAPIKey},
		APIPendenze:   {AuthBasic, AuthSSL, AuthSPID, AuthAPIKey},
		APIPagamento:  {AuthBasic, AuthSSL, AuthSPID, AuthPublic, AuthAPIKey},
		APIRagioneria: {AuthBasic, AuthSSL, AuthSPID, AuthAPIKey},
		APINodo:       {AuthSSL, AuthBasic},
	}
	for _, api := range append(APIs, API{}) {
		for _, auth := range append(AuthTypes, AuthType{}) {
			want := RuleAuthNotAccepted
			for _, a := range accepted[api] {
				if a == auth {
					want = ""
				}
			}
			name := api.Segment() + "_" + auth.String()
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				expect(t, AcceptsAuth(api, auth), want)
			})
		}
	}
}

func TestAcceptsAuthSaysWhy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		auth   AuthType
		detail string
	}{
		{"refused_type", AuthPublic, "the PENDENZE API does not accept public authentication"},
		{"no_such_type", AuthType{}, "the PENDENZE API has no such authentication type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f *ForbiddenError
			if err := AcceptsAuth(APIPendenze, c.auth); !errors.As(err, &f) || f.Detail != c.detail {
				t.Fatalf("AcceptsAuth(PENDENZE, %q) = %v, want the detail %q", c.auth, err, c.detail)
			}
		})
	}
}

func TestCanEnterAPI(t *testing.T) {
	t.Parallel()
	admin := role("admin", map[Service]Rights{ServicePendenze: rw}, ScopeAll(), ScopeAll())
	pend := Grant{API: APIPendenze, Domini: Entities(ScopeAll()), Tipi: ScopeAll()}
	pag := Grant{API: APIPagamento, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()}
	rag := Grant{API: APIRagioneria, Domini: Entities(ScopeOf(d1)), Tipi: ScopeNone()}
	appWithRole := app("a")
	appWithRole.Roles = []Role{admin}
	runDecisions(t, []decision{
		{"operator_with_role_backoffice", CanEnterAPI(operator(admin), APIBackoffice), ""},
		{"operator_without_role_backoffice", CanEnterAPI(operator(), APIBackoffice), RuleAPIEntry},
		{"application_with_role_backoffice", CanEnterAPI(appWithRole, APIBackoffice), ""},
		{"application_without_role_backoffice", CanEnterAPI(app("a", pend), APIBackoffice), RuleAPIEntry},
		{"citizen_backoffice", CanEnterAPI(Citizen("RSSMRA80A01H501U"), APIBackoffice), RuleAPIEntry},
		{"disabled_operator", CanEnterAPI(disabled(operator(admin)), APIBackoffice), RulePrincipalDisabled},
		{"disabled_application", CanEnterAPI(disabled(app("a", pend)), APIPendenze), RulePrincipalDisabled},
		{"zero_principal", CanEnterAPI(Principal{}, APIBackoffice), RuleUnknownPrincipal},
		{"unknown_kind_enabled", CanEnterAPI(Principal{Name: "x", Enabled: true, Roles: []Role{admin}}, APIBackoffice), RuleUnknownPrincipal},
		{"application_without_ida2a", CanEnterAPI(Principal{Kind: KindApplication, Enabled: true}.WithGrant(pend), APIPendenze), RuleUnknownPrincipal},
		{"citizen_without_fiscal_code", CanEnterAPI(Citizen(""), APIPagamento), RuleUnknownPrincipal},
		{"app_with_grant_pendenze", CanEnterAPI(app("a", pend), APIPendenze), ""},
		{"app_without_grant_pendenze", CanEnterAPI(app("a", pag), APIPendenze), RuleAPIEntry},
		{"operator_pendenze", CanEnterAPI(operator(admin), APIPendenze), RuleAPIEntry},
		{"citizen_pendenze", CanEnterAPI(Citizen("RSSMRA80A01H501U"), APIPendenze), RuleAPIEntry},
		{"app_pagamento", CanEnterAPI(app("a", pag), APIPagamento), ""},
		{"app_without_grant_pagamento", CanEnterAPI(app("a", pend), APIPagamento), RuleAPIEntry},
		{"operator_pagamento", CanEnterAPI(operator(admin), APIPagamento), RuleAPIEntry},
		{"citizen_pagamento", CanEnterAPI(Citizen("RSSMRA80A01H501U"), APIPagamento), ""},
		{"anonymous_pagamento", CanEnterAPI(Anonymous(""), APIPagamento), ""},
		{"anonymous_ragioneria", CanEnterAPI(Anonymous("s"), APIRagioneria), RuleAPIEntry},
		{"app_ragioneria", CanEnterAPI(app("a", rag), APIRagioneria), ""},
		{"ragioneria_without_grant", CanEnterAPI(app("a", pend), APIRagioneria), RuleAPIEntry},
		{"nodo_never_by_principal", CanEnterAPI(app("a", pend, pag, rag), APINodo), RuleAPIEntry},
		{"zero_api", CanEnterAPI(operator(admin), API{}), RuleAPIEntry},
	})
}

// TestInactivePrincipalsAlwaysDenied runs every decision that takes a
// principal with the zero principal and with a disabled principal of each
// kind that otherwise holds everything: deny by default.
func TestInactivePrincipalsAlwaysDenied(t *testing.T) {
	t.Parallel()
	all := role("all", map[Service]Rights{}, ScopeAll(), ScopeAll())
	for _, s := range Services {
		all.ACL[s.i] = rw
	}
	grants := []Grant{}
	for _, api := range GrantableAPIs {
		grants = append(grants, Grant{API: api, Domini: Entities(ScopeAll()), Tipi: ScopeAll()})
	}
	superApp := app("A", grants...)
	superApp.Roles = []Role{all}
	v := PendenzaView{IDA2A: "A", IDDominio: d1, IDTipoPendenza: tA, PayerID: "CIT"}
	pay := PaymentView{CallerKind: KindApplication, CallerID: "A", RemitterID: "CIT", SessionHash: "s",
		Items: []PaymentItemView{{IDDominio: d1, IDTipoPendenza: tA, PayerID: "CIT"}}}
	spont := TypeView{IDTipoPendenza: tA, Enabled: true, Spontaneous: true}
	rec := ReconciliationView{IDDominio: d1, ID: "r", IDA2A: "A"}
	decisions := map[string]func(Principal) error{
		"can_enter_backoffice": func(p Principal) error { return CanEnterAPI(p, APIBackoffice) },
		"can_enter_pagamento":  func(p Principal) error { return CanEnterAPI(p, APIPagamento) },
		"has_service_right":    func(p Principal) error { return HasServiceRight(p, ServicePendenze, RightRead) },
		"can_on_dominio":       func(p Principal) error { return CanOnDominio(p, ServicePendenze, RightRead, d1) },
		"can_on_pendenza_scope": func(p Principal) error {
			return CanOnPlace(p, ServicePendenze, RightRead, Place{IDDominio: d1, IDTipoPendenza: tA})
		},
		"can_on_payment":         func(p Principal) error { return CanOnPayment(p, ServicePagamenti, RightRead, pay) },
		"has_any_role":           HasAnyRole,
		"can_grant_role":         func(p Principal) error { return CanGrantRole(p, all) },
		"can_assign_no_roles":    func(p Principal) error { return CanAssignRoles(p, nil) },
		"can_grant_api":          func(p Principal) error { return CanGrantAPI(p, grants[0]) },
		"can_create_pendenza":    func(p Principal) error { return CanCreatePendenza(p, "A", Place{IDDominio: d1, IDTipoPendenza: tA}) },
		"can_update_pendenza":    func(p Principal) error { return CanUpdatePendenza(p, v, "A", Place{IDDominio: d1, IDTipoPendenza: tA}) },
		"can_read_own_pendenza":  func(p Principal) error { return CanReadOwnPendenza(p, v) },
		"can_ask_about_ida2a":    func(p Principal) error { return CanAskAboutIDA2A(p, "A") },
		"can_read_pendenza_pag":  func(p Principal) error { return CanReadPendenzaPagamento(p, v) },
		"can_list_pendenze_pag":  CanListPendenzePagamento,
		"can_pay_pendenza":       func(p Principal) error { return CanPayPendenza(p, v) },
		"can_pay_notice":         func(p Principal) error { return CanPayNotice(p, v) },
		"can_pay_spontaneous":    func(p Principal) error { return CanPaySpontaneous(p, d1, spont) },
		"can_read_payment":       func(p Principal) error { return CanReadPayment(p, pay) },
		"can_read_notice":        func(p Principal) error { return CanReadNotice(p, v) },
		"can_ask_notice":         func(p Principal) error { return CanAskNotice(p, d1) },
		"can_read_profile":       CanReadProfile,
		"can_write_rec":          func(p Principal) error { return CanWriteReconciliation(p, d1, &rec) },
		"can_read_rec":           func(p Principal) error { return CanReadReconciliation(p, rec) },
		"can_read_rag_dominio":   func(p Principal) error { return CanReadRagioneriaDominio(p, d1) },
		"can_use_ragioneria":     CanUseRagioneria,
		"can_read_payment_rag":   func(p Principal) error { return CanReadPaymentRagioneria(p, pay) },
		"can_enter_ragioneria":   func(p Principal) error { return CanEnterAPI(p, APIRagioneria) },
		"can_enter_pendenze_api": func(p Principal) error { return CanEnterAPI(p, APIPendenze) },
	}
	superOp := operator(all)
	principals := []struct {
		name string
		p    Principal
		rule string
	}{
		{"zero_principal", Principal{}, RuleUnknownPrincipal},
		{"unknown_kind_with_everything", func() Principal { p := superApp; p.Kind = KindUnknown; return p }(), RuleUnknownPrincipal},
		{"disabled_application", disabled(superApp), RulePrincipalDisabled},
		{"disabled_operator", disabled(superOp), RulePrincipalDisabled},
		{"disabled_citizen", disabled(Citizen("CIT")), RulePrincipalDisabled},
		{"disabled_anonymous", disabled(Anonymous("s")), RulePrincipalDisabled},
	}
	for name, decide := range decisions {
		for _, pr := range principals {
			t.Run(name+"_"+pr.name, func(t *testing.T) {
				t.Parallel()
				expect(t, decide(pr.p), pr.rule)
			})
		}
	}
}

// TestParseAuthTypeNamesEveryType: every type parses, and a word that is
// none says which are, apikey included (the CLI's and explain's errors
// and help are built from it).
func TestParseAuthTypeNamesEveryType(t *testing.T) {
	t.Parallel()
	for _, a := range AuthTypes {
		if got, err := ParseAuthType(a.String()); err != nil || got != a {
			t.Fatalf("ParseAuthType(%q) = %v, %v", a, got, err)
		}
	}
	const want = `unknown auth type "magic": want basic, ssl, spid, public or apikey`
	if _, err := ParseAuthType("magic"); err == nil || err.Error() != want {
		t.Fatalf("ParseAuthType(magic) = %v, want %q", err, want)
	}
}
