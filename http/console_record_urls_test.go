package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// registryKind is one kind of record the console registers and edits,
// with the URLs of its list, its blank form and the record that the blank
// form's old path names ("nuovo", "nuova": valid ids, [A-Za-z0-9_.-]{1,35}).
type registryKind struct {
	name     string     // subtest name
	list     string     // the list, where the form posts
	blank    string     // the blank form
	marker   string     // the blank form's hidden field saying "new"
	blankH1  string     // the blank form's heading
	idInput  string     // the id's input on the blank form: empty, editable
	old      string     // the blank form's old URL, now a record's (or no form)
	id       string     // the record named as the old path; "" when the kind's ids cannot be
	record   string     // the record's page
	recordH1 string     // the record page's heading
	form     url.Values // the blank form filled in for id
	data     string     // the record's own data on its page
}

func registryKinds() []registryKind {
	input := func(name string) string {
		return `id="` + name + `" name="` + name + `" type="text" required value="">`
	}
	return []registryKind{
		{name: "dominio", list: "/console/domini", blank: "/console/domini?nuovo", marker: "nuovo",
			blankH1: "Nuovo dominio", idInput: input("idDominio"), old: "/console/domini/nuovo"},
		{name: "tipo_pendenza", list: "/console/tipi", blank: "/console/tipi?nuovo", marker: "nuovo",
			blankH1: "Nuovo tipo pendenza", idInput: input("idTipoPendenza"), old: "/console/tipi/nuovo",
			id: "nuovo", record: "/console/tipi/nuovo", recordH1: "Tipo pendenza nuovo",
			form: url.Values{"nuovo": {"1"}, "idTipoPendenza": {"nuovo"}, "descrizione": {"Tipo chiamato nuovo"}, "abilitato": {"on"}},
			data: `value="Tipo chiamato nuovo"`},
		{name: "applicazione", list: "/console/applicazioni", blank: "/console/applicazioni?nuova", marker: "nuova",
			blankH1: "Nuova applicazione", idInput: input("idA2A"), old: "/console/applicazioni/nuova",
			id: "nuova", record: "/console/applicazioni/nuova", recordH1: "Applicazione nuova",
			form: grantForm("nuova", "principal-di-nuova", pw, true, map[string][2][]string{"PAGAMENTO": {{d1}, {"*"}}}),
			data: `value="principal-di-nuova"`},
		{name: "operatore", list: "/console/operatori", blank: "/console/operatori?nuovo", marker: "nuovo",
			blankH1: "Nuovo operatore", idInput: input("principal"), old: "/console/operatore",
			id: "nuovo", record: "/console/operatore?principal=nuovo", recordH1: "Operatore nuovo",
			form: url.Values{"nuovo": {"1"}, "principal": {"nuovo"}, "ragioneSociale": {"Operatore chiamato nuovo"},
				"password": {pw}, "abilitato": {"on"}},
			data: `value="Operatore chiamato nuovo"`},
		{name: "ruolo", list: "/console/ruoli", blank: "/console/ruoli?nuovo", marker: "nuovo",
			blankH1: "Nuovo ruolo", idInput: input("idRuolo"), old: "/console/ruoli/nuovo",
			id: "nuovo", record: "/console/ruoli/nuovo", recordH1: "Ruolo nuovo",
			form: url.Values{"nuovo": {"1"}, "idRuolo": {"nuovo"}, aclField(5, "R"): {"on"}, "domini": {d1}, "tipi": {"*"}},
			data: `name="` + aclField(5, "R") + `" checked`},
		{name: "intermediario", list: "/console/intermediari", blank: "/console/intermediari?nuovo", marker: "nuovo",
			blankH1: "Nuovo intermediario", idInput: input("idIntermediario"), old: "/console/intermediari/nuovo",
			id: "nuovo", record: "/console/intermediari/nuovo", recordH1: "Intermediario nuovo",
			form: url.Values{"nuovo": {"1"}, "idIntermediario": {"nuovo"}, "denominazione": {"Intermediario chiamato nuovo"},
				"abilitato": {"on"}, "connettorePrincipal": {"nodo-di-nuovo"}, "connettorePassword": {pw}},
			data: `value="nodo-di-nuovo"`},
	}
}

