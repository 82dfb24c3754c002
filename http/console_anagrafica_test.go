package httpapi

import (
	"maps"
	"net/url"
	"strings"
	"testing"
)

// aclField is the role grid's checkbox of service index i and right r.
func aclField(i int, r string) string { return "acl_" + string(rune('0'+i)) + "_" + r }

func TestConsoleAnagrafica(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// Services in GovPay's order: index 5 is Pendenze, 3 Anagrafica Ruoli, 4 Pagamenti.
	w.putRole(t, "ruoliD1", acl{aclOf("Anagrafica Ruoli", "R", "W"), aclOf("Pendenze", "R")}, []string{d1}, []string{"*"})
	w.putOperator(t, "opRuoli", pw, true, "ruoliD1")
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)

	t.Run("tipo_pendenza", func(t *testing.T) {
		cc.get("/console/tipi?nuovo").expect(t, 200, `<label for="descrizione">`)
		cc.post("/console/tipi", url.Values{"nuovo": {"1"}, "idTipoPendenza": {"IMU"}, "descrizione": {""}, "abilitato": {"on"}}).
			expect(t, 400, `id="err-descrizione"`, `value="IMU"`)
		cc.post("/console/tipi", url.Values{"nuovo": {"1"}, "idTipoPendenza": {"IMU"}, "descrizione": {"Imposta municipale"},
			"abilitato": {"on"}}).expect(t, 303)
		if tp, ok := w.model.PendenzaType("IMU"); !ok || tp.Descrizione != "Imposta municipale" {
			t.Fatalf("type %+v", tp)
		}
		cc.get("/console/tipi").expect(t, 200, "Imposta municipale")
	})
	t.Run("tipi_scoped_by_role", func(t *testing.T) {
		// As GET /tipiPendenza and GET /tipiPendenza/{id}: an operator sees
		// only the types of its role's tipiPendenza; another type is 403.
		w.putRole(t, "tipiT1", acl{aclOf("Anagrafica Creditore", "R")}, []string{"*"}, []string{t1})
		w.putOperator(t, "opTipiT1", pw, true, "tipiT1")
		ct := w.consoleClient(t)
		ct.login("opTipiT1", pw)
		list := ct.get("/console/tipi")
		list.expect(t, 200, `href="/console/tipi/`+t1+`"`)
		list.lacks(t, `href="/console/tipi/`+tSpont+`"`)
		ct.get("/console/tipi/"+t1).expect(t, 200, `value="`+t1+`"`)
		ct.get("/console/tipi/"+tSpont).expect(t, 403, "403000")
	})
	t.Run("pickers_name_only_what_the_operator_may_see", func(t *testing.T) {
		// opRuoli reads roles but not the entities outside its own role:
		// the role of d2 shows d2 held, by its id alone, never its name.
		w.putRole(t, "ruoloD2", acl{aclOf("Pendenze", "R")}, []string{d2}, []string{"*"})
		co := w.consoleClient(t)
		co.login("opRuoli", pw)
		page := co.get("/console/ruoli/ruoloD2")
		page.expect(t, 200, `value="`+d1+`">`+d1+` — Ente `+d1+`</option>`, `value="`+d2+`" selected>`+d2+`</option>`)
		page.lacks(t, "Ente "+d2)
		w.do(t, "GET", bo+"/domini/"+d2, nil, as("opRuoli")).expect(t, 403, "403000")
		fresh := co.get("/console/ruoli?nuovo")
		fresh.expect(t, 200, `value="`+d1+`"`)
		fresh.lacks(t, `value="`+d2+`"`)
		// The administrator sees every entity named.
		cc.get("/console/ruoli/ruoloD2").expect(t, 200, `value="`+d2+`" selected>`+d2+` — Ente `+d2+`</option>`)
	})
	t.Run("ruolo_grid", func(t *testing.T) {
		cc.get("/console/ruoli?nuovo").expect(t, 200, "Anagrafica PagoPA", `name="`+aclField(5, "R")+`"`)
		cc.post("/console/ruoli", url.Values{"nuovo": {"1"}, "idRuolo": {"lettorePendenze"}, aclField(5, "R"): {"on"},
			"domini": {d1}, "tipi": {"*"}}).expect(t, 303)
		r, ok := w.model.Role("lettorePendenze")
		if !ok || len(r.Event.ACL) != 1 || r.Event.ACL[0].Service != "Pendenze" || r.Event.Domini[0] != d1 {
			t.Fatalf("role %+v", r)
		}
		cc.get("/console/ruoli/lettorePendenze").expect(t, 200, `id="`+aclField(5, "R")+`" name="`+aclField(5, "R")+`" checked`)
	})
	t.Run("ruolo_units_kept_across_an_edit", func(t *testing.T) {
		// A scope with operational units, set through the API: the console
		// shows it and a save of the form keeps it.
		w.must(t, "PUT", bo+"/ruoli/perUnita", map[string]any{"acl": acl{aclOf("Pendenze", "R")},
			"domini": []any{d2, map[string]any{"idDominio": d1, "unitaOperative": []string{"UO1"}}}, "tipiPendenza": []string{"*"}})
		page := cc.get("/console/ruoli/perUnita")
		page.expect(t, 200, `name="unita" value="`+d1+`=UO1"`, d1+" (UO1)")
		cc.post("/console/ruoli", url.Values{"idRuolo": {"perUnita"}, aclField(5, "R"): {"on"}, aclField(5, "W"): {"on"},
			"domini": {d2}, "unita": {d1 + "=UO1"}, "tipi": {"*"}}).expect(t, 303)
		r, ok := w.model.Role("perUnita")
		if !ok || !r.Role.Domini.ContainsUnit(d1, "UO1") || r.Role.Domini.ContainsUnit(d1, "UO2") || !r.Role.Domini.Contains(d2) ||
			len(r.Event.ACL) != 1 || len(r.Event.ACL[0].Rights) != 2 {
			t.Fatalf("role after the console's save = %+v", r.Event)
		}
	})
	t.Run("operatore", func(t *testing.T) {
		cc.get("/console/operatori?nuovo").expect(t, 200, `id="ruolo-lettorePendenze"`)
		cc.post("/console/operatori", url.Values{"nuovo": {"1"}, "principal": {"opNuovo"}, "ragioneSociale": {"Mario"},
			"password": {pw}, "abilitato": {"on"}, "ruoli": {"lettorePendenze"}}).expect(t, 303)
		cn := w.consoleClient(t)
		cn.login("opNuovo", pw)
		cn.get("/console/pendenze").expect(t, 200)
		cn.get("/console/operatori").expect(t, 403, "403000")
		cc.get("/console/operatore?principal=opNuovo").expect(t, 200, `value="Mario"`)
	})
	t.Run("role_picker_needs_the_roles_read_right", func(t *testing.T) {
		// GET /ruoli needs Anagrafica Ruoli R: a form offers every role only
		// to who may list them, else the roles its principal holds.
		w.putRole(t, "soloApplicazioni", acl{aclOf("Anagrafica Applicazioni", "R")}, []string{"*"}, []string{"*"})
		w.putOperator(t, "opSoloApp", pw, true, "soloApplicazioni")
		w.do(t, "GET", bo+"/ruoli", nil, as("opSoloApp")).expect(t, 403, "403000")
		cc.get("/console/applicazioni/appA").expect(t, 200, `id="ruolo-readOnly"`)
		ca := w.consoleClient(t)
		ca.login("opSoloApp", pw)
		ca.get("/console/applicazioni/appA").expect(t, 200, "appA")
		ca.get("/console/applicazioni/appA").lacks(t, `id="ruolo-readOnly"`, `id="ruolo-Amministratore"`)
	})
	t.Run("field_errors_are_tied_to_their_inputs", func(t *testing.T) {
		// Every form field is written once (template "campo"): an error is
		// announced on the input and described by the message next to it.
		cc.post("/console/intermediari", url.Values{"nuovo": {"1"}, "idIntermediario": {"INT2"}, "denominazione": {""},
			"abilitato": {"on"}}).expect(t, 400,
			`id="denominazione" name="denominazione" type="text" required value="" aria-invalid="true" aria-describedby="err-denominazione">`,
			`<span class="errore-campo" id="err-denominazione">`,
			`id="idIntermediario" name="idIntermediario" type="text" required value="INT2">`)
		cc.post("/console/operatori", url.Values{"nuovo": {"1"}, "principal": {"opErr"}, "ragioneSociale": {""}}).expect(t, 400,
			`aria-describedby="err-ragioneSociale"`, `<span class="errore-campo" id="err-ragioneSociale">`)
	})
	t.Run("intermediario_password_never_shown", func(t *testing.T) {
		cc.post("/console/intermediari", url.Values{"nuovo": {"1"}, "idIntermediario": {"INT1"}, "denominazione": {"Banca"},
			"abilitato": {"on"}, "connettorePrincipal": {"nodo"}, "connettorePassword": {"segreto-del-nodo"}}).expect(t, 303)
		p := cc.get("/console/intermediari/INT1")
		p.expect(t, 200, `value="nodo"`)
		p.lacks(t, "segreto-del-nodo")
	})
	t.Run("delegation_marks_and_refuses_what_is_not_held", func(t *testing.T) {
		co := w.consoleClient(t)
		co.login("opRuoli", pw)
		co.get("/console/ruoli?nuovo").expect(t, 200, "(non posseduto)")
		co.post("/console/ruoli", url.Values{"nuovo": {"1"}, "idRuolo": {"troppo"}, aclField(4, "R"): {"on"},
			"domini": {d1}, "tipi": {"*"}}).expect(t, 403, "Non si può concedere", `value="troppo"`)
		co.post("/console/ruoli", url.Values{"nuovo": {"1"}, "idRuolo": {"ovunque"}, aclField(5, "R"): {"on"},
			"domini": {"*"}, "tipi": {"*"}}).expect(t, 403, "Non si può concedere")
		for _, id := range []string{"troppo", "ovunque"} {
			if _, ok := w.model.Role(id); ok {
				t.Fatalf("role %s beyond the operator's rights was written", id)
			}
		}
		co.post("/console/ruoli", url.Values{"nuovo": {"1"}, "idRuolo": {"dentro"}, aclField(5, "R"): {"on"},
			"domini": {d1}, "tipi": {"*"}}).expect(t, 303)
		co.get("/console/intermediari").expect(t, 403, "403000")
		co.get("/console/tipi").expect(t, 403, "403000")
	})
}

