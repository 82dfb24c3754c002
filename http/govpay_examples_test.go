package httpapi

import (
	"encoding/base64"
	"net/http"
	"testing"
)

// TestGovPaySpecExamples sends, one after the other, the bodies GovPay's
// Backoffice v1 and Pendenze v2 specifications give as examples (each
// member with the spec's own example value; where an example is not a
// valid value of its own schema, e.g. a 10-digit idDominio, the nearest
// valid one), as a GovPay client or configuration script would (issue 13
// §1, done-when). Every one is accepted.
func TestGovPaySpecExamples(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const ente, interm = "01234567890", "99999999999"
	acl := []map[string]any{{"servizio": "Anagrafica PagoPA", "autorizzazioni": []string{"R", "W"}}}
	steps := []struct {
		name, method, path string
		body               any
		status             int
	}{
		{"intermediario", "PUT", bo + "/intermediari/" + interm, map[string]any{"denominazione": "Intermediario PagoPA", "abilitato": true,
			"connettoreNodo": map[string]any{"principal": "nodo-pagopa", "password": "password123456"}}, http.StatusCreated},
		{"dominioPost", "PUT", bo + "/domini/" + ente, map[string]any{"ragioneSociale": "Ente Creditore", "indirizzo": "Corso Italia",
			"civico": "1A", "cap": "00000", "localita": "Roma", "provincia": "Roma", "nazione": "IT", "email": "peo@creditore.it",
			"pec": "pec@creditore.it", "tel": "021234567890", "fax": "021234567890", "web": "http://www.comune.it/",
			"gln": "0011223344556", "cbill": "12345", "iuvPrefix": "%(y)%(a)", "stazione": interm + "_01", "auxDigit": "0",
			"segregationCode": "88", "logo": base64.StdEncoding.EncodeToString([]byte("logo")), "abilitato": true,
			"autStampaPosteItaliane": "AUT. DB/xxxx/xxx xxxxx DEL xx/xx/xxxx", "area": "Affari generali e istituzionali"}, http.StatusCreated},
		{"tipoPendenzaPost", "PUT", bo + "/tipiPendenza/IMU", map[string]any{"descrizione": "Imposta municipale urbana",
			"codificaIUV": "01", "pagaTerzi": true, "abilitato": true}, http.StatusCreated},
		{"ruolo_acl_alone", "PUT", bo + "/ruoli/Operatore", map[string]any{"acl": acl}, http.StatusCreated},
		{"operatorePost", "PUT", bo + "/operatori/operatore001", map[string]any{"ragioneSociale": "Mario Rossi",
			"password": "password123456", "domini": []any{ente, map[string]any{"idDominio": d1}}, "tipiPendenza": []string{"IMU", "TARI", "TASI"},
			"acl": acl, "ruoli": []string{"Operatore", "Amministratore"}, "abilitato": true}, http.StatusCreated},
		{"applicazionePost", "PUT", bo + "/applicazioni/A2A-12345", map[string]any{"principal": "aaa12345",
			"password": "password123456", "codificaAvvisi": map[string]any{"codificaIuv": "01", "regExpIuv": "[0,1]*", "generazioneIuvInterna": true},
			"domini": []any{map[string]any{"idDominio": ente}}, "tipiPendenza": []string{"IMU", "TARI", "TASI"},
			"apiPagamenti": true, "apiPendenze": true, "apiRagioneria": true, "acl": acl, "ruoli": []string{"Operatore"},
			"servizioIntegrazione": map[string]any{"url": "http://ente.example/govpay", "versioneApi": "REST v1"}, "abilitato": true}, http.StatusCreated},
		{"nuovaPendenza", "PUT", pe + "/pendenze/appA/esempio-1", govpayPendenzaBody(), http.StatusCreated},
	}
	for _, s := range steps {
		w.do(t, s.method, s.path, s.body, asAdmin(), asBasicIf(s.path, "appA")).expect(t, s.status, "")
	}
}

// asBasicIf authenticates a Pendenze API request as app, and leaves any
// other request as it is.
func asBasicIf(path, app string) reqOpt {
	if len(path) >= len(pe) && path[:len(pe)] == pe {
		return as(app)
	}
	return func(*request) {}
}
