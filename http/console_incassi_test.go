package httpapi

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestConsoleRecordIncasso: the console's Incassi form records an incasso
// with the command of the Backoffice's POST /incassi/{idDominio}, decided
// as that POST is (Rendicontazioni e Incassi W on the entity, 403 outside
// it; the command's 400 and 422), behind the session's CSRF token; the
// page after the write shows the incasso the API then reads.
func TestConsoleRecordIncasso(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.putRole(t, "incassiRO", acl{aclOf("Rendicontazioni e Incassi", "R")}, []string{"*"}, []string{"*"})
	w.putOperator(t, "opIncRO", pw, true, "incassiRO")
	incasso := func(d, causale, importo string) url.Values {
		return url.Values{"idDominio": {d}, "causale": {causale}, "importo": {importo}, "sct": {"SCT-1"}}
	}
	recorded := func(t *testing.T, d string) []map[string]any {
		t.Helper()
		var list struct{ Risultati []map[string]any }
		if err := json.Unmarshal(w.must(t, "GET", bo+"/incassi", nil).Body, &list); err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		for _, r := range list.Risultati {
			if r["idDominio"] == d {
				out = append(out, r)
			}
		}
		return out
	}

	t.Run("in_scope_records_and_reads_it", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/incassi").expect(t, 200, `href="/console/incassi?nuovo"`)
		blank := cc.get("/console/incassi?nuovo")
		blank.expect(t, 200, `action="/console/incassi"`, `name="csrf"`, `<option value="`+d1+`"`, `id="importo"`)
		blank.lacks(t, `<option value="`+d2+`"`) // only the entities the write is allowed on
		p := cc.post("/console/incassi", incasso(d1, "Riversamento di gennaio", "123,45"))
		p.expect(t, 303)
		m := regexp.MustCompile(`^/console/incassi/` + d1 + `/([0-9a-f]+)\?scritto=\d+$`).FindStringSubmatch(p.Location)
		if m == nil {
			t.Fatalf("location = %q", p.Location)
		}
		cc.get(p.Location).expect(t, 200, "Riversamento di gennaio", "123,45 €", "SCT-1", m[1], `id="scritto"`)
		// the API reads the same incasso, recorded by the console's operator
		bodyHas(t, w.do(t, "GET", bo+"/incassi/"+d1+"/"+m[1], nil, as("opD1")), `"causale":"Riversamento di gennaio"`)
		bodyHas(t, w.must(t, "GET", bo+"/incassi/"+d1+"/"+m[1], nil), `"importo":123.45`, `"sct":"SCT-1"`)
		cc.get("/console/incassi").expect(t, 200, `href="/console/incassi/`+d1+`/`+m[1]+`"`, "123,45 €")
	})
	t.Run("bad_input_comes_back_to_the_form_as_the_api_answers_it", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/incassi?nuovo")
		before := len(recorded(t, d1))
		cc.post("/console/incassi", incasso(d1, "", "10")).expect(t, 400, `aria-describedby="err-causale"`, `value="10"`)
		cc.post("/console/incassi", incasso(d1, "Causale", "dieci")).expect(t, 400, `aria-describedby="err-importo"`, `value="dieci"`)
		bad := incasso(d1, "Causale", "10")
		bad.Set("dataValuta", "ieri")
		cc.post("/console/incassi", bad).expect(t, 400, `aria-describedby="err-dataValuta"`, `value="ieri"`)
		cc.post("/console/incassi", incasso(d1, "Causale zero", "0")).expect(t, 422, `id="errore-modulo"`, `value="Causale zero"`)
		w.do(t, "POST", bo+"/incassi/"+d1, map[string]any{"causale": "Causale zero", "importo": 0}, as("opD1")).expect(t, 422, "422000")
		if n := len(recorded(t, d1)); n != before {
			t.Fatalf("refused forms wrote %d incassi", n-before)
		}
	})
	t.Run("unknown_entity_is_the_apis_422", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login(adminUser, adminPass)
		cc.get("/console/incassi?nuovo").expect(t, 200, `<option value="`+d2+`"`)
		cc.post("/console/incassi", incasso("99999999999", "Causale", "10")).expect(t, 422, `id="errore-modulo"`)
		w.do(t, "POST", bo+"/incassi/99999999999", map[string]any{"causale": "Causale", "importo": 10}, asAdmin()).expect(t, 422, "422000")
	})
	t.Run("out_of_scope_is_refused_as_by_the_api", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/incassi?nuovo")
		// the gate, before the body: even bad input is its 403
		cc.post("/console/incassi", incasso(d2, "Fuori ambito", "10")).expect(t, 403, "403000")
		cc.post("/console/incassi", incasso(d2, "", "dieci")).expect(t, 403, "403000")
		w.do(t, "POST", bo+"/incassi/"+d2, map[string]any{"causale": "Fuori ambito", "importo": 10}, as("opD1")).expect(t, 403, "403000")
		if got := recorded(t, d2); len(got) != 0 {
			t.Fatalf("an incasso outside the scope was written: %v", got)
		}
	})
	t.Run("read_only_is_offered_no_form_and_refused", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opIncRO", pw)
		list := cc.get("/console/incassi")
		list.expect(t, 200, "Incassi")
		list.lacks(t, "/console/incassi?nuovo")
		cc.get("/console/incassi?nuovo").expect(t, 403, "403000")
		cc.post("/console/incassi", incasso(d1, "Senza diritto", "10")).expect(t, 403, "403000")
		w.do(t, "POST", bo+"/incassi/"+d1, map[string]any{"causale": "Senza diritto", "importo": 10}, as("opIncRO")).expect(t, 403, "403000")
		for _, r := range recorded(t, d1) {
			if r["causale"] == "Senza diritto" {
				t.Fatal("a read-only operator's incasso was written")
			}
		}
	})
	t.Run("without_csrf_nothing_is_written", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/incassi?nuovo")
		form := incasso(d1, "Senza token", "10")
		form.Set("csrf", "sbagliato")
		cc.post("/console/incassi", form).expect(t, 403, "CSRF")
		for _, r := range recorded(t, d1) {
			if strings.Contains(r["causale"].(string), "Senza token") {
				t.Fatal("a form without the CSRF token was written")
			}
		}
	})
}