// TestConsoleKeepsWhatItDoesNotShow: saving a console form changes what
// the form shows and nothing else. A personal role (acl, domini,
// tipiPendenza of the API's body) and GovPay's fields the forms have no
// inputs for stay as stored, as the API's GET then shows.
func TestConsoleKeepsWhatItDoesNotShow(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	personal := map[string]any{"ruoli": []string{}, "acl": []map[string]any{aclOf("Pendenze", "R")}, "domini": []string{d1}, "tipiPendenza": []string{"*"}}
	body := func(kv ...any) map[string]any {
		b := map[string]any{}
		for k, v := range personal {
			b[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}
	const codifica = `"codificaAvvisi":{"codificaIuv":"77"}`

	w.must(t, "PUT", bo+"/operatori/opKeep", body("ragioneSociale", "Ufficio", "password", pw, "abilitato", true))
	// The page shows the personal role it keeps.
	cc.get("/console/operatore?principal=opKeep").expect(t, 200, `value="Ufficio"`,
		`id="ruolo-personale">Ruolo personale (si modifica dall'API o dalla CLI; resta com'è): Pendenze R — domini: `+d1+`; tipi pendenza: tutti (*)`)
	// A form that comes back with an error shows it too; a new record's
	// has none to show.
	cc.post("/console/operatori", url.Values{"principal": {"opKeep"}, "ragioneSociale": {""}}).expect(t, 400,
		`id="err-ragioneSociale"`, `id="ruolo-personale">Ruolo personale (si modifica dall'API o dalla CLI; resta com'è): Pendenze R — domini: `+d1)
	cc.post("/console/operatori", url.Values{"nuovo": {"1"}, "principal": {"opNone"}, "ragioneSociale": {""}}).lacks(t, "ruolo-personale")
	cc.get("/console/operatore?principal=opKeep")
	cc.post("/console/operatori", url.Values{"principal": {"opKeep"}, "ragioneSociale": {"Ufficio tributi"}}).expect(t, 303)
	bodyHas(t, w.must(t, "GET", bo+"/operatori/opKeep", nil), `"ragioneSociale":"Ufficio tributi"`, `"abilitato":false`, `"servizio":"Pendenze"`, `"domini":["`+d1+`"]`)

	w.must(t, "PUT", bo+"/applicazioni/appKeep", body("principal", "appKeep", "password", pw, "abilitato", true,
		"codificaAvvisi", map[string]any{"codificaIuv": "77"}))
	cc.get("/console/applicazioni/appKeep").expect(t, 200, `id="ruolo-personale">Ruolo personale`, `Pendenze R — domini: `+d1)
	// Its error forms, the console's own check (an API without a scope)
	// and the command's (an undefined role), show it too.
	cc.post("/console/applicazioni", grantForm("appKeep", "appKeep", "", false,
		map[string][2][]string{"PAGAMENTO": {nil, {"*"}}})).expect(t, 400, `id="ruolo-personale"`, `Pendenze R — domini: `+d1)
	undefined := grantForm("appKeep", "appKeep", "", false, nil)
	undefined["ruoli"] = []string{"nessuno"}
	cc.post("/console/applicazioni", undefined).expect(t, 422, `id="ruolo-personale"`, `Pendenze R — domini: `+d1)
	cc.get("/console/applicazioni/appKeep")
	cc.post("/console/applicazioni", grantForm("appKeep", "appKeep", "", false, nil)).expect(t, 303)
	bodyHas(t, w.must(t, "GET", bo+"/applicazioni/appKeep", nil), `"servizio":"Pendenze"`, codifica)

	w.must(t, "PUT", bo+"/tipiPendenza/TKEEP", map[string]any{"descrizione": "Sanzione", "abilitato": true, "codificaIUV": "030", "pagaTerzi": true})
	cc.get("/console/tipi/TKEEP").expect(t, 200, `value="Sanzione"`)
	cc.post("/console/tipi", url.Values{"idTipoPendenza": {"TKEEP"}, "descrizione": {"Sanzione stradale"}, "abilitato": {"on"}}).expect(t, 303)
	bodyHas(t, w.must(t, "GET", bo+"/tipiPendenza/TKEEP", nil), `"descrizione":"Sanzione stradale"`, `"codificaIUV":"030"`, `"pagaTerzi":true`)

	// A new record from a form has nothing stored to keep.
	cc.get("/console/operatori?nuovo").expect(t, 200)
	cc.post("/console/operatori", url.Values{"nuovo": {"1"}, "principal": {"opFresh"}, "ragioneSociale": {"Nuovo"}, "password": {pw}}).expect(t, 303)
	if fresh := w.must(t, "GET", bo+"/operatori/opFresh", nil); strings.Contains(string(fresh.Body), `"servizio"`) {
		t.Fatalf("a new operator from the console holds a personal role: %s", fresh.Body)
	}
	cc.get("/console/operatore?principal=opFresh").lacks(t, "ruolo-personale")
}

// bodyHas asserts that r's body holds each of parts.
func bodyHas(t *testing.T, r *response, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(string(r.Body), p) {
			t.Fatalf("body lacks %s: %s", p, r.Body)
		}
	}
}

// TestConsoleRegisterNewKeepsARegisteredRecord: a registry's blank form
// registers a new record; an id registered already is refused next to its
// field (409) and nothing is written, where the write behind the form (a
// PUT: register or update) would have replaced that record and what it
// grants. The record's own page still saves it; a record the operator may
// not read is answered by the write's own decision, which tells nothing
// of it.
func TestConsoleRegisterNewKeepsARegisteredRecord(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.must(t, "PUT", bo+"/intermediari/INT9", map[string]any{"denominazione": "Banca", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "nodo9", "password": "nodo9-secret"}}, asAdmin())
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	for _, c := range []struct {
		name, blank, list, marker, field string
		form                             url.Values
	}{
		{"dominio", "/console/domini?nuovo", "/console/domini", "nuovo", "idDominio",
			url.Values{"nuovo": {"1"}, "idDominio": {d1}, "ragioneSociale": {"Sostituto"}, "abilitato": {"on"}}},
		{"tipo_pendenza", "/console/tipi?nuovo", "/console/tipi", "nuovo", "idTipoPendenza",
			url.Values{"nuovo": {"1"}, "idTipoPendenza": {t1}, "descrizione": {"Sostituto"}, "abilitato": {"on"}}},
		{"operatore", "/console/operatori?nuovo", "/console/operatori", "nuovo", "principal",
			url.Values{"nuovo": {"1"}, "principal": {"opRO"}, "ragioneSociale": {"Sostituto"}, "abilitato": {"on"}, "ruoli": {"readOnly"}}},
		{"ruolo", "/console/ruoli?nuovo", "/console/ruoli", "nuovo", "idRuolo",
			url.Values{"nuovo": {"1"}, "idRuolo": {"readOnly"}, aclField(5, "R"): {"on"}, "domini": {d1}, "tipi": {"*"}}},
		{"intermediario", "/console/intermediari?nuovo", "/console/intermediari", "nuovo", "idIntermediario",
			url.Values{"nuovo": {"1"}, "idIntermediario": {"INT9"}, "denominazione": {"Sostituto"}, "abilitato": {"on"},
				"connettorePrincipal": {"nodo9"}}},
		{"applicazione", "/console/applicazioni?nuova", "/console/applicazioni", "nuova", "idA2A",
			grantForm("appA", "appSostituto", pw, true, nil)},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := w.logEnd(t)
			cc.get(c.blank)
			cc.post(c.list, c.form).expect(t, 409, "già registrato", `aria-describedby="err-`+c.field+`"`)
			if after := w.logEnd(t); after != before {
				t.Fatalf("the refused registration wrote: the log moved from %d to %d", before, after)
			}
			c.form.Del(c.marker) // the record's own page
			cc.post(c.list, c.form).expect(t, 303)
		})
	}
	t.Run("a_record_the_operator_may_not_read_is_not_told", func(t *testing.T) {
		co := w.consoleClient(t)
		co.login("opD1", pw) // Anagrafica Creditore R and W on d1 only
		co.get("/console/domini?nuovo")
		p := co.post("/console/domini", url.Values{"nuovo": {"1"}, "idDominio": {d2}, "ragioneSociale": {"Sostituto"}, "abilitato": {"on"}})
		p.expect(t, 403, "403000")
		p.lacks(t, "già registrato")
	})
}

