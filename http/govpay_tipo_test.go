package httpapi

import (
	"testing"
)

// TestGovPayTipoPendenzaBody: GovPay's tipoPendenza body (tipo,
// codificaIUV, pagaTerzi, portal and notification settings) is accepted,
// kept and returned; malformed values stay 400 (issue 13 §1).
func TestGovPayTipoPendenzaBody(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	body := func(fields ...any) map[string]any {
		b := map[string]any{"descrizione": "Sanzione", "tipo": "dovuto", "codificaIUV": "030", "pagaTerzi": true,
			"abilitato": true, "portaleBackoffice": map[string]any{"abilitato": true},
			"portalePagamento": map[string]any{"abilitato": true}, "avvisaturaMail": nil, "avvisaturaAppIO": nil,
			"visualizzazione": nil, "tracciatoCsv": nil}
		for i := 0; i+1 < len(fields); i += 2 {
			b[fields[i].(string)] = fields[i+1]
		}
		return b
	}
	runRows(t, w.harness, []row{
		{"govpay_body", "PUT", bo + "/tipiPendenza/MULTA", body(), opts(asAdmin()), 201, ""},
		{"govpay_body_unchanged", "PUT", bo + "/tipiPendenza/MULTA", body(), opts(asAdmin()), 200, ""},
		{"tipo_spontaneo_alone", "PUT", bo + "/tipiPendenza/OFFERTA", map[string]any{"descrizione": "Offerta",
			"tipo": "spontaneo", "abilitato": true}, opts(asAdmin()), 201, ""},
		{"codifica_letters", "PUT", bo + "/tipiPendenza/X1", body("codificaIUV", "aaa"), opts(asAdmin()), 400, "SINTASSI"},
		{"codifica_too_long", "PUT", bo + "/tipiPendenza/X1", body("codificaIUV", "00000"), opts(asAdmin()), 400, "SINTASSI"},
		{"codifica_empty", "PUT", bo + "/tipiPendenza/X1", body("codificaIUV", ""), opts(asAdmin()), 400, "SINTASSI"},
		{"tipo_unknown", "PUT", bo + "/tipiPendenza/X1", body("tipo", "XXXX"), opts(asAdmin()), 400, "SINTASSI"},
		{"tipo_disagrees", "PUT", bo + "/tipiPendenza/X1", body("pagamentoSpontaneo", true), opts(asAdmin()), 400, "SINTASSI"},
		{"paga_terzi_not_boolean", "PUT", bo + "/tipiPendenza/X1", body("pagaTerzi", "si"), opts(asAdmin()), 400, "SINTASSI"},
		{"field_in_no_govpay_schema", "PUT", bo + "/tipiPendenza/X1", body("colore", "rosso"), opts(asAdmin()), 400, "SINTASSI"},
		{"read_only_operator", "PUT", bo + "/tipiPendenza/MULTA", body(), opts(as("opRO")), 403, "403000"},
	})
	var v tipoView
	w.must(t, "GET", bo+"/tipiPendenza/MULTA", nil).decode(t, &v)
	if v.Tipo != "dovuto" || v.PagamentoSpontaneo || v.CodificaIUV == nil || *v.CodificaIUV != "030" ||
		v.PagaTerzi == nil || !*v.PagaTerzi || string(v.PortaleBackoffice) != `{"abilitato":true}` || v.AvvisaturaMail != nil {
		t.Fatalf("MULTA reads %+v", v)
	}
	w.must(t, "GET", bo+"/tipiPendenza/OFFERTA", nil).decode(t, &v)
	if v.Tipo != "spontaneo" || !v.PagamentoSpontaneo {
		t.Fatalf("OFFERTA reads %+v", v)
	}
}
