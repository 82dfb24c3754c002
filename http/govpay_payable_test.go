package httpapi

import (
	"net/http"
	"slices"
	"testing"

	"github.com/payauthz/payauthz/domain"
)

// TestGovPayPayable: Pagamento GET /domini and /domini/{idDominio}/
// tipiPendenza list what the caller may pay, by the rules the payment is
// decided by (issue 13 §4).
func TestGovPayPayable(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const pg, pgSpid, pgPublic = "/pagamento/rs/basic/v2", "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"
	runRows(t, w.harness, []row{
		{"domini_application", "GET", pg + "/domini", nil, opts(as("appA")), 200, ""},
		{"domini_application_without_pagamento", "GET", pg + "/domini", nil, opts(as("appC")), 403, "403000"},
		{"tipi_application_in_grant", "GET", pg + "/domini/" + d1 + "/tipiPendenza", nil, opts(as("appA")), 200, ""},
		{"tipi_application_outside_grant", "GET", pg + "/domini/" + d2 + "/tipiPendenza", nil, opts(as("appA")), 403, "403000"},
		{"tipi_unknown_entity_outside_grant", "GET", pg + "/domini/" + dNone + "/tipiPendenza", nil, opts(as("appA")), 403, "403000"},
		{"tipi_citizen_unknown_entity", "GET", pgSpid + "/domini/" + dNone + "/tipiPendenza", nil, opts(asSPID(citizen1)), 404, "404000"},
		{"tipi_anonymous", "GET", pgPublic + "/domini/" + d1 + "/tipiPendenza", nil, nil, 200, ""},
	})
	ids := func(path string, opt reqOpt, field string) []string {
		var page struct {
			Risultati []map[string]string `json:"risultati"`
		}
		w.must(t, "GET", path, nil, opt).decode(t, &page)
		var out []string
		for _, r := range page.Risultati {
			out = append(out, r[field])
		}
		return out
	}
	for _, c := range []struct {
		name, path string
		opt        reqOpt
		field      string
		want       []string
	}{
		{"application_sees_its_grant", pg + "/domini", as("appA"), "idDominio", []string{d1}},
		{"citizen_sees_every_enabled_entity", pgSpid + "/domini", asSPID(citizen1), "idDominio", []string{d1, d2}},
		{"only_spontaneous_types", pg + "/domini/" + d1 + "/tipiPendenza", as("appA"), "idTipoPendenza", []string{tSpont}},
		{"citizen_spontaneous_types", pgSpid + "/domini/" + d2 + "/tipiPendenza", asSPID(citizen1), "idTipoPendenza", []string{tSpont}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ids(c.path, c.opt, c.field)
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Fatalf("%s lists %v, want %v", c.path, got, c.want)
			}
		})
	}
}

