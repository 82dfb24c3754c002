package httpapi

import (
	"strings"
	"testing"
)

// TestGovPayByAvviso: GET /pendenze/byAvviso/{idDominio}/{numeroAvviso}
// on Pendenze v2 (creator only), Pagamento v2 (payer, or the PAGAMENTO
// grant) and Ragioneria v3 (RAGIONERIA grant), issue 13 §4.
func TestGovPayByAvviso(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	p := w.createPendenza(t, "appA", "ba1", d1, t1, citizen1)
	const ghost = "999999999999999999"
	const rag, pgBasic, pgSpid = "/ragioneria/rs/basic/v3", "/pagamento/rs/basic/v2", "/pagamento/rs/spid/v2"
	by := func(prefix, dominio, avviso string) string {
		return prefix + "/pendenze/byAvviso/" + dominio + "/" + avviso
	}
	runRows(t, w.harness, []row{
		// Pendenze v2: the creator.
		{"pendenze_creator", "GET", by(pe, d1, p.NumeroAvviso), nil, opts(as("appA")), 200, ""},
		{"pendenze_other_application", "GET", by(pe, d1, p.NumeroAvviso), nil, opts(as("appB")), 403, "403000"},
		{"pendenze_missing_in_grant", "GET", by(pe, d1, ghost), nil, opts(as("appA")), 404, "404000"},
		{"pendenze_missing_outside_grant", "GET", by(pe, d2, ghost), nil, opts(as("appA")), 403, "403000"},
		{"pendenze_without_grant", "GET", by(pe, d1, p.NumeroAvviso), nil, opts(as("appC")), 403, "403000"},
		{"pendenze_bad_avviso", "GET", by(pe, d1, "12"), nil, opts(as("appA")), 400, "SINTASSI"},
		// Pagamento v2: the payer, or an application's PAGAMENTO grant.
		{"pagamento_payer", "GET", by(pgSpid, d1, p.NumeroAvviso), nil, opts(asSPID(citizen1)), 200, ""},
		{"pagamento_other_citizen", "GET", by(pgSpid, d1, p.NumeroAvviso), nil, opts(asSPID(citizen2)), 403, "403000"},
		{"pagamento_application_in_grant", "GET", by(pgBasic, d1, p.NumeroAvviso), nil, opts(as("appA")), 200, ""},
		{"pagamento_application_outside_grant", "GET", by(pgBasic, d1, p.NumeroAvviso), nil, opts(as("appB")), 403, "403000"},
		// Ragioneria v3: the RAGIONERIA grant's entities, 403 before 404.
		{"ragioneria_in_scope", "GET", by(rag, d1, p.NumeroAvviso), nil, opts(as("appC")), 200, ""},
		{"ragioneria_out_of_scope", "GET", by(rag, d1, p.NumeroAvviso), nil, opts(as("appB")), 403, "403000"},
		{"ragioneria_missing_in_scope", "GET", by(rag, d1, ghost), nil, opts(as("appC")), 404, "404000"},
		{"ragioneria_missing_out_of_scope", "GET", by(rag, d2, ghost), nil, opts(as("appC")), 403, "403000"},
	})
	body := string(w.must(t, "GET", by(pe, d1, p.NumeroAvviso), nil, as("appA")).Body)
	if !strings.Contains(body, `"idPendenza":"ba1"`) || !strings.Contains(body, p.NumeroAvviso) {
		t.Fatalf("byAvviso answers another pendenza: %s", body)
	}
}
