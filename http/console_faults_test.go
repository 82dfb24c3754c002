package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestConsoleFaultsAnswerAsTheAPI: a page that fails answers the status
// the Backoffice API gives the same error (one mapping, Deps.Fault), and
// bad input is never the 500 "Errore interno" nor a CSRF refusal.
func TestConsoleFaultsAnswerAsTheAPI(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const siteverify = "http://127.0.0.1:9/siteverify"
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)

	post := func(t *testing.T, body string) page {
		t.Helper()
		req, _ := http.NewRequest("POST", cc.base+"/console/impostazioni", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return cc.do(req)
	}
	settings := func(secret string) string {
		cc.get("/console/impostazioni")
		return "serverURL=" + url.QueryEscape(siteverify) + "&secretKey=" + secret +
			"&soglia=0.5&parametro=g&timeoutMs=1000&csrf=" + url.QueryEscape(cc.csrf) + "&base=" + cc.version
	}

	t.Run("commit_over_the_store_limit_is_413", func(t *testing.T) {
		// 300,000 '<' are a 300 kB form, and 1.8 MB in the event's JSON
		// (\u003c each): the store refuses the commit.
		secret := strings.Repeat("<", 300_000)
		w.do(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": false,
			"captcha": map[string]any{"serverURL": siteverify, "secretKey": secret, "soglia": 0.5}}, asAdmin()).
			expect(t, http.StatusRequestEntityTooLarge, "SINTASSI")
		post(t, settings(secret)).expect(t, http.StatusRequestEntityTooLarge, "Richiesta troppo grande", "SINTASSI")
	})
	t.Run("form_over_1_MiB_is_413_not_a_csrf_refusal", func(t *testing.T) {
		p := post(t, settings(strings.Repeat("a", 1<<20)))
		p.expect(t, http.StatusRequestEntityTooLarge, "Richiesta troppo grande")
		if strings.Contains(p.Body, "CSRF") {
			t.Fatalf("an oversize form is answered as a CSRF refusal:\n%s", p.Body)
		}
	})
	t.Run("unreadable_form_is_400", func(t *testing.T) {
		post(t, settings("%zz")).expect(t, http.StatusBadRequest, "Richiesta non valida")
	})
	t.Run("nothing_was_written", func(t *testing.T) {
		var got map[string]any
		w.must(t, "GET", bo+"/configurazioni/hardening", nil, asAdmin()).decode(t, &got)
		if c, _ := got["captcha"].(map[string]any); c != nil && c["serverURL"] == siteverify {
			t.Fatalf("a refused form wrote the setting: %v", got)
		}
	})
	t.Run("missing_csrf_is_403", func(t *testing.T) {
		cc.get("/console/impostazioni")
		p := post(t, "serverURL="+url.QueryEscape(siteverify)+"&secretKey=x&soglia=0.5&parametro=g&timeoutMs=1000")
		p.expect(t, http.StatusForbidden, "CSRF")
	})
}