// TestPagamentoCreatesPendenza: POST /pendenze/{idDominio}/{idTipoPendenza}
// on the Pagamento API (issue 13 §4): a citizen creates a pendenza as its
// own payer, an anonymous caller one its session then reads (and no other
// session), an application in its PAGAMENTO scope; only of a type that
// allows it. The creator is the reserved portal id, which no application
// may take.
func TestPagamentoCreatesPendenza(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const pgSpid, pgPub = "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"
	body := func(payer string) map[string]any {
		b := map[string]any{"causale": "Donazione", "importo": 25}
		if payer != "" {
			b["soggettoPagatore"] = map[string]any{"tipo": "F", "identificativo": payer, "anagrafica": "Mario Rossi"}
		}
		return b
	}
	path := func(mount, d, tipo string) string { return mount + "/pendenze/" + d + "/" + tipo }
	ff, unproc, bad := codiceOf(http.StatusForbidden), codiceOf(http.StatusUnprocessableEntity), codiceOf(http.StatusBadRequest)
	runRows(t, w.harness, []row{
		{"citizen_for_another_payer", "POST", path(pgSpid, d1, tSpont), body(citizen2), opts(asSPID(citizen1)), http.StatusForbidden, ff},
		{"citizen_type_not_spontaneous", "POST", path(pgSpid, d1, t1), body(""), opts(asSPID(citizen1)), http.StatusForbidden, ff},
		{"citizen_unknown_type", "POST", path(pgSpid, d1, "NOPE"), body(""), opts(asSPID(citizen1)), http.StatusUnprocessableEntity, unproc},
		{"citizen_unknown_entity", "POST", path(pgSpid, dNone, tSpont), body(""), opts(asSPID(citizen1)), http.StatusUnprocessableEntity, unproc},
		{"anonymous_without_payer", "POST", path(pgPub, d1, tSpont), body(""), nil, http.StatusBadRequest, bad},
		{"application_out_of_scope", "POST", path(pg, d2, tSpont), body(citizen1), opts(as("appA")), http.StatusForbidden, ff},
		{"application_without_pagamento", "POST", path(pg, d1, tSpont), body(citizen1), opts(as("appC")), http.StatusForbidden, ff},
		{"application_in_scope", "POST", path(pg, d1, tSpont), body(citizen1), opts(as("appA")), http.StatusCreated, ""},
		{"unknown_field", "POST", path(pgSpid, d1, tSpont), map[string]any{"causale": "x", "importo": 1, "voci": []int{}}, opts(asSPID(citizen1)), http.StatusBadRequest, bad},
		{"portal_id_reserved", "PUT", bo + "/applicazioni/" + domain.PortalIDA2A, map[string]any{"principal": "portale", "password": pw, "abilitato": true, "ruoli": []string{}}, opts(asAdmin()), http.StatusUnprocessableEntity, unproc},
	})

	var mine pendenzaCreata
	w.must(t, "POST", path(pgSpid, d1, tSpont), body(""), asSPID(citizen1)).decode(t, &mine)
	if mine.IDA2A != domain.PortalIDA2A || mine.IDDominio != d1 || len(mine.NumeroAvviso) != 18 || mine.UUID == "" {
		t.Fatalf("citizen's pendenza = %+v", mine)
	}
	own := pg + "/pendenze/" + mine.IDA2A + "/" + mine.IDPendenza
	var pd pendenzaView
	w.must(t, "GET", pgSpid+"/pendenze/"+mine.IDA2A+"/"+mine.IDPendenza, nil, asSPID(citizen1)).decode(t, &pd)
	if pd.SoggettoPagatore.Identificativo != citizen1 || pd.IDTipoPendenza != tSpont {
		t.Fatalf("citizen reads %+v", pd)
	}
	w.do(t, "GET", pgSpid+"/pendenze/"+mine.IDA2A+"/"+mine.IDPendenza, nil, asSPID(citizen2)).expect(t, http.StatusForbidden, ff)
	w.do(t, "GET", pe+"/pendenze/"+mine.IDA2A+"/"+mine.IDPendenza, nil, as("appA")).expect(t, http.StatusForbidden, ff)
	w.must(t, "GET", own, nil, as("appA")) // in appA's PAGAMENTO scope, whoever created it

	anon := w.do(t, "POST", path(pgPub, d1, tSpont), body(citizen2), withHeader("X-Nothing", "1"))
	anon.expect(t, http.StatusCreated, "")
	var theirs pendenzaCreata
	anon.decode(t, &theirs)
	var session *http.Cookie
	for _, c := range anon.Cookies {
		if c.Name == SessionCookie {
			session = c
		}
	}
	if session == nil {
		t.Fatal("an anonymous pendenza issued no session")
	}
	read := pgPub + "/pendenze/" + theirs.IDA2A + "/" + theirs.IDPendenza
	w.must(t, "GET", read, nil, withCookie(session))
	w.do(t, "GET", read, nil).expect(t, http.StatusForbidden, ff) // another (new) session
	w.do(t, "GET", pgPub+"/pendenze/"+mine.IDA2A+"/"+mine.IDPendenza, nil, withCookie(session)).expect(t, http.StatusForbidden, ff)

	// Anonymous writes from one address have a budget (one was spent
	// above); past it 429 with Retry-After, and nothing is written. Others
	// are not affected.
	for i := 1; i < anonymousWriteBurst; i++ {
		w.do(t, "POST", path(pgPub, d1, tSpont), body(citizen2), withCookie(session)).expect(t, http.StatusCreated, "")
	}
	before := w.model.PendenzeCount()
	over := w.do(t, "POST", path(pgPub, d1, tSpont), body(citizen2), withCookie(session))
	over.expect(t, http.StatusTooManyRequests, codiceOf(http.StatusTooManyRequests))
	if over.Header.Get("Retry-After") == "" || w.model.PendenzeCount() != before {
		t.Fatalf("past the budget: Retry-After %q, pendenze %d → %d", over.Header.Get("Retry-After"), before, w.model.PendenzeCount())
	}
	w.do(t, "POST", path(pgSpid, d1, tSpont), body(""), asSPID(citizen1)).expect(t, http.StatusCreated, "")
}
