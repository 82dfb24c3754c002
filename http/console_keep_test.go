package httpapi

import (
	"net/url"
	"strings"
	"testing"
)

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
	cc.get("/console/operatore?principal=opKeep").expect(t, 200, `value="Ufficio"`)
	cc.post("/console/operatori", url.Values{"principal": {"opKeep"}, "ragioneSociale": {"Ufficio tributi"}}).expect(t, 303)
	bodyHas(t, w.must(t, "GET", bo+"/operatori/opKeep", nil), `"ragioneSociale":"Ufficio tributi"`, `"abilitato":false`, `"servizio":"Pendenze"`, `"domini":["`+d1+`"]`)

	w.must(t, "PUT", bo+"/applicazioni/appKeep", body("principal", "appKeep", "password", pw, "abilitato", true,
		"codificaAvvisi", map[string]any{"codificaIuv": "77"}))
	cc.get("/console/applicazioni/appKeep").expect(t, 200)
	cc.post("/console/applicazioni", grantForm("appKeep", "appKeep", "", false, nil)).expect(t, 303)
	bodyHas(t, w.must(t, "GET", bo+"/applicazioni/appKeep", nil), `"servizio":"Pendenze"`, codifica)

	w.must(t, "PUT", bo+"/tipiPendenza/TKEEP", map[string]any{"descrizione": "Sanzione", "abilitato": true, "codificaIUV": "030", "pagaTerzi": true})
	cc.get("/console/tipi/TKEEP").expect(t, 200, `value="Sanzione"`)
	cc.post("/console/tipi", url.Values{"idTipoPendenza": {"TKEEP"}, "descrizione": {"Sanzione stradale"}, "abilitato": {"on"}}).expect(t, 303)
	bodyHas(t, w.must(t, "GET", bo+"/tipiPendenza/TKEEP", nil), `"descrizione":"Sanzione stradale"`, `"codificaIUV":"030"`, `"pagaTerzi":true`)

	// A new record from a form has nothing stored to keep.
	cc.get("/console/operatore").expect(t, 200)
	cc.post("/console/operatori", url.Values{"nuovo": {"1"}, "principal": {"opFresh"}, "ragioneSociale": {"Nuovo"}, "password": {pw}}).expect(t, 303)
	if fresh := w.must(t, "GET", bo+"/operatori/opFresh", nil); strings.Contains(string(fresh.Body), `"servizio"`) {
		t.Fatalf("a new operator from the console holds a personal role: %s", fresh.Body)
	}
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
