package httpapi

import (
	"testing"

	"github.com/payauthz/payauthz/domain"
)

// TestConsoleRendicontazioniDetails: the detail pages of a reconciliation,
// a settlement report and a collection are decided as the Backoffice
// lists decide their rows (Rendicontazioni e Incassi R on the entity): an
// operator in scope reads them, one scoped to another entity gets the
// API's 403 whether or not they exist, and a missing one is 404 only
// inside the scope.
func TestConsoleRendicontazioniDetails(t *testing.T) {
	t.Parallel()
	w, node, base := sslNodeServingD1(t)
	p := w.createPendenza(t, "appA", "det-1", d1, t1, citizen1)
	w.do(t, "POST", base+"/ricevute", ricevuta(p, "IUR-DET-1", 123.45, "ESEGUITO"), node).expect(t, 201, "")
	ko := w.createPendenza(t, "appA", "det-ko", d1, t1, citizen1)
	w.do(t, "POST", base+"/ricevute", ricevuta(ko, "IUR-DET-KO", 10, "NON_ESEGUITO"), node).expect(t, 201, "")
	const idFlusso = "2026-01-03ABI00001-S888"
	w.do(t, "POST", base+"/flussiRendicontazione", flusso(idFlusso, d1, 123.45, line(p.NumeroAvviso, 123.45, 0)), node).
		expect(t, 201, "")
	w.do(t, "PUT", rg+"/riconciliazioni/"+d1+"/RIC-DET-1", map[string]any{"importo": 123.45, "causale": "riversamento",
		"idFlusso": idFlusso}, as("appC")).expect(t, 201, "")
	w.putRole(t, "rendD2", acl{aclOf("Rendicontazioni e Incassi", "R")}, []string{d2}, []string{"*"})
	w.putOperator(t, "opRendD2", pw, true, "rendD2")

	details := []struct{ path, want string }{
		{"/console/riconciliazioni/" + d1 + "/RIC-DET-1", "riversamento"},
		{"/console/rendicontazioni/" + d1 + "/" + idFlusso, p.NumeroAvviso},
		{"/console/riscossioni/" + d1 + "/IUR-DET-1", "ESEGUITO"},
	}
	t.Run("in_scope_reads_every_detail", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		for _, d := range details {
			cc.get(d.path).expect(t, 200, d.want, "123,45")
		}
		cc.get("/console/riconciliazioni").expect(t, 200, `href="/console/riconciliazioni/`+d1+`/RIC-DET-1"`)
		cc.get("/console/rendicontazioni").expect(t, 200, `href="/console/rendicontazioni/`+d1+`/`+idFlusso+`"`)
		cc.get("/console/riscossioni").expect(t, 200, `href="/console/riscossioni/`+d1+`/IUR-DET-1"`)
		cc.get("/console/riconciliazioni/"+d1+"/NOPE").expect(t, 404, "404000")
		// a receipt that collected nothing is no collection, as on the API
		cc.get("/console/riscossioni/"+d1+"/IUR-DET-KO").expect(t, 404, "404000")
		w.do(t, "GET", bo+"/riscossioni/"+d1+"/"+domain.IUVOfNotice(ko.NumeroAvviso)+"/IUR-DET-KO/1", nil, as("opD1")).expect(t, 404, "404000")
	})
	t.Run("other_scope_is_refused_as_by_the_api", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opRendD2", pw)
		for _, d := range details {
			r := cc.get(d.path)
			r.expect(t, 403, "403000")
			r.lacks(t, d.want)
		}
		// outside the scope a missing one is 403 too: nothing leaks
		cc.get("/console/riconciliazioni/"+d1+"/NOPE").expect(t, 403, "403000")
	})
	t.Run("no_service_is_refused", func(t *testing.T) {
		w.putRole(t, "soloPendenzeDet", acl{aclOf("Pendenze", "R")}, []string{"*"}, []string{"*"})
		w.putOperator(t, "opPendenzeDet", pw, true, "soloPendenzeDet")
		cc := w.consoleClient(t)
		cc.login("opPendenzeDet", pw)
		for _, d := range details {
			cc.get(d.path).expect(t, 403, "403000")
		}
	})
}
