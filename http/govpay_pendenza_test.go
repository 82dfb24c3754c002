package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// govpayPendenzaBody is a pendenza in the full shape of GovPay's
// NuovaPendenza (Pendenze v2): voci of the three kinds GovPay knows,
// annoRiferimento, the payer's address, dates, documento, proprieta and
// the creator's own datiAllegati.
func govpayPendenzaBody() map[string]any {
	return map[string]any{
		"idTipoPendenza": t1, "idDominio": d1, "causale": "Canone occupazione suolo 2026",
		"importo": 40.51, "annoRiferimento": 2026, "tassonomia": "Canoni",
		"tassonomiaAvviso": "Servizi erogati dal comune", "direzione": "Tributi", "divisione": "Canoni",
		"cartellaPagamento": "CART-7", "dataValidita": "2026-12-01", "dataScadenza": "2026-12-31",
		"dataNotificaAvviso": "2026-11-30", "dataPromemoriaScadenza": "2026-12-20",
		"datiAllegati": map[string]any{"pratica": "P-1", "righe": []any{1, 2}},
		"documento":    map[string]any{"identificativo": "DOC-1", "descrizione": "Canone annuo", "rata": 1},
		"proprieta":    map[string]any{"linguaSecondaria": "de", "lineaTestoRicevuta1": "Grazie"},
		"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi",
			"indirizzo": "Via Roma", "civico": "1/B", "cap": "00100", "localita": "Roma", "provincia": "RM",
			"nazione": "IT", "email": "mario.rossi@example.org", "cellulare": "+39 333-1234567"},
		"voci": []map[string]any{
			{"idVocePendenza": "v1", "importo": 30.00, "descrizione": "Canone", "codEntrata": "SRV-1"},
			{"idVocePendenza": "v2", "importo": 10.00, "descrizione": "Diritti", "ibanAccredito": "IT60X0542811101000000123456",
				"tipoContabilita": "SIOPE", "codiceContabilita": "3321", "contabilita": map[string]any{"quote": []any{}}},
			{"idVocePendenza": "v3", "importo": 0.51, "descrizione": "Bollo", "tipoBollo": "01",
				"hashDocumento": "aGFzaA==", "provinciaResidenza": "RM"},
		},
	}
}

// with returns a copy of m with k set to v (nil deletes k).
func withField(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m))
	for key, val := range m {
		out[key] = val
	}
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

