package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

func asAPIKey(id, key string) reqOpt {
	return func(r *request) {
		r.header.Set(appIDHeader, id)
		r.header.Set(apiKeyHeader, key)
	}
}

// TestAPIKeyAuthentication: GovPay's apikey mount (X-APP-ID, X-API-KEY)
// on every API but the node API (issue 13 §3). The key is set by the PUT
// of the application or operator, stored hashed and never returned.
func TestAPIKeyAuthentication(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const appKey, opKey = "app-key-0123456789", "op-key-0123456789"
	w.must(t, "PUT", bo+"/applicazioni/appK", map[string]any{"principal": "appK-user", "password": pw, "apiKey": appKey,
		"abilitato": true, "ruoli": []string{}, "autorizzazioniApi": []map[string]any{
			apiGrant("PENDENZE", []string{d1}, []string{"*"}), apiGrant("PAGAMENTO", []string{d1}, []string{"*"}),
			apiGrant("RAGIONERIA", []string{d1}, []string{"*"})}})
	put := w.must(t, "PUT", bo+"/operatori/opK", map[string]any{"ragioneSociale": "Operatore K", "apiKey": opKey,
		"abilitato": true, "ruoli": []string{"readOnly"}})
	const (
		pek = "/pendenze/rs/apikey/v2"
		bok = "/backoffice/rs/apikey/v1"
		rak = "/ragioneria/rs/apikey/v3"
		pak = "/pagamento/rs/apikey/v2"
	)
	runRows(t, w.harness, []row{
		{"application_on_pendenze", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK", appKey)), 200, ""},
		{"application_on_pagamento", "GET", pak + "/pagamenti", nil, opts(asAPIKey("appK", appKey)), 200, ""},
		{"application_on_ragioneria", "GET", rak + "/riconciliazioni", nil, opts(asAPIKey("appK", appKey)), 200, ""},
		{"application_without_roles_not_on_backoffice", "GET", bok + "/profilo", nil, opts(asAPIKey("appK", appKey)), 403, "403000"},
		{"operator_on_backoffice", "GET", bok + "/domini/" + d1, nil, opts(asAPIKey("opK", opKey)), 200, ""},
		{"operator_read_only_cannot_write", "PUT", bok + "/domini/" + d1, map[string]any{"ragioneSociale": "x", "abilitato": true},
			opts(asAPIKey("opK", opKey)), 403, "403000"},
		{"operator_not_on_pendenze", "GET", pek + "/pendenze", nil, opts(asAPIKey("opK", opKey)), 403, "403000"},
		{"wrong_key", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK", "wrong-key-0123456789")), 401, "401000"},
		{"key_of_another_principal", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK", opKey)), 401, "401000"},
		{"unknown_app_id", "GET", pek + "/pendenze", nil, opts(asAPIKey("ghost", appKey)), 401, "401000"},
		{"app_id_is_the_idA2A_not_the_principal", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK-user", appKey)), 401, "401000"},
		{"principal_without_key", "GET", pek + "/pendenze", nil, opts(asAPIKey("appA", pw)), 401, "401000"},
		{"no_headers", "GET", pek + "/pendenze", nil, nil, 401, "401000"},
		{"only_app_id", "GET", pek + "/pendenze", nil, opts(withHeader(appIDHeader, "appK")), 401, "401000"},
		{"oversized_key", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK", strings.Repeat("k", 2000))), 401, "401000"},
		{"basic_password_is_not_the_key", "GET", pe + "/pendenze", nil, opts(asBasic("appK-user", appKey)), 401, "401000"},
		{"basic_still_works", "GET", pe + "/pendenze", nil, opts(asBasic("appK-user", pw)), 200, ""},
		{"node_api_refuses_apikey", "GET", "/nodo/rs/apikey/v1/intermediari/INT1/avvisi/" + d1 + "/000000000000000001", nil,
			opts(asAPIKey("appK", appKey)), 403, "403"},
		{"short_key_refused", "PUT", bo + "/operatori/opK", map[string]any{"ragioneSociale": "Operatore K", "apiKey": "short",
			"abilitato": true, "ruoli": []string{"readOnly"}}, opts(asAdmin()), 400, "SINTASSI"},
	})

	// The key is never returned: not by the PUT, the GET, the lists or the
	// event log.
	for _, path := range []string{bo + "/applicazioni/appK", bo + "/operatori/opK", bo + "/applicazioni", bo + "/operatori", bo + "/eventi"} {
		body := string(w.must(t, "GET", path, nil).Body)
		for _, s := range []string{appKey, opKey, "apiKey", "$argon2id$"} {
			if strings.Contains(body, s) || strings.Contains(string(put.Body), s) {
				t.Fatalf("GET %s leaks %q: %s", path, s, body)
			}
		}
	}

	t.Run("new_key_replaces_old_absent_key_keeps_it", func(t *testing.T) {
		const newKey = "op-key-new-0123456789"
		w.must(t, "PUT", bo+"/operatori/opK", map[string]any{"ragioneSociale": "Operatore K", "apiKey": newKey,
			"abilitato": true, "ruoli": []string{"readOnly"}})
		w.do(t, "GET", bok+"/profilo", nil, asAPIKey("opK", opKey)).expect(t, http.StatusUnauthorized, "401000")
		w.do(t, "GET", bok+"/profilo", nil, asAPIKey("opK", newKey)).expect(t, http.StatusOK, "")
		w.must(t, "PUT", bo+"/operatori/opK", map[string]any{"ragioneSociale": "Operatore K rinominato",
			"abilitato": true, "ruoli": []string{"readOnly"}})
		w.do(t, "GET", bok+"/profilo", nil, asAPIKey("opK", newKey)).expect(t, http.StatusOK, "")
	})
	t.Run("disabled_principal_is_refused", func(t *testing.T) {
		w.must(t, "PUT", bo+"/operatori/opK", map[string]any{"ragioneSociale": "Operatore K",
			"abilitato": false, "ruoli": []string{"readOnly"}})
		w.do(t, "GET", bok+"/profilo", nil, asAPIKey("opK", "op-key-new-0123456789")).expect(t, http.StatusForbidden, "403000")
	})
}