// TestConsoleRecordFormsReadOnlyWithoutWrite: a record's page is editable,
// with its Salva button, only for an operator the record's write allows
// (the operation its save is authorized by: WriteRegistry, WriteEntity and
// WriteTipoPendenza on that record, WriteApplicazione,
// WriteConfigurazione); one who may only read it sees it read-only, its
// fields disabled and no Salva, and a forged save is still refused 403
// with nothing written. Domini and tipi pendenza are decided per record:
// an operator writing d1 and t1 and reading everything edits those and
// only reads d2 and DONAZIONE. A blank form is offered only to who may
// register one.
func TestConsoleRecordFormsReadOnlyWithoutWrite(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.must(t, "PUT", bo+"/intermediari/INT1", map[string]any{"denominazione": "Banca", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "nodo1", "password": "nodo1-secret"}}, asAdmin())
	w.putRole(t, "creditoreD1T1", acl{aclOf("Anagrafica Creditore", "R", "W")}, []string{d1}, []string{t1})
	w.putOperator(t, "opScoped", pw, true, "readOnly", "creditoreD1T1")
	const readOnly = `<fieldset class="sola-lettura" disabled>`
	clients := map[string]*consoleClient{}
	for _, user := range []string{adminUser, "opRO", "opScoped"} {
		clients[user] = w.consoleClient(t)
		pass := pw
		if user == adminUser {
			pass = adminPass
		}
		clients[user].login(user, pass)
	}
	for _, c := range []struct {
		name, page, data string
		list             string     // where the form posts
		form             url.Values // the page's save, unchanged
		reader, writer   string
	}{
		{"dominio_out_of_the_write_scope", "/console/domini/" + d2, `value="Ente ` + d2 + `"`, "/console/domini",
			url.Values{"idDominio": {d2}, "ragioneSociale": {"Ente " + d2}, "abilitato": {"on"}}, "opScoped", adminUser},
		{"dominio_in_the_write_scope", "/console/domini/" + d1, `value="Ente ` + d1 + `"`, "/console/domini",
			url.Values{"idDominio": {d1}, "ragioneSociale": {"Ente " + d1}, "abilitato": {"on"}}, "opRO", "opScoped"},
		{"tipo_out_of_the_write_scope", "/console/tipi/" + tSpont, `value="Tipo ` + tSpont + `"`, "/console/tipi",
			url.Values{"idTipoPendenza": {tSpont}, "descrizione": {"Tipo " + tSpont}, "abilitato": {"on"}}, "opScoped", adminUser},
		{"tipo_in_the_write_scope", "/console/tipi/" + t1, `value="Tipo ` + t1 + `"`, "/console/tipi",
			url.Values{"idTipoPendenza": {t1}, "descrizione": {"Tipo " + t1}, "abilitato": {"on"}}, "opRO", "opScoped"},
		{"operatore", "/console/operatore?principal=opD1", `value="Operatore opD1"`, "/console/operatori",
			url.Values{"principal": {"opD1"}, "ragioneSociale": {"Operatore opD1"}, "abilitato": {"on"}, "ruoli": {"opD1"}}, "opRO", adminUser},
		{"ruolo", "/console/ruoli/opD1", `name="` + aclField(5, "W") + `" checked`, "/console/ruoli",
			url.Values{"idRuolo": {"opD1"}, aclField(5, "R"): {"on"}, "domini": {d1}, "tipi": {"*"}}, "opRO", adminUser},
		{"intermediario", "/console/intermediari/INT1", `value="Banca"`, "/console/intermediari",
			url.Values{"idIntermediario": {"INT1"}, "denominazione": {"Banca"}, "abilitato": {"on"}, "connettorePrincipal": {"nodo1"}}, "opRO", adminUser},
		{"applicazione", "/console/applicazioni/appC", `value="appC"`, "/console/applicazioni",
			grantForm("appC", "appC", "", false, map[string][2][]string{"RAGIONERIA": {{d1}, {"*"}}}), "opRO", adminUser},
		{"impostazioni", "/console/impostazioni", `id="serverURL"`, "/console/impostazioni",
			url.Values{"soglia": {"0.5"}, "parametro": {"gRecaptchaResponse"}, "timeoutMs": {"300"}}, "opRO", adminUser},
	} {
		t.Run(c.name, func(t *testing.T) {
			reader := clients[c.reader]
			page := reader.get(c.page)
			page.expect(t, 200, c.data, readOnly, `<legend id="sola-lettura">`)
			page.lacks(t, `id="salva"`, "Puoi concedere", "Puoi autorizzare")
			before := w.logEnd(t)
			reader.post(c.list, maps.Clone(c.form)).expect(t, 403, "403000")
			if after := w.logEnd(t); after != before {
				t.Fatalf("%s's refused save wrote: the log moved from %d to %d", c.reader, before, after)
			}

			writer := clients[c.writer]
			page = writer.get(c.page)
			page.expect(t, 200, c.data, `<button type="submit" id="salva">Salva</button>`)
			page.lacks(t, readOnly, "disabled")
			writer.post(c.list, maps.Clone(c.form)).expect(t, 303)
		})
	}
	t.Run("blank_forms_only_to_who_may_register", func(t *testing.T) {
		for _, list := range []string{"/console/domini", "/console/tipi", "/console/operatori", "/console/ruoli",
			"/console/intermediari", "/console/applicazioni"} {
			blank := list + "?nuovo"
			if list == "/console/applicazioni" {
				blank = list + "?nuova"
			}
			clients["opRO"].get(list).lacks(t, `href="`+blank+`"`)
			clients["opRO"].get(blank).expect(t, 403, "403000")
			clients[adminUser].get(list).expect(t, 200, `href="`+blank+`"`)
			page := clients[adminUser].get(blank)
			page.expect(t, 200, `id="salva"`)
			page.lacks(t, readOnly)
		}
		// Anagrafica Creditore W on d1 and t1: it may register an entity
		// or a type (the save decides which id).
		clients["opScoped"].get("/console/domini?nuovo").expect(t, 200, `id="salva"`)
		clients["opScoped"].get("/console/tipi?nuovo").expect(t, 200, `id="salva"`)
	})
}

