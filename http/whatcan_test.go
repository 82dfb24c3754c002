package httpapi

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/operations/whatcan"
)

// TestWhatCanResourcesMatchTheLiveDecisions lists the pendenze each
// principal could read and checks the list against the live service:
// every pendenza is fetched as the principal, 200 exactly for the listed.
func TestWhatCanResourcesMatchTheLiveDecisions(t *testing.T) {
	w := newWorld(t)
	type key struct{ a2a, id string }
	var all []key
	for i, c := range []struct{ app, dominio string }{{"appA", d1}, {"appA", d1}, {"appB", d1}, {"appB", d2}, {"appB", d2}} {
		id := fmt.Sprintf("P%d", i)
		w.createPendenza(t, c.app, id, c.dominio, t1, citizen1)
		all = append(all, key{c.app, id})
	}
	cases := []struct {
		principal, api, op, path string
	}{
		{"appA", "PENDENZE", "read", "/pendenze/rs/basic/v2/pendenze/%s/%s"},
		{"appB", "PENDENZE", "read", "/pendenze/rs/basic/v2/pendenze/%s/%s"},
		{"appNone", "PENDENZE", "read", "/pendenze/rs/basic/v2/pendenze/%s/%s"},
		{"opD1", "BACKOFFICE", "servizio", "/backoffice/rs/basic/v1/pendenze/%s/%s"},
		{"opRO", "BACKOFFICE", "servizio", "/backoffice/rs/basic/v1/pendenze/%s/%s"},
		{"opNoRole", "BACKOFFICE", "servizio", "/backoffice/rs/basic/v1/pendenze/%s/%s"},
	}
	allowedSeen, deniedSeen := 0, 0
	for _, tc := range cases {
		t.Run(tc.principal, func(t *testing.T) {
			api, _ := domain.ParseAPI(tc.api)
			listed := map[key]bool{}
			_, err := whatcan.Resources(w.model, tc.principal, api, tc.op, "Pendenze", "R", 0, 0, func(r audit.Resource) error {
				listed[key{r.IDA2A, r.IDPendenza}] = true
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range all {
				r := w.do(t, "GET", fmt.Sprintf(tc.path, k.a2a, k.id), nil, as(tc.principal))
				live := r.Status == http.StatusOK
				if live != listed[k] {
					t.Fatalf("%s/%s: live status %d, listed %v", k.a2a, k.id, r.Status, listed[k])
				}
				if live {
					allowedSeen++
				} else {
					deniedSeen++
				}
			}
			t.Logf("%s: %d of %d readable", tc.principal, len(listed), len(all))
		})
	}
	if allowedSeen == 0 || deniedSeen == 0 {
		t.Fatalf("the cases must see both outcomes: %d allowed, %d denied", allowedSeen, deniedSeen)
	}

	// Over HTTP, paginated: appA reads its own two of the five.
	var page struct {
		Decided   int              `json:"decise"`
		Next      uint64           `json:"successivo"`
		Resources []audit.Resource `json:"risorse"`
	}
	r := w.must(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal/risorse?principal=appA&api=PENDENZE&operazione=read&limite=3", nil)
	r.decode(t, &page)
	if page.Decided != 3 || page.Next != 3 || len(page.Resources) != 2 {
		t.Fatalf("first page: %+v", page)
	}
	page.Next = 0
	r = w.must(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal/risorse?principal=appA&api=PENDENZE&operazione=read&limite=3&dopo=3", nil)
	r.decode(t, &page)
	if page.Decided != 2 || page.Next != 0 || len(page.Resources) != 0 {
		t.Fatalf("second page: %+v", page)
	}
	w.do(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal/risorse?principal=appA&api=PENDENZE&operazione=read", nil, as("opD1")).
		expect(t, http.StatusForbidden, "403000")
}

func TestWhatCanOverHTTP(t *testing.T) {
	w := newWorld(t)
	var res whatcan.Result
	w.must(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal?principal=appA", nil).decode(t, &res)
	find := func(api, op string) whatcan.Capability {
		for _, c := range res.Capabilities {
			if c.API == api && c.Operation == op {
				return c
			}
		}
		t.Fatalf("no %s/%s in %+v", api, op, res.Capabilities)
		return whatcan.Capability{}
	}
	create := find("PENDENZE", "create")
	if !create.Allowed || len(create.Scope) != 1 || create.Scope[0].Via != "autorizzazioneApi PENDENZE" ||
		fmt.Sprint(create.Scope[0].Domini) != "["+d1+"]" {
		t.Fatalf("appA PENDENZE/create: %+v", create)
	}
	if read := find("PENDENZE", "read"); !read.Allowed || !read.PerResource {
		t.Fatalf("appA PENDENZE/read: %+v", read)
	}
	if bo := find("BACKOFFICE", "profilo"); bo.Allowed {
		t.Fatalf("appA BACKOFFICE/profilo: %+v", bo)
	}
	w.must(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal?principal=appNone", nil).decode(t, &res)
	if c := find("PENDENZE", "create"); c.Allowed || c.Rule == "" {
		t.Fatalf("appNone PENDENZE/create: %+v", c)
	}
	w.must(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal?principal=opRO", nil).decode(t, &res)
	found := 0
	for _, c := range res.Capabilities {
		if c.API == "BACKOFFICE" && c.Operation == "servizio" && c.Service == "Pendenze" {
			found++
			if want := c.Right == "R"; c.Allowed != want || (want && fmt.Sprint(c.Scope[0].Domini) != "[*]") {
				t.Fatalf("opRO Pendenze %s: %+v", c.Right, c)
			}
		}
	}
	if found != 2 {
		t.Fatalf("opRO: %d Pendenze capabilities, want R and W", found)
	}
	// A role naming no pendenza type still reads its entity, as GET
	// /domini/{idDominio} answers it: what-can probes the entity alone.
	w.putRole(t, "anagraficaSenzaTipi", acl{aclOf("Anagrafica Creditore", "R")}, []string{d1}, []string{})
	w.putOperator(t, "opSenzaTipi", pw, true, "anagraficaSenzaTipi")
	w.do(t, "GET", bo+"/domini/"+d1, nil, as("opSenzaTipi")).expect(t, http.StatusOK, "")
	w.must(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal?principal=opSenzaTipi", nil).decode(t, &res)
	found = 0
	for _, c := range res.Capabilities {
		if c.API == "BACKOFFICE" && c.Operation == "servizio" && c.Service == "Anagrafica Creditore" {
			found++
			if want := c.Right == "R"; c.Allowed != want || (want && (len(c.Scope) != 1 || fmt.Sprint(c.Scope[0].Domini) != "["+d1+"]")) {
				t.Fatalf("opSenzaTipi Anagrafica Creditore %s: %+v", c.Right, c)
			}
		}
	}
	if found != 2 {
		t.Fatalf("opSenzaTipi: %d Anagrafica Creditore capabilities, want R and W", found)
	}
	w.do(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal?principal=nobody", nil, asAdmin()).expect(t, http.StatusNotFound, "404000")
	w.do(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal?principal=appA", nil, as("opD1")).expect(t, http.StatusForbidden, "403000")
	for _, pos := range []string{"0", "x", "-1"} {
		r := w.do(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal?principal=appA&posizione="+pos, nil, asAdmin())
		r.expect(t, http.StatusBadRequest, "SINTASSI")
		if d := r.fault(t).Dettaglio; d != "posizione must be a positive integer" {
			t.Errorf("posizione=%s: dettaglio %q", pos, d)
		}
	}
}

// TestWhatCanPay: what-can answers PAGAMENTO pay for the caller's right to
// pay, not for whether a probed type is spontaneous: an application with a
// PAGAMENTO grant may pay in its grant's scope; one without may not.
func TestWhatCanPay(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	if c := w.capability(t, "appA", "PAGAMENTO", "pay"); !c.Allowed || len(c.Scope) == 0 || c.Scope[0].Domini[0] != d1 {
		t.Fatalf("appA (PAGAMENTO on %s) pay = %+v", d1, c)
	}
	if c := w.capability(t, "appC", "PAGAMENTO", "pay"); c.Allowed || c.Rule == "" {
		t.Fatalf("appC (no PAGAMENTO grant) pay = %+v", c)
	}
}

// TestWhatCanListsPaymentsForPagamenti: the Backoffice resources of
// Pagamenti R are payments, listed as the live service answers them.
func TestWhatCanListsPaymentsForPagamenti(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "a1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "b2", d2, t1, citizen2)
	payD1, payD2 := w.payOwn(t, "appA", "a1"), w.payOwn(t, "appB", "b2")
	var listed []string
	if _, err := whatcan.Resources(w.model, "opD1", domain.APIBackoffice, "servizio", "Pagamenti", "R", 0, 0, func(r audit.Resource) error {
		listed = append(listed, r.IDPagamento)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 1 || listed[0] != payD1 {
		t.Fatalf("opD1's payments: %q, want [%s]", listed, payD1)
	}
	w.do(t, "GET", bo+"/pagamenti/"+payD1, nil, as("opD1")).expect(t, http.StatusOK, "")
	w.do(t, "GET", bo+"/pagamenti/"+payD2, nil, as("opD1")).expect(t, http.StatusForbidden, "403000")
}

// TestWhatCanResourcesRefuseABadServiceOrRight: the Backoffice resources
// of a servizio and autorizzazione that are none are a 400 naming the
// field, not a page of nothing (every resource denied for a question the
// catalogue cannot ask), while a service the principal holds lists.
func TestWhatCanResourcesRefuseABadServiceOrRight(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "a1", d1, t1, citizen1)
	const risorse = "/backoffice/rs/basic/v1/autorizzazioni/principal/risorse?principal=opD1&api=BACKOFFICE&operazione=servizio"
	runRows(t, w.harness, []row{
		{name: "unknown_service", method: "GET", path: risorse + "&servizio=Pendenz", opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: "SINTASSI"},
		{name: "unknown_right", method: "GET", path: risorse + "&servizio=Pendenze&autorizzazione=X", opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: "SINTASSI"},
	})
	var page struct {
		Resources []audit.Resource `json:"risorse"`
	}
	w.must(t, "GET", risorse+"&servizio=Pendenze&autorizzazione=r", nil).decode(t, &page)
	if len(page.Resources) != 1 || page.Resources[0].IDPendenza != "a1" {
		t.Fatalf("opD1's pendenze: %+v", page.Resources)
	}
}

// TestWhatCanListsReconciliations: the reconciliations an application
// could read are its own, listed over HTTP as the live service answers
// them (200 for the listed, 403 for another's).
func TestWhatCanListsReconciliations(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	ric := map[string]any{"importo": 10.5, "causale": "quadratura"}
	w.must(t, "PUT", "/ragioneria/rs/basic/v3/riconciliazioni/"+d1+"/rC", ric, as("appC"))
	w.must(t, "PUT", "/ragioneria/rs/basic/v3/riconciliazioni/"+d1+"/rA", ric, as("appA"))
	var page struct {
		Resources []audit.Resource `json:"risorse"`
	}
	w.must(t, "GET", "/backoffice/rs/basic/v1/autorizzazioni/principal/risorse?principal=appC&api=RAGIONERIA&operazione=read-reconciliation", nil).decode(t, &page)
	if len(page.Resources) != 1 || page.Resources[0].IDDominio != d1 || page.Resources[0].IDRiconciliazione != "rC" {
		t.Fatalf("appC's reconciliations: %+v", page.Resources)
	}
	w.do(t, "GET", "/ragioneria/rs/basic/v3/riconciliazioni/"+d1+"/rC", nil, as("appC")).expect(t, http.StatusOK, "")
	w.do(t, "GET", "/ragioneria/rs/basic/v3/riconciliazioni/"+d1+"/rA", nil, as("appC")).expect(t, http.StatusForbidden, "403000")
}

// TestWhatCanListsNoRegistryEntries: an operation on a registry entry (an
// application named by its idA2A, a role) acts on no stored pendenza,
// payment or reconciliation: its resources are a 400, while an operation
// on the pendenze of a creator (idA2A, idPendenza) lists them.
func TestWhatCanListsNoRegistryEntries(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "p1", d1, t1, citizen1)
	const risorse = "/backoffice/rs/basic/v1/autorizzazioni/principal/risorse?principal=" + adminUser + "&api=BACKOFFICE&operazione="
	for _, op := range []string{"read-applicazione", "write-applicazione", "patch-applicazione", "read-ruolo", "read-operatore"} {
		w.do(t, "GET", risorse+op, nil, asAdmin()).expect(t, http.StatusBadRequest, "SINTASSI")
	}
	var page struct {
		Resources []audit.Resource `json:"risorse"`
	}
	w.must(t, "GET", risorse+"patch-pendenza", nil).decode(t, &page)
	if len(page.Resources) != 1 || page.Resources[0].IDA2A != "appA" || page.Resources[0].IDPendenza != "p1" {
		t.Fatalf("the admin's pendenze to patch: %+v", page.Resources)
	}
}

// TestWhatCanOnStoredPendenze: an operation on a stored pendenza is
// allowed per resource over the scope that decides a pendenza there, even
// when the caller may not learn that a pendenza is missing: an operator
// whose role gives Pendenze W on one entity patches the pendenze of that
// entity (the Backoffice patch), an application reads on the Pagamento
// API the pendenze of its PAGAMENTO grant's entity. Each answer is held
// against the live service, both ways.
func TestWhatCanOnStoredPendenze(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appB", "inD1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "inD2", d2, t1, citizen1)
	cases := []struct {
		principal, api, op, via string
		live                    func(id string) *response
	}{
		{"opD1", "BACKOFFICE", "patch-pendenza", "ruolo opD1", func(id string) *response {
			return w.do(t, "PATCH", bo+"/pendenze/appB/"+id, patchStato("ANNULLATA"), as("opD1"))
		}},
		{"appA", "PAGAMENTO", "read-pendenza", "autorizzazioneApi PAGAMENTO", func(id string) *response {
			return w.do(t, "GET", "/pagamento/rs/basic/v2/pendenze/appB/"+id, nil, as("appA"))
		}},
	}
	for _, tc := range cases {
		c := w.capability(t, tc.principal, tc.api, tc.op)
		if !c.Allowed || !c.PerResource || len(c.Scope) != 1 || c.Scope[0].Via != tc.via ||
			fmt.Sprint(c.Scope[0].Domini) != "["+d1+"]" || fmt.Sprint(c.Scope[0].Tipi) != "[*]" {
			t.Fatalf("%s %s %s: %+v", tc.principal, tc.api, tc.op, c)
		}
		tc.live("inD1").expect(t, http.StatusOK, "")
		tc.live("inD2").expect(t, http.StatusForbidden, "403000")
	}
	// Notices: an application whose PAGAMENTO grant names one entity and
	// one type may not learn that a notice is missing there, yet pays
	// and reads the notices of that entity and type.
	w.putApp(t, "appOne", "appOne", pw, true, apiGrant("PAGAMENTO", []string{d1}, []string{t1}))
	other := w.createPendenza(t, "appB", "otherType", d1, tSpont, citizen1)
	notices := map[string]string{"in": w.createPendenza(t, "appB", "noticeIn", d1, t1, citizen1).NumeroAvviso, "out": other.NumeroAvviso}
	for _, tc := range []struct {
		op   string
		live func(numeroAvviso string) *response
		ok   int
	}{
		{"pay", func(n string) *response {
			return w.do(t, "POST", "/pagamento/rs/basic/v2/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "numeroAvviso": n}}}, as("appOne"))
		}, http.StatusCreated},
		{"read-notice", func(n string) *response {
			return w.do(t, "GET", "/pagamento/rs/basic/v2/avvisi/"+d1+"/"+n, nil, as("appOne"))
		}, http.StatusOK},
	} {
		c := w.capability(t, "appOne", "PAGAMENTO", tc.op)
		if !c.Allowed || !c.PerResource || len(c.Scope) != 1 || c.Scope[0].Via != "autorizzazioneApi PAGAMENTO" ||
			fmt.Sprint(c.Scope[0].Domini) != "["+d1+"]" || fmt.Sprint(c.Scope[0].Tipi) != "["+t1+"]" {
			t.Fatalf("appOne PAGAMENTO %s: %+v", tc.op, c)
		}
		tc.live(notices["in"]).expect(t, tc.ok, "")
		tc.live(notices["out"]).expect(t, http.StatusForbidden, "403000")
	}

	// Without the right, or with it on an entity but no type (every
	// pendenza has one), what-can and the service say no.
	w.putRole(t, "pendenzeSenzaTipi", acl{aclOf("Pendenze", "R", "W")}, []string{d1}, []string{})
	w.putOperator(t, "opSenzaTipi", pw, true, "pendenzeSenzaTipi")
	for _, op := range []struct{ name, rule string }{{"opRO", "backoffice-service-right"}, {"opSenzaTipi", "backoffice-role-scope"}} {
		if c := w.capability(t, op.name, "BACKOFFICE", "patch-pendenza"); c.Allowed || c.Rule != op.rule {
			t.Fatalf("%s BACKOFFICE patch-pendenza: %+v", op.name, c)
		}
		w.do(t, "PATCH", bo+"/pendenze/appB/inD1", patchStato("ANNULLATA"), as(op.name)).
			expect(t, http.StatusForbidden, "403000")
	}
}

// capability is what-can's answer for name on the operation op of api.
func (w *world) capability(t *testing.T, name, api, op string) whatcan.Capability {
	t.Helper()
	res, err := whatcan.WhatCan(w.model, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Capabilities {
		if c.API == api && c.Operation == op {
			return c
		}
	}
	t.Fatalf("%s: no %s %s in %+v", name, api, op, res.Capabilities)
	return whatcan.Capability{}
}

// TestWhatCanDenialNamesWhatStandsInTheWay: an operation denied over the
// whole scope and on every pair is reported with the rule of the pairs
// that came closest (passed the most checks), as explain answers on one
// of them and the service denies it: an application granted PAGAMENTO on
// an entity × a type that is not spontaneous may not create a pendenza
// there (spontaneous-type), even when most pairs probed (its PENDENZE
// grant's entity, the spontaneous type) lie outside its PAGAMENTO grant;
// one whose PAGAMENTO grant names no type is outside it everywhere
// (api-scope), one without the grant may not enter (api-entry).
func TestWhatCanDenialNamesWhatStandsInTheWay(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.putApp(t, "appT1", "appT1", pw, true, apiGrant("PAGAMENTO", []string{d1}, []string{t1}), apiGrant("PENDENZE", []string{d2}, []string{"*"}))
	w.putApp(t, "appNoType", "appNoType", pw, true, apiGrant("PAGAMENTO", []string{d1}, []string{}), apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	body := map[string]any{"causale": "Dono", "importo": 5, "soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "M R"}}
	// detail: what-can's detail is explain's on d1 × t1, the one pair in
	// the grant (appNoType's names the first pair probed, as far).
	for _, tc := range []struct {
		app, rule string
		detail    bool
	}{
		{"appT1", domain.RuleSpontaneous, true},
		{"appNoType", domain.RuleAPIScope, false},
		{"appC", domain.RuleAPIEntry, true},
	} {
		c := w.capability(t, tc.app, "PAGAMENTO", "create-pendenza")
		x, err := audit.Explain(w.model, audit.Query{Principal: tc.app, API: domain.APIPagamento, Operation: "create-pendenza",
			Resource: audit.Resource{IDDominio: d1, IDTipoPendenza: t1}})
		if err != nil {
			t.Fatal(err)
		}
		if c.Allowed || c.Rule != tc.rule || x.Rule != tc.rule || tc.detail && c.Detail != x.Detail {
			t.Fatalf("%s PAGAMENTO create-pendenza: what-can %+v, explain on %s × %s %s (%s), want %s", tc.app, c, d1, t1, x.Rule, x.Detail, tc.rule)
		}
		w.do(t, "POST", "/pagamento/rs/basic/v2/pendenze/"+d1+"/"+t1, body, as(tc.app)).expect(t, http.StatusForbidden, "403000")
	}
}

// TestWhatCanProbesUnits: an operation on an operational unit named by
// its id (read-unita-operativa) is probed with a unit, not refused as a
// query missing one: the admin may read and write the units of every
// entity, and no operation of the catalogue answers an error for it or
// for an operator scoped to one entity or to one unit. Each operator's
// answer agrees with explain and the live service on a concrete unit.
func TestWhatCanProbesUnits(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/UO1", map[string]any{"ragioneSociale": "Ufficio UO1", "abilitato": true})
	w.must(t, "PUT", bo+"/ruoli/soloUO1", map[string]any{"acl": fullACL("R", "W"),
		"domini": []any{map[string]any{"idDominio": d1, "unitaOperative": []string{"UO1"}}}, "tipiPendenza": []string{"*"}})
	w.putOperator(t, "opUO1", pw, true, "soloUO1")
	for _, name := range []string{adminUser, "opD1", "opUO1"} {
		res, err := whatcan.WhatCan(w.model, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Capabilities {
			if c.Rule == "error" {
				t.Errorf("%s %s %s %s: %s", name, c.API, c.Operation, c.Service, c.Detail)
			}
		}
	}
	for _, op := range []string{"read-unita-operativa", "write-unita-operativa"} {
		if c := w.capability(t, adminUser, "BACKOFFICE", op); !c.Allowed || len(c.Scope) != 1 || fmt.Sprint(c.Scope[0].Domini) != "[*]" {
			t.Errorf("admin BACKOFFICE %s: %+v", op, c)
		}
	}
	// On a concrete unit of each entity (d1's UO1, which exists; d2's,
	// which does not), what-can and explain answer alike, as GET does.
	for _, name := range []string{adminUser, "opD1", "opUO1"} {
		c := w.capability(t, name, "BACKOFFICE", "read-unita-operativa")
		for _, d := range []string{d1, d2} {
			x, err := audit.Explain(w.model, audit.Query{Principal: name, API: domain.APIBackoffice, Operation: "read-unita-operativa",
				Resource: audit.Resource{IDDominio: d, IDUnitaOperativa: "UO1"}})
			if err != nil {
				t.Fatal(err)
			}
			inScope := c.Allowed && len(c.Scope) > 0 && (c.Scope[0].Domini[0] == domain.Wildcard || slices.Contains(c.Scope[0].Domini, d))
			explained := x.Outcome == audit.OutcomeAllow || x.Outcome == audit.OutcomeNotFound
			// Denied, what-can names the rule of the operator's own
			// entity (the closest to being allowed), as explain there.
			if inScope != explained || !c.Allowed && (c.Rule != x.Rule || d == d1 && c.Detail != x.Detail) {
				t.Errorf("%s read-unita-operativa %s/UO1: what-can %+v, explain %s %s (%s)", name, d, c, x.Outcome, x.Rule, x.Detail)
			}
			who := as(name)
			if name == adminUser {
				who = asAdmin()
			}
			live := w.do(t, "GET", bo+"/domini/"+d+"/unitaOperative/UO1", nil, who)
			if live.Status == http.StatusForbidden == explained {
				t.Errorf("%s GET %s/UO1: %d, explain %s", name, d, live.Status, x.Outcome)
			}
		}
	}
}
