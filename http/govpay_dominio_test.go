package httpapi

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// TestGovPayDominioBody: GovPay's dominio body is accepted as it is (issue
// 13 §1): its fields are validated, kept and returned, the intermediary
// is taken from the station, and the payment-notification connectors,
// which may hold credentials, are kept but never returned.
func TestGovPayDominioBody(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	const interm = "77777777777"
	h.must(t, "PUT", bo+"/intermediari/"+interm, map[string]any{"denominazione": "Intermediario", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "nodo", "password": pw}})
	logo := base64.StdEncoding.EncodeToString([]byte("\x89PNG logo"))
	govpay := func(changes map[string]any) map[string]any {
		b := map[string]any{"ragioneSociale": "Comune di Monopoli", "indirizzo": "Corso Italia", "civico": "1A",
			"cap": "00000", "localita": "Roma", "provincia": "Roma", "nazione": "IT", "email": "peo@creditore.it",
			"pec": "pec@creditore.it", "tel": "021234567890", "fax": "021234567890", "web": "http://www.comune.it/",
			"gln": "0011223344556", "cbill": "12345", "iuvPrefix": "%(y)%(a)", "stazione": interm + "_01", "auxDigit": "0",
			"segregationCode": "88", "logo": logo, "abilitato": true, "autStampaPosteItaliane": "AUT. DB/1234",
			"area": "Affari generali", "servizioGovPay": map[string]any{"url": "https://ente.example/notifiche",
				"auth": map[string]any{"username": "gp", "password": "connector-secret"}}}
		for k, v := range changes {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	const path = bo + "/domini/12345678901"
	h.do(t, "PUT", path, govpay(nil), asAdmin()).expect(t, http.StatusCreated, "")

	t.Run("get_returns_the_fields_but_the_connectors", func(t *testing.T) {
		var v dominioView
		res := h.must(t, "GET", path, nil)
		res.decode(t, &v)
		if v.IDIntermediario != interm || v.GLN != "0011223344556" || v.Stazione != interm+"_01" || v.Logo != logo ||
			v.IUVPrefix != "%(y)%(a)" || v.Area != "Affari generali" {
			t.Fatalf("dominio = %+v", v)
		}
		if strings.Contains(string(res.Body), "servizioGovPay") || strings.Contains(string(res.Body), "connector-secret") {
			t.Fatalf("a connector was returned: %s", res.Body)
		}
	})
	t.Run("event_log_redacts_the_connector", func(t *testing.T) {
		body := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body)
		if !strings.Contains(body, "0011223344556") || strings.Contains(body, "connector-secret") {
			t.Fatalf("event log: %s", body)
		}
	})
	t.Run("repeat_without_the_connector_keeps_it_and_writes_nothing", func(t *testing.T) {
		before := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body)
		h.do(t, "PUT", path, govpay(map[string]any{"servizioGovPay": nil}), asAdmin()).expect(t, http.StatusOK, "")
		if after := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body); after != before {
			t.Fatal("a PUT that left the connector out changed the entity")
		}
	})

	bad := []struct {
		name   string
		change map[string]any
		status int
	}{
		{"gln_not_13_digits", map[string]any{"gln": "12AB"}, http.StatusBadRequest},
		{"station_of_another_intermediary", map[string]any{"stazione": "88888888888_01", "idIntermediario": interm}, http.StatusBadRequest},
		{"station_of_an_unknown_intermediary", map[string]any{"stazione": "88888888888_01"}, http.StatusUnprocessableEntity},
		{"aux_digit", map[string]any{"auxDigit": "7"}, http.StatusBadRequest},
		{"iuv_prefix", map[string]any{"iuvPrefix": "%(x)"}, http.StatusBadRequest},
		{"logo_not_base64", map[string]any{"logo": "not base64!"}, http.StatusBadRequest},
		{"connector_not_an_object", map[string]any{"servizioGovPay": "http://x"}, http.StatusBadRequest},
		{"field_in_no_govpay_schema", map[string]any{"nonGovPay": "x"}, http.StatusBadRequest},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			h.do(t, "PUT", bo+"/domini/12345678902", govpay(c.change), asAdmin()).expect(t, c.status, codiceOf(c.status))
			h.do(t, "GET", bo+"/domini/12345678902", nil, asAdmin()).expect(t, http.StatusNotFound, codiceOf(http.StatusNotFound))
		})
	}
}
