package httpapi

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// TestGovPayFlussiByDate: GET
// /flussiRendicontazione/{idDominio}/{idFlusso}/{dataOraFlusso} on
// Ragioneria v3 (RAGIONERIA grant) and the Backoffice (Rendicontazioni e
// Incassi R on the entity): the report is found only under its own date
// (a date, or a date-time without a zone, in Rome), and a caller outside the entity gets 403 whatever the date (issue 13 §4).
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
		{"rag_in_scope_rome_midnight_utc", "GET", at(rg, d1, f1, "2026-01-02T23:00:00Z"), nil, opts(as("appC")), 200, ""},
		{"rag_in_scope_midnight_utc_is_another_hour", "GET", at(rg, d1, f1, "2026-01-03T00:00:00Z"), nil, opts(as("appC")), 404, "404000"},
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
	// Any 18 digits are a numeroAvviso (section 5); its IUV is the number
	// without its aux digit (section 8), whatever that digit.
	aux9 := pendenzaBodyFor(d1, t1, citizen1)
	aux9["numeroAvviso"] = "998765432109876543"
	var p9 pendenzaView
	w.must(t, "PUT", pe+"/pendenze/appA/n1-aux9", aux9, as("appA")).decode(t, &p9)
	w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(p9, "RIC-AUX9", 123.45, "ESEGUITO"),
		asBasic(nodeB, nodeBPass)).expect(t, 201, "")
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
		{"rag_iuv_of_aux_digit_9", "GET", ric(rg, d1, "98765432109876543", "RIC-AUX9"), nil, opts(as("appC")), 200, ""},
		{"ris_rag_iuv_of_aux_digit_9", "GET", ris(rg, d1, "98765432109876543", "RIC-AUX9", "1"), nil, opts(as("appC")), 200, ""},
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

// TestGovPayIncassi: POST /incassi/{idDominio} (Rendicontazioni e Incassi
// W on the entity), GET /incassi/{idDominio}/{idIncasso} and GET /incassi
// (R on the entity) on the Backoffice; each incasso is an IncassoRecorded
// event (issue 13 §4).
func TestGovPayIncassi(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.putRole(t, "rendRD1", acl{aclOf("Rendicontazioni e Incassi", "R")}, []string{d1}, []string{"*"})
	w.putOperator(t, "opRendRD1", pw, true, "rendRD1")
	w.putRole(t, "rendWD2", acl{aclOf("Rendicontazioni e Incassi", "R", "W")}, []string{d2}, []string{"*"})
	w.putOperator(t, "opRendWD2", pw, true, "rendWD2")
	body := func(kv ...any) map[string]any {
		b := map[string]any{"causale": "Riversamento flusso 2026-01-03", "importo": 123.45, "idFlusso": "2026-01-03ABI00001-S1",
			"dataValuta": "2026-01-04", "dataContabile": "2026-01-04", "ibanAccredito": "IT60X0542811101000000123456", "sct": "SCT-1"}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(b, kv[i].(string))
			} else {
				b[kv[i].(string)] = kv[i+1]
			}
		}
		return b
	}
	var inD1, inD2 incassoView
	w.must(t, "POST", bo+"/incassi/"+d1, body(), as("opD1")).decode(t, &inD1)
	w.must(t, "POST", bo+"/incassi/"+d2, body("idFlusso", nil), as("opRendWD2")).decode(t, &inD2)
	if inD1.IDIncasso == "" || inD1.IDDominio != d1 || inD1.Importo != 12345 || inD1.IDFlusso == "" {
		t.Fatalf("the recorded incasso is %+v", inD1)
	}
	in := func(dominio, id string) string { return bo + "/incassi/" + dominio + "/" + id }
	runRows(t, w.harness, []row{
		// Writes: W on the entity.
		{"writer_in_scope", "POST", bo + "/incassi/" + d1, body(), opts(as("opD1")), 201, ""},
		{"writer_other_entity", "POST", bo + "/incassi/" + d2, body(), opts(as("opD1")), 403, "403000"},
		{"reader_cannot_write", "POST", bo + "/incassi/" + d1, body(), opts(as("opRendRD1")), 403, "403000"},
		{"read_only_everywhere_cannot_write", "POST", bo + "/incassi/" + d1, body(), opts(as("opRO")), 403, "403000"},
		{"no_role", "POST", bo + "/incassi/" + d1, body(), opts(as("opNoRole")), 403, "403000"},
		{"out_of_scope_bad_body_still_403", "POST", bo + "/incassi/" + d2, map[string]any{"x": 1}, opts(as("opD1")), 403, "403000"},
		{"unknown_entity", "POST", bo + "/incassi/" + dNone, body(), opts(asAdmin()), 422, "422000"},
		{"importo_zero", "POST", bo + "/incassi/" + d1, body("importo", 0), opts(as("opD1")), 422, "422000"},
		{"importo_missing", "POST", bo + "/incassi/" + d1, body("importo", nil), opts(as("opD1")), 400, "SINTASSI"},
		{"causale_missing", "POST", bo + "/incassi/" + d1, body("causale", nil), opts(as("opD1")), 400, "SINTASSI"},
		{"bad_flusso", "POST", bo + "/incassi/" + d1, body("idFlusso", "no spaces allowed"), opts(as("opD1")), 400, "SINTASSI"},
		{"bad_date", "POST", bo + "/incassi/" + d1, body("dataValuta", "04/01/2026"), opts(as("opD1")), 400, "SINTASSI"},
		{"unknown_field", "POST", bo + "/incassi/" + d1, body("sconto", 1), opts(as("opD1")), 400, "SINTASSI"},
		{"bad_dominio", "POST", bo + "/incassi/123", body(), opts(asAdmin()), 400, "SINTASSI"},
		// Reads: R on the entity, 403 before 404.
		{"reader_in_scope", "GET", in(d1, inD1.IDIncasso), nil, opts(as("opRendRD1")), 200, ""},
		{"reader_other_entity", "GET", in(d2, inD2.IDIncasso), nil, opts(as("opRendRD1")), 403, "403000"},
		{"reader_missing_in_scope", "GET", in(d1, "nope"), nil, opts(as("opRendRD1")), 404, "404000"},
		{"reader_missing_out_of_scope", "GET", in(d2, "nope"), nil, opts(as("opRendRD1")), 403, "403000"},
		{"id_of_another_entity", "GET", in(d1, inD2.IDIncasso), nil, opts(asAdmin()), 404, "404000"},
		{"no_role_read", "GET", in(d1, inD1.IDIncasso), nil, opts(as("opNoRole")), 403, "403000"},
		{"no_role_list", "GET", bo + "/incassi", nil, opts(as("opNoRole")), 403, "403000"},
	})
	list := string(w.must(t, "GET", bo+"/incassi", nil, as("opRendRD1")).Body)
	if !strings.Contains(list, inD1.IDIncasso) || strings.Contains(list, inD2.IDIncasso) {
		t.Fatalf("opRendRD1's list of incassi is %s", list)
	}
	if got := string(w.must(t, "GET", bo+"/eventi?limite=1000", nil, as("opD1")).Body); !strings.Contains(got, `"IncassoRecorded"`) {
		t.Fatalf("the event log of d1 lacks its incasso: %s", got)
	}
	w.explainSays(t, "opD1", "BACKOFFICE", "write-incasso", "allow", "idDominio", d1)
	w.explainSays(t, "opRendRD1", "BACKOFFICE", "write-incasso", "deny", "idDominio", d1)
	w.explainSays(t, "opRendRD1", "BACKOFFICE", "read-incasso", "allow", "idDominio", d1, "idIncasso", inD1.IDIncasso)
}

