package httpapi

import (
	"strings"
	"testing"
)

// TestGovPayFlussiByDate: GET
// /flussiRendicontazione/{idDominio}/{idFlusso}/{dataOraFlusso} on
// Ragioneria v3 (RAGIONERIA grant) and the Backoffice (Rendicontazioni e
// Incassi R on the entity): the report is found only under its own date,
// and a caller outside the entity gets 403 whatever the date (issue 13 §4).
func TestGovPayFlussiByDate(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	const f1, f2 = "2026-01-03ABI00001-S1", "2026-01-03ABI00002-S2"
	w.do(t, "POST", nd+"/intermediari/"+intB+"/flussiRendicontazione", flusso(f1, d1, 123.45, line(w.p1.NumeroAvviso, 123.45, 0)),
		asBasic(nodeB, nodeBPass)).expect(t, 201, "")
	w.do(t, "POST", nd+"/intermediari/"+intB2+"/flussiRendicontazione", flusso(f2, d2, 123.45, line(w.p2.NumeroAvviso, 123.45, 0)),
		asBasic(nodeB2, nodeB2Pass)).expect(t, 201, "")
	w.putRole(t, "rendD1", acl{aclOf("Rendicontazioni e Incassi", "R")}, []string{d1}, []string{"*"})
	w.putOperator(t, "opRendD1", pw, true, "rendD1")
	w.putRole(t, "pagAll", acl{aclOf("Pagamenti", "R")}, []string{"*"}, []string{"*"})
	w.putOperator(t, "opPagAll", pw, true, "pagAll")

	at := func(prefix, dominio, id, data string) string {
		return prefix + "/flussiRendicontazione/" + dominio + "/" + id + "/" + data
	}
	runRows(t, w.harness, []row{
		{"rag_in_scope_date", "GET", at(rg, d1, f1, "2026-01-03"), nil, opts(as("appC")), 200, ""},
		{"rag_in_scope_midnight", "GET", at(rg, d1, f1, "2026-01-03T00:00:00"), nil, opts(as("appC")), 200, ""},
		{"rag_in_scope_midnight_utc", "GET", at(rg, d1, f1, "2026-01-03T00:00:00Z"), nil, opts(as("appC")), 200, ""},
		{"rag_in_scope_other_date", "GET", at(rg, d1, f1, "2026-01-04"), nil, opts(as("appC")), 404, "404000"},
		{"rag_in_scope_other_hour", "GET", at(rg, d1, f1, "2026-01-03T10:00:00"), nil, opts(as("appC")), 404, "404000"},
		{"rag_in_scope_missing", "GET", at(rg, d1, "2026-01-03ABI00001-NOPE", "2026-01-03"), nil, opts(as("appC")), 404, "404000"},
		{"rag_out_of_scope", "GET", at(rg, d2, f2, "2026-01-03"), nil, opts(as("appC")), 403, "403000"},
		{"rag_out_of_scope_other_date", "GET", at(rg, d2, f2, "2026-01-04"), nil, opts(as("appC")), 403, "403000"},
		{"rag_without_grant", "GET", at(rg, d1, f1, "2026-01-03"), nil, opts(as("appNone")), 403, "403000"},
		{"rag_bad_date", "GET", at(rg, d1, f1, "03-01-2026"), nil, opts(as("appC")), 400, "SINTASSI"},
		{"bo_in_scope", "GET", at(bo, d1, f1, "2026-01-03T00:00:00.000"), nil, opts(as("opRendD1")), 200, ""},
		{"bo_in_scope_other_date", "GET", at(bo, d1, f1, "2026-01-05"), nil, opts(as("opRendD1")), 404, "404000"},
		{"bo_out_of_scope", "GET", at(bo, d2, f2, "2026-01-03"), nil, opts(as("opRendD1")), 403, "403000"},
		{"bo_other_service", "GET", at(bo, d1, f1, "2026-01-03"), nil, opts(as("opPagAll")), 403, "403000"},
		{"bo_admin", "GET", at(bo, d2, f2, "2026-01-03"), nil, opts(asAdmin()), 200, ""},
	})
	if got := string(w.must(t, "GET", at(rg, d1, f1, "2026-01-03"), nil, as("appC")).Body); !strings.Contains(got, `"idFlusso":"`+f1+`"`) {
		t.Fatalf("the report read is %s", got)
	}
	flow := func(data string) []string { return []string{"idDominio", d1, "idFlusso", f1, "dataOraFlusso", data} }
	w.explainSays(t, "appC", "RAGIONERIA", "read-flusso", "allow", flow("2026-01-03")...)
	w.explainSays(t, "appC", "RAGIONERIA", "read-flusso", "not-found", flow("2026-01-04")...)
	w.explainSays(t, "appB", "RAGIONERIA", "read-flusso", "deny", flow("2026-01-03")...)
	w.explainSays(t, "opRendD1", "BACKOFFICE", "read-flusso", "allow", flow("2026-01-03")...)
}
