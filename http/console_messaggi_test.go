package httpapi

import (
	"html"
	"net/url"
	"strings"
	"testing"
)

// TestConsoleErrorsInItalian: an error a console form meets (a command's
// bad input, a reference it cannot use, a denial of the write or of a
// delegation) is worded in Italian from its code, naming the field a field
// error names, on the form or on the error page; the API answers the same
// request with its own words, unchanged.
func TestConsoleErrorsInItalian(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	apiSays := func(t *testing.T, r *response, status int, dettaglio string) {
		t.Helper()
		r.expect(t, status, "")
		if got := r.fault(t).Dettaglio; got != dettaglio {
			t.Fatalf("the API's dettaglio = %q, want %q", got, dettaglio)
		}
	}
	it := html.EscapeString

	t.Run("field_errors_name_their_field", func(t *testing.T) {
		cc.get("/console/operatori?nuovo")
		p := cc.post("/console/operatori", url.Values{"nuovo": {"1"}, "principal": {"opIt"}, "ragioneSociale": {""}})
		p.expect(t, 400, `<span class="errore-campo" id="err-ragioneSociale">ragioneSociale: obbligatorio, al più 255 caratteri.</span>`)
		p.lacks(t, "is required")
		apiSays(t, w.do(t, "PUT", bo+"/operatori/opIt", map[string]any{"ragioneSociale": "", "abilitato": true, "ruoli": []string{}}, asAdmin()),
			400, "invalid ragioneSociale: is required (at most 255 characters)")

		p = cc.post("/console/operatori", url.Values{"nuovo": {"1"}, "principal": {"opIt"}, "ragioneSociale": {"Ufficio"}, "password": {"corta"}})
		p.expect(t, 400, `id="err-password">password: almeno `)
		p.lacks(t, "must be at least")
		p = cc.post("/console/operatori", url.Values{"nuovo": {"1"}, "principal": {"op:It"}, "ragioneSociale": {"Ufficio"}, "password": {pw}})
		p.expect(t, 400, `id="err-principal">principal: non può contenere «:» se l`)
		p.lacks(t, "must not contain")

		cc.get("/console/impostazioni")
		p = cc.post("/console/impostazioni", url.Values{"abilitato": {"on"}, "serverURL": {"notaurl"}, "secretKey": {"s"},
			"soglia": {"0.5"}, "parametro": {"gRecaptchaResponse"}, "timeoutMs": {"300"}})
		p.expect(t, 400, `id="err-serverURL">captcha.serverURL: deve essere un URL assoluto http o https.`)
		p.lacks(t, "must be an absolute")

		cc.get("/console/incassi?nuovo")
		bad := url.Values{"idDominio": {d1}, "causale": {"Riversamento"}, "importo": {"10"}, "dataValuta": {"ieri"}}
		cc.post("/console/incassi", bad).expect(t, 400,
			`id="err-dataValuta">dataValuta: deve essere una data (AAAA-MM-GG) o una data e ora RFC 3339.`)
	})
	t.Run("references_it_cannot_use", func(t *testing.T) {
		cc.get("/console/applicazioni/appA")
		undefined := grantForm("appA", "appA", "", false, nil)
		undefined["ruoli"] = []string{"nessuno"}
		p := cc.post("/console/applicazioni", undefined)
		p.expect(t, 422, `id="errore-modulo">Il ruolo nessuno non è definito.`)
		p.lacks(t, "is not defined")

		cc.get("/console/incassi?nuovo")
		p = cc.post("/console/incassi", url.Values{"idDominio": {"99999999999"}, "causale": {"Riversamento"}, "importo": {"10"}})
		p.expect(t, 422, `id="errore-modulo">Il dominio 99999999999 non è registrato.`)
		apiSays(t, w.do(t, "POST", bo+"/incassi/99999999999", map[string]any{"causale": "Riversamento", "importo": 10}, asAdmin()),
			422, "idDominio 99999999999 is not registered")
		p = cc.post("/console/incassi", url.Values{"idDominio": {d1}, "causale": {"Riversamento"}, "importo": {"0"}})
		p.expect(t, 422, `id="errore-modulo">`+it("L'importo deve essere maggiore di zero."))
	})
	t.Run("denials", func(t *testing.T) {
		co := w.consoleClient(t)
		co.login("opD1", pw)
		co.get("/console/domini?nuovo")
		p := co.post("/console/domini", url.Values{"nuovo": {"1"}, "idDominio": {"33333333333"}, "ragioneSociale": {"Ente"}, "abilitato": {"on"}})
		p.expect(t, 403, "403000", it("Nessun ruolo dell'utenza che dà Anagrafica Creditore W (scrittura) ha il dominio 33333333333 nel suo ambito."))
		p.lacks(t, "no role giving")
		apiSays(t, w.do(t, "PUT", bo+"/domini/33333333333", map[string]any{"ragioneSociale": "Ente", "abilitato": true}, as("opD1")),
			403, "no role giving Anagrafica Creditore W has idDominio 33333333333 in its scope")
		co.get("/console/incassi?nuovo")
		p = co.post("/console/incassi", url.Values{"idDominio": {d2}, "causale": {"Riversamento"}, "importo": {"10"}})
		p.expect(t, 403, it("Nessun ruolo dell'utenza che dà Rendicontazioni e Incassi W (scrittura) ha il dominio "+d2+" nel suo ambito."))

		w.putRole(t, "soloRuoliIt", acl{aclOf("Anagrafica Ruoli", "R", "W")}, []string{d1}, []string{"*"})
		w.putOperator(t, "opRuoliIt", pw, true, "soloRuoliIt")
		cr := w.consoleClient(t)
		cr.login("opRuoliIt", pw)
		cr.get("/console/ruoli?nuovo")
		p = cr.post("/console/ruoli", url.Values{"nuovo": {"1"}, "idRuolo": {"oltre"}, aclField(5, "R"): {"on"},
			"domini": {d1}, "tipi": {"*"}})
		p.expect(t, 403, `id="errore-modulo">`+it("Non si può concedere più di quanto si possiede: l'utenza non ha "), `value="oltre"`)
		p.lacks(t, "the granter")
		// within what it holds, the same form is written
		cr.post("/console/ruoli", url.Values{"nuovo": {"1"}, "idRuolo": {"dentroIt"}, aclField(3, "R"): {"on"},
			"domini": {d1}, "tipi": {"*"}}).expect(t, 303)
	})
	t.Run("audit_questions", func(t *testing.T) {
		// A question the log or the catalogue cannot answer (a point of
		// history the log does not hold, a field its operation needs left
		// empty, a value it cannot read, a payment naming nothing) is worded
		// in Italian on the Audit page; the API keeps its dettaglio.
		cc.get("/console/audit")
		q := url.Values{"principal": {"appA"}, "auth": {"basic"}, "api": {"PAGAMENTO"}, "operazione": {"profilo"},
			"data": {"2000-01-01T00:00"}}
		p := cc.post("/console/audit", q)
		p.expect(t, 400, `id="errore-modulo">La data 2000-01-01 00:00:00 (ora italiana) è precedente al primo evento del giornale, del `,
			`value="2000-01-01T00:00"`)
		p.lacks(t, "is before the log", "invalid :")
		api := w.do(t, "POST", bo+"/autorizzazioni/verifica", map[string]any{"principal": "appA", "api": "PAGAMENTO",
			"operazione": "profilo", "data": "2000-01-01T00:00:00Z"}, asAdmin())
		api.expect(t, 400, "SINTASSI")
		if d := api.fault(t).Dettaglio; !strings.HasPrefix(d, "data 2000-01-01T00:00:00Z is before the log's first event (") {
			t.Fatalf("the API's dettaglio = %q", d)
		}

		who := url.Values{"domanda": {"chi"}, "auth": {"basic"}, "api": {"PAGAMENTO"}, "operazione": {"profilo"}, "posizione": {"999999"}}
		p = cc.post("/console/audit", who)
		p.expect(t, 400, `id="errore-modulo">La posizione 999999 è oltre la fine del giornale: la sua ultima posizione è `, `value="999999"`)
		p.lacks(t, "beyond the end")
		api = w.do(t, "GET", bo+"/autorizzazioni?api=PAGAMENTO&operazione=profilo&posizione=999999", nil, asAdmin())
		api.expect(t, 400, "SINTASSI")
		if d := api.fault(t).Dettaglio; !strings.HasPrefix(d, "posizione 999999 is beyond the end of the log (its last position is ") {
			t.Fatalf("the API's dettaglio = %q", d)
		}

		for _, c := range []struct {
			name, principal string
			q               url.Values
			page, api       string
		}{
			{"field_left_empty", "admin", url.Values{"api": {"BACKOFFICE"}, "operazione": {"servizio"}},
				"servizio: obbligatorio per questa operazione.", "audit: bad query: servizio is required"},
			{"unknown_servizio", "admin", url.Values{"api": {"BACKOFFICE"}, "operazione": {"servizio"}, "servizio": {"Nessuno"}},
				"servizio: «Nessuno» non è un servizio.", `audit: bad query: unknown servizio "Nessuno"`},
			{"unknown_autorizzazione", "admin", url.Values{"api": {"BACKOFFICE"}, "operazione": {"servizio"}, "servizio": {"Pendenze"},
				"autorizzazione": {"X"}}, "autorizzazione: «X» non è né R né W.", `audit: bad query: unknown autorizzazione "X"`},
			{"payment_naming_nothing", "appA", url.Values{"api": {"PAGAMENTO"}, "operazione": {"pay"}},
				"Indica una pendenza (idA2A, idPendenza), un avviso (idDominio, numeroAvviso) o un pagamento spontaneo (idDominio, idTipoPendenza).",
				"audit: bad query: name a pendenza (idA2A, idPendenza), a notice (idDominio, numeroAvviso) or a spontaneous payment (idDominio, idTipoPendenza)"},
		} {
			t.Run(c.name, func(t *testing.T) {
				q := url.Values{"principal": {c.principal}, "auth": {"basic"}}
				for k, v := range c.q {
					q[k] = v
				}
				p := cc.post("/console/audit", q)
				p.expect(t, 400, `id="errore-modulo">`+it(c.page))
				p.lacks(t, "bad query", "is required", "unknown ")
				apiSays(t, w.do(t, "GET", bo+"/autorizzazioni?"+c.q.Encode(), nil, asAdmin()), 400, c.api)
			})
		}
		// A value the page does not offer (a forged api) is no English either.
		forged := url.Values{"principal": {"appA"}, "auth": {"basic"}, "api": {"NESSUNA"}, "operazione": {"profilo"}}
		p = cc.post("/console/audit", forged)
		p.expect(t, 400, `id="errore-modulo">La richiesta non è valida.`)
		p.lacks(t, "api must be one of")
		// The same page answers a question it can read.
		q.Del("data")
		cc.post("/console/audit", q).expect(t, 200, `<span id="esito">allow`)
	})
	t.Run("allowed_forms_show_no_error", func(t *testing.T) {
		cc.get("/console/operatori?nuovo")
		p := cc.post("/console/operatori", url.Values{"nuovo": {"1"}, "principal": {"opItOk"}, "ragioneSociale": {"Ufficio"}, "password": {pw}})
		p.expect(t, 303)
		if page := cc.get(p.Location); strings.Contains(page.Body, "errore") {
			t.Fatalf("a written form shows an error: %s", page.Body)
		}
	})
}

