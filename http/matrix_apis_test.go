package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/commands"
)

const (
	pe = "/pendenze/rs/basic/v2"
	pg = "/pagamento/rs/basic/v2"
	rg = "/ragioneria/rs/basic/v3"
)

func TestPendenzeMatrix(t *testing.T) {
	w := newWorld(t)
	w.createPendenza(t, "appA", "own", d1, t1, citizen1)
	w.createPendenza(t, "appB", "other", d1, t1, citizen1)
	body := pendenzaBodyFor(d1, t1, citizen1)
	rows := []row{
		{"app_creates_in_scope", "PUT", pe + "/pendenze/appA/new1", body, opts(as("appA")), 201, ""},
		{"app_updates_own", "PUT", pe + "/pendenze/appA/new1", body, opts(as("appA")), 200, ""},
		{"app_denied_other_ida2a", "PUT", pe + "/pendenze/appB/new2", body, opts(as("appA")), 403, "403000"},
		{"app_denied_out_of_scope_entity", "PUT", pe + "/pendenze/appA/new3", pendenzaBodyFor(d2, t1, citizen1), opts(as("appA")), 403, "403000"},
		{"app_unregistered_entity_in_scope_422", "PUT", pe + "/pendenze/appB/new4", pendenzaBodyFor(dNone, t1, citizen1), opts(as("appB")), 422, "422000"},
		{"app_unregistered_type_422", "PUT", pe + "/pendenze/appA/new5", pendenzaBodyFor(d1, "GHOST", citizen1), opts(as("appA")), 422, "422000"},
		{"app_reads_own", "GET", pe + "/pendenze/appA/own", nil, opts(as("appA")), 200, ""},
		{"app_denied_other_creators_pendenza", "GET", pe + "/pendenze/appB/other", nil, opts(as("appA")), 403, "403000"},
		{"app_denied_other_ida2a_even_unknown", "GET", pe + "/pendenze/appB/missing", nil, opts(as("appA")), 403, "403000"},
		{"app_own_unknown_404", "GET", pe + "/pendenze/appA/missing", nil, opts(as("appA")), 404, "404000"},
		{"app_lists_own", "GET", pe + "/pendenze", nil, opts(as("appA")), 200, ""},
		{"app_not_authorized_on_api", "GET", pe + "/pendenze", nil, opts(as("appNone")), 403, "403000"},
		{"app_authorized_only_elsewhere", "GET", pe + "/pendenze", nil, opts(as("appC")), 403, "403000"},
		{"disabled_app", "GET", pe + "/pendenze/appDisabled/x", nil, opts(as("appDisabled")), 403, "403000"},
		{"operator_denied", "GET", pe + "/pendenze", nil, opts(asAdmin()), 403, "403000"},
		{"operator_denied_before_a_bad_filter", "GET", pe + "/pendenze?dataDa=ieri", nil, opts(asAdmin()), 403, "403000"},
		{"unknown_principal", "GET", pe + "/pendenze", nil, opts(asBasic("ghost", pw)), 401, "401000"},
		{"wrong_password", "GET", pe + "/pendenze", nil, opts(asBasic("appA", "bad-password")), 401, "401000"},
		{"public_not_accepted", "GET", "/pendenze/rs/public/v2/pendenze", nil, nil, 403, "403"},
		{"spid_unregistered_not_citizen_here", "GET", "/pendenze/rs/spid/v2/pendenze", nil, opts(asSPID(citizen1)), 401, "401000"},
		{"spid_registered_app_principal", "GET", "/pendenze/rs/spid/v2/pendenze", nil, opts(asSPID("APPA")), 401, "401000"},
		{"bad_path_id", "GET", pe + "/pendenze/appA/bad%20id", nil, opts(as("appA")), 400, "SINTASSI"},
		{"importo_three_decimals", "PUT", pe + "/pendenze/appA/b1", strings.Replace(mustJSON(t, body), "123.45", "10.005", 1), opts(as("appA")), 400, "SINTASSI"},
		{"importo_zero_422", "PUT", pe + "/pendenze/appA/b2", strings.Replace(mustJSON(t, body), "123.45", "0", 1), opts(as("appA")), 422, "422000"},
		{"importo_string_400", "PUT", pe + "/pendenze/appA/b3", strings.Replace(mustJSON(t, body), "123.45", `"12"`, 1), opts(as("appA")), 400, "SINTASSI"},
		{"bad_payer_400", "PUT", pe + "/pendenze/appA/b4", pendenzaBodyFor(d1, t1, "x"), opts(as("appA")), 400, "SINTASSI"},
		{"unknown_field_400", "PUT", pe + "/pendenze/appA/b5", `{"idDominio":"` + d1 + `","nope":1}`, opts(as("appA")), 400, "SINTASSI"},
	}
	runRows(t, w.harness, rows)

	t.Run("list_shows_only_own", func(t *testing.T) {
		var page Page[pendenzaView]
		w.must(t, "GET", pe+"/pendenze", nil, as("appA")).decode(t, &page)
		for _, p := range page.Risultati {
			if p.IDA2A != "appA" {
				t.Fatalf("appA lists %s/%s", p.IDA2A, p.IDPendenza)
			}
		}
		if page.NumRisultati != 2 {
			t.Fatalf("appA lists %d pendenze, want 2", page.NumRisultati)
		}
	})
	t.Run("created_pendenza_has_notice_and_uuid", func(t *testing.T) {
		v := w.createPendenza(t, "appA", "fresh", d1, t1, citizen1)
		notice, uuid := regexp.MustCompile(`^[0-9]{18}$`), regexp.MustCompile(`^[0-9a-f]{32}$`)
		if !notice.MatchString(v.NumeroAvviso) || !uuid.MatchString(v.UUID) || v.Stato != "NON_ESEGUITA" || v.Importo != 12345 {
			t.Fatalf("created pendenza = %+v", v)
		}
		// Another at the same entity has its own notice and UUID; an
		// update keeps both (the UUID is fixed at creation).
		other := w.createPendenza(t, "appA", "fresh2", d1, t1, citizen1)
		if other.NumeroAvviso == v.NumeroAvviso || other.UUID == v.UUID || !uuid.MatchString(other.UUID) {
			t.Fatalf("two pendenze at %s: %s %s and %s %s", d1, v.NumeroAvviso, v.UUID, other.NumeroAvviso, other.UUID)
		}
		body := pendenzaBodyFor(d1, t1, citizen1)
		body["causale"] = "Tassa rifiuti 2026, rettificata"
		var updated pendenzaView
		w.must(t, "PUT", pe+"/pendenze/appA/fresh", body, as("appA")).decode(t, &updated)
		if updated.UUID != v.UUID || updated.NumeroAvviso != v.NumeroAvviso {
			t.Fatalf("the update moved the notice or UUID: %s %s, created %s %s", updated.NumeroAvviso, updated.UUID, v.NumeroAvviso, v.UUID)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := jsonMarshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPendenzeSSL(t *testing.T) {
	w := newWorld(t)
	good := w.ca.ClientCert(t, sslSubject)
	untrusted := w.otherCA.ClientCert(t, sslSubject)
	stranger := w.ca.ClientCert(t, sslSubject2())
	runRows(t, w.harness, []row{
		{"ssl_app_with_trusted_certificate", "GET", "/pendenze/rs/ssl/v2/pendenze", nil, opts(asCert(good)), 200, ""},
		{"ssl_untrusted_certificate_401", "GET", "/pendenze/rs/ssl/v2/pendenze", nil, opts(asCert(untrusted)), 401, "401000"},
		{"ssl_no_certificate_401", "GET", "/pendenze/rs/ssl/v2/pendenze", nil, opts(viaTLS()), 401, "401000"},
		{"ssl_unregistered_subject_401", "GET", "/pendenze/rs/ssl/v2/pendenze", nil, opts(asCert(stranger)), 401, "401000"},
		{"ssl_app_creates_in_scope", "PUT", "/pendenze/rs/ssl/v2/pendenze/appSSL/s1", pendenzaBodyFor(d1, t1, citizen1), opts(asCert(good)), 201, ""},
		{"basic_over_tls_works", "GET", pe + "/pendenze", nil, opts(as("appA"), viaTLS()), 200, ""},
	})
}

func TestGrantAndRevokeTakeEffectOnTheNextRequest(t *testing.T) {
	w := newWorld(t)
	w.do(t, "GET", pe+"/pendenze", nil, as("appNone")).expect(t, 403, "403000")
	r := w.must(t, "PUT", bo+"/applicazioni/appNone", map[string]any{"principal": "appNone", "abilitato": true, "ruoli": []string{},
		"apiPendenze": true, "domini": []string{d1}, "tipiPendenza": []string{"*"}})
	_ = r
	w.do(t, "GET", pe+"/pendenze", nil, as("appNone")).expect(t, 200, "")
	w.must(t, "PUT", bo+"/applicazioni/appNone", map[string]any{"principal": "appNone", "abilitato": true, "ruoli": []string{}})
	w.do(t, "GET", pe+"/pendenze", nil, as("appNone")).expect(t, 403, "403000")
	// A disable and a password change act at once too, with no reset.
	w.must(t, "PUT", bo+"/applicazioni/appA", map[string]any{"principal": "appA", "abilitato": false, "ruoli": []string{},
		"autorizzazioniApi": []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})}})
	w.do(t, "GET", pe+"/pendenze", nil, as("appA")).expect(t, 403, "403000")
	w.must(t, "PUT", bo+"/applicazioni/appA", map[string]any{"principal": "appA", "password": "changed-pass-1", "abilitato": true, "ruoli": []string{},
		"autorizzazioniApi": []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})}})
	w.do(t, "GET", pe+"/pendenze", nil, as("appA")).expect(t, 401, "401000")
	w.do(t, "GET", pe+"/pendenze", nil, asBasic("appA", "changed-pass-1")).expect(t, 200, "")
}