// TestGovPayEvento: GET /eventi/{id} on the Backoffice reads one event of
// the log, scoped as GET /eventi (Giornale degli Eventi R; an event of a
// place in the role's scope, registry events to a role over every entity
// and type); a missing one is 404 only to a caller who sees the whole log
// (issue 13 §4).
func TestGovPayEvento(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "ev1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "ev2", d2, t1, citizen2)
	var log eventiPage
	w.must(t, "GET", bo+"/eventi?limite=1000", nil, asAdmin()).decode(t, &log)
	find := func(tipo, stream string) operations.EventEntry {
		t.Helper()
		for _, e := range log.Risultati {
			if e.Tipo == tipo && strings.HasSuffix(e.Stream, stream) {
				return e
			}
		}
		t.Fatalf("no %s event on %s in the log", tipo, stream)
		return operations.EventEntry{}
	}
	inD1, inD2, registry := find("PendenzaCreated", "appA/ev1"), find("PendenzaCreated", "appB/ev2"), find("RoleDefined", "opD1")
	missing := operations.EventID(events.Position(log.Risultati[len(log.Risultati)-1].Posizione+1000), 0)
	ev := func(id string) string { return bo + "/eventi/" + id }
	runRows(t, w.harness, []row{
		{"admin_reads_any", "GET", ev(inD2.ID), nil, opts(asAdmin()), 200, ""},
		{"admin_reads_registry_event", "GET", ev(registry.ID), nil, opts(asAdmin()), 200, ""},
		{"admin_missing", "GET", ev(missing), nil, opts(asAdmin()), 404, "404000"},
		{"admin_index_past_the_commit", "GET", ev(inD1.ID + ".7"), nil, opts(asAdmin()), 404, "404000"},
		{"read_only_everywhere_reads_other_entity", "GET", ev(inD2.ID), nil, opts(as("opRO")), 200, ""},
		{"read_only_everywhere_missing", "GET", ev(missing), nil, opts(as("opRO")), 404, "404000"},
		{"scoped_reads_own_entity", "GET", ev(inD1.ID), nil, opts(as("opD1")), 200, ""},
		{"scoped_reads_own_entity_index_0", "GET", ev(inD1.ID + ".0"), nil, opts(as("opD1")), 200, ""},
		{"scoped_denied_other_entity", "GET", ev(inD2.ID), nil, opts(as("opD1")), 403, "403000"},
		{"scoped_denied_registry_event", "GET", ev(registry.ID), nil, opts(as("opD1")), 403, "403000"},
		{"scoped_denied_missing", "GET", ev(missing), nil, opts(as("opD1")), 403, "403000"},
		{"no_role", "GET", ev(inD1.ID), nil, opts(as("opNoRole")), 403, "403000"},
		{"application_without_role", "GET", ev(inD1.ID), nil, opts(as("appA")), 403, "403000"},
		{"bad_id_letters", "GET", ev("abc"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"bad_id_zero", "GET", ev("0"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"bad_id_leading_zero", "GET", ev("0" + inD1.ID), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"bad_id_index", "GET", ev(inD1.ID + ".x"), nil, opts(asAdmin()), 400, "SINTASSI"},
	})
	body := string(w.must(t, "GET", ev(inD1.ID), nil, as("opD1")).Body)
	if !strings.Contains(body, `"id":"`+inD1.ID+`"`) || !strings.Contains(body, `"tipo":"PendenzaCreated"`) || !strings.Contains(body, `"idPendenza":"ev1"`) {
		t.Fatalf("GET /eventi/%s answers %s", inD1.ID, body)
	}
	// Explain knows the read, decided by the same operation on the place named.
	w.explainSays(t, "opD1", "BACKOFFICE", "read-evento", "allow", "idDominio", d1)
	w.explainSays(t, "opD1", "BACKOFFICE", "read-evento", "deny", "idDominio", d2)
	w.explainSays(t, "opD1", "BACKOFFICE", "read-evento", "deny")
	w.explainSays(t, "opRO", "BACKOFFICE", "read-evento", "allow")
}

// explainSays asks the admin's POST /autorizzazioni/verifica about
// principal doing operation on api over the resource named by the
// field/value pairs, and requires the outcome esito.
func (w *world) explainSays(t *testing.T, principal, api, operation, esito string, resource ...string) {
	t.Helper()
	q := map[string]any{"principal": principal, "auth": "basic", "api": api, "operazione": operation}
	for i := 0; i+1 < len(resource); i += 2 {
		q[resource[i]] = resource[i+1]
	}
	got := string(w.must(t, "POST", bo+"/autorizzazioni/verifica", q, asAdmin()).Body)
	if !strings.Contains(got, `"esito":"`+esito+`"`) {
		t.Fatalf("explain %s %s/%s on %v: want %s, got %s", principal, api, operation, resource, esito, got)
	}
}

// TestGovPayRiscossioneKeys: a collection answers in GovPay's Riscossione
// shape on Ragioneria v3 and the Backoffice, list item and read alike:
// the entity as a Dominio object (and its idDominio), the iuv, iur and
// indice that name it in GET /riscossioni/{idDominio}/{iuv}/{iur}/{indice},
// stato RISCOSSA, tipo ENTRATA, importo with two decimals and data (in
// each API's format). A
// client reads a collection from the path its list item gives; a caller
// outside the entity still gets 403 for it.
func TestGovPayRiscossioneKeys(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(w.p1, "RIC-D1", 123.45, "ESEGUITO"),
		asBasic(nodeB, nodeBPass)).expect(t, 201, "")
	w.putRole(t, "rendD1", acl{aclOf("Rendicontazioni e Incassi", "R")}, []string{d1}, []string{"*"})
	w.putOperator(t, "opRendD1", pw, true, "rendD1")
	want := map[string]any{
		"dominio":    map[string]any{"idDominio": d1, "ragioneSociale": "Ente " + d1},
		"idDominio":  d1,
		"iuv":        domain.IUVOfNotice(w.p1.NumeroAvviso),
		"iur":        "RIC-D1",
		"indice":     1.0,
		"idRicevuta": "RIC-D1",
		"stato":      "RISCOSSA",
		"tipo":       "ENTRATA",
	}
	// data is the payment's date as each API's schema has it (TestGovPayRiscossioneDataFormat).
	for _, c := range []struct{ prefix, user, data string }{{rg, "appC", "2026-01-02T10:00:00Z"}, {bo, "opRendD1", "2026-01-02"}} {
		want["data"] = c.data
		r := w.must(t, "GET", c.prefix+"/riscossioni", nil, as(c.user))
		if !strings.Contains(string(r.Body), `"importo":123.45`) {
			t.Fatalf("%s/riscossioni as %s: importo is not 123.45: %s", c.prefix, c.user, r.Body)
		}
		var page Page[map[string]any]
		r.decode(t, &page)
		if len(page.Risultati) != 1 {
			t.Fatalf("%s/riscossioni as %s: %s", c.prefix, c.user, r.Body)
		}
		item := page.Risultati[0]
		for k, v := range want {
			if !reflect.DeepEqual(item[k], v) {
				t.Fatalf("%s/riscossioni as %s: %s = %#v, want %#v; body %s", c.prefix, c.user, k, item[k], v, r.Body)
			}
		}
		path := c.prefix + "/riscossioni/" + item["idDominio"].(string) + "/" + item["iuv"].(string) + "/" +
			item["iur"].(string) + "/" + strconv.Itoa(int(item["indice"].(float64)))
		var one map[string]any
		w.must(t, "GET", path, nil, as(c.user)).decode(t, &one)
		if !reflect.DeepEqual(one, item) {
			t.Fatalf("GET %s = %v, the list item is %v", path, one, item)
		}
		w.do(t, "GET", path, nil, as("appB")).expect(t, 403, "403000")
	}
}

// TestGovPayFlussiAndRiconciliazioniNameTheirDominio: a settlement report
// and a reconciliation answer, list item and read alike, on Ragioneria v3
// and the Backoffice, what GovPay's FlussoRendicontazioneIndex and
// RiconciliazioneIndex require beyond what was there: dominio {idDominio,
// ragioneSociale} and stato (Acquisito, ACQUISITA: both are recorded
// whole when written), and a report's numeroPagamenti. A caller outside
// the entity still gets 403.
func TestGovPayFlussiAndRiconciliazioniNameTheirDominio(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	const f1 = "2026-01-03ABI00001-S1"
	w.do(t, "POST", nd+"/intermediari/"+intB+"/flussiRendicontazione", flusso(f1, d1, 123.45, line(w.p1.NumeroAvviso, 123.45, 0)),
		asBasic(nodeB, nodeBPass)).expect(t, 201, "")
	w.must(t, "PUT", rg+"/riconciliazioni/"+d1+"/R1", map[string]any{"importo": 123.45, "causale": "/PUR/LGPE-RIVERSAMENTO/URI/" + f1,
		"idFlusso": f1}, as("appC"))
	w.putRole(t, "rendD1", acl{aclOf("Rendicontazioni e Incassi", "R")}, []string{d1}, []string{"*"})
	w.putOperator(t, "opRendD1", pw, true, "rendD1")
	dominio := map[string]any{"idDominio": d1, "ragioneSociale": "Ente " + d1}
	check := func(t *testing.T, what string, v map[string]any, want map[string]any) {
		t.Helper()
		for k, x := range want {
			if !reflect.DeepEqual(v[k], x) {
				t.Fatalf("%s: %s = %#v, want %#v; %v", what, k, v[k], x, v)
			}
		}
	}
	flow := map[string]any{"dominio": dominio, "idDominio": d1, "idFlusso": f1, "stato": "Acquisito", "numeroPagamenti": 1.0}
	rec := map[string]any{"dominio": dominio, "idDominio": d1, "id": "R1", "stato": "ACQUISITA"}
	reads := []struct {
		path, user string
		want       map[string]any
	}{
		{rg + "/flussiRendicontazione/" + d1 + "/" + f1, "appC", flow},
		{rg + "/flussiRendicontazione/" + d1 + "/" + f1 + "/2026-01-03", "appC", flow},
		{bo + "/flussiRendicontazione/" + d1 + "/" + f1 + "/2026-01-03", "opRendD1", flow},
		{rg + "/riconciliazioni/" + d1 + "/R1", "appC", rec},
	}
	for _, r := range reads {
		var v map[string]any
		w.must(t, "GET", r.path, nil, as(r.user)).decode(t, &v)
		check(t, "GET "+r.path, v, r.want)
		w.do(t, "GET", r.path, nil, as("appB")).expect(t, 403, "403000")
	}
	lists := []struct {
		path, user string
		want       map[string]any
	}{
		{rg + "/flussiRendicontazione", "appC", flow},
		{bo + "/flussiRendicontazione", "opRendD1", flow},
		{rg + "/riconciliazioni", "appC", rec},
		{bo + "/riconciliazioni", "opRendD1", rec},
	}
	for _, l := range lists {
		var page Page[map[string]any]
		w.must(t, "GET", l.path, nil, as(l.user)).decode(t, &page)
		if len(page.Risultati) != 1 {
			t.Fatalf("GET %s as %s: %v", l.path, l.user, page.Risultati)
		}
		check(t, "GET "+l.path, page.Risultati[0], l.want)
		if strings.HasPrefix(l.path, rg) {
			var other Page[map[string]any]
			w.must(t, "GET", l.path, nil, as("appB")).decode(t, &other)
			if len(other.Risultati) != 0 {
				t.Fatalf("GET %s as appB shows d1's: %v", l.path, other.Risultati)
			}
		}
	}
}

// TestGovPayIncassoNamesItsDominio: an incasso answers, on its write, its
// read and its list, what GovPay's incassoIndex (Backoffice) requires
// beyond what was there: dominio {idDominio, ragioneSociale} and stato
// ACQUISITO (recorded whole when written). A reader outside the entity
// still gets 403.
func TestGovPayIncassoNamesItsDominio(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.putRole(t, "rendRD1", acl{aclOf("Rendicontazioni e Incassi", "R")}, []string{d1}, []string{"*"})
	w.putOperator(t, "opRendRD1", pw, true, "rendRD1")
	w.putRole(t, "rendRD2", acl{aclOf("Rendicontazioni e Incassi", "R")}, []string{d2}, []string{"*"})
	w.putOperator(t, "opRendRD2", pw, true, "rendRD2")
	want := map[string]any{"dominio": map[string]any{"idDominio": d1, "ragioneSociale": "Ente " + d1}, "idDominio": d1,
		"stato": "ACQUISITO", "importo": 123.45}
	check := func(t *testing.T, what string, v map[string]any) {
		t.Helper()
		for k, x := range want {
			if !reflect.DeepEqual(v[k], x) {
				t.Fatalf("%s: %s = %#v, want %#v; %v", what, k, v[k], x, v)
			}
		}
	}
	var in map[string]any
	w.must(t, "POST", bo+"/incassi/"+d1, map[string]any{"causale": "Riversamento", "importo": 123.45}, as("opD1")).decode(t, &in)
	check(t, "POST", in)
	path := bo + "/incassi/" + d1 + "/" + in["idIncasso"].(string)
	var one map[string]any
	w.must(t, "GET", path, nil, as("opRendRD1")).decode(t, &one)
	check(t, "GET", one)
	var page Page[map[string]any]
	w.must(t, "GET", bo+"/incassi", nil, as("opRendRD1")).decode(t, &page)
	if len(page.Risultati) != 1 {
		t.Fatalf("GET /incassi: %v", page.Risultati)
	}
	check(t, "GET /incassi", page.Risultati[0])
	w.do(t, "GET", path, nil, as("opRendRD2")).expect(t, 403, "403000")
}

// TestIncassoAndRiconciliazioneTextsCountCharacters: the causale of an
// incasso and of a reconciliation is 1 to 140 characters, as a pendenza's
// is (commands' one causale rule): 140 accented letters (280 bytes) are
// written, 141 are a 400 that writes nothing. Both counted bytes and
// refused the 140 letters, while they said "at most 140 characters". An
// incasso's ibanAccredito and sct are at most 35 characters, counted so
// too: 35 letters are written, 36 are a 400 (they counted bytes and
// refused the 35 letters).
func TestIncassoAndRiconciliazioneTextsCountCharacters(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	letters := func(n int) string { return strings.Repeat("è", n) }
	incasso := func(causale string) map[string]any {
		return map[string]any{"causale": causale, "importo": 10.5, "idFlusso": "2026-01-03ABI00001-S1"}
	}
	ric := func(causale string) map[string]any { return map[string]any{"importo": 10.5, "causale": causale} }
	runRows(t, w.harness, []row{
		{"incasso_of_140_letters", "POST", bo + "/incassi/" + d1, incasso(letters(140)), opts(as("opD1")), 201, ""},
		{"incasso_of_141_letters", "POST", bo + "/incassi/" + d1, incasso(letters(141)), opts(as("opD1")), 400, "SINTASSI"},
		{"incasso_empty", "POST", bo + "/incassi/" + d1, incasso(""), opts(as("opD1")), 400, "SINTASSI"},
		{"iban_of_35_letters", "POST", bo + "/incassi/" + d1, withField(incasso("iban"), "ibanAccredito", letters(35)), opts(as("opD1")), 201, ""},
		{"iban_of_36_letters", "POST", bo + "/incassi/" + d1, withField(incasso("iban"), "ibanAccredito", letters(36)), opts(as("opD1")), 400, "SINTASSI"},
		{"sct_of_35_letters", "POST", bo + "/incassi/" + d1, withField(incasso("sct"), "sct", letters(35)), opts(as("opD1")), 201, ""},
		{"sct_of_36_letters", "POST", bo + "/incassi/" + d1, withField(incasso("sct"), "sct", letters(36)), opts(as("opD1")), 400, "SINTASSI"},
		{"riconciliazione_of_140_letters", "PUT", rg + "/riconciliazioni/" + d1 + "/ric140", ric(letters(140)), opts(as("appA")), 201, ""},
		{"riconciliazione_of_141_letters", "PUT", rg + "/riconciliazioni/" + d1 + "/ric141", ric(letters(141)), opts(as("appA")), 400, "SINTASSI"},
		{"riconciliazione_empty", "PUT", rg + "/riconciliazioni/" + d1 + "/ric0", ric(""), opts(as("appA")), 400, "SINTASSI"},
	})
	w.do(t, "GET", rg+"/riconciliazioni/"+d1+"/ric141", nil, as("appA")).expect(t, 404, "404000")
	w.do(t, "GET", rg+"/riconciliazioni/"+d1+"/ric0", nil, as("appA")).expect(t, 404, "404000")
	if got := string(w.must(t, "GET", rg+"/riconciliazioni/"+d1+"/ric140", nil, as("appA")).Body); !strings.Contains(got, letters(140)) {
		t.Fatalf("the reconciliation of 140 letters reads %s", got)
	}
	list := string(w.must(t, "GET", bo+"/incassi", nil, asAdmin()).Body)
	if n := strings.Count(list, `"causale"`); n != 3 || !strings.Contains(list, letters(140)) ||
		!strings.Contains(list, `"ibanAccredito":"`+letters(35)+`"`) {
		t.Fatalf("the incassi are %s; want the one of 140 letters and the two of 35", list)
	}
}

// TestGovPayNuovaRiconciliazione: PUT /riconciliazioni/{idDominio}/{id}
// takes GovPay's NuovaRiconciliazione (Ragioneria v3), whose sct GovPay
// requires: the bank's references (sct, contoAccredito), the dates
// (dataValuta, dataContabile) and GovPay's references (iuv,
// idFlussoRendicontazione, the contract's idFlusso) are kept and answered
// as RiconciliazioneIndex names them; a bad value is 400 naming it, and a
// repeat is compared with them.
func TestGovPayNuovaRiconciliazione(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const flow = "2020-11-21GovPAYPsp-1234567890"
	govpay := map[string]any{"importo": 100.01, "causale": "/PUR/LGPE-RIVERSAMENTO/URI/" + flow,
		"dataValuta": "2020-12-31", "dataContabile": "2020-12-31", "contoAccredito": "IT60X0542811101000000123456",
		"sct": "2017-01-01ABI00000011234"}
	byFlow := withField(withField(govpay, "idFlussoRendicontazione", flow), "sct", "SCT2")
	byIUV := withField(withField(govpay, "iuv", "RF23567483937849450550875"), "sct", "SCT3")
	at := func(id string) string { return rg + "/riconciliazioni/" + d1 + "/" + id }
	runRows(t, w.harness, []row{
		{"govpay_body", "PUT", at("g1"), govpay, opts(as("appA")), 201, ""},
		{"govpay_body_repeat", "PUT", at("g1"), govpay, opts(as("appA")), 200, ""},
		{"govpay_body_other_sct", "PUT", at("g1"), withField(govpay, "sct", "other"), opts(as("appA")), 409, "409000"},
		{"govpay_body_other_app", "PUT", at("g1"), govpay, opts(as("appC")), 403, "403000"},
		{"govpay_body_out_of_scope", "PUT", rg + "/riconciliazioni/" + d2 + "/g1", govpay, opts(as("appA")), 403, "403000"},
		{"by_flow", "PUT", at("g2"), byFlow, opts(as("appA")), 201, ""},
		{"by_flow_and_the_same_idFlusso", "PUT", at("g2"), withField(byFlow, "idFlusso", flow), opts(as("appA")), 200, ""},
		{"by_iuv", "PUT", at("g3"), byIUV, opts(as("appA")), 201, ""},
		{"two_flows", "PUT", at("bad1"), withField(byFlow, "idFlusso", "2020-11-21Other"), opts(as("appA")), 400, "SINTASSI"},
		{"bad_flow", "PUT", at("bad2"), withField(govpay, "idFlussoRendicontazione", "a b"), opts(as("appA")), 400, "SINTASSI"},
		{"bad_iuv", "PUT", at("bad3"), withField(govpay, "iuv", "a/b"), opts(as("appA")), 400, "SINTASSI"},
		{"bad_data_valuta", "PUT", at("bad4"), withField(govpay, "dataValuta", "31/12/2020"), opts(as("appA")), 400, "SINTASSI"},
		{"bad_data_contabile", "PUT", at("bad5"), withField(govpay, "dataContabile", "2020-13-01"), opts(as("appA")), 400, "SINTASSI"},
		{"long_conto", "PUT", at("bad6"), withField(govpay, "contoAccredito", strings.Repeat("X", 36)), opts(as("appA")), 400, "SINTASSI"},
		{"long_sct", "PUT", at("bad7"), withField(govpay, "sct", strings.Repeat("X", 36)), opts(as("appA")), 400, "SINTASSI"},
		{"member_of_no_schema", "PUT", at("bad8"), withField(govpay, "trnX", "x"), opts(as("appA")), 400, "SINTASSI"},
	})
	for i := 1; i <= 8; i++ {
		w.do(t, "GET", at("bad"+strconv.Itoa(i)), nil, as("appA")).expect(t, 404, "404000")
	}
	read := func(id string) map[string]any {
		var v map[string]any
		w.must(t, "GET", at(id), nil, as("appA")).decode(t, &v)
		return v
	}
	g1 := read("g1")
	for k, want := range map[string]any{"sct": "2017-01-01ABI00000011234", "dataValuta": "2020-12-31", "dataContabile": "2020-12-31",
		"contoAccredito": "IT60X0542811101000000123456", "importo": 100.01, "stato": "ACQUISITA"} {
		if g1[k] != want {
			t.Errorf("g1 %s = %v, want %v (%v)", k, g1[k], want, g1)
		}
	}
	if g2 := read("g2"); g2["idFlussoRendicontazione"] != flow || g2["idFlusso"] != flow {
		t.Errorf("g2 names its report %v and %v, want %s", g2["idFlussoRendicontazione"], g2["idFlusso"], flow)
	}
	if g3 := read("g3"); g3["iuv"] != "RF23567483937849450550875" {
		t.Errorf("g3 iuv = %v", g3["iuv"])
	}
	w.do(t, "GET", at("g1"), nil, as("appC")).expect(t, 403, "403000")
}

// TestGovPayRagioneriaListFilters: the Ragioneria lists take GovPay's
// filters of Ragioneria v3 (findRiscossioni, findFlussiRendicontazione,
// findRicevute, findRiconciliazioni), each narrowing what the grant's
// scope already shows; a bad value is 400 SINTASSI.
func TestGovPayRagioneriaListFilters(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	pa2 := w.recordMoney(t)

	// listed answers the key of each result (the same member on every
	// list would not tell them apart), in order.
	key := map[string]string{"riscossioni": "iur", "flussiRendicontazione": "idFlusso", "ricevute": "idRicevuta", "riconciliazioni": "id"}
	listed := func(t *testing.T, app, list, query string) []string {
		t.Helper()
		var page struct {
			NumRisultati int              `json:"numRisultati"`
			Risultati    []map[string]any `json:"risultati"`
		}
		w.must(t, "GET", rg+"/"+list+"?"+query, nil, as(app)).decode(t, &page)
		got := []string{}
		for _, r := range page.Risultati {
			got = append(got, r[key[list]].(string))
		}
		if page.NumRisultati != len(got) {
			t.Errorf("%s?%s counts %d results, lists %v", list, query, page.NumRisultati, got)
		}
		return got
	}
	iuv1, iuv2 := domain.IUVOfNotice(w.p1.NumeroAvviso), domain.IUVOfNotice(pa2.NumeroAvviso)
	both := []string{"RIC-A", "RIC-B"}
	flows := []string{"2026-01-03ABI-FA", "2026-01-03ABI-FB"}
	for _, c := range []struct {
		name, app, list, query string
		want                   []string
	}{
		{"riscossioni_all", "appC", "riscossioni", "", both},
		{"riscossioni_from", "appC", "riscossioni", "dataDa=2026-02-01", []string{"RIC-B"}},
		{"riscossioni_until", "appC", "riscossioni", "dataA=2026-01-31", []string{"RIC-A"}},
		{"riscossioni_one_day", "appC", "riscossioni", "dataDa=2026-01-02&dataA=2026-01-02", []string{"RIC-A"}},
		{"riscossioni_from_a_time", "appC", "riscossioni", "dataDa=2026-01-02T11:00:00Z", []string{"RIC-B"}},
		{"riscossioni_iur", "appC", "riscossioni", "iur=RIC-B", []string{"RIC-B"}},
		{"riscossioni_riscossa", "appC", "riscossioni", "stato=RISCOSSA", both},
		{"riscossioni_incassata", "appC", "riscossioni", "stato=INCASSATA", []string{}},
		{"riscossioni_entrata", "appC", "riscossioni", "tipo=ENTRATA", both},
		{"riscossioni_mbt", "appC", "riscossioni", "tipo=MBT", []string{}},
		{"riscossioni_mbt_or_entrata", "appC", "riscossioni", "tipo=MBT&tipo=ENTRATA", both},
		{"riscossioni_other_scope_iur", "appB", "riscossioni", "iur=RIC-A", []string{}},
		{"riscossioni_other_entity", "appC", "riscossioni", "idDominio=" + d2 + "&iur=RIC-D2", []string{}},
		{"flussi_all", "appC", "flussiRendicontazione", "", flows},
		{"flussi_id", "appC", "flussiRendicontazione", "idFlusso=2026-01-03ABI-FB", []string{"2026-01-03ABI-FB"}},
		{"flussi_id_without_case", "appC", "flussiRendicontazione", "idFlusso=2026-01-03abi-fb", []string{"2026-01-03ABI-FB"}},
		{"flussi_iuv", "appC", "flussiRendicontazione", "iuv=" + iuv2, []string{"2026-01-03ABI-FB"}},
		{"flussi_acquisito", "appC", "flussiRendicontazione", "stato=Acquisito", flows},
		{"flussi_anomalo", "appC", "flussiRendicontazione", "stato=Anomalo", []string{}},
		{"flussi_escludi_obsoleti", "appC", "flussiRendicontazione", "escludiObsoleti=true", flows},
		{"flussi_acquired_later", "appC", "flussiRendicontazione", "dataDa=2099-01-01", []string{}},
		{"flussi_acquired_before", "appC", "flussiRendicontazione", "dataA=2000-01-01", []string{}},
		{"flussi_acquired_since", "appC", "flussiRendicontazione", "dataDa=2000-01-01", flows},
		{"ricevute_all", "appC", "ricevute", "", []string{"RIC-A", "RIC-B", "RIC-KO"}},
		{"ricevute_iuv", "appC", "ricevute", "iuv=" + iuv1, []string{"RIC-A"}},
		{"ricevute_id", "appC", "ricevute", "idRicevuta=RIC-KO", []string{"RIC-KO"}},
		{"ricevute_avviso", "appC", "ricevute", "numeroAvviso=" + pa2.NumeroAvviso, []string{"RIC-B"}},
		{"ricevute_later", "appC", "ricevute", "dataDa=2099-01-01", []string{}},
		{"ricevute_other_scope_id", "appB", "ricevute", "idRicevuta=RIC-A", []string{}},
		{"riconciliazioni_all", "appC", "riconciliazioni", "", []string{"R1", "R2"}},
		{"riconciliazioni_sct", "appC", "riconciliazioni", "sct=S2", []string{"R2"}},
		{"riconciliazioni_later", "appC", "riconciliazioni", "dataDa=2099-01-01T00:00:00", []string{}},
		{"riconciliazioni_since", "appC", "riconciliazioni", "dataDa=2000-01-01&dataA=2099-12-31", []string{"R1", "R2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := listed(t, c.app, c.list, c.query); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s?%s lists %v, want %v", c.list, c.query, got, c.want)
			}
		})
	}
	runBadFilters(t, w.harness, rg+"/", as("appC"), as("appNone"), []string{"riscossioni?dataDa=garbage", "riscossioni?dataA=2026-13-01",
		"riscossioni?stato=PAGATO", "riscossioni?tipo=X", "riscossioni?iur=a%2Fb", "flussiRendicontazione?stato=ACQUISITO",
		"flussiRendicontazione?iuv=a%20b", "flussiRendicontazione?idFlusso=a%20b", "flussiRendicontazione?dataDa=x",
		"ricevute?numeroAvviso=12", "ricevute?iuv=a%2Fb", "ricevute?idRicevuta=a%2Fb", "ricevute?dataA=x", "riconciliazioni?dataDa=x"},
		"riscossioni?dataDa=garbage")
}

