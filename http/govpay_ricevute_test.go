package httpapi

import (
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
)

// TestGovPayRicevute: receipts as resources (GET /ricevute and GET
// /ricevute/{idDominio}/{iuv}/{idRicevuta}) on Ragioneria v3 (entities of
// the RAGIONERIA grant) and the Backoffice (Pagamenti R on the entity),
// and collections by id (GET /riscossioni/{idDominio}/{iuv}/{iur}/{indice}:
// RAGIONERIA grant, Backoffice Rendicontazioni e Incassi R), 403 before
// 404 (issue 13 §4).
func TestGovPayRicevute(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	failed := w.createPendenza(t, "appA", "n1-ko", d1, t1, citizen1)
	w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(w.p1, "RIC-D1", 123.45, "ESEGUITO"),
		asBasic(nodeB, nodeBPass)).expect(t, 201, "")
	w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(failed, "RIC-KO", 123.45, "NON_ESEGUITO"),
		asBasic(nodeB, nodeBPass)).expect(t, 201, "")
	w.do(t, "POST", nd+"/intermediari/"+intB2+"/ricevute", ricevuta(w.p2, "RIC-D2", 123.45, "ESEGUITO"),
		asBasic(nodeB2, nodeB2Pass)).expect(t, 201, "")
	w.putRole(t, "pagD1", acl{aclOf("Pagamenti", "R")}, []string{d1}, []string{"*"})
	w.putOperator(t, "opPagD1", pw, true, "pagD1")
	w.putRole(t, "rendD1", acl{aclOf("Rendicontazioni e Incassi", "R")}, []string{d1}, []string{"*"})
	w.putOperator(t, "opRendD1", pw, true, "rendD1")

	iuv1, iuv2, iuvKO := domain.IUVOfNotice(w.p1.NumeroAvviso), domain.IUVOfNotice(w.p2.NumeroAvviso), domain.IUVOfNotice(failed.NumeroAvviso)
	ric := func(prefix, dominio, iuv, id string) string {
		return prefix + "/ricevute/" + dominio + "/" + iuv + "/" + id
	}
	ris := func(prefix, dominio, iuv, iur, indice string) string {
		return prefix + "/riscossioni/" + dominio + "/" + iuv + "/" + iur + "/" + indice
	}
	runRows(t, w.harness, []row{
		// Ragioneria v3: receipts of the grant's entities.
		{"rag_in_scope", "GET", ric(rg, d1, iuv1, "RIC-D1"), nil, opts(as("appC")), 200, ""},
		{"rag_failed_receipt_in_scope", "GET", ric(rg, d1, iuvKO, "RIC-KO"), nil, opts(as("appC")), 200, ""},
		{"rag_other_entity", "GET", ric(rg, d2, iuv2, "RIC-D2"), nil, opts(as("appC")), 403, "403000"},
		{"rag_other_application_scope", "GET", ric(rg, d1, iuv1, "RIC-D1"), nil, opts(as("appB")), 403, "403000"},
		{"rag_without_grant", "GET", ric(rg, d1, iuv1, "RIC-D1"), nil, opts(as("appNone")), 403, "403000"},
		{"rag_iuv_of_another_notice", "GET", ric(rg, d1, iuvKO, "RIC-D1"), nil, opts(as("appC")), 404, "404000"},
		{"rag_missing_in_scope", "GET", ric(rg, d1, iuv1, "NOPE"), nil, opts(as("appC")), 404, "404000"},
		{"rag_missing_out_of_scope", "GET", ric(rg, d2, iuv2, "NOPE"), nil, opts(as("appC")), 403, "403000"},
		{"rag_bad_iuv", "GET", ric(rg, d1, "iuv!", "RIC-D1"), nil, opts(as("appC")), 400, "SINTASSI"},
		{"rag_list_without_grant", "GET", rg + "/ricevute", nil, opts(as("appNone")), 403, "403000"},
		// Backoffice: Pagamenti R on the receipt's entity.
		{"bo_in_scope", "GET", ric(bo, d1, iuv1, "RIC-D1"), nil, opts(as("opPagD1")), 200, ""},
		{"bo_other_entity", "GET", ric(bo, d2, iuv2, "RIC-D2"), nil, opts(as("opPagD1")), 403, "403000"},
		{"bo_without_pagamenti", "GET", ric(bo, d1, iuv1, "RIC-D1"), nil, opts(as("opRendD1")), 403, "403000"},
		{"bo_missing_in_scope", "GET", ric(bo, d1, iuv1, "NOPE"), nil, opts(as("opPagD1")), 404, "404000"},
		{"bo_admin_other_entity", "GET", ric(bo, d2, iuv2, "RIC-D2"), nil, opts(asAdmin()), 200, ""},
		{"bo_list_without_pagamenti", "GET", bo + "/ricevute", nil, opts(as("opRendD1")), 403, "403000"},
		{"bo_list_bad_filter", "GET", bo + "/ricevute?idDominio=x", nil, opts(as("opPagD1")), 400, "SINTASSI"},
		// Collections by id: item 1 of an ESEGUITO receipt.
		{"ris_rag_in_scope", "GET", ris(rg, d1, iuv1, "RIC-D1", "1"), nil, opts(as("appC")), 200, ""},
		{"ris_rag_second_item", "GET", ris(rg, d1, iuv1, "RIC-D1", "2"), nil, opts(as("appC")), 404, "404000"},
		{"ris_rag_failed_receipt_is_no_collection", "GET", ris(rg, d1, iuvKO, "RIC-KO", "1"), nil, opts(as("appC")), 404, "404000"},
		{"ris_rag_other_entity", "GET", ris(rg, d2, iuv2, "RIC-D2", "1"), nil, opts(as("appC")), 403, "403000"},
		{"ris_rag_bad_indice", "GET", ris(rg, d1, iuv1, "RIC-D1", "0"), nil, opts(as("appC")), 400, "SINTASSI"},
		{"ris_bo_rendicontazioni", "GET", ris(bo, d1, iuv1, "RIC-D1", "1"), nil, opts(as("opRendD1")), 200, ""},
		{"ris_bo_other_entity", "GET", ris(bo, d2, iuv2, "RIC-D2", "1"), nil, opts(as("opRendD1")), 403, "403000"},
		{"ris_bo_without_rendicontazioni", "GET", ris(bo, d1, iuv1, "RIC-D1", "1"), nil, opts(as("opPagD1")), 403, "403000"},
		{"ris_bo_missing_in_scope", "GET", ris(bo, d1, iuv1, "NOPE", "1"), nil, opts(as("opRendD1")), 404, "404000"},
	})

	got := string(w.must(t, "GET", ric(rg, d1, iuv1, "RIC-D1"), nil, as("appC")).Body)
	for _, want := range []string{`"dominio":{"idDominio":"` + d1 + `","ragioneSociale":"Ente ` + d1 + `"}`, `"iuv":"` + iuv1 + `"`,
		`"idRicevuta":"RIC-D1"`, `"esito":"ESEGUITO"`, `"importo":123.45`} {
		if !strings.Contains(got, want) {
			t.Fatalf("the receipt lacks %s: %s", want, got)
		}
	}
	lists := []struct {
		path, user    string
		want, notWant []string
	}{
		{rg + "/ricevute", "appC", []string{"RIC-D1", "RIC-KO"}, []string{"RIC-D2"}},
		{rg + "/ricevute?idDominio=" + d2, "appC", nil, []string{"RIC-D1", "RIC-D2"}},
		{bo + "/ricevute", "opPagD1", []string{"RIC-D1", "RIC-KO"}, []string{"RIC-D2"}},
	}
	for _, l := range lists {
		body := string(w.must(t, "GET", l.path, nil, as(l.user)).Body)
		for _, id := range l.want {
			if !strings.Contains(body, `"idRicevuta":"`+id+`"`) {
				t.Fatalf("%s as %s lacks %s: %s", l.path, l.user, id, body)
			}
		}
		for _, id := range l.notWant {
			if strings.Contains(body, `"idRicevuta":"`+id+`"`) {
				t.Fatalf("%s as %s shows %s: %s", l.path, l.user, id, body)
			}
		}
	}

	// Explain and who-can know the reads, decided by the same operation.
	receipt := func(iuv, id string) []string { return []string{"idDominio", d1, "iuv", iuv, "idRicevuta", id} }
	w.explainSays(t, "appC", "RAGIONERIA", "read-ricevuta", "allow", receipt(iuv1, "RIC-D1")...)
	w.explainSays(t, "appB", "RAGIONERIA", "read-ricevuta", "deny", receipt(iuv1, "RIC-D1")...)
	w.explainSays(t, "opPagD1", "BACKOFFICE", "read-ricevuta", "allow", receipt(iuv1, "RIC-D1")...)
	w.explainSays(t, "opRendD1", "BACKOFFICE", "read-ricevuta", "deny", receipt(iuv1, "RIC-D1")...)
	w.explainSays(t, "opRendD1", "BACKOFFICE", "read-riscossione", "allow", receipt(iuv1, "RIC-D1")...)
	w.explainSays(t, "appC", "RAGIONERIA", "read-riscossione", "not-found", receipt(iuvKO, "RIC-KO")...)
}