func TestPagamentoMatrix(t *testing.T) {
	w := newWorld(t)
	pA := w.createPendenza(t, "appA", "pa1", d1, t1, citizen1)
	pB := w.createPendenza(t, "appB", "pb1", d2, t1, citizen2)
	pC := w.createPendenza(t, "appB", "pb2", d1, t1, citizen1) // other creator, appA's Pagamento scope
	w.putApp(t, "appAll", "appAll", pw, true, apiGrant("PAGAMENTO", []string{"*"}, []string{"*"}))
	spid := func(code string) []reqOpt { return opts(asSPID(code)) }
	const pgSpid, pgPub = "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"

	// Payments started by each kind of caller.
	var byApp, byCitizen, byAnon pagamentoCreated
	w.must(t, "POST", pg+"/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appA", "idPendenza": "pa1"}}}, as("appA")).decode(t, &byApp)
	w.must(t, "POST", pgSpid+"/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "numeroAvviso": pC.NumeroAvviso}}}, asSPID(citizen2)).decode(t, &byCitizen)
	anon := w.must(t, "POST", pgPub+"/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d2, "numeroAvviso": pB.NumeroAvviso}}}, withHeader("X-Nothing", "1"))
	anon.decode(t, &byAnon)
	var session *http.Cookie
	for _, c := range anon.Cookies {
		if c.Name == SessionCookie {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode {
		t.Fatalf("anonymous payment cookie = %+v", session)
	}
	tampered := &http.Cookie{Name: SessionCookie, Value: session.Value[:len(session.Value)-2] + "AA"}
	forged := &http.Cookie{Name: SessionCookie, Value: "AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}
	sessionID, sessionMAC, _ := strings.Cut(session.Value, ".")
	respelled := &http.Cookie{Name: SessionCookie, Value: withPaddingBits(sessionID) + "." + withPaddingBits(sessionMAC)}

	rows := []row{
		// pendenze
		{"app_reads_pendenza_in_scope_any_creator", "GET", pg + "/pendenze/appB/pb2", nil, opts(as("appA")), 200, ""},
		{"app_denied_pendenza_out_of_scope", "GET", pg + "/pendenze/appB/pb1", nil, opts(as("appA")), 403, "403000"},
		{"app_unknown_pendenza_outside_full_scope_403", "GET", pg + "/pendenze/appA/none", nil, opts(as("appA")), 403, "403000"},
		{"app_with_full_scope_unknown_pendenza_404", "GET", pg + "/pendenze/appA/none", nil, opts(as("appAll")), 404, "404000"},
		{"app_with_entity_times_all_types_unknown_notice_404", "GET", pg + "/avvisi/" + d1 + "/000000000000000999", nil, opts(as("appA")), 404, "404000"},
		{"app_with_full_scope_unknown_notice_404", "GET", pg + "/avvisi/" + d1 + "/000000000000000999", nil, opts(as("appAll")), 404, "404000"},
		{"app_pays_unknown_pendenza_outside_full_scope_403", "POST", pg + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appA", "idPendenza": "none"}}}, opts(as("appA")), 403, "403000"},
		{"app_with_full_scope_pays_unknown_pendenza_404", "POST", pg + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appA", "idPendenza": "none"}}}, opts(as("appAll")), 404, "404000"},
		{"app_not_authorized_on_pagamento", "GET", pg + "/pendenze", nil, opts(as("appC")), 403, "403000"},
		{"citizen_reads_own_pendenza", "GET", pgSpid + "/pendenze/appA/pa1", nil, spid(citizen1), 200, ""},
		{"citizen_denied_others_pendenza", "GET", pgSpid + "/pendenze/appB/pb1", nil, spid(citizen1), 403, "403000"},
		{"citizen_unknown_pendenza_403", "GET", pgSpid + "/pendenze/appA/none", nil, spid(citizen1), 403, "403000"},
		{"citizen_tinit_prefix", "GET", pgSpid + "/pendenze/appA/pa1", nil, spid("TINIT-" + strings.ToLower(citizen1)), 200, ""},
		{"anonymous_denied_pendenze", "GET", pgPub + "/pendenze", nil, nil, 403, "403000"},
		// The gate before the filters: a caller that may not list is 403
		// whatever its filters (a bad one was 400 to an anonymous caller).
		{"anonymous_denied_pendenze_before_a_bad_filter", "GET", pgPub + "/pendenze?stato=PAGATA", nil, nil, 403, "403000"},
		{"app_not_authorized_before_a_bad_filter", "GET", pg + "/pendenze?idDominio=1", nil, opts(as("appC")), 403, "403000"},
		// payments
		{"app_reads_own_payment", "GET", pg + "/pagamenti/" + byApp.ID, nil, opts(as("appA")), 200, ""},
		{"other_app_denied_payment", "GET", pg + "/pagamenti/" + byApp.ID, nil, opts(as("appB")), 403, "403000"},
		{"app_unknown_payment_404", "GET", pg + "/pagamenti/" + strings.Repeat("0", 32), nil, opts(as("appA")), 404, "404000"},
		{"payer_citizen_reads_payment", "GET", pgSpid + "/pagamenti/" + byApp.ID, nil, spid(citizen1), 200, ""},
		{"remitter_citizen_reads_payment", "GET", pgSpid + "/pagamenti/" + byCitizen.ID, nil, spid(citizen2), 200, ""},
		{"unrelated_citizen_denied_payment", "GET", pgSpid + "/pagamenti/" + byApp.ID, nil, spid(citizen2), 403, "403000"},
		{"anonymous_same_session_reads", "GET", pgPub + "/pagamenti/" + byAnon.ID, nil, opts(withCookie(session)), 200, ""},
		{"anonymous_no_session_denied", "GET", pgPub + "/pagamenti/" + byAnon.ID, nil, nil, 403, "403000"},
		{"anonymous_tampered_cookie_401", "GET", pgPub + "/pagamenti/" + byAnon.ID, nil, opts(withCookie(tampered)), 401, "401000"},
		{"anonymous_forged_cookie_401", "GET", pgPub + "/pagamenti/" + byAnon.ID, nil, opts(withCookie(forged)), 401, "401000"},
		{"anonymous_respelled_cookie_401", "GET", pgPub + "/pagamenti/" + byAnon.ID, nil, opts(withCookie(respelled)), 401, "401000"},
		{"anonymous_denied_app_payment", "GET", pgPub + "/pagamenti/" + byApp.ID, nil, opts(withCookie(session)), 403, "403000"},
		{"bad_payment_id_400", "GET", pg + "/pagamenti/xyz", nil, opts(as("appA")), 400, "SINTASSI"},
		// starting payments
		{"app_pays_out_of_scope_denied", "POST", pg + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appB", "idPendenza": "pb1"}}}, opts(as("appA")), 403, "403000"},
		{"citizen_pays_others_by_id_denied", "POST", pgSpid + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appB", "idPendenza": "pb1"}}}, spid(citizen1), 403, "403000"},
		{"citizen_pays_own_by_id", "POST", pgSpid + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appB", "idPendenza": "pb2"}}}, spid(citizen1), 201, ""},
		{"anonymous_by_id_denied", "POST", pgPub + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appA", "idPendenza": "pa1"}}}, nil, 403, "403000"},
		{"anonymous_spontaneous", "POST", pgPub + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "idTipoPendenza": tSpont, "importo": 5, "causale": "Dono", "soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}}}}, nil, 201, ""},
		{"spontaneous_on_non_spontaneous_type_denied", "POST", pgPub + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "idTipoPendenza": t1, "importo": 5, "causale": "x", "soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}}}}, nil, 403, "403000"},
		{"unknown_notice_404", "POST", pg + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "numeroAvviso": "000000000000000000"}}}, opts(as("appA")), 404, "404000"},
		{"too_many_refs_400", "POST", pg + "/pagamenti", map[string]any{"pendenze": make([]map[string]any, 6)}, opts(as("appA")), 400, "SINTASSI"},
		{"mixed_ref_400", "POST", pg + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appA", "idPendenza": "pa1", "numeroAvviso": pA.NumeroAvviso}}}, opts(as("appA")), 400, "SINTASSI"},
		// notices
		{"anonymous_reads_notice", "GET", pgPub + "/avvisi/" + d1 + "/" + pA.NumeroAvviso, nil, nil, 200, ""},
		{"app_notice_out_of_scope", "GET", pg + "/avvisi/" + d2 + "/" + pB.NumeroAvviso, nil, opts(as("appA")), 403, "403000"},
		{"app_unknown_notice_404", "GET", pg + "/avvisi/" + d1 + "/000000000000000000", nil, opts(as("appA")), 404, "404000"},
		{"bad_notice_number_400", "GET", pg + "/avvisi/" + d1 + "/123", nil, opts(as("appA")), 400, "SINTASSI"},
		// entry
		{"operator_denied_pagamento", "GET", pg + "/pagamenti", nil, opts(asAdmin()), 403, "403000"},
		{"operator_denied_pagamento_before_a_bad_filter", "GET", pg + "/pagamenti?stato=PAGATO", nil, opts(asAdmin()), 403, "403000"},
		{"disabled_app_denied", "GET", pg + "/pagamenti", nil, opts(as("appDisabled")), 403, "403000"},
		{"profile_anonymous", "GET", pgPub + "/profilo", nil, nil, 200, ""},
		{"profile_citizen", "GET", pgSpid + "/profilo", nil, spid(citizen1), 200, ""},
		{"spid_bad_fiscal_code_401", "GET", pgSpid + "/profilo", nil, spid("x!"), 401, "401000"},
		{"spid_missing_header_401", "GET", pgSpid + "/profilo", nil, nil, 401, "401000"},
	}
	runRows(t, w.harness, rows)

	t.Run("anonymous_list_is_its_session_only", func(t *testing.T) {
		var page Page[pagamentoView]
		w.must(t, "GET", pgPub+"/pagamenti", nil, withCookie(session)).decode(t, &page)
		if page.NumRisultati != 1 || page.Risultati[0].ID != byAnon.ID {
			t.Fatalf("session sees %+v", page.Risultati)
		}
		var none Page[pagamentoView]
		w.must(t, "GET", pgPub+"/pagamenti", nil, withHeader("X-Nothing", "1")).decode(t, &none)
		if none.NumRisultati != 0 {
			t.Fatalf("no session sees %d payments", none.NumRisultati)
		}
	})
	t.Run("lists_are_the_callers_own", func(t *testing.T) {
		listed := func(path string, opt reqOpt) []string {
			var page Page[pagamentoView]
			w.must(t, "GET", path, nil, opt).decode(t, &page)
			var ids []string
			for _, p := range page.Risultati {
				ids = append(ids, p.ID)
			}
			return ids
		}
		for _, c := range []struct {
			name, path  string
			opt         reqOpt
			has, hasNot []string
		}{
			{"application_started", pg + "/pagamenti", as("appA"), []string{byApp.ID}, []string{byCitizen.ID, byAnon.ID}},
			{"other_application", pg + "/pagamenti", as("appB"), nil, []string{byApp.ID, byCitizen.ID, byAnon.ID}},
			{"citizen_payer", pgSpid + "/pagamenti", asSPID(citizen1), []string{byApp.ID, byCitizen.ID}, []string{byAnon.ID}},
			{"citizen_remitter_and_payer", pgSpid + "/pagamenti", asSPID(citizen2), []string{byCitizen.ID, byAnon.ID}, []string{byApp.ID}},
		} {
			got := listed(c.path, c.opt)
			for _, id := range got {
				w.do(t, "GET", strings.TrimSuffix(c.path, "/pagamenti")+"/pagamenti/"+id, nil, c.opt).expect(t, 200, "")
			}
			for _, id := range c.has {
				if !slices.Contains(got, id) {
					t.Errorf("%s: listed %v, lacks %s", c.name, got, id)
				}
			}
			for _, id := range c.hasNot {
				if slices.Contains(got, id) {
					t.Errorf("%s: listed %v, holds %s", c.name, got, id)
				}
			}
		}
	})
	t.Run("citizen_remitter_forced", func(t *testing.T) {
		var p pagamentoView
		w.must(t, "GET", pgSpid+"/pagamenti/"+byCitizen.ID, nil, asSPID(citizen2)).decode(t, &p)
		if p.SoggettoVersante == nil || p.SoggettoVersante.Identificativo != citizen2 {
			t.Fatalf("remitter = %+v", p.SoggettoVersante)
		}
	})
}

func TestSPIDFromUntrustedAddress(t *testing.T) {
	w := newWorld(t, withSPIDProxies(netip.MustParsePrefix("10.0.0.0/8")))
	w.do(t, "GET", "/pagamento/rs/spid/v2/profilo", nil, asSPID(citizen1)).expect(t, 401, "401000")
	// The same request from a trusted address passes (127.0.0.2 is not trusted either).
	w2 := newWorld(t, withSPIDProxies(netip.MustParsePrefix("127.0.0.2/32")))
	w2.do(t, "GET", "/pagamento/rs/spid/v2/profilo", nil, asSPID(citizen1), fromLocalAddr("127.0.0.2")).expect(t, 200, "")
	w2.do(t, "GET", "/pagamento/rs/spid/v2/profilo", nil, asSPID(citizen1)).expect(t, 401, "401000")
	w2.do(t, "GET", "/pagamento/rs/spid/v2/profilo", nil, asSPID(citizen1), withHeader("X-Forwarded-For", "127.0.0.2")).expect(t, 401, "401000")
}

func TestRagioneriaMatrix(t *testing.T) {
	w := newWorld(t)
	rec := map[string]any{"importo": 10, "causale": "Riversamento"}
	w.must(t, "PUT", rg+"/riconciliazioni/"+d1+"/r1", rec, as("appA"))
	w.putApp(t, "appRagAll", "appRagAll", pw, true, apiGrant("RAGIONERIA", []string{"*"}, []string{"*"}))
	rows := []row{
		{"unknown_entity_in_full_scope_422", "PUT", rg + "/riconciliazioni/" + dNone + "/r3", rec, opts(as("appRagAll")), 422, "422000"},
		{"registered_entity_in_full_scope_201", "PUT", rg + "/riconciliazioni/" + d2 + "/r4", rec, opts(as("appRagAll")), 201, ""},
		{"creator_repeat_is_200", "PUT", rg + "/riconciliazioni/" + d1 + "/r1", rec, opts(as("appA")), 200, ""},
		{"importo_missing_400", "PUT", rg + "/riconciliazioni/" + d1 + "/r5", map[string]any{"causale": "Riversamento"}, opts(as("appA")), 400, "SINTASSI"},
		{"id_flusso_not_a_report_id_400", "PUT", rg + "/riconciliazioni/" + d1 + "/r6", map[string]any{"importo": 10, "causale": "Riversamento", "idFlusso": "ABC/1 x"}, opts(as("appA")), 400, "SINTASSI"},
		{"id_flusso_dot_segment_400", "PUT", rg + "/riconciliazioni/" + d1 + "/r7", map[string]any{"importo": 10, "causale": "Riversamento", "idFlusso": ".."}, opts(as("appA")), 400, "SINTASSI"},
		{"creator_conflicting_repeat_409", "PUT", rg + "/riconciliazioni/" + d1 + "/r1", map[string]any{"importo": 11, "causale": "Riversamento"}, opts(as("appA")), 409, "409000"},
		{"other_app_same_id_403", "PUT", rg + "/riconciliazioni/" + d1 + "/r1", rec, opts(as("appC")), 403, "403000"},
		{"out_of_scope_entity_403", "PUT", rg + "/riconciliazioni/" + d2 + "/r2", rec, opts(as("appA")), 403, "403000"},
		{"creator_reads", "GET", rg + "/riconciliazioni/" + d1 + "/r1", nil, opts(as("appA")), 200, ""},
		{"other_app_in_scope_denied_read", "GET", rg + "/riconciliazioni/" + d1 + "/r1", nil, opts(as("appC")), 403, "403000"},
		{"out_of_scope_read_403", "GET", rg + "/riconciliazioni/" + d1 + "/r1", nil, opts(as("appB")), 403, "403000"},
		{"unknown_reconciliation_404", "GET", rg + "/riconciliazioni/" + d1 + "/nope", nil, opts(as("appA")), 404, "404000"},
		{"lists_settlements_in_scope", "GET", rg + "/flussiRendicontazione", nil, opts(as("appA")), 200, ""},
		{"settlement_out_of_scope_403", "GET", rg + "/flussiRendicontazione/" + d2 + "/F1", nil, opts(as("appA")), 403, "403000"},
		{"settlement_unknown_404", "GET", rg + "/flussiRendicontazione/" + d1 + "/F1", nil, opts(as("appA")), 404, "404000"},
		{"collections_in_scope", "GET", rg + "/riscossioni", nil, opts(as("appA")), 200, ""},
		{"payments_in_scope", "GET", rg + "/pagamenti", nil, opts(as("appA")), 200, ""},
		{"app_not_authorized_on_ragioneria", "GET", rg + "/riscossioni", nil, opts(as("appNone")), 403, "403000"},
		{"operator_denied", "GET", rg + "/riscossioni", nil, opts(asAdmin()), 403, "403000"},
		{"disabled_app_denied", "GET", rg + "/riscossioni", nil, opts(as("appDisabled")), 403, "403000"},
		{"wrong_password_401", "GET", rg + "/riscossioni", nil, opts(asBasic("appA", "nope-nope")), 401, "401000"},
		{"public_not_accepted", "GET", "/ragioneria/rs/public/v3/riscossioni", nil, nil, 403, "403"},
		{"importo_negative_422", "PUT", rg + "/riconciliazioni/" + d1 + "/r3", map[string]any{"importo": -1, "causale": "x"}, opts(as("appA")), 422, "422000"},
	}
	runRows(t, w.harness, rows)
	t.Run("list_only_own", func(t *testing.T) {
		w.must(t, "PUT", rg+"/riconciliazioni/"+d1+"/c1", rec, as("appC"))
		var page Page[riconciliazioneView]
		w.must(t, "GET", rg+"/riconciliazioni", nil, as("appA")).decode(t, &page)
		if page.NumRisultati != 1 || page.Risultati[0].ID != "r1" {
			t.Fatalf("appA lists %+v", page.Risultati)
		}
	})
}

// TestRagioneriaSeesOnlyItsEntitiesOfAPayment: a payment touching two
// entities is read on the Ragioneria API with only the items of the
// entities in the reader's scope.
func TestRagioneriaSeesOnlyItsEntitiesOfAPayment(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	pa, pb, pay := w.payAcrossEntities(t, "two")
	var v pagamentoView
	w.must(t, "GET", rg+"/pagamenti/"+pay.ID, nil, as("appA")).decode(t, &v) // RAGIONERIA on d1 only
	if len(v.Pendenze) != 1 || v.Pendenze[0].IDDominio != d1 || v.Pendenze[0].NumeroAvviso != pa.NumeroAvviso {
		t.Fatalf("appA (d1) sees items %+v, want only the d1 one", v.Pendenze)
	}
	w.must(t, "GET", rg+"/pagamenti/"+pay.ID, nil, as("appB")).decode(t, &v) // RAGIONERIA on d2 only
	if len(v.Pendenze) != 1 || v.Pendenze[0].IDDominio != d2 {
		t.Fatalf("appB (d2) sees items %+v, want only the d2 one", v.Pendenze)
	}
	var page struct {
		Risultati []pagamentoView `json:"risultati"`
	}
	for _, reader := range []struct{ app, dominio, avviso string }{{"appA", d1, pa.NumeroAvviso}, {"appB", d2, pb.NumeroAvviso}} {
		w.must(t, "GET", rg+"/pagamenti", nil, as(reader.app)).decode(t, &page)
		i := slices.IndexFunc(page.Risultati, func(p pagamentoView) bool { return p.ID == pay.ID })
		if i < 0 {
			t.Fatalf("%s's list lacks the payment touching its entity: %+v", reader.app, page.Risultati)
		}
		if it := page.Risultati[i].Pendenze; len(it) != 1 || it[0].IDDominio != reader.dominio || it[0].NumeroAvviso != reader.avviso {
			t.Fatalf("%s's list shows the payment's items %+v, want only its %s one", reader.app, it, reader.dominio)
		}
		for _, p := range page.Risultati {
			for _, it := range p.Pendenze {
				if it.IDDominio != reader.dominio {
					t.Fatalf("%s's list shows an item of %s: %+v", reader.app, it.IDDominio, p)
				}
			}
		}
	}
}

// TestDisabledEntityOrTypeIs422: a write at a registered but disabled
// entity or type is 422 (API.md section 2; POST /incassi of section 4),
// decided after the caller's scope (403 first), and writes nothing.
func TestDisabledEntityOrTypeIs422(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const dOff, tOff = "44444444444", "SPENTO"
	w.must(t, "PUT", bo+"/domini/"+dOff, map[string]any{"ragioneSociale": "Ente spento", "abilitato": false})
	w.must(t, "PUT", bo+"/tipiPendenza/"+tOff, map[string]any{"descrizione": "Tipo spento", "abilitato": false, "pagamentoSpontaneo": false})
	w.putApp(t, "appRagAll", "appRagAll", pw, true, apiGrant("RAGIONERIA", []string{"*"}, []string{"*"}))
	incasso := map[string]any{"causale": "Riversamento", "importo": 10.5}
	rec := map[string]any{"importo": 10, "causale": "Riversamento"}
	// Pendenze written while their entity, type and unit were enabled,
	// then each of those disabled: paying them is a write there too.
	const dLater, tLater, uLater = "55555555555", "SPENTO_POI", "UOFF"
	w.must(t, "PUT", bo+"/domini/"+dLater, map[string]any{"ragioneSociale": "Ente poi spento", "abilitato": true})
	w.must(t, "PUT", bo+"/tipiPendenza/"+tLater, map[string]any{"descrizione": "Tipo poi spento", "abilitato": true, "pagamentoSpontaneo": false})
	w.must(t, "PUT", bo+"/domini/"+d2+"/unitaOperative/"+uLater, map[string]any{"ragioneSociale": "Ufficio poi spento", "abilitato": true})
	atLater := w.createPendenza(t, "appB", "later1", dLater, t1, citizen1)
	w.createPendenza(t, "appB", "later2", d2, tLater, citizen1)
	inUnit := pendenzaBodyFor(d2, t1, citizen1)
	inUnit["idUnitaOperativa"] = uLater
	w.must(t, "PUT", pe+"/pendenze/appB/later3", inUnit, as("appB"))
	w.createPendenza(t, "appB", "open1", d2, t1, citizen1)
	w.must(t, "PUT", bo+"/domini/"+dLater, map[string]any{"ragioneSociale": "Ente poi spento", "abilitato": false})
	w.must(t, "PUT", bo+"/tipiPendenza/"+tLater, map[string]any{"descrizione": "Tipo poi spento", "abilitato": false, "pagamentoSpontaneo": false})
	w.must(t, "PUT", bo+"/domini/"+d2+"/unitaOperative/"+uLater, map[string]any{"ragioneSociale": "Ufficio poi spento", "abilitato": false})
	pay := func(ref map[string]any) map[string]any { return map[string]any{"pendenze": []map[string]any{ref}} }
	byID := func(id string) map[string]any { return pay(map[string]any{"idA2A": "appB", "idPendenza": id}) }
	const pgSpid = "/pagamento/rs/spid/v2/pagamenti"
	runRows(t, w.harness, []row{
		{"pay_pendenza_at_disabled_entity", "POST", pgSpid, byID("later1"), opts(asSPID(citizen1)), 422, "422000"},
		{"pay_notice_at_disabled_entity", "POST", pgSpid, pay(map[string]any{"idDominio": dLater, "numeroAvviso": atLater.NumeroAvviso}), opts(asSPID(citizen1)), 422, "422000"},
		{"pay_pendenza_of_disabled_type", "POST", pgSpid, byID("later2"), opts(asSPID(citizen1)), 422, "422000"},
		{"pay_pendenza_in_disabled_unit", "POST", pgSpid, byID("later3"), opts(asSPID(citizen1)), 422, "422000"},
		{"pay_pendenza_at_disabled_entity_not_payer", "POST", pgSpid, byID("later1"), opts(asSPID(citizen2)), 403, "403000"},
		{"pay_pendenza_at_disabled_entity_out_of_scope", "POST", pg + "/pagamenti", byID("later1"), opts(as("appA")), 403, "403000"},
		{"pay_pendenza_all_enabled", "POST", pgSpid, byID("open1"), opts(asSPID(citizen1)), 201, ""},
		{"pendenza_at_disabled_entity", "PUT", pe + "/pendenze/appB/off1", pendenzaBodyFor(dOff, t1, citizen1), opts(as("appB")), 422, "422000"},
		{"pendenza_of_disabled_type", "PUT", pe + "/pendenze/appA/off2", pendenzaBodyFor(d1, tOff, citizen1), opts(as("appA")), 422, "422000"},
		{"pendenza_at_disabled_entity_out_of_scope", "PUT", pe + "/pendenze/appA/off3", pendenzaBodyFor(dOff, t1, citizen1), opts(as("appA")), 403, "403000"},
		{"incasso_at_disabled_entity", "POST", bo + "/incassi/" + dOff, incasso, opts(asAdmin()), 422, "422000"},
		{"incasso_at_disabled_entity_out_of_scope", "POST", bo + "/incassi/" + dOff, incasso, opts(as("opD1")), 403, "403000"},
		{"riconciliazione_at_disabled_entity", "PUT", rg + "/riconciliazioni/" + dOff + "/r1", rec, opts(as("appRagAll")), 422, "422000"},
		{"riconciliazione_at_disabled_entity_out_of_scope", "PUT", rg + "/riconciliazioni/" + dOff + "/r1", rec, opts(as("appA")), 403, "403000"},
		{"nothing_written_at_the_disabled_entity", "GET", pe + "/pendenze/appB/off1", nil, opts(as("appB")), 404, "404000"},
		{"nothing_written_of_the_disabled_type", "GET", pe + "/pendenze/appA/off2", nil, opts(as("appA")), 404, "404000"},
	})
}

// TestPendenzeCreatorRules: the Pendenze API's rules that hang on the
// creator and its current scope (API.md section 5). GET /pendenze lists
// the caller's own, narrowed by idDominio, stato and GovPay's idDebitore
// (the payer's fiscal code, without case: it was ignored, and a debtor's
// list held every payer's), GovPay-paginated; a
// PATCH under another idA2A is 403 before the lookup; once the creator's
// PENDENZE scope no longer covers its pendenza, it still reads it, but
// may neither patch it nor PUT it there, only move it into scope.
func TestPendenzeCreatorRules(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "a1", d1, t1, citizen1)
	w.createPendenza(t, "appA", "a2", d1, t1, citizen1)
	w.must(t, "PATCH", pe+"/pendenze/appA/a2", patchStato("ANNULLATA"), as("appA"))
	w.createPendenza(t, "appB", "b1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "b2", d2, t1, citizen1)

	for _, c := range []struct {
		name, user, query string
		want              []string
	}{
		{"own_only", "appB", "", []string{"b1", "b2"}},
		{"by_entity", "appB", "?idDominio=" + d1, []string{"b1"}},
		{"by_entity_holding_none_of_its_own", "appA", "?idDominio=" + d2, nil},
		{"by_state_cancelled", "appA", "?stato=ANNULLATA", []string{"a2"}},
		{"by_state_open", "appA", "?stato=NON_ESEGUITA", []string{"a1"}},
		{"by_entity_and_state", "appB", "?idDominio=" + d2 + "&stato=NON_ESEGUITA", []string{"b2"}},
		{"by_debtor", "appB", "?idDebitore=" + citizen1, []string{"b1", "b2"}},
		{"by_debtor_in_lower_case", "appB", "?idDebitore=" + strings.ToLower(citizen1), []string{"b1", "b2"}},
		{"by_debtor_of_none_of_them", "appB", "?idDebitore=" + citizen2, nil},
		{"by_debtor_and_entity", "appB", "?idDebitore=" + citizen1 + "&idDominio=" + d2, []string{"b2"}},
	} {
		t.Run("list_"+c.name, func(t *testing.T) {
			if got := w.listed(t, pe+"/pendenze"+c.query, "idPendenza", as(c.user)); !slices.Equal(got, c.want) {
				t.Fatalf("%s lists %v, want %v", c.user, got, c.want)
			}
		})
	}
	t.Run("list_paginated", func(t *testing.T) {
		var page Page[pendenzaView]
		w.must(t, "GET", pe+"/pendenze?risultatiPerPagina=1&pagina=2", nil, as("appB")).decode(t, &page)
		if page.NumRisultati != 2 || page.NumPagine != 2 || page.Pagina != 2 || page.RisultatiPerPagina != 1 || len(page.Risultati) != 1 {
			t.Fatalf("page = %+v", page)
		}
	})

	w.putApp(t, "appA", "appA", pw, true, apiGrant("PENDENZE", []string{d2}, []string{"*"}))
	runRows(t, w.harness, []row{
		{"list_bad_entity_filter", "GET", pe + "/pendenze?idDominio=abc", nil, opts(as("appA")), 400, "SINTASSI"},
		{"list_bad_state_filter", "GET", pe + "/pendenze?stato=PAGATA", nil, opts(as("appA")), 400, "SINTASSI"},
		{"patch_under_other_ida2a_missing", "PATCH", pe + "/pendenze/appA/ghost", patchStato("ANNULLATA"), opts(as("appB")), 403, "403000"},
		{"creator_out_of_scope_reads", "GET", pe + "/pendenze/appA/a1", nil, opts(as("appA")), 200, ""},
		{"creator_out_of_scope_cannot_patch", "PATCH", pe + "/pendenze/appA/a1", patchStato("ANNULLATA"), opts(as("appA")), 403, "403000"},
		{"creator_cannot_put_it_where_it_is", "PUT", pe + "/pendenze/appA/a1", pendenzaBodyFor(d1, t1, citizen1), opts(as("appA")), 403, "403000"},
		{"creator_moves_it_into_scope", "PUT", pe + "/pendenze/appA/a1", pendenzaBodyFor(d2, t1, citizen1), opts(as("appA")), 200, ""},
		{"creator_patches_it_in_scope", "PATCH", pe + "/pendenze/appA/a1", patchStato("ANNULLATA"), opts(as("appA")), 200, ""},
	})
}

// TestPendenzeListsByPayer: every list of pendenze narrows by the payer's
// fiscal code under GovPay's name for it on that API (idDebitore on the
// Backoffice and Pendenze APIs, idPagatore on the Pagamento API, compared
// without case), within what the caller may list. The Backoffice and
// Pagamento lists ignored it, and a portal asking for one payer's
// pendenze got every payer's (the Pendenze API's rows are in
// TestPendenzeCreatorRules).
func TestPendenzeListsByPayer(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "a1", d1, t1, citizen1)
	w.createPendenza(t, "appA", "a2", d1, t1, citizen2)
	w.createPendenza(t, "appB", "b1", d2, t1, citizen1)
	const pgSpid = "/pagamento/rs/spid/v2"
	for _, c := range []struct {
		name, path string
		who        reqOpt
		want       []string
	}{
		{"backoffice_all", bo + "/pendenze", asAdmin(), []string{"a1", "a2", "b1"}},
		{"backoffice_by_debtor", bo + "/pendenze?idDebitore=" + citizen1, asAdmin(), []string{"a1", "b1"}},
		{"backoffice_by_debtor_in_lower_case", bo + "/pendenze?idDebitore=" + strings.ToLower(citizen2), asAdmin(), []string{"a2"}},
		{"backoffice_by_debtor_in_scope", bo + "/pendenze?idDebitore=" + citizen1, as("opD1"), []string{"a1"}},
		{"backoffice_by_debtor_and_entity", bo + "/pendenze?idDebitore=" + citizen1 + "&idDominio=" + d2, asAdmin(), []string{"b1"}},
		{"backoffice_by_no_fiscal_code", bo + "/pendenze?idDebitore=nobody", asAdmin(), nil},
		{"pagamento_all", pg + "/pendenze", as("appA"), []string{"a1", "a2"}},
		{"pagamento_by_payer", pg + "/pendenze?idPagatore=" + citizen2, as("appA"), []string{"a2"}},
		{"pagamento_by_payer_out_of_scope", pg + "/pendenze?idPagatore=" + citizen1, as("appB"), []string{"b1"}},
		{"pagamento_other_apis_name_ignored", pg + "/pendenze?idDebitore=" + citizen2, as("appA"), []string{"a1", "a2"}},
		{"pagamento_citizen_own", pgSpid + "/pendenze?idPagatore=" + citizen1, asSPID(citizen1), []string{"a1", "b1"}},
		{"pagamento_citizen_asks_for_another", pgSpid + "/pendenze?idPagatore=" + citizen2, asSPID(citizen1), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := w.listed(t, c.path, "idPendenza", c.who); !slices.Equal(got, c.want) {
				t.Fatalf("GET %s lists %v, want %v", c.path, got, c.want)
			}
		})
	}
}

// TestRagioneriaPaymentStatoIsOfItsItems: on the Ragioneria API a payment
// touching entities outside the reader's scope answers the state of the
// items it shows (ESEGUITO once receipts cover each of them), list item
// and read alike, so that the state tells nothing of the hidden items:
// it answered the whole payment's, which stayed IN_CORSO while another
// entity's item was unpaid and turned ESEGUITO when that one was paid.
// The Backoffice, which shows a payment only whole, answers the whole
// payment's state.
func TestRagioneriaPaymentStatoIsOfItsItems(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newBackofficeWorld(t)
	pa, pb, pay := w.payAcrossEntities(t, "st")
	expect := func(base string, opt reqOpt, want string) {
		t.Helper()
		var one pagamentoView
		w.must(t, "GET", base+"/pagamenti/"+pay.ID, nil, opt).decode(t, &one)
		var page Page[pagamentoView]
		w.must(t, "GET", base+"/pagamenti", nil, opt).decode(t, &page)
		i := slices.IndexFunc(page.Risultati, func(p pagamentoView) bool { return p.ID == pay.ID })
		if i < 0 || one.Stato != want || page.Risultati[i].Stato != want {
			t.Fatalf("%s: read stato %q, listed %+v; want %q", base, one.Stato, page.Risultati, want)
		}
	}
	receipt := func(p pendenzaView, id string) {
		t.Helper()
		res, err := w.cmds.RecordReceipt(context.Background(), commands.System, commands.RecordReceipt{IDIntermediario: intID,
			IDDominio: p.IDDominio, NumeroAvviso: p.NumeroAvviso, IDRicevuta: id, AmountCents: int64(p.Importo),
			Esito: "ESEGUITO", DataPagamento: "2026-01-02"})
		if err != nil {
			t.Fatalf("record receipt: %v", err)
		}
		w.waitFor(t, res.Position)
	}
	expect(rg, as("appA"), "IN_CORSO")
	receipt(pa, "ST1")
	expect(rg, as("appA"), "ESEGUITO") // its one item is paid, whatever the d2 one
	expect(rg, as("appB"), "IN_CORSO")
	expect(bo, asAdmin(), "IN_CORSO")
	receipt(pb, "ST2")
	for _, reader := range []string{"appA", "appB"} {
		expect(rg, as(reader), "ESEGUITO")
	}
	expect(bo, asAdmin(), "ESEGUITO")
}

// TestCitizenSeesOnlyItsItemsOfAPayment: a payment covering pendenze of
// different payers is read on the Pagamento API by a citizen that is payer
// but not remitter with only the items it is payer of (importo theirs), as
// the Ragioneria API shows only the reader's entities: it answered every
// item, so one payer learned the others' pendenze (ids, notice numbers,
// causali, amounts). The remitter and the starting application read it
// whole; a citizen of none of it is 403.
func TestCitizenSeesOnlyItsItemsOfAPayment(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.putApp(t, "appAll", "appAll", pw, true, apiGrant("PAGAMENTO", []string{"*"}, []string{"*"}))
	const pgSpid = "/pagamento/rs/spid/v2"
	const citizen3 = "BNCGVN75C03L219Y" // payer and remitter of nothing
	p1 := w.createPendenza(t, "appA", "mix-1", d1, t1, citizen1)
	p2 := w.createPendenza(t, "appB", "mix-2", d2, t1, citizen2)
	notices := map[string]any{"pendenze": []map[string]any{
		{"idDominio": d1, "numeroAvviso": p1.NumeroAvviso}, {"idDominio": d2, "numeroAvviso": p2.NumeroAvviso}}}
	var byApp, byCitizen pagamentoCreated
	w.must(t, "POST", pg+"/pagamenti", notices, as("appAll")).decode(t, &byApp)
	w.must(t, "POST", pgSpid+"/pagamenti", notices, asSPID(citizen1)).decode(t, &byCitizen) // citizen1 remits both

	items := func(v pagamentoView) []string {
		var out []string
		for _, it := range v.Pendenze {
			out = append(out, it.IDPendenza)
		}
		return out
	}
	for _, c := range []struct {
		name, base, payment string
		opt                 reqOpt
		want                []string // nil: 403
	}{
		{"payer_sees_its_item_only", pgSpid, byApp.ID, asSPID(citizen1), []string{"mix-1"}},
		{"other_payer_sees_its_item_only", pgSpid, byApp.ID, asSPID(citizen2), []string{"mix-2"}},
		{"starting_application_sees_all", pg, byApp.ID, as("appAll"), []string{"mix-1", "mix-2"}},
		{"remitter_sees_all", pgSpid, byCitizen.ID, asSPID(citizen1), []string{"mix-1", "mix-2"}},
		{"payer_not_remitter_sees_its_item_only", pgSpid, byCitizen.ID, asSPID(citizen2), []string{"mix-2"}},
		{"citizen_of_none_denied", pgSpid, byApp.ID, asSPID(citizen3), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want == nil {
				w.do(t, "GET", c.base+"/pagamenti/"+c.payment, nil, c.opt).expect(t, http.StatusForbidden, "403000")
				return
			}
			var one pagamentoView
			w.must(t, "GET", c.base+"/pagamenti/"+c.payment, nil, c.opt).decode(t, &one)
			var page Page[pagamentoView]
			w.must(t, "GET", c.base+"/pagamenti", nil, c.opt).decode(t, &page)
			i := slices.IndexFunc(page.Risultati, func(p pagamentoView) bool { return p.ID == c.payment })
			if i < 0 {
				t.Fatalf("the list lacks the payment: %+v", page.Risultati)
			}
			var sum Importo
			for _, it := range one.Pendenze {
				sum += it.Importo
			}
			if got, listed := items(one), items(page.Risultati[i]); !slices.Equal(got, c.want) || !slices.Equal(listed, c.want) || one.Importo != sum {
				t.Fatalf("read items %v (importo %v of %v), listed %v; want %v", got, one.Importo, sum, listed, c.want)
			}
		})
	}
}

// TestAnonymousRemitterIsNoCitizen: the soggettoVersante an anonymous
// caller gives is its own say (GovPay stores an anonymous payment's
// remitter as ANONIMO), so it makes no citizen the payment's remitter: the
// citizen it names read the payment whole, every item of the pendenze the
// anonymous caller paid for others included. An application's remitter
// is one (GovPay's portals pay for the citizens they authenticate), and
// the payer of an item still reads that item.
func TestAnonymousRemitterIsNoCitizen(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const pgSpid, pgPub = "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"
	p2 := w.createPendenza(t, "appA", "anon-2", d1, t1, citizen2)
	versante := map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi"}
	body := map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "numeroAvviso": p2.NumeroAvviso}}, "soggettoVersante": versante}
	anon := w.must(t, "POST", pgPub+"/pagamenti", body, withHeader("X-Nothing", "1"))
	var byAnon, byApp pagamentoCreated
	anon.decode(t, &byAnon)
	w.must(t, "POST", pg+"/pagamenti", body, as("appA")).decode(t, &byApp)
	listed := func(t *testing.T, code, id string) bool {
		t.Helper()
		var page Page[pagamentoView]
		w.must(t, "GET", pgSpid+"/pagamenti", nil, asSPID(code)).decode(t, &page)
		return slices.ContainsFunc(page.Risultati, func(p pagamentoView) bool { return p.ID == id })
	}
	runRows(t, w.harness, []row{
		{"named_remitter_of_anonymous_payment_denied", "GET", pgSpid + "/pagamenti/" + byAnon.ID, nil, opts(asSPID(citizen1)), 403, "403000"},
		{"payer_of_anonymous_payment_reads", "GET", pgSpid + "/pagamenti/" + byAnon.ID, nil, opts(asSPID(citizen2)), 200, ""},
		{"anonymous_session_reads", "GET", pgPub + "/pagamenti/" + byAnon.ID, nil, opts(withCookie(sessionCookieOf(anon))), 200, ""},
		{"remitter_of_application_payment_reads", "GET", pgSpid + "/pagamenti/" + byApp.ID, nil, opts(asSPID(citizen1)), 200, ""},
	})
	t.Run("lists", func(t *testing.T) {
		if listed(t, citizen1, byAnon.ID) || !listed(t, citizen2, byAnon.ID) || !listed(t, citizen1, byApp.ID) {
			t.Fatalf("citizen1 lists the anonymous payment %v (want false), citizen2 %v, citizen1 the application's %v (want true)",
				listed(t, citizen1, byAnon.ID), listed(t, citizen2, byAnon.ID), listed(t, citizen1, byApp.ID))
		}
	})
}

// TestPayerNotRemitterIsNotShownTheRemitter: a citizen that reads a
// payment only as payer of some of its items is shown its items paid, not
// who paid them: the payment answers it without soggettoVersante (the
// remitter's fiscal code, name and email, a third party's personal data),
// read and list alike, as GovPay omits an absent optional field. The
// remitter, the application or session that started the payment, and a
// Ragioneria reader or Backoffice operator whose scope covers it are shown
// it.
func TestPayerNotRemitterIsNotShownTheRemitter(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.putApp(t, "appAll", "appAll", pw, true, apiGrant("PAGAMENTO", []string{"*"}, []string{"*"}))
	const pgSpid, pgPub = "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"
	p1 := w.createPendenza(t, "appA", "sv-1", d1, t1, citizen1)
	p2 := w.createPendenza(t, "appB", "sv-2", d2, t1, citizen2)
	versante := map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi", "email": "mario.rossi@example.it"}
	both := []map[string]any{{"idDominio": d1, "numeroAvviso": p1.NumeroAvviso}, {"idDominio": d2, "numeroAvviso": p2.NumeroAvviso}}
	var byApp, byCitizen, byAnon pagamentoCreated
	w.must(t, "POST", pg+"/pagamenti", map[string]any{"pendenze": both, "soggettoVersante": versante}, as("appAll")).decode(t, &byApp)
	w.must(t, "POST", pgSpid+"/pagamenti", map[string]any{"pendenze": both, "soggettoVersante": versante}, asSPID(citizen1)).decode(t, &byCitizen)
	anon := w.must(t, "POST", pgPub+"/pagamenti", map[string]any{"pendenze": both[1:], "soggettoVersante": versante}, withHeader("X-Nothing", "1"))
	anon.decode(t, &byAnon)

	// versanteOf is the identificativo of a payment's soggettoVersante, ""
	// when the field is absent (null is not absent).
	versanteOf := func(t *testing.T, p map[string]json.RawMessage) string {
		t.Helper()
		raw, ok := p["soggettoVersante"]
		if !ok {
			return ""
		}
		var s soggetto
		if err := json.Unmarshal(raw, &s); err != nil || s.Identificativo == "" {
			t.Fatalf("soggettoVersante %s: %v", raw, err)
		}
		return s.Identificativo
	}
	for _, c := range []struct {
		name, base, payment string
		opt                 reqOpt
		want                string // the soggettoVersante shown, "" none
	}{
		{"remitter_of_application_payment_shown", pgSpid, byApp.ID, asSPID(citizen1), citizen1},
		{"payer_not_remitter_of_application_payment_not_shown", pgSpid, byApp.ID, asSPID(citizen2), ""},
		{"starting_application_shown", pg, byApp.ID, as("appAll"), citizen1},
		{"remitter_citizen_shown", pgSpid, byCitizen.ID, asSPID(citizen1), citizen1},
		{"payer_not_remitter_of_citizen_payment_not_shown", pgSpid, byCitizen.ID, asSPID(citizen2), ""},
		{"payer_of_anonymous_payment_not_shown", pgSpid, byAnon.ID, asSPID(citizen2), ""},
		{"anonymous_session_shown", pgPub, byAnon.ID, withCookie(sessionCookieOf(anon)), citizen1},
		{"ragioneria_reader_of_one_item_shown", rg, byApp.ID, as("appB"), citizen1},
		{"backoffice_operator_shown", bo, byApp.ID, asAdmin(), citizen1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var one map[string]json.RawMessage
			w.must(t, "GET", c.base+"/pagamenti/"+c.payment, nil, c.opt).decode(t, &one)
			var page Page[map[string]json.RawMessage]
			w.must(t, "GET", c.base+"/pagamenti", nil, c.opt).decode(t, &page)
			i := slices.IndexFunc(page.Risultati, func(p map[string]json.RawMessage) bool {
				return string(p["id"]) == `"`+c.payment+`"`
			})
			if i < 0 {
				t.Fatalf("the list lacks the payment: %v", page.Risultati)
			}
			if got, listed := versanteOf(t, one), versanteOf(t, page.Risultati[i]); got != c.want || listed != c.want {
				t.Fatalf("read soggettoVersante %q, listed %q; want %q (\"\": absent)", got, listed, c.want)
			}
		})
	}
}