// TestGovPayPendenzaBody: GovPay's pendenza body is accepted as it is;
// importo must be the sum of the voci (422); fields in no GovPay schema
// stay 400; the payer's address comes back (issue 13 §1).
func TestGovPayPendenzaBody(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	path := func(id string) string { return pe + "/pendenze/appA/" + id }
	payer := func(fields ...any) map[string]any {
		p := map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi"}
		for i := 0; i+1 < len(fields); i += 2 {
			p[fields[i].(string)] = fields[i+1]
		}
		return p
	}
	voce := func(id string, importo float64) map[string]any {
		return map[string]any{"idVocePendenza": id, "importo": importo, "descrizione": "Voce", "codEntrata": "SRV-1"}
	}
	full := govpayPendenzaBody()
	runRows(t, w.harness, []row{
		{"govpay_body_accepted", "PUT", path("gp1"), full, opts(as("appA")), 201, ""},
		{"govpay_body_again_unchanged", "PUT", path("gp1"), full, opts(as("appA")), 200, ""},
		{"without_voci_still_accepted", "PUT", path("gp2"), withField(full, "voci", nil), opts(as("appA")), 201, ""},
		{"anonymous_payer", "PUT", path("gp3"), withField(full, "soggettoPagatore",
			map[string]any{"tipo": "F", "identificativo": "ANONIMO", "anagrafica": "Anonimo"}), opts(as("appA")), 201, ""},
		{"voci_sum_below_importo", "PUT", path("gp4"), withField(full, "voci", []map[string]any{voce("v1", 40.50)}),
			opts(as("appA")), 422, "422000"},
		{"voci_sum_above_importo", "PUT", path("gp4"), withField(full, "voci", []map[string]any{voce("v1", 40.00), voce("v2", 1)}),
			opts(as("appA")), 422, "422000"},
		{"six_voci", "PUT", path("gp4"), withField(full, "voci", []map[string]any{voce("a", 1), voce("b", 1), voce("c", 1),
			voce("d", 1), voce("e", 1), voce("f", 35.51)}), opts(as("appA")), 400, "SINTASSI"},
		{"voce_twice", "PUT", path("gp4"), withField(full, "voci", []map[string]any{voce("v1", 20), voce("v1", 20.51)}),
			opts(as("appA")), 400, "SINTASSI"},
		{"voce_without_collection", "PUT", path("gp4"), withField(full, "voci", []map[string]any{{"idVocePendenza": "v1",
			"importo": 40.51, "descrizione": "Voce"}}), opts(as("appA")), 400, "SINTASSI"},
		{"voce_with_two_collections", "PUT", path("gp4"), withField(full, "voci", []map[string]any{{"idVocePendenza": "v1",
			"importo": 40.51, "descrizione": "Voce", "codEntrata": "SRV-1", "tipoBollo": "01", "hashDocumento": "x",
			"provinciaResidenza": "RM"}}), opts(as("appA")), 400, "SINTASSI"},
		{"voce_without_importo", "PUT", path("gp4"), withField(full, "voci", []map[string]any{{"idVocePendenza": "v1",
			"descrizione": "Voce", "codEntrata": "SRV-1"}}), opts(as("appA")), 400, "SINTASSI"},
		{"anno_of_two_digits", "PUT", path("gp4"), withField(full, "annoRiferimento", 26), opts(as("appA")), 400, "SINTASSI"},
		{"date_not_a_date", "PUT", path("gp4"), withField(full, "dataScadenza", "31/12/2026"), opts(as("appA")), 400, "SINTASSI"},
		{"nazione_lower_case", "PUT", path("gp4"), withField(full, "soggettoPagatore", payer("nazione", "it")), opts(as("appA")), 400, "SINTASSI"},
		{"cellulare_malformed", "PUT", path("gp4"), withField(full, "soggettoPagatore", payer("cellulare", "3331234567")), opts(as("appA")), 400, "SINTASSI"},
		{"field_in_no_govpay_schema", "PUT", path("gp4"), withField(full, "sconto", 5), opts(as("appA")), 400, "SINTASSI"},
		{"voce_field_in_no_govpay_schema", "PUT", path("gp4"), withField(full, "voci", []map[string]any{{"idVocePendenza": "v1",
			"importo": 40.51, "descrizione": "Voce", "codEntrata": "SRV-1", "sconto": 1}}), opts(as("appA")), 400, "SINTASSI"},
		// The GovPay fields change no decision: another entity is still
		// out of appA's scope.
		{"govpay_body_out_of_scope", "PUT", path("gp5"), withField(full, "idDominio", d2), opts(as("appA")), 403, "403000"},
	})

	got := string(w.must(t, "GET", path("gp1"), nil, as("appA")).Body)
	for _, want := range []string{`"indirizzo":"Via Roma"`, `"cap":"00100"`, `"nazione":"IT"`, `"cellulare":"+39 333-1234567"`} {
		if !strings.Contains(got, want) {
			t.Fatalf("GET lacks %s: %s", want, got)
		}
	}
	// A pendenza whose payer is ANONIMO belongs to no citizen.
	res := w.do(t, "GET", "/pagamento/rs/spid/v2/pendenze/appA/gp3", nil, asSPID(citizen1))
	if res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
		t.Fatalf("a citizen reads the anonymous pendenza: %d %s", res.Status, res.Body)
	}
}