// TestConsoleAuditAnswersInItalian: the Audit page words its answers (the
// decision's detail, each step's, each role's or grant's reason, who may
// do it) in Italian from the codes the answer carries, a domain denial in
// the words the console's own denials use; the API answers the same
// questions in English (TestAuditAnswersJSON).
func TestConsoleAuditAnswersInItalian(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.createPendenza(t, "appA", "pa1", d1, t1, citizen1)
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	cc.get("/console/audit")
	it := html.EscapeString
	english := []string{"registered ", "credentials", "gives ", "in scope", "in its scope", "does not exist", "allowed",
		"authorized on", "no role", "at this position", "not decided", "unprocessable (422)", "is not registered",
		"APPLICATION", "OPERATOR", "is not in the application", "is disabled", "tuoi", "ti dà", "ti danno"}
	for _, c := range []struct {
		name string
		q    url.Values
		page []string
	}{
		{"allow", url.Values{"principal": {"opD1"}, "api": {"BACKOFFICE"}, "operazione": {"servizio"},
			"servizio": {"Pendenze"}, "autorizzazione": {"R"}, "idA2A": {"appA"}, "idPendenza": {"pa1"}},
			[]string{`<span id="esito">allow`, "principal: superata — " + it("operatore registrato (abilitato), definito dall'evento alla posizione "),
				"<td>" + it("dà Pendenze R (lettura) con il dominio 11111111111 e il tipo pendenza TARI nel suo ambito") + "</td>"}},
		{"deny", url.Values{"principal": {"opD1"}, "api": {"BACKOFFICE"}, "operazione": {"servizio"},
			"servizio": {"Pendenze"}, "autorizzazione": {"R"}, "idDominio": {d2}},
			[]string{`<span id="esito">deny`,
				"Regola <code>backoffice-role-scope</code>: " + it("Nessun ruolo dell'utenza che dà Pendenze R (lettura) ha il dominio 22222222222 nel suo ambito."),
				"BACKOFFICE/servizio: <strong>non superata</strong> (backoffice-role-scope) — " + it("Nessun ruolo dell'utenza che dà Pendenze R (lettura) ha il dominio 22222222222 nel suo ambito"),
				"<td>" + it("dà Pendenze R (lettura) ma il dominio 22222222222 non è nel suo ambito") + "</td>"}},
		{"missing_resource", url.Values{"principal": {"appA"}, "api": {"PENDENZE"}, "operazione": {"read"},
			"idA2A": {"appA"}, "idPendenza": {"nessuna"}},
			[]string{`<span id="esito">not-found`, "Regola <code>granted</code>: " + it("la risorsa non esiste a questa posizione."),
				"PENDENZE/read: superata — " + it("può chiedere; la risorsa non esiste a questa posizione"),
				"<td>" + it("autorizzata sull'API PENDENZE; le decisioni dell'operazione consentono al chiamante di chiedere, e la risorsa non esiste") + "</td>"}},
		{"own_pendenza", url.Values{"principal": {"appA"}, "api": {"PENDENZE"}, "operazione": {"read"},
			"idA2A": {"appA"}, "idPendenza": {"pa1"}},
			[]string{`<span id="esito">allow`,
				"<td>" + it("autorizzata sull'API PENDENZE; le decisioni dell'operazione non si fondano sull'ambito di questa autorizzazione (decidono per proprietà o per il solo chiamante; le righe che un elenco poi mostra possono esserne comunque limitate)") + "</td>"}},
		{"unprocessable", url.Values{"principal": {"appA"}, "api": {"PENDENZE"}, "operazione": {"create"},
			"idDominio": {d1}, "idTipoPendenza": {"NESSUNO"}},
			[]string{`<span id="esito">unprocessable`, "Regola <code>request</code>: Il tipo pendenza NESSUNO non è registrato.",
				"PENDENZE/create: superata — " + it("consentita, ma la richiesta non è processabile (422): Il tipo pendenza NESSUNO non è registrato"),
				"<td>" + it("non decisa: l'operazione è terminata prima di decidere sull'ambito di questa autorizzazione (Il tipo pendenza NESSUNO non è registrato)") + "</td>"}},
		{"unregistered", url.Values{"principal": {"nessuno"}, "api": {"PAGAMENTO"}, "operazione": {"profilo"}},
			[]string{`<span id="esito">unauthenticated`, "Regola <code>authentication</code>: non registrato a questa posizione.",
				"principal: <strong>non superata</strong> (authentication) — nessun principal registrato ha questo nome a questa posizione"}},
		// Denials domain once made with a rule and no code, worded now
		// about the audited principal, not the auditor.
		{"outside_pendenze_scope", url.Values{"principal": {"appA"}, "api": {"PENDENZE"}, "operazione": {"create"},
			"idDominio": {d2}, "idTipoPendenza": {t1}},
			[]string{`<span id="esito">deny`,
				"Regola <code>api-scope</code>: " + it("Il dominio 22222222222 non è nell'ambito dell'applicazione sull'API PENDENZE."),
				"PENDENZE/create: <strong>non superata</strong> (api-scope) — " + it("Il dominio 22222222222 non è nell'ambito dell'applicazione sull'API PENDENZE")}},
		{"disabled_principal", url.Values{"principal": {"appDisabled"}, "api": {"PENDENZE"}, "operazione": {"create"},
			"idDominio": {d1}, "idTipoPendenza": {t1}},
			[]string{`<span id="esito">deny`, "Regola <code>principal-disabled</code>: " + it("L'utenza è disabilitata."),
				"api-entry: <strong>non superata</strong> (principal-disabled) — " + it("L'utenza è disabilitata")}},
		{"who_can", url.Values{"domanda": {"chi"}, "api": {"PENDENZE"}, "operazione": {"create"}, "idDominio": {d1}, "idTipoPendenza": {t1}},
			[]string{"Chi può: 3 utenze alla posizione", "<td>appA</td><td>applicazione</td><td>basic</td>",
				it("PENDENZE: autorizzata sull'API PENDENZE; le decisioni dell'operazione trovano la risorsa nell'ambito di questa autorizzazione")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := url.Values{"auth": {"basic"}}
			for k, v := range c.q {
				q[k] = v
			}
			p := cc.post("/console/audit", q)
			p.expect(t, 200, c.page...)
			p.lacks(t, english...)
		})
	}
}