// recordMoney records in w what the money lists' filter tests read: at d1
// the receipts RIC-A (of w.p1), RIC-B (of a second pendenza, paid on
// 2026-02-10) and RIC-KO (not paid), at d2 RIC-D2 (of w.p2); the reports
// 2026-01-03ABI-FA and -FB of the first two; appC's reconciliations R1
// (sct S1) and R2 (sct S2) at d1. It returns the second pendenza.
func (w *nodeWorld) recordMoney(t *testing.T) pendenzaView {
	t.Helper()
	pa2 := w.createPendenza(t, "appA", "n1b", d1, t1, citizen1)
	failed := w.createPendenza(t, "appA", "n1-ko", d1, t1, citizen1)
	node := asBasic(nodeB, nodeBPass)
	w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(w.p1, "RIC-A", 123.45, "ESEGUITO"), node).expect(t, 201, "")
	w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", withField(ricevuta(pa2, "RIC-B", 123.45, "ESEGUITO"), "dataPagamento", "2026-02-10"), node).expect(t, 201, "")
	w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(failed, "RIC-KO", 123.45, "NON_ESEGUITO"), node).expect(t, 201, "")
	w.do(t, "POST", nd+"/intermediari/"+intB2+"/ricevute", ricevuta(w.p2, "RIC-D2", 123.45, "ESEGUITO"), asBasic(nodeB2, nodeB2Pass)).expect(t, 201, "")
	w.do(t, "POST", nd+"/intermediari/"+intB+"/flussiRendicontazione", flusso("2026-01-03ABI-FA", d1, 123.45, line(w.p1.NumeroAvviso, 123.45, 0)), node).expect(t, 201, "")
	w.do(t, "POST", nd+"/intermediari/"+intB+"/flussiRendicontazione", flusso("2026-01-03ABI-FB", d1, 123.45, line(pa2.NumeroAvviso, 123.45, 0)), node).expect(t, 201, "")
	w.must(t, "PUT", rg+"/riconciliazioni/"+d1+"/R1", map[string]any{"importo": 1, "causale": "c", "sct": "S1"}, as("appC"))
	w.must(t, "PUT", rg+"/riconciliazioni/"+d1+"/R2", map[string]any{"importo": 2, "causale": "c", "sct": "S2"}, as("appC"))
	return pa2
}

// runBadFilters asks, under base, each of bad as caller: 400 SINTASSI;
// and each of gated as denied, which may not list: 403, its gate answering
// before its filter is read.
func runBadFilters(t *testing.T, h *harness, base string, caller, denied reqOpt, bad []string, gated ...string) {
	t.Helper()
	rows := []row{}
	for _, q := range bad {
		rows = append(rows, row{"bad_" + q, "GET", base + q, nil, opts(caller), 400, "SINTASSI"})
	}
	for _, q := range gated {
		rows = append(rows, row{"without_right_first_" + q, "GET", base + q, nil, opts(denied), 403, "403000"})
	}
	runRows(t, h, rows)
}