// TestConsoleRegistryURLs: each registry's blank form is its list's URL
// with ?nuovo (?nuova), the list's button links there, and the form's old
// path is no blank form any more: it names a record (404 while absent,
// like any other id; for domini, whose ids are 11 digits, an id no record
// can have; for operatori, the empty principal). A record whose id is that
// old path segment ("nuovo", "nuova") is then a record like any other:
// saved from the blank form, the page the writer is sent to and the list's
// link open it, with its own data and its id read-only, not a blank form.
func TestConsoleRegistryURLs(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	t.Run("blank_forms_at_the_list_url", func(t *testing.T) {
		for _, k := range registryKinds() {
			t.Run(k.name, func(t *testing.T) {
				cc.get(k.blank).expect(t, http.StatusOK, "<h1>"+k.blankH1+"</h1>",
					`<input type="hidden" name="`+k.marker+`" value="1">`, k.idInput)
				cc.get(k.list).expect(t, http.StatusOK, `class="pulsante" href="`+k.blank+`"`)
				old := cc.get(k.old)
				old.expect(t, http.StatusNotFound)
				old.lacks(t, "<h1>"+k.blankH1+"</h1>", `name="`+k.marker+`" value="1"`)
			})
		}
	})
	t.Run("record_named_nuovo_opens_its_page", func(t *testing.T) {
		for _, k := range registryKinds() {
			if k.id == "" {
				continue // no record of this kind can be named so
			}
			t.Run(k.name, func(t *testing.T) {
				cc.get(k.blank)
				res := cc.post(k.list, k.form)
				res.expect(t, http.StatusSeeOther)
				// After saving: the record's page, or the list linking to it.
				if after := cc.get(res.Location); !strings.Contains(after.Body, "<h1>"+k.recordH1+"</h1>") &&
					!strings.Contains(after.Body, `href="`+k.record+`"`) {
					t.Fatalf("GET %s after saving %s: neither its page nor a link to it:\n%s", res.Location, k.id, heading(after.Body))
				}
				cc.get(k.list).expect(t, http.StatusOK, `href="`+k.record+`"`)

				page := cc.get(k.record)
				page.expect(t, http.StatusOK, "<h1>"+k.recordH1+"</h1>", `value="`+k.id+`" readonly`, k.data)
				page.lacks(t, `name="`+k.marker+`" value="1"`)
			})
		}
	})
}

// heading is a page's body from its h1 on, shortened, for a failure.
func heading(body string) string {
	if i := strings.Index(body, "<h1>"); i >= 0 {
		body = body[i:]
	}
	return body[:min(len(body), 200)]
}

// TestConsoleFormTitlesAfterAnError: a form that comes back with an error
// keeps the title it was opened with ("Nuovo dominio", "Operatore X"),
// not the registry's bare name; and the password inputs say that an empty
// one keeps the registered password only on a record's page, where one
// may be registered.
func TestConsoleFormTitlesAfterAnError(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	const keeps = "vuota lascia quella registrata"
	for _, k := range registryKinds() {
		t.Run(k.name, func(t *testing.T) {
			blank := cc.get(k.blank)
			blank.lacks(t, keeps)
			key, _, _ := strings.Cut(strings.TrimPrefix(k.idInput, `id="`), `"`)
			bad := cc.post(k.list, url.Values{k.marker: {"1"}, key: {""}})
			if bad.Status < 400 || bad.Status >= 500 {
				t.Fatalf("blank %s without its id: status %d:\n%s", k.name, bad.Status, heading(bad.Body))
			}
			bad.expect(t, bad.Status, "<h1>"+k.blankH1+"</h1>")
			bad.lacks(t, keeps)
			if k.id == "" {
				return
			}
			cc.get(k.blank)
			cc.post(k.list, k.form).expect(t, http.StatusSeeOther)
			page := cc.get(k.record)
			hasPassword := strings.Contains(page.Body, `type="password"`)
			if hasPassword {
				page.expect(t, http.StatusOK, keeps)
			}
			form := url.Values{"base": {"0"}} // no position: the form comes back
			for f, v := range k.form {
				if f != k.marker {
					form[f] = v
				}
			}
			again := cc.post(k.list, form)
			again.expect(t, http.StatusBadRequest, "<h1>"+k.recordH1+"</h1>", `id="errore-modulo"`)
			if hasPassword {
				again.expect(t, http.StatusBadRequest, keeps)
			}
		})
	}
}
