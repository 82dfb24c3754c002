package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// consoleForms are the console's forms that write (each POST parses
// r.PostForm into a command's input); a pendenza's, that of fuzzPendenza.
var consoleForms = []string{"/console/applicazioni", "/console/ruoli", "/console/operatori", "/console/domini",
	"/console/tipi", "/console/intermediari", "/console/impostazioni", "/console/audit", "/console/profilo/password",
	"/console/pendenze/appA/" + fuzzPendenza, "/console/incassi"}

const fuzzPendenza = "fz-1"

// FuzzConsoleForms posts arbitrary form bodies, with a valid session and
// CSRF token, to every console form: bad input must come back as a page
// (a field error, 400, 403 or 404), never a 5xx.
// Run: go test ./http -run '^$' -fuzz FuzzConsoleForms -fuzztime 1m
func FuzzConsoleForms(f *testing.F) {
	w := newWorld(f)
	w.createPendenza(f, "appA", fuzzPendenza, d1, t1, citizen1)
	seeds := []string{
		"idA2A=appF&auth=basic&principal=appF&password=password-123&abilitato=on&api_PAGAMENTO=on&domini_PAGAMENTO=" + d1 + "&tipi_PAGAMENTO=*",
		"idA2A=..&auth=ssl&principal=CN%3D%00x&api_PENDENZE=on&domini_PENDENZE=%2A%2A",
		"idRuolo=r1&acl_Pendenze_R=on&acl_Nonesiste_W=on&domini=*&tipi=" + strings.Repeat("T", 300),
		"principal=op%0Anew&ragioneSociale=&password=x&ruoli=Nonesiste",
		"idDominio=123&ragioneSociale=%3Cscript%3E&abilitato=maybe",
		"idTipoPendenza=&descrizione=&pagamentoSpontaneo=2",
		"idIntermediario=INT1&connettorePrincipal=&connettoreAuth=ftp",
		"abilitato=on&serverURL=%25zz&soglia=NaN&timeoutMs=-1&parametro=",
		"api=PENDENZE&operazione=read&posizione=18446744073709551616&data=ieri",
		"stato=ANNULLATA&descrizioneStato=%00%FF&stato=NON_ESEGUITA",
		"%%%&&&==",
	}
	for i, s := range seeds {
		// Each also with the base a form was opened at (the first
		// position): without one every save is refused before its command.
		f.Add(uint8(i), s)
		f.Add(uint8(i), s+"&base=1")
	}
	// The settings form with a threshold of NaN, every other field valid.
	f.Add(uint8(slices.Index(consoleForms, "/console/impostazioni")),
		"abilitato=on&serverURL=http%3A%2F%2F127.0.0.1%3A9%2Fsiteverify&secretKey=s&soglia=NaN&timeoutMs=1000&parametro=g")
	// The hidden field that keeps a scope's units ("idDominio=UO1,UO2;…"),
	// malformed; text that is not UTF-8, a NUL, a field given twice; each
	// with a base.
	for path, body := range map[string]string{
		"/console/ruoli": "nuovo=1&idRuolo=r2&acl_Pendenze_R=on&tipi=*&unita=%3D%3B" + d1 + "%3D%2C%3B%3DU1%3B" + d1 + "%3DU1%2CU1&base=1",
		"/console/applicazioni": "nuovo=1&idA2A=appG&auth=basic&principal=appG&password=password-123&api_PAGAMENTO=on&unita_PAGAMENTO=" +
			d1 + "%3D%3B%3DU1&tipi_PAGAMENTO=*&base=1",
		"/console/domini": "nuovo=1&idDominio=%FF%FE&ragioneSociale=%C3%28%00&idDominio=" + d1 + "&base=1",
		"/console/incassi": "idDominio=" + d1 + "&causale=%2FRFS%2FRF23%0A&importo=1e400&idFlusso=..&dataValuta=2026-02-30" +
			"&ibanAccredito=IT00%00&sct=" + strings.Repeat("%C3%A8", 40),
	} {
		f.Add(uint8(slices.Index(consoleForms, path)), body)
	}
	f.Fuzz(func(t *testing.T, form uint8, body string) {
		path := consoleForms[int(form)%len(consoleForms)]
		cc := w.consoleClient(t)
		// Each iteration's client closes its connections: the listener
		// admits at most --max-connections at once.
		defer cc.c.CloseIdleConnections()
		cc.login(adminUser, adminPass)
		cc.get(path) // the page's CSRF token
		req, err := http.NewRequest("POST", cc.base+path, strings.NewReader(body+"&csrf="+url.QueryEscape(cc.csrf)))
		if err != nil {
			t.Skip(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		p := cc.do(req)
		if p.Status >= 500 {
			t.Fatalf("POST %s %q: %d %s", path, body, p.Status, p.Body)
		}
	})
}
