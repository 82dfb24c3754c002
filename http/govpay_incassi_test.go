package httpapi

import (
	"strings"
	"testing"
)

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