// TestConsoleRoleChoicesAreTheRolesList: a form's role picker offers every
// role to a caller that may list them (GET /ruoli: Anagrafica Ruoli R),
// and to any other only the roles the form's principal holds.
func TestConsoleRoleChoicesAreTheRolesList(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.putRole(t, "appsOnly", acl{aclOf("Anagrafica Applicazioni", "R")}, []string{"*"}, []string{"*"})
	w.putOperator(t, "opApps", pw, true, "appsOnly")
	w.putApp(t, "appHolds", "appHolds", pw, true)
	w.must(t, "PATCH", bo+"/applicazioni/appHolds", []map[string]any{{"op": "ADD", "path": "/ruoli", "value": "opD1"}})
	const offered, held = `id="ruolo-readOnly" name="ruoli" value="readOnly">`, `id="ruolo-opD1" name="ruoli" value="opD1" checked>`
	admin := w.consoleClient(t)
	admin.login(adminUser, adminPass)
	admin.get("/console/applicazioni/appHolds").expect(t, 200, offered, held)
	apps := w.consoleClient(t)
	apps.login("opApps", pw)
	p := apps.get("/console/applicazioni/appHolds")
	p.expect(t, 200, held)
	p.lacks(t, offered)
}

// TestConsoleSetsAPIKey: the operator's and the application's forms set or
// replace the API key of PUT /operatori and /applicazioni (GovPay's apikey
// authentication) as they set the password: write-only, a key typed is
// the one X-API-KEY then takes, an empty field keeps the stored one, and
// no page shows it back nor the service log holds it. Only who may save
// the record sets it.
func TestConsoleSetsAPIKey(t *testing.T) {
	t.Parallel()
	lines := newLogLines()
	w := newWorld(t, withServiceLog(lines))
	const (
		bok = "/backoffice/rs/apikey/v1"
		pek = "/pendenze/rs/apikey/v2"
	)
	w.putOperator(t, "opKey", pw, true, "readOnly")
	w.putApp(t, "appKey", "appKey", pw, true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	for _, c := range []struct {
		name, form, save, appID, probe string
		values                         url.Values
	}{
		{"operatore", "/console/operatore?principal=opKey", "/console/operatori", "opKey", bok + "/profilo",
			url.Values{"principal": {"opKey"}, "ragioneSociale": {"Operatore opKey"}, "abilitato": {"on"}, "ruoli": {"readOnly"}}},
		{"applicazione", "/console/applicazioni/appKey", "/console/applicazioni", "appKey", pek + "/pendenze",
			grantForm("appKey", "appKey", "", false, map[string][2][]string{"PENDENZE": {{d1}, {"*"}}})},
	} {
		t.Run(c.name, func(t *testing.T) {
			first, second := "key-"+c.appID+"-first-0123", "key-"+c.appID+"-second-0123"
			withKey := func(key string) url.Values {
				v := maps.Clone(c.values)
				v.Set("apiKey", key)
				return v
			}
			w.do(t, "GET", c.probe, nil, asAPIKey(c.appID, first)).expect(t, 401, "401000")
			cc.get(c.form).expect(t, 200, `name="apiKey" type="password" autocomplete="new-password"`)
			cc.post(c.save, withKey(first)).expect(t, 303)
			w.do(t, "GET", c.probe, nil, asAPIKey(c.appID, first)).expect(t, 200, "")
			// Empty keeps it (and the password: basic still works).
			cc.get(c.form).lacks(t, first)
			cc.post(c.save, withKey("")).expect(t, 303)
			w.do(t, "GET", c.probe, nil, asAPIKey(c.appID, first)).expect(t, 200, "")
			// A short key is the PUT's 400, next to the field, not shown back.
			cc.get(c.form)
			p := cc.post(c.save, withKey("short"))
			p.expect(t, 400, `id="err-apiKey"`)
			p.lacks(t, `value="short"`)
			// Replaced: the former key no longer authenticates.
			cc.post(c.save, withKey(second)).expect(t, 303)
			w.do(t, "GET", c.probe, nil, asAPIKey(c.appID, second)).expect(t, 200, "")
			w.do(t, "GET", c.probe, nil, asAPIKey(c.appID, first)).expect(t, 401, "401000")
			for _, path := range []string{c.form, "/console/eventi", "/console/operatori", "/console/applicazioni"} {
				cc.get(path).lacks(t, first, second, "$argon2id$")
			}
			for _, key := range []string{first, second, "short"} {
				if lines.holds(key) {
					t.Fatalf("the service log holds the key %q", key)
				}
			}
		})
	}
	t.Run("read_only_operator_cannot_set_one", func(t *testing.T) {
		ro := w.consoleClient(t)
		ro.login("opRO", pw)
		ro.get("/console/operatore?principal=opKey").expect(t, 200, "Sola lettura")
		ro.post("/console/operatori", url.Values{"principal": {"opKey"}, "ragioneSociale": {"Operatore opKey"}, "abilitato": {"on"},
			"ruoli": {"readOnly"}, "apiKey": {"key-by-read-only-0123"}}).expect(t, 403, "403000")
		w.do(t, "GET", bok+"/profilo", nil, asAPIKey("opKey", "key-by-read-only-0123")).expect(t, 401, "401000")
	})
}
