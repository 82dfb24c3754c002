package httpapi

import (
	"context"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// The Backoffice API tests run against the real service (harness_test.go)
// populated by newWorld (world_test.go) plus what newBackofficeWorld adds:
// an application holding a role, pendenze, payments, reconciliations,
// receipts and settlement reports in both entities, an intermediary and a
// protection setting with secrets.

const (
	dNew      = "33333333333" // registered only by the matrix's PUT
	intID     = "INT1"
	nodeUser  = "node-user"
	nodeSecr  = "node-secret-1"
	capSecret = "captcha-secret-1"
)

type boWorld struct {
	*world
	pIn, pOut     pendenzaView // d1 by appA, d2 by appB
	payIn, payOut string       // payments of pIn and pOut
}

// codiceOf is the FaultBean codice the contract gives each error status.
func codiceOf(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return "SINTASSI"
	case http.StatusUnauthorized:
		return "401000"
	case http.StatusForbidden:
		return "403000"
	case http.StatusNotFound:
		return "404000"
	case http.StatusConflict:
		return "409000"
	case http.StatusUnprocessableEntity:
		return "422000"
	}
	return ""
}

func newBackofficeWorld(t *testing.T, opts ...harnessOption) *boWorld {
	t.Helper()
	w := &boWorld{world: newWorld(t, opts...)}
	ctx := context.Background()

	// appRoled: an application acting on the Backoffice through a role
	// limited to d1 and three read rights.
	w.putRole(t, "appReader", acl{aclOf("Anagrafica Creditore", "R"), aclOf("Pendenze", "R"), aclOf("Pagamenti", "R")},
		[]string{d1}, []string{"*"})
	w.must(t, "PUT", bo+"/applicazioni/appRoled", map[string]any{"principal": "appRoled", "password": pw, "abilitato": true,
		"ruoli": []string{"appReader"}})

	w.must(t, "PUT", bo+"/intermediari/"+intID, map[string]any{"denominazione": "Intermediario 1", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": nodeUser, "password": nodeSecr}})
	w.must(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": false,
		"captcha": map[string]any{"serverURL": "http://127.0.0.1:1/siteverify", "secretKey": capSecret}})

	w.pIn = w.createPendenza(t, "appA", "bo-in", d1, t1, citizen1)
	w.pOut = w.createPendenza(t, "appB", "bo-out", d2, t1, citizen2)
	var pay pagamentoCreated
	w.must(t, "POST", pg+"/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appA", "idPendenza": "bo-in"}}},
		as("appA")).decode(t, &pay)
	w.payIn = pay.ID
	w.must(t, "POST", pg+"/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appB", "idPendenza": "bo-out"}}},
		as("appB")).decode(t, &pay)
	w.payOut = pay.ID

	w.must(t, "PUT", rg+"/riconciliazioni/"+d1+"/ric-in", map[string]any{"importo": 10.5, "causale": "Riversamento"}, as("appA"))
	w.must(t, "PUT", rg+"/riconciliazioni/"+d2+"/ric-out", map[string]any{"importo": 20, "causale": "Riversamento"}, as("appB"))

	// Receipts and settlement reports are recorded through the command
	// handler, as the node API does (the node API itself, and the same data
	// fed through it, are tested in nodo_test.go).
	for i, p := range []pendenzaView{w.pIn, w.pOut} {
		res, err := w.cmds.RecordReceipt(ctx, commands.System, commands.RecordReceipt{IDIntermediario: intID,
			IDDominio: p.IDDominio, NumeroAvviso: p.NumeroAvviso, IDRicevuta: fmt.Sprintf("RIC%d", i),
			AmountCents: int64(p.Importo), Esito: "ESEGUITO", DataPagamento: "2026-01-02"})
		if err != nil {
			t.Fatalf("record receipt: %v", err)
		}
		w.waitFor(t, res.Position)
		res, err = w.cmds.RecordSettlementReport(ctx, commands.System, commands.RecordSettlementReport{IDIntermediario: intID,
			IDFlusso: fmt.Sprintf("FLUSSO-%d", i), IDDominio: p.IDDominio, DataFlusso: "2026-01-03", TotalCents: int64(p.Importo),
			Items: []events.SettlementItem{{NumeroAvviso: p.NumeroAvviso, AmountCents: int64(p.Importo), Esito: 0}}})
		if err != nil {
			t.Fatalf("record settlement report: %v", err)
		}
		w.waitFor(t, res.Position)
	}
	return w
}

func (w *boWorld) waitFor(t *testing.T, pos events.Position) {
	t.Helper()
	if err := w.model.WaitFor(context.Background(), pos); err != nil {
		t.Fatalf("projections did not reach %d: %v", pos, err)
	}
}

// boCaller is one kind of caller of the matrix.
type boCaller struct {
	name string
	opts []reqOpt
}

// The callers that get past authentication and API entry, in the order of
// boOp.want.
var boActive = []boCaller{
	{"admin", opts(asAdmin())},
	{"operator_one_entity", opts(as("opD1"))},
	{"operator_read_only", opts(as("opRO"))},
	{"application_with_role", opts(as("appRoled"))},
}

// The callers that never get in, with the status they get whatever they ask.
var boRefused = []struct {
	boCaller
	status int
}{
	{boCaller{"application_without_roles", opts(as("appA"))}, http.StatusForbidden},
	{boCaller{"operator_without_roles", opts(as("opNoRole"))}, http.StatusForbidden},
	{boCaller{"disabled_operator", opts(as("opDisabled"))}, http.StatusForbidden},
	{boCaller{"disabled_application", opts(as("appDisabled"))}, http.StatusForbidden},
	{boCaller{"unknown_principal", opts(asBasic("nobody", pw))}, http.StatusUnauthorized},
	{boCaller{"wrong_password", opts(asBasic("opD1", "wrong-password"))}, http.StatusUnauthorized},
	{boCaller{"admin_wrong_password", opts(asBasic(adminUser, "wrong-password"))}, http.StatusUnauthorized},
	{boCaller{"no_credentials", nil}, http.StatusUnauthorized},
}

// boOp is one operation with the status each active caller must get.
type boOp struct {
	name   string
	method string
	path   string
	body   any
	want   [4]int // admin, operator_one_entity, operator_read_only, application_with_role
}

func TestBackofficeCallerMatrix(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newBackofficeWorld(t)
	entity := func(id string) map[string]any {
		return map[string]any{"ragioneSociale": "Ente " + id, "abilitato": true}
	}
	zeros := "/pagamenti/" + strings.Repeat("0", 32)
	const ok, created, forbidden, notFound = 200, 201, 403, 404

	ops := []boOp{
		// domini: scoped by entity
		{"get_entity_in_scope", "GET", bo + "/domini/" + d1, nil, [4]int{ok, ok, ok, ok}},
		{"get_entity_out_of_scope", "GET", bo + "/domini/" + d2, nil, [4]int{ok, forbidden, ok, forbidden}},
		{"get_unknown_entity", "GET", bo + "/domini/" + dNone, nil, [4]int{notFound, forbidden, notFound, forbidden}},
		{"list_entities", "GET", bo + "/domini", nil, [4]int{ok, ok, ok, ok}},
		{"put_entity_in_scope", "PUT", bo + "/domini/" + d1, entity(d1), [4]int{ok, ok, forbidden, forbidden}},
		{"put_entity_out_of_scope", "PUT", bo + "/domini/" + d2, entity(d2), [4]int{ok, forbidden, forbidden, forbidden}},
		{"put_new_entity", "PUT", bo + "/domini/" + dNew, entity(dNew), [4]int{created, forbidden, forbidden, forbidden}},
		// tipiPendenza: Anagrafica Creditore, scoped by the role's tipiPendenza (every role here has "*")
		{"get_type", "GET", bo + "/tipiPendenza/" + t1, nil, [4]int{ok, ok, ok, ok}},
		{"get_unknown_type", "GET", bo + "/tipiPendenza/GHOST", nil, [4]int{notFound, notFound, notFound, notFound}},
		{"list_types", "GET", bo + "/tipiPendenza", nil, [4]int{ok, ok, ok, ok}},
		{"put_type", "PUT", bo + "/tipiPendenza/" + t1, map[string]any{"descrizione": "Tipo " + t1, "abilitato": true,
			"pagamentoSpontaneo": false}, [4]int{ok, ok, forbidden, forbidden}},
		// intermediari: Anagrafica PagoPA
		{"get_intermediary", "GET", bo + "/intermediari/" + intID, nil, [4]int{ok, ok, ok, forbidden}},
		{"get_unknown_intermediary", "GET", bo + "/intermediari/NOPE", nil, [4]int{notFound, notFound, notFound, forbidden}},
		{"list_intermediaries", "GET", bo + "/intermediari", nil, [4]int{ok, ok, ok, forbidden}},
		{"put_intermediary", "PUT", bo + "/intermediari/" + intID, map[string]any{"denominazione": "Intermediario 1",
			"abilitato": true, "connettoreNodo": map[string]any{"principal": nodeUser}}, [4]int{ok, ok, forbidden, forbidden}},
		// ruoli and operatori: Anagrafica Ruoli
		{"get_role", "GET", bo + "/ruoli/readOnly", nil, [4]int{ok, ok, ok, forbidden}},
		{"get_unknown_role", "GET", bo + "/ruoli/nope", nil, [4]int{notFound, notFound, notFound, forbidden}},
		{"list_roles", "GET", bo + "/ruoli", nil, [4]int{ok, ok, ok, forbidden}},
		{"put_own_role_unchanged", "PUT", bo + "/ruoli/opD1", map[string]any{"acl": fullACL("R", "W"), "domini": []string{d1},
			"tipiPendenza": []string{"*"}}, [4]int{ok, ok, forbidden, forbidden}},
		{"get_operator", "GET", bo + "/operatori/opRO", nil, [4]int{ok, ok, ok, forbidden}},
		{"get_unknown_operator", "GET", bo + "/operatori/nobody", nil, [4]int{notFound, notFound, notFound, forbidden}},
		{"list_operators", "GET", bo + "/operatori", nil, [4]int{ok, ok, ok, forbidden}},
		{"put_operator_within_scope", "PUT", bo + "/operatori/opNoRole", map[string]any{"ragioneSociale": "Operatore opNoRole",
			"abilitato": true, "ruoli": []string{}}, [4]int{ok, ok, forbidden, forbidden}},
		// applicazioni: Anagrafica Applicazioni
		{"get_application", "GET", bo + "/applicazioni/appA", nil, [4]int{ok, ok, ok, forbidden}},
		{"get_unknown_application", "GET", bo + "/applicazioni/ghost", nil, [4]int{notFound, notFound, notFound, forbidden}},
		{"list_applications", "GET", bo + "/applicazioni", nil, [4]int{ok, ok, ok, forbidden}},
		{"put_application_within_scope", "PUT", bo + "/applicazioni/appC", map[string]any{"principal": "appC", "abilitato": true,
			"ruoli": []string{}, "apiRagioneria": true, "domini": []string{d1}, "tipiPendenza": []string{"*"}},
			[4]int{ok, ok, forbidden, forbidden}},
		// pendenze: Pendenze R scoped by domini × tipi
		{"get_pendenza_in_scope", "GET", bo + "/pendenze/appA/bo-in", nil, [4]int{ok, ok, ok, ok}},
		{"get_pendenza_out_of_scope", "GET", bo + "/pendenze/appB/bo-out", nil, [4]int{ok, forbidden, ok, forbidden}},
		{"get_unknown_pendenza", "GET", bo + "/pendenze/appA/missing", nil, [4]int{notFound, forbidden, notFound, forbidden}},
		{"list_pendenze", "GET", bo + "/pendenze", nil, [4]int{ok, ok, ok, ok}},
		// pagamenti: Pagamenti R scoped by the payment's pendenze
		{"get_payment_in_scope", "GET", bo + "/pagamenti/" + w.payIn, nil, [4]int{ok, ok, ok, ok}},
		{"get_payment_out_of_scope", "GET", bo + "/pagamenti/" + w.payOut, nil, [4]int{ok, forbidden, ok, forbidden}},
		{"get_unknown_payment", "GET", bo + zeros, nil, [4]int{notFound, notFound, notFound, notFound}},
		{"list_payments", "GET", bo + "/pagamenti", nil, [4]int{ok, ok, ok, ok}},
		// Rendicontazioni e Incassi
		{"list_reconciliations", "GET", bo + "/riconciliazioni", nil, [4]int{ok, ok, ok, forbidden}},
		{"list_settlement_reports", "GET", bo + "/flussiRendicontazione", nil, [4]int{ok, ok, ok, forbidden}},
		{"list_collections", "GET", bo + "/riscossioni", nil, [4]int{ok, ok, ok, forbidden}},
		// Giornale degli Eventi, profile, Configurazione e manutenzione
		{"read_event_log", "GET", bo + "/eventi", nil, [4]int{ok, ok, ok, forbidden}},
		{"read_profile", "GET", bo + "/profilo", nil, [4]int{ok, ok, ok, ok}},
		{"reset_cache", "GET", bo + "/operazioni/resetCacheAnagrafica", nil, [4]int{ok, ok, forbidden, forbidden}},
		{"get_hardening", "GET", bo + "/configurazioni/hardening", nil, [4]int{ok, ok, ok, forbidden}},
		{"put_hardening", "PUT", bo + "/configurazioni/hardening", map[string]any{"abilitato": false,
			"captcha": map[string]any{"serverURL": "http://127.0.0.1:1/siteverify"}}, [4]int{ok, ok, forbidden, forbidden}},
	}

	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			for i, c := range boActive {
				t.Run(c.name, func(t *testing.T) {
					res := w.do(t, op.method, op.path, op.body, c.opts...)
					res.expect(t, op.want[i], codiceOf(op.want[i]))
					if op.want[i] == http.StatusForbidden {
						assertNoLeak(t, res, w.pOut)
					}
				})
			}
			for _, c := range boRefused {
				t.Run(c.name, func(t *testing.T) {
					w.do(t, op.method, op.path, op.body, c.opts...).expect(t, c.status, codiceOf(c.status))
				})
			}
		})
	}
}

// assertNoLeak checks that a denial does not carry data of the resource it
// denies.
func assertNoLeak(t *testing.T, res *response, other pendenzaView) {
	t.Helper()
	for _, s := range []string{other.UUID, other.NumeroAvviso, other.SoggettoPagatore.Identificativo} {
		if s != "" && strings.Contains(string(res.Body), s) {
			t.Fatalf("denial leaks %q: %s", s, res.Body)
		}
	}
}

func TestBackofficeAuthTypes(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const spidOperator = "BNCGNN75C03L219K"
	w.putOperator(t, url.PathEscape("CN=op-ssl, O=Ente, C=IT"), pw, true, "readOnly")
	w.putOperator(t, url.PathEscape("/C=IT/O=Ente/CN=op-openssl"), pw, true, "readOnly")
	w.putOperator(t, spidOperator, pw, true, "readOnly")
	sslOp := w.ca.ClientCert(t, pkix.Name{CommonName: "op-ssl", Organization: []string{"Ente"}, Country: []string{"IT"}})
	opensslOp := w.ca.ClientCert(t, pkix.Name{CommonName: "op-openssl", Organization: []string{"Ente"}, Country: []string{"IT"}})
	untrusted := w.otherCA.ClientCert(t, pkix.Name{CommonName: "op-ssl", Organization: []string{"Ente"}, Country: []string{"IT"}})
	stranger := w.ca.ClientCert(t, sslSubject2())
	const sslBO, spidBO = "/backoffice/rs/ssl/v1", "/backoffice/rs/spid/v1"

	runRows(t, w.harness, []row{
		{"ssl_operator", "GET", sslBO + "/domini/" + d1, nil, opts(asCert(sslOp)), 200, ""},
		{"ssl_operator_registered_in_openssl_form", "GET", sslBO + "/domini/" + d1, nil, opts(asCert(opensslOp)), 200, ""},
		{"ssl_operator_read_only_cannot_write", "PUT", sslBO + "/domini/" + d1, map[string]any{"ragioneSociale": "x", "abilitato": true}, opts(asCert(sslOp)), 403, "403000"},
		{"ssl_certificate_of_untrusted_ca", "GET", sslBO + "/domini/" + d1, nil, opts(asCert(untrusted)), 401, "401000"},
		{"ssl_unregistered_subject", "GET", sslBO + "/domini/" + d1, nil, opts(asCert(stranger)), 401, "401000"},
		{"ssl_without_certificate", "GET", sslBO + "/domini/" + d1, nil, opts(viaTLS()), 401, "401000"},
		{"ssl_application_without_roles", "GET", sslBO + "/domini/" + d1, nil, opts(asCert(w.ca.ClientCert(t, sslSubject))), 403, "403000"},
		{"spid_operator", "GET", spidBO + "/domini/" + d1, nil, opts(asSPID("TINIT-" + spidOperator)), 200, ""},
		{"spid_operator_lower_case", "GET", spidBO + "/domini/" + d1, nil, opts(asSPID(strings.ToLower(spidOperator))), 200, ""},
		{"spid_unregistered_citizen", "GET", spidBO + "/domini/" + d1, nil, opts(asSPID(citizen1)), 401, "401000"},
		{"spid_from_untrusted_address", "GET", spidBO + "/domini/" + d1, nil, opts(asSPID(spidOperator), fromLocalAddr("127.0.0.2")), 401, "401000"},
		{"spid_without_header", "GET", spidBO + "/domini/" + d1, nil, nil, 401, "401000"},
		{"public_not_accepted", "GET", "/backoffice/rs/public/v1/profilo", nil, nil, 403, "403"},
		{"public_not_accepted_even_with_credentials", "GET", "/backoffice/rs/public/v1/profilo", nil, opts(asAdmin()), 403, "403"},
		{"unknown_auth_segment", "GET", "/backoffice/rs/oauth/v1/profilo", nil, opts(asAdmin()), 403, "403"},
		{"unknown_auth_segment_on_pagamento", "POST", "/pagamento/rs/header/v2/pagamenti", nil, nil, 403, "403"},
		// The mount's root is under its {auth} segment too: 403 as for a
		// known auth type the API does not accept, never 404.
		{"unknown_auth_segment_mount_root", "GET", "/backoffice/rs/oauth/v1", nil, opts(asAdmin()), 403, "403"},
		{"not_accepted_mount_root", "GET", "/backoffice/rs/public/v1", nil, nil, 403, "403"},
		{"accepted_mount_root", "GET", "/backoffice/rs/basic/v1", nil, opts(asAdmin()), 404, "404000"},
		{"accepted_mount_root_slash", "GET", "/backoffice/rs/basic/v1/", nil, opts(asAdmin()), 404, "404000"},
		{"known_auth_unknown_path", "GET", "/backoffice/rs/basic/v1/nothing-here", nil, opts(asAdmin()), 404, "404000"},
		// The router matches the path as sent: an escaped {auth} names no
		// mount (ids are decoded, mount segments are not), so it is refused
		// as one, never 404.
		{"escaped_auth_segment", "GET", "/backoffice/rs/%62asic/v1/profilo", nil, opts(asAdmin()), 403, "403"},
		{"escaped_auth_segment_not_accepted", "POST", "/nodo/rs/%61pikey/v1/intermediari/X/ricevute", nil, nil, 403, "403"},
		{"not_accepted_is_refused_before_a_garbage_token", "GET", "/backoffice/rs/public/v1/profilo", nil, opts(withHeader("X-Consistency-Token", "garbage")), 403, "403"},
	})

	// The DN principal reads back exactly as registered, through its
	// escaped path segment.
	for _, p := range []string{"CN=op-ssl, O=Ente, C=IT", "/C=IT/O=Ente/CN=op-openssl"} {
		var v operatoreView
		w.must(t, "GET", bo+"/operatori/"+url.PathEscape(p), nil).decode(t, &v)
		if v.Principal != p {
			t.Fatalf("operator principal = %q, want %q", v.Principal, p)
		}
	}
}

func TestBackofficePrincipalPathSegment(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	// A literal "%41" must not be decoded twice into "A".
	w.putOperator(t, url.PathEscape("op%41x"), pw, true)
	var v operatoreView
	w.must(t, "GET", bo+"/operatori/"+url.PathEscape("op%41x"), nil).decode(t, &v)
	if v.Principal != "op%41x" {
		t.Fatalf("principal = %q, want op%%41x", v.Principal)
	}
	w.do(t, "GET", bo+"/operatori/opAx", nil, asAdmin()).expect(t, 404, "404000")
	w.do(t, "GET", bo+"/operatori/a%00b", nil, asAdmin()).expect(t, 400, "SINTASSI")
	w.do(t, "GET", bo+"/operatori/"+strings.Repeat("p", 513), nil, asAdmin()).expect(t, 400, "SINTASSI")
}

// listedDomini decodes a page of T and returns the idDominio of each item.
func listedDomini[T any](t *testing.T, r *response, idDominio func(T) string) []string {
	t.Helper()
	var page Page[T]
	r.decode(t, &page)
	var out []string
	for _, it := range page.Risultati {
		out = append(out, idDominio(it))
	}
	return out
}

func TestBackofficeScopedLists(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newBackofficeWorld(t)
	type lists struct {
		domini, pendenze, pagamenti, riconciliazioni, flussi, riscossioni []string
	}
	read := func(t *testing.T, opt reqOpt) lists {
		t.Helper()
		var l lists
		l.domini = listedDomini(t, w.must(t, "GET", bo+"/domini", nil, opt), func(d dominioView) string { return d.IDDominio })
		l.pendenze = listedDomini(t, w.must(t, "GET", bo+"/pendenze", nil, opt), func(p pendenzaView) string { return p.IDDominio })
		l.pagamenti = listedDomini(t, w.must(t, "GET", bo+"/pagamenti", nil, opt),
			func(p pagamentoView) string { return p.Pendenze[0].IDDominio })
		if r := w.do(t, "GET", bo+"/riconciliazioni", nil, opt); r.Status == 200 {
			l.riconciliazioni = listedDomini(t, r, func(r riconciliazioneView) string { return r.IDDominio })
			l.flussi = listedDomini(t, w.must(t, "GET", bo+"/flussiRendicontazione", nil, opt),
				func(f flussoView) string { return f.IDDominio })
			l.riscossioni = listedDomini(t, w.must(t, "GET", bo+"/riscossioni", nil, opt),
				func(r riscossioneView) string { return r.IDDominio })
		}
		for _, s := range [][]string{l.domini, l.pendenze, l.pagamenti, l.riconciliazioni, l.flussi, l.riscossioni} {
			slices.Sort(s)
		}
		return l
	}
	both, one := []string{d1, d2}, []string{d1}
	cases := []struct {
		name string
		opt  reqOpt
		want lists
	}{
		{"admin_sees_every_entity", asAdmin(), lists{both, both, both, both, both, both}},
		{"read_only_operator_sees_every_entity", as("opRO"), lists{both, both, both, both, both, both}},
		{"operator_one_entity_sees_its_entity", as("opD1"), lists{one, one, one, one, one, one}},
		{"application_with_role_sees_its_entity", as("appRoled"), lists{domini: one, pendenze: one, pagamenti: one}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := read(t, c.opt); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("lists = %+v, want %+v", got, c.want)
			}
		})
	}

	t.Run("filters", func(t *testing.T) {
		var pen Page[pendenzaView]
		w.must(t, "GET", bo+"/pendenze?idDominio="+d2, nil, as("opD1")).decode(t, &pen)
		if pen.NumRisultati != 0 {
			t.Fatalf("opD1 filtering on d2 sees %+v", pen.Risultati)
		}
		w.must(t, "GET", bo+"/pendenze?stato=ESEGUITA&idDominio="+d1, nil).decode(t, &pen)
		if pen.NumRisultati != 1 || pen.Risultati[0].IDPendenza != "bo-in" {
			t.Fatalf("paid pendenze of d1 = %+v", pen.Risultati)
		}
		var ric Page[riconciliazioneView]
		w.must(t, "GET", bo+"/riconciliazioni?idDominio="+d2, nil).decode(t, &ric)
		if ric.NumRisultati != 1 || ric.Risultati[0].ID != "ric-out" || ric.Risultati[0].Importo != 2000 {
			t.Fatalf("reconciliations of d2 = %+v", ric.Risultati)
		}
	})

	t.Run("pagination", func(t *testing.T) {
		var page Page[dominioView]
		w.must(t, "GET", bo+"/domini?risultatiPerPagina=1&pagina=2", nil).decode(t, &page)
		if page.NumRisultati != 2 || page.NumPagine != 2 || page.Pagina != 2 || len(page.Risultati) != 1 ||
			page.Risultati[0].IDDominio != d2 || page.ProssimiRisultati != "" {
			t.Fatalf("page = %+v", page)
		}
		w.must(t, "GET", bo+"/domini?risultatiPerPagina=1", nil).decode(t, &page)
		if page.ProssimiRisultati == "" || !strings.Contains(page.ProssimiRisultati, "pagina=2") {
			t.Fatalf("first page has no link to the next: %+v", page)
		}
		var first Page[dominioView]
		w.must(t, "GET", bo+"/domini", nil).decode(t, &first)
		if first.Pagina != 1 || first.RisultatiPerPagina != 25 || first.NumPagine != 1 || len(first.Risultati) != 2 || first.ProssimiRisultati != "" {
			t.Fatalf("default page = %+v, want pagina 1 of 25 results", first)
		}
	})

	// A right from one role never reaches another role's entities.
	t.Run("rights_keep_their_own_role_scope", func(t *testing.T) {
		w.putRole(t, "pendD1", acl{aclOf("Pendenze", "R")}, []string{d1}, []string{"*"})
		w.putRole(t, "pagD2", acl{aclOf("Pagamenti", "R")}, []string{d2}, []string{"*"})
		w.putOperator(t, "opMix", pw, true, "pendD1", "pagD2")
		runRows(t, w.harness, []row{
			{"pendenza_of_first_role_entity", "GET", bo + "/pendenze/appA/bo-in", nil, opts(as("opMix")), 200, ""},
			{"pendenza_of_second_role_entity", "GET", bo + "/pendenze/appB/bo-out", nil, opts(as("opMix")), 403, "403000"},
			{"payment_of_second_role_entity", "GET", bo + "/pagamenti/" + w.payOut, nil, opts(as("opMix")), 200, ""},
			{"payment_of_first_role_entity", "GET", bo + "/pagamenti/" + w.payIn, nil, opts(as("opMix")), 403, "403000"},
			{"entity_registry_not_given", "GET", bo + "/domini/" + d1, nil, opts(as("opMix")), 403, "403000"},
		})
		// GET /profilo names both roles, and each right with its own
		// role's scope, not the union of the scopes.
		var p profiloView
		w.must(t, "GET", bo+"/profilo", nil, as("opMix")).decode(t, &p)
		type right struct{ ruolo, servizio, autorizzazioni, domini, tipi string }
		var got []right
		for _, a := range p.ACL {
			got = append(got, right{a.Ruolo, a.Servizio, strings.Join(a.Autorizzazioni, ","), strings.Join(a.Domini.IDs, ","), strings.Join(a.TipiPendenza, ",")})
		}
		want := []right{{"pagD2", "Pagamenti", "R", d2, "*"}, {"pendD1", "Pendenze", "R", d1, "*"}}
		slices.SortFunc(got, func(a, b right) int { return strings.Compare(a.ruolo, b.ruolo) })
		if !slices.Equal(p.Ruoli, []string{"pendD1", "pagD2"}) && !slices.Equal(p.Ruoli, []string{"pagD2", "pendD1"}) || !slices.Equal(got, want) {
			t.Fatalf("opMix's profile: ruoli %v, rights %+v; want both roles, rights %+v", p.Ruoli, got, want)
		}
	})
}

func TestBackofficeProfile(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newBackofficeWorld(t)
	var p profiloView
	w.must(t, "GET", bo+"/profilo", nil, as("opD1")).decode(t, &p)
	if p.Principal != "opD1" || p.Tipo != "OPERATOR" || p.IDA2A != "" || !slices.Equal(p.Ruoli, []string{"opD1"}) ||
		len(p.ACL) != len(allServices) {
		t.Fatalf("operator profile = %+v", p)
	}
	// GovPay's shape: nome, and the entities and types the roles reach as objects.
	if p.Nome != "opD1" || len(p.Domini) != 1 || p.Domini[0].IDDominio != d1 || p.Domini[0].RagioneSociale == "" ||
		len(p.TipiPendenza) == 0 {
		t.Fatalf("operator profile's GovPay scope = %+v / %+v", p.Domini, p.TipiPendenza)
	}
	for _, a := range p.ACL {
		if a.Ruolo != "opD1" || !slices.Equal(a.Domini.IDs, []string{d1}) || !slices.Equal(a.TipiPendenza, []string{"*"}) ||
			!slices.Equal(a.Autorizzazioni, []string{"R", "W"}) {
			t.Fatalf("operator right = %+v", a)
		}
	}
	w.must(t, "GET", bo+"/profilo", nil, as("appRoled")).decode(t, &p)
	if p.Principal != "appRoled" || p.Tipo != "APPLICATION" || p.IDA2A != "appRoled" || len(p.ACL) != 3 {
		t.Fatalf("application profile = %+v", p)
	}
	for _, a := range p.ACL {
		if !slices.Equal(a.Autorizzazioni, []string{"R"}) || !slices.Equal(a.Domini.IDs, []string{d1}) {
			t.Fatalf("application right = %+v", a)
		}
	}
	body := string(w.must(t, "GET", bo+"/profilo", nil).Body)
	if strings.Contains(body, "password") || strings.Contains(body, "argon2") {
		t.Fatalf("profile leaks a secret: %s", body)
	}
}

// secrets are strings no Backoffice answer may hold.
var secrets = []string{pw, nodeSecr, capSecret, "new-password-1", "passwordHash", "connettorePasswordHash", "secretKey",
	"$argon2id$", "$2a$", "$2b$", `"password"`}

func assertNoSecrets(t *testing.T, what string, body []byte) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(string(body), s) {
			t.Fatalf("%s leaks %q: %s", what, s, body)
		}
	}
}

func TestBackofficePutCreatesThenUpdates(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	cases := []struct {
		name           string
		path           string
		create, update map[string]any
		changed        string // a field of the update's answer that shows the change
	}{
		{"entity", "/domini/" + dNew,
			map[string]any{"ragioneSociale": "Nuovo ente", "abilitato": true},
			map[string]any{"idDominio": dNew, "ragioneSociale": "Ente rinominato", "abilitato": false}, "Ente rinominato"},
		{"pendenza_type", "/tipiPendenza/NUOVO",
			map[string]any{"descrizione": "Nuovo tipo", "abilitato": true, "pagamentoSpontaneo": true},
			map[string]any{"descrizione": "Tipo rinominato", "abilitato": true, "pagamentoSpontaneo": false}, "Tipo rinominato"},
		{"intermediary", "/intermediari/INT9",
			map[string]any{"denominazione": "Nuovo", "abilitato": true, "connettoreNodo": map[string]any{"principal": "node-9", "password": nodeSecr}},
			map[string]any{"denominazione": "Rinominato", "abilitato": true, "connettoreNodo": map[string]any{"principal": "node-9"}}, "Rinominato"},
		{"role", "/ruoli/R9",
			map[string]any{"acl": acl{aclOf("Pendenze", "R")}, "domini": []string{d1}, "tipiPendenza": []string{t1}},
			map[string]any{"idRuolo": "R9", "acl": acl{aclOf("Pendenze", "R", "W")}, "domini": []string{d1, d2}, "tipiPendenza": []string{"*"}}, d2},
		{"operator", "/operatori/op9",
			map[string]any{"ragioneSociale": "Operatore 9", "password": pw, "abilitato": true, "ruoli": []string{}},
			map[string]any{"ragioneSociale": "Operatore nove", "password": "new-password-1", "abilitato": true, "ruoli": []string{"readOnly"}}, "Operatore nove"},
		{"application", "/applicazioni/app9",
			map[string]any{"principal": "app9", "password": pw, "abilitato": true, "ruoli": []string{}, "apiPendenze": true,
				"domini": []string{d1}, "tipiPendenza": []string{"*"}},
			map[string]any{"principal": "app9", "password": "new-password-1", "abilitato": true, "ruoli": []string{},
				"autorizzazioniApi": []map[string]any{apiGrant("RAGIONERIA", []string{d2}, []string{"*"})}}, "RAGIONERIA"},
		{"hardening", "/configurazioni/hardening",
			map[string]any{"abilitato": true, "captcha": map[string]any{"serverURL": "http://127.0.0.1:1/siteverify", "secretKey": capSecret, "soglia": 0.5}},
			map[string]any{"abilitato": false, "captcha": map[string]any{"serverURL": "http://127.0.0.1:1/siteverify", "soglia": 0.7}}, "0.7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			first := w.do(t, "PUT", bo+c.path, c.create, asAdmin())
			first.expect(t, http.StatusCreated, "")
			second := w.do(t, "PUT", bo+c.path, c.update, asAdmin())
			second.expect(t, http.StatusOK, "")
			if !strings.Contains(string(second.Body), c.changed) {
				t.Fatalf("update answer does not show %q: %s", c.changed, second.Body)
			}
			repeat := w.do(t, "PUT", bo+c.path, c.update, asAdmin())
			repeat.expect(t, http.StatusOK, "")
			for _, r := range []*response{first, second, repeat} {
				assertNoSecrets(t, "PUT "+c.path, r.Body)
				if r.Header.Get(ConsistencyHeader) == "" {
					t.Fatalf("PUT %s answered without %s", c.path, ConsistencyHeader)
				}
			}
			// The answer is the stored resource: a GET carrying the
			// write's token reads the same.
			got := w.must(t, "GET", bo+c.path, nil, asAdmin(), withToken(second.Header.Get(ConsistencyHeader)))
			assertNoSecrets(t, "GET "+c.path, got.Body)
			var a, b any
			second.decode(t, &a)
			got.decode(t, &b)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("PUT answered %s, GET reads %s", second.Body, got.Body)
			}
		})
	}
	// The new password took effect and the old one no longer works.
	w.do(t, "GET", bo+"/profilo", nil, asBasic("op9", "new-password-1")).expect(t, 200, "")
	w.do(t, "GET", bo+"/profilo", nil, asBasic("op9", pw)).expect(t, 401, "401000")
	// Every list is free of secrets too.
	for _, path := range []string{"/domini", "/tipiPendenza", "/intermediari", "/ruoli", "/operatori", "/applicazioni"} {
		assertNoSecrets(t, "GET "+path, w.must(t, "GET", bo+path, nil).Body)
	}
}

// applicationView decodes an application answer keeping track of which
// fields are present.
func applicationView(t *testing.T, r *response) (applicazioneView, map[string]json.RawMessage) {
	t.Helper()
	var v applicazioneView
	var raw map[string]json.RawMessage
	r.decode(t, &v)
	r.decode(t, &raw)
	return v, raw
}

func TestBackofficeApplicationShapes(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	path := bo + "/applicazioni/shapes"
	base := func() map[string]any {
		return map[string]any{"principal": "shapes", "password": pw, "abilitato": true, "ruoli": []string{}}
	}
	with := func(m map[string]any, kv ...any) map[string]any {
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}

	t.Run("govpay_shape", func(t *testing.T) {
		r := w.do(t, "PUT", path, with(base(), "apiPagamenti", true, "apiPendenze", true, "apiRagioneria", false,
			"domini", []string{d1}, "tipiPendenza", []string{t1}), asAdmin())
		r.expect(t, 201, "")
		v, _ := applicationView(t, r)
		want := []autorizzazioneAPI{{"PAGAMENTO", dominiList{IDs: []string{d1}}, []string{t1}}, {"PENDENZE", dominiList{IDs: []string{d1}}, []string{t1}}}
		if !v.APIPagamenti || !v.APIPendenze || v.APIRagioneria || !slices.Equal(v.Domini.IDs, []string{d1}) ||
			!slices.Equal(v.TipiPendenza, []string{t1}) || !reflect.DeepEqual(v.AutorizzazioniAPI, want) {
			t.Fatalf("application = %+v", v)
		}
	})

	t.Run("scope_per_api", func(t *testing.T) {
		r := w.do(t, "PUT", path, with(base(), "autorizzazioniApi", []map[string]any{
			apiGrant("PENDENZE", []string{d1}, []string{"*"}), apiGrant("RAGIONERIA", []string{d2}, []string{"*"})}), asAdmin())
		r.expect(t, 200, "")
		v, raw := applicationView(t, r)
		if v.APIPagamenti || !v.APIPendenze || !v.APIRagioneria || len(v.AutorizzazioniAPI) != 2 {
			t.Fatalf("application = %+v", v)
		}
		if _, ok := raw["domini"]; ok {
			t.Fatalf("domini shown although the scopes differ: %s", r.Body)
		}
	})

	t.Run("no_grant_shows_the_empty_scope", func(t *testing.T) {
		// The contract names domini and tipiPendenza: without any grant
		// they are the empty scope, [], not absent, and PUT takes them back.
		r := w.do(t, "PUT", path, base(), asAdmin())
		r.expect(t, 200, "")
		_, raw := applicationView(t, r)
		for _, f := range []string{"domini", "tipiPendenza"} {
			if string(raw[f]) != "[]" {
				t.Fatalf("%s = %s, want []: %s", f, raw[f], r.Body)
			}
		}
		var got, again map[string]any
		w.must(t, "GET", path, nil).decode(t, &got)
		w.must(t, "PUT", path, got, asAdmin()).decode(t, &again)
		if !reflect.DeepEqual(got, again) {
			t.Fatalf("round trip changed the application: %v → %v", got, again)
		}
	})

	t.Run("get_body_puts_back_unchanged", func(t *testing.T) {
		var got map[string]any
		w.must(t, "GET", path, nil).decode(t, &got)
		r := w.do(t, "PUT", path, got, asAdmin())
		r.expect(t, 200, "")
		var again map[string]any
		r.decode(t, &again)
		if !reflect.DeepEqual(got, again) {
			t.Fatalf("round trip changed the application: %v → %v", got, again)
		}
		// The same with one shared scope, where GET shows domini too.
		w.must(t, "PUT", path, with(base(), "apiPendenze", true, "domini", []string{d1}, "tipiPendenza", []string{"*"}))
		w.must(t, "GET", path, nil).decode(t, &got)
		w.do(t, "PUT", path, got, asAdmin()).expect(t, 200, "")
	})

	t.Run("both_shapes_agreeing", func(t *testing.T) {
		r := w.do(t, "PUT", path, with(base(), "apiPendenze", true, "apiPagamenti", false, "domini", []string{d2},
			"autorizzazioniApi", []map[string]any{apiGrant("PENDENZE", []string{d2}, []string{"*"})}), asAdmin())
		r.expect(t, 200, "")
		if v, _ := applicationView(t, r); !v.APIPendenze || v.APIPagamenti || !slices.Equal(v.Domini.IDs, []string{d2}) {
			t.Fatalf("application = %+v", v)
		}
	})

	conflicts := []struct {
		name string
		body map[string]any
	}{
		{"boolean_true_api_not_listed", with(base(), "apiPagamenti", true,
			"autorizzazioniApi", []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})})},
		{"boolean_false_api_listed", with(base(), "apiPendenze", false,
			"autorizzazioniApi", []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})})},
		{"boolean_true_empty_list", with(base(), "apiPendenze", true, "autorizzazioniApi", []map[string]any{})},
		{"domini_differ", with(base(), "domini", []string{d2},
			"autorizzazioniApi", []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})})},
		{"tipi_differ", with(base(), "tipiPendenza", []string{t1},
			"autorizzazioniApi", []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})})},
		{"grant_without_scope", with(base(), "autorizzazioniApi", []map[string]any{{"api": "PENDENZE"}})},
		{"grant_of_unknown_api", with(base(), "autorizzazioniApi", []map[string]any{apiGrant("NODO", []string{d1}, []string{"*"})})},
		{"grant_of_backoffice", with(base(), "autorizzazioniApi", []map[string]any{apiGrant("BACKOFFICE", []string{d1}, []string{"*"})})},
		{"same_api_twice", with(base(), "autorizzazioniApi", []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"}),
			apiGrant("PENDENZE", []string{d2}, []string{"*"})})},
		{"bad_entity_in_scope", with(base(), "apiPendenze", true, "domini", []string{"123"})},
		{"id_in_body_differs_from_path", with(base(), "idA2A", "other")},
	}
	for _, c := range conflicts {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, "PUT", path, c.body, asAdmin()).expect(t, 400, "SINTASSI")
		})
	}

	t.Run("govpay_shape_without_apis_revokes_everything", func(t *testing.T) {
		r := w.do(t, "PUT", path, base(), asAdmin())
		r.expect(t, 200, "")
		v, raw := applicationView(t, r)
		if v.APIPagamenti || v.APIPendenze || v.APIRagioneria || len(v.AutorizzazioniAPI) != 0 || string(raw["autorizzazioniApi"]) != "[]" {
			t.Fatalf("application = %s", r.Body)
		}
	})
}

func TestBackofficeGrantAndRevokeTakeEffectAtOnce(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newBackofficeWorld(t)
	app := func(roles []string, extra ...any) map[string]any {
		m := map[string]any{"principal": "appNone", "abilitato": true, "ruoli": roles}
		for i := 0; i < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	// No X-Consistency-Token and no reset between the write and the check:
	// the write answers only after this replica applied it.
	steps := []struct {
		name         string
		method, path string
		body         any
		checkPath    string
		checkAs      reqOpt
		wantStatus   int
	}{
		{"application_role_granted", "PUT", bo + "/applicazioni/appNone", app([]string{"readOnly"}), bo + "/domini", as("appNone"), 200},
		{"application_role_revoked", "PUT", bo + "/applicazioni/appNone", app([]string{}), bo + "/domini", as("appNone"), 403},
		{"application_api_granted", "PUT", bo + "/applicazioni/appNone", app([]string{}, "apiRagioneria", true, "domini", []string{d1}, "tipiPendenza", []string{"*"}),
			rg + "/riconciliazioni", as("appNone"), 200},
		{"application_api_scope_narrowed", "PUT", bo + "/applicazioni/appNone", app([]string{}, "apiRagioneria", true, "domini", []string{d2}, "tipiPendenza", []string{"*"}),
			rg + "/flussiRendicontazione/" + d1 + "/FLUSSO-0", as("appNone"), 403},
		{"application_api_revoked", "PUT", bo + "/applicazioni/appNone", app([]string{}), rg + "/riconciliazioni", as("appNone"), 403},
		{"operator_role_granted", "PUT", bo + "/operatori/opNoRole", map[string]any{"ragioneSociale": "x", "abilitato": true, "ruoli": []string{"readOnly"}},
			bo + "/pendenze", as("opNoRole"), 200},
		{"role_redefined_without_pendenze", "PUT", bo + "/ruoli/readOnly", map[string]any{"acl": acl{aclOf("Anagrafica Creditore", "R")},
			"domini": []string{"*"}, "tipiPendenza": []string{"*"}}, bo + "/pendenze", as("opNoRole"), 403},
		{"role_redefined_with_pendenze", "PUT", bo + "/ruoli/readOnly", map[string]any{"acl": acl{aclOf("Pendenze", "R")},
			"domini": []string{d1}, "tipiPendenza": []string{"*"}}, bo + "/pendenze/appB/bo-out", as("opNoRole"), 403},
		{"role_scope_widened", "PUT", bo + "/ruoli/readOnly", map[string]any{"acl": acl{aclOf("Pendenze", "R")},
			"domini": []string{"*"}, "tipiPendenza": []string{"*"}}, bo + "/pendenze/appB/bo-out", as("opNoRole"), 200},
		{"operator_disabled", "PUT", bo + "/operatori/opNoRole", map[string]any{"ragioneSociale": "x", "abilitato": false, "ruoli": []string{"readOnly"}},
			bo + "/pendenze", as("opNoRole"), 403},
		{"operator_enabled", "PUT", bo + "/operatori/opNoRole", map[string]any{"ragioneSociale": "x", "abilitato": true, "ruoli": []string{"readOnly"}},
			bo + "/pendenze", as("opNoRole"), 200},
		{"operator_password_changed", "PUT", bo + "/operatori/opNoRole", map[string]any{"ragioneSociale": "x", "password": "new-password-1", "abilitato": true, "ruoli": []string{"readOnly"}},
			bo + "/pendenze", as("opNoRole"), 401},
		{"operator_role_revoked", "PUT", bo + "/operatori/opNoRole", map[string]any{"ragioneSociale": "x", "abilitato": true, "ruoli": []string{}},
			bo + "/profilo", asBasic("opNoRole", "new-password-1"), 403},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			w.must(t, s.method, s.path, s.body)
			w.do(t, "GET", s.checkPath, nil, s.checkAs).expect(t, s.wantStatus, codiceOf(s.wantStatus))
		})
	}
}

func TestBackofficeDelegationLimits(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newBackofficeWorld(t)
	// opNarrow may manage roles, operators and applications, but only with
	// Pendenze R on d1 × TARI.
	w.putRole(t, "narrow", acl{aclOf("Anagrafica Ruoli", "R", "W"), aclOf("Anagrafica Applicazioni", "R", "W"), aclOf("Pendenze", "R")},
		[]string{d1}, []string{t1})
	w.putOperator(t, "opNarrow", pw, true, "narrow")
	role := func(domini, tipi []string, entries ...map[string]any) map[string]any {
		if entries == nil {
			entries = acl{}
		}
		return map[string]any{"acl": entries, "domini": domini, "tipiPendenza": tipi}
	}
	app := func(id string, grants ...map[string]any) map[string]any {
		if grants == nil {
			grants = []map[string]any{}
		}
		return map[string]any{"principal": id, "password": pw, "abilitato": true, "ruoli": []string{}, "autorizzazioniApi": grants}
	}
	pendR := aclOf("Pendenze", "R")
	runRows(t, w.harness, []row{
		// roles
		{"grants_own_right_and_scope", "PUT", bo + "/ruoli/n1", role([]string{d1}, []string{t1}, pendR), opts(as("opNarrow")), 201, ""},
		{"cannot_grant_all_entities", "PUT", bo + "/ruoli/n2", role([]string{"*"}, []string{t1}, pendR), opts(as("opNarrow")), 403, "403000"},
		{"cannot_grant_other_entity", "PUT", bo + "/ruoli/n2", role([]string{d2}, []string{t1}, pendR), opts(as("opNarrow")), 403, "403000"},
		{"cannot_grant_all_types", "PUT", bo + "/ruoli/n2", role([]string{d1}, []string{"*"}, pendR), opts(as("opNarrow")), 403, "403000"},
		{"cannot_grant_write_it_lacks", "PUT", bo + "/ruoli/n2", role([]string{d1}, []string{t1}, aclOf("Pendenze", "R", "W")), opts(as("opNarrow")), 403, "403000"},
		{"cannot_grant_service_it_lacks", "PUT", bo + "/ruoli/n2", role([]string{d1}, []string{t1}, aclOf("Pagamenti", "R")), opts(as("opNarrow")), 403, "403000"},
		{"empty_role_is_nothing_to_delegate", "PUT", bo + "/ruoli/n3", role([]string{}, []string{}), opts(as("opNarrow")), 201, ""},
		// A role giving no right still grants its scope, which GET /profilo
		// names (every entity's ragioneSociale for "*"): "*" needs "*".
		{"rightless_role_own_scope", "PUT", bo + "/ruoli/n4", role([]string{d1}, []string{t1}), opts(as("opNarrow")), 201, ""},
		{"rightless_role_all_entities", "PUT", bo + "/ruoli/n5", role([]string{"*"}, []string{"*"}), opts(as("opNarrow")), 403, "403000"},
		{"rightless_role_other_entity", "PUT", bo + "/ruoli/n5", role([]string{d2}, []string{}), opts(as("opNarrow")), 403, "403000"},
		{"admin_defines_rightless_star_role", "PUT", bo + "/ruoli/vista", role([]string{"*"}, []string{"*"}), opts(asAdmin()), 201, ""},
		{"cannot_take_rightless_star_role", "PUT", bo + "/operatori/opNarrow", map[string]any{"ragioneSociale": "x", "abilitato": true, "ruoli": []string{"narrow", "vista"}}, opts(as("opNarrow")), 403, "403000"},
		// applications
		{"application_grant_own_scope", "PUT", bo + "/applicazioni/nApp", app("nApp", apiGrant("PENDENZE", []string{d1}, []string{t1})), opts(as("opNarrow")), 201, ""},
		{"application_grant_all_entities", "PUT", bo + "/applicazioni/nApp2", app("nApp2", apiGrant("PENDENZE", []string{"*"}, []string{t1})), opts(as("opNarrow")), 403, "403000"},
		{"application_grant_other_entity", "PUT", bo + "/applicazioni/nApp2", app("nApp2", apiGrant("PENDENZE", []string{d2}, []string{t1})), opts(as("opNarrow")), 403, "403000"},
		{"application_grant_all_types_govpay_shape", "PUT", bo + "/applicazioni/nApp2", map[string]any{"principal": "nApp2", "abilitato": true, "ruoli": []string{},
			"apiPendenze": true, "domini": []string{d1}, "tipiPendenza": []string{"*"}}, opts(as("opNarrow")), 403, "403000"},
		{"application_role_it_cannot_grant", "PUT", bo + "/applicazioni/nApp2", map[string]any{"principal": "nApp2", "abilitato": true, "ruoli": []string{"readOnly"}}, opts(as("opNarrow")), 403, "403000"},
		{"application_role_it_can_grant", "PUT", bo + "/applicazioni/nApp2", map[string]any{"principal": "nApp2", "password": pw, "abilitato": true, "ruoli": []string{"n1"}}, opts(as("opNarrow")), 201, ""},
		// operators
		{"operator_role_it_can_grant", "PUT", bo + "/operatori/nOp", map[string]any{"ragioneSociale": "x", "password": pw, "abilitato": true, "ruoli": []string{"n1"}}, opts(as("opNarrow")), 201, ""},
		{"operator_admin_role", "PUT", bo + "/operatori/nOp2", map[string]any{"ragioneSociale": "x", "password": pw, "abilitato": true, "ruoli": []string{"Amministratore"}}, opts(as("opNarrow")), 403, "403000"},
		{"operator_own_role_wider_than_granted_types", "PUT", bo + "/operatori/nOp2", map[string]any{"ragioneSociale": "x", "password": pw, "abilitato": true, "ruoli": []string{"opD1"}}, opts(as("opNarrow")), 403, "403000"},
		// No takeover: a limited operator cannot manage a principal, or
		// redefine a role, more powerful than itself.
		{"cannot_reset_admin_password", "PUT", bo + "/operatori/" + adminUser, map[string]any{"ragioneSociale": "x", "password": "taken-over-1", "abilitato": true, "ruoli": []string{"Amministratore"}}, opts(as("opD1")), 403, "403000"},
		{"cannot_disable_admin", "PUT", bo + "/operatori/" + adminUser, map[string]any{"ragioneSociale": "x", "abilitato": false, "ruoli": []string{"Amministratore"}}, opts(as("opD1")), 403, "403000"},
		{"cannot_strip_wider_role", "PUT", bo + "/operatori/opRO", map[string]any{"ragioneSociale": "x", "abilitato": true, "ruoli": []string{}}, opts(as("opD1")), 403, "403000"},
		{"cannot_reset_wider_application_password", "PUT", bo + "/applicazioni/appB", app("appB", apiGrant("PENDENZE", []string{"*"}, []string{"*"}),
			apiGrant("PAGAMENTO", []string{d2}, []string{"*"}), apiGrant("RAGIONERIA", []string{d2}, []string{"*"})), opts(as("opD1")), 403, "403000"},
		{"cannot_redefine_admin_role", "PUT", bo + "/ruoli/Amministratore", role([]string{d1}, []string{"*"}, pendR), opts(as("opD1")), 403, "403000"},
		{"manages_application_within_scope", "PUT", bo + "/applicazioni/appA", app("appA", apiGrant("PENDENZE", []string{d1}, []string{"*"}),
			apiGrant("PAGAMENTO", []string{d1}, []string{"*"}), apiGrant("RAGIONERIA", []string{d1}, []string{"*"})), opts(as("opD1")), 200, ""},
		{"manages_itself", "PUT", bo + "/operatori/opD1", map[string]any{"ragioneSociale": "Operatore D1", "abilitato": true, "ruoli": []string{"opD1"}}, opts(as("opD1")), 200, ""},
		// the administrator holds everything
		{"admin_grants_all", "PUT", bo + "/ruoli/all", role([]string{"*"}, []string{"*"}, pendR), opts(asAdmin()), 201, ""},
		{"admin_redefines_role", "PUT", bo + "/ruoli/readOnly", role([]string{"*"}, []string{"*"}, pendR), opts(asAdmin()), 200, ""},
	})
	w.do(t, "GET", bo+"/profilo", nil, asAdmin()).expect(t, 200, "")
	w.do(t, "GET", bo+"/profilo", nil, asBasic(adminUser, "taken-over-1")).expect(t, 401, "401000")
}

// logEntry is one event as the store holds it, for comparing with /eventi.
type logEntry struct {
	pos          uint64
	index, size  int
	tipo, stream string
}

func readLog(t *testing.T, s events.Store) []logEntry {
	t.Helper()
	var out []logEntry
	err := s.Read(context.Background(), 0, func(_ context.Context, env events.Envelope) error {
		out = append(out, logEntry{uint64(env.Position), env.Index, env.CommitSize, env.Name, env.Stream})
		return nil
	})
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	return out
}

// pageThrough reads /eventi page by page from da=1 until prossimaPosizione
// stops moving, returning the events and the pages' sizes.
func (w *boWorld) pageThrough(t *testing.T, limite int, opt reqOpt) ([]operations.EventEntry, []eventiPage) {
	t.Helper()
	var all []operations.EventEntry
	var pages []eventiPage
	da := uint64(1)
	for range 10000 {
		var p eventiPage
		r := w.must(t, "GET", fmt.Sprintf("%s/eventi?da=%d&limite=%d", bo, da, limite), nil, opt)
		assertNoSecrets(t, "/eventi", r.Body)
		r.decode(t, &p)
		if p.ProssimaPosizione < da {
			t.Fatalf("prossimaPosizione went back from %d to %d", da, p.ProssimaPosizione)
		}
		for _, e := range p.Risultati {
			if e.Posizione < da || e.Posizione >= p.ProssimaPosizione {
				t.Fatalf("event at %d in the page [%d, %d)", e.Posizione, da, p.ProssimaPosizione)
			}
		}
		all = append(all, p.Risultati...)
		pages = append(pages, p)
		if p.ProssimaPosizione == da {
			if len(p.Risultati) != 0 {
				t.Fatalf("end page holds events: %+v", p)
			}
			return all, pages
		}
		da = p.ProssimaPosizione
	}
	t.Fatal("paging did not end")
	return nil, nil
}

func TestBackofficeEventLog(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newBackofficeWorld(t)
	log := readLog(t, w.store)
	multi := false
	for _, e := range log {
		multi = multi || e.size > 1
	}
	if !multi {
		t.Fatal("the world has no commit of several events; the no-split check would be vacuous")
	}

	for _, limite := range []int{1, 2, 7, 1000} {
		t.Run(fmt.Sprintf("limite_%d", limite), func(t *testing.T) {
			got, pages := w.pageThrough(t, limite, asAdmin())
			if len(got) != len(log) {
				t.Fatalf("paging returned %d events, the log holds %d", len(got), len(log))
			}
			for i, e := range got {
				l := log[i]
				if e.Posizione != l.pos || e.Tipo != l.tipo || e.Stream != l.stream {
					t.Fatalf("event %d = %d %s %s, want %d %s %s", i, e.Posizione, e.Tipo, e.Stream, l.pos, l.tipo, l.stream)
				}
				if !json.Valid(e.Dati) || e.Dati[0] != '{' || e.Data.IsZero() {
					t.Fatalf("event %d: dati %s, data %v", i, e.Dati, e.Data)
				}
			}
			// No page splits a commit, and a page exceeds limite only to
			// keep one commit whole.
			for _, p := range pages {
				counts := map[uint64]int{}
				for _, e := range p.Risultati {
					counts[e.Posizione]++
				}
				for pos, n := range counts {
					for _, l := range log {
						if l.pos == pos && l.size != n {
							t.Fatalf("page [%d..) holds %d of the %d events at %d", p.ProssimaPosizione, n, l.size, pos)
						}
					}
				}
				if n := len(p.Risultati); n > limite {
					lastCommit := counts[p.Risultati[n-1].Posizione]
					if n-lastCommit >= limite {
						t.Fatalf("page of %d events for limite %d did not stop before its last commit", n, limite)
					}
				}
			}
		})
	}

	t.Run("actor_and_redaction", func(t *testing.T) {
		got, _ := w.pageThrough(t, 1000, asAdmin())
		seen := map[string]bool{}
		for _, e := range got {
			seen[e.Tipo] = true
			if e.Tipo == "OperatorRegistered" && e.Attore == "" {
				t.Fatalf("operator registration without attore: %+v", e)
			}
			if e.Tipo == "IntermediaryRegistered" && !strings.Contains(string(e.Dati), nodeUser) {
				t.Fatalf("redaction removed more than the secrets: %s", e.Dati)
			}
		}
		for _, tipo := range []string{"OperatorRegistered", "ApplicationRegistered", "IntermediaryRegistered", "PublicAPIProtectionConfigured", "ReceiptRecorded"} {
			if !seen[tipo] {
				t.Fatalf("no %s in the log: the secrets check would be vacuous", tipo)
			}
		}
	})

	t.Run("scoped_caller_sees_only_its_entity", func(t *testing.T) {
		var want []logEntry
		err := w.store.Read(context.Background(), 0, func(_ context.Context, env events.Envelope) error {
			d := domain.PlacesOf(env.Event, nil)
			if len(d) > 0 && !slices.ContainsFunc(d, func(pl domain.Place) bool { return pl.IDDominio != d1 }) {
				want = append(want, logEntry{pos: uint64(env.Position), tipo: env.Name, stream: env.Stream})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := w.pageThrough(t, 1, as("opD1"))
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("opD1 sees %d events, want %d", len(got), len(want))
		}
		for i, e := range got {
			if e.Posizione != want[i].pos || e.Tipo != want[i].tipo || strings.Contains(string(e.Dati), d2) {
				t.Fatalf("opD1 sees %+v, want %+v", e, want[i])
			}
		}
	})

	last := log[len(log)-1].pos
	for _, r := range []struct {
		name   string
		query  string
		status int
	}{
		{"da_negative", "da=-1", 400},
		{"da_not_a_number", "da=abc", 400},
		{"da_fraction", "da=1.5", 400},
		{"da_overflow", "da=99999999999999999999999", 400},
		{"limite_zero", "limite=0", 400},
		{"limite_over_max", "limite=1001", 400},
		{"limite_negative", "limite=-5", 400},
		{"limite_not_a_number", "limite=ten", 400},
		{"limite_max", "limite=1000", 200},
		{"da_zero_reads_from_the_start", "da=0&limite=1", 200},
	} {
		t.Run(r.name, func(t *testing.T) {
			w.do(t, "GET", bo+"/eventi?"+r.query, nil, asAdmin()).expect(t, r.status, codiceOf(r.status))
		})
	}
	t.Run("beyond_the_end", func(t *testing.T) {
		var p eventiPage
		da := last + 100
		w.must(t, "GET", fmt.Sprintf("%s/eventi?da=%d", bo, da), nil).decode(t, &p)
		if len(p.Risultati) != 0 || p.ProssimaPosizione != da {
			t.Fatalf("page beyond the end = %+v", p)
		}
	})
}

// TestEventLogPageBounds: GET /eventi answers {"risultati": [...],
// "prossimaPosizione": N} and nothing else; without limite a page holds
// 100 events, with limite=1000 (the most) 1000, on a log longer than
// either (one event per commit, so no commit kept whole stretches a
// page), and prossimaPosizione is the position after the page's last
// event. The log of newBackofficeWorld is shorter than 100 events, so
// TestBackofficeEventLog could not tell a default of 100 from a larger one.
func TestEventLogPageBounds(t *testing.T) {
	t.Parallel() // each test runs its own service
	h, from := newGiornaleHarness(t)
	h.appendRoleCommits(t, maxEventiLimite+100, 1)
	for _, c := range []struct {
		name  string
		query string
		want  int
	}{
		{"default_limite_100", "", 100},
		{"limite_max_1000", "&limite=1000", 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.must(t, "GET", fmt.Sprintf("%s/eventi?da=%d%s", bo, from, c.query), nil)
			var members map[string]json.RawMessage
			r.decode(t, &members)
			if len(members) != 2 || members["risultati"] == nil || members["prossimaPosizione"] == nil {
				t.Fatalf("members %v, want risultati and prossimaPosizione", slices.Sorted(maps.Keys(members)))
			}
			var p eventiPage
			r.decode(t, &p)
			if n := len(p.Risultati); n != c.want {
				t.Fatalf("page of %d events, want %d", n, c.want)
			}
			if last := p.Risultati[len(p.Risultati)-1].Posizione; p.Risultati[0].Posizione != uint64(from) || p.ProssimaPosizione != last+1 {
				t.Fatalf("page from %d to %d, prossimaPosizione %d; want from %d, then the position after its last", p.Risultati[0].Posizione, last, p.ProssimaPosizione, from)
			}
		})
	}
	// A caller scoped to d1 sees none of the roles' definitions (registry
	// events need every entity and type). A page examines at most 20 ×
	// limite events (here one a commit): it may come back empty before the end, and only a
	// prossimaPosizione equal to da says the end is reached.
	end := uint64(h.logEnd(t))
	for _, c := range []struct {
		name     string
		da       uint64
		limite   int
		prossima uint64
	}{
		{"scoped_page_examines_20_times_limite", uint64(from), 1, uint64(from) + 20},
		{"scoped_page_reaches_the_end", uint64(from), 100, end + 1},
		{"at_the_end_prossima_is_da", end + 1, 100, end + 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p eventiPage
			h.must(t, "GET", fmt.Sprintf("%s/eventi?da=%d&limite=%d", bo, c.da, c.limite), nil, asBasic("opGiornale", pw)).decode(t, &p)
			if len(p.Risultati) != 0 || p.ProssimaPosizione != c.prossima {
				t.Fatalf("%d events, prossimaPosizione %d; want none, %d", len(p.Risultati), p.ProssimaPosizione, c.prossima)
			}
		})
	}
}

// newGiornaleHarness is a service with an operator, opGiornale, that may
// read the event log of d1 alone (Giornale degli Eventi R), and the
// position after its setup.
func newGiornaleHarness(t *testing.T) (*harness, events.Position) {
	t.Helper()
	h := newHarness(t)
	h.putEntity(t, d1)
	h.putRole(t, "giornaleD1", acl{aclOf("Giornale degli Eventi", "R")}, []string{d1}, []string{"*"})
	h.putOperator(t, "opGiornale", pw, true, "giornaleD1")
	return h, h.logEnd(t) + 1
}

// appendRoleCommits appends commits commits of perCommit role
// definitions each, straight to the store: registry events, which a
// caller scoped to some entities never sees.
func (h *harness) appendRoleCommits(t *testing.T, commits, perCommit int) {
	t.Helper()
	for i := range commits {
		stream := fmt.Sprintf("bulk%04d", i)
		recs := make([]events.Record, perCommit)
		for j := range recs {
			id := fmt.Sprintf("%s-%d", stream, j)
			recs[j] = events.Record{ID: id, Event: events.RoleDefined{IDRuolo: id, Domini: []string{}, TipiPendenza: []string{}, ACL: []events.ACLEntry{}}}
		}
		if _, err := h.store.Append(t.Context(), events.StreamRuolo+stream, events.ExpectNoStream(), recs...); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEventLogScopedPageCountsEvents: the events a scoped page examines
// are bounded by 20 × limite events, not commits (API.md section 4), a
// commit never split: from commits of three events each, none of them
// shown to a caller scoped to d1, a page of limite=1 ends after the
// seventh commit (21 events), its prossimaPosizione seven on.
func TestEventLogScopedPageCountsEvents(t *testing.T) {
	t.Parallel() // each test runs its own service
	h, from := newGiornaleHarness(t)
	h.appendRoleCommits(t, 20, 3)
	var p eventiPage
	h.must(t, "GET", fmt.Sprintf("%s/eventi?da=%d&limite=1", bo, from), nil, asBasic("opGiornale", pw)).decode(t, &p)
	if len(p.Risultati) != 0 || p.ProssimaPosizione != uint64(from)+7 {
		t.Fatalf("%d events, prossimaPosizione %d; want none, %d (seven commits of three events)", len(p.Risultati), p.ProssimaPosizione, uint64(from)+7)
	}
}

func TestBackofficeBadInputNeverServerError(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newBackofficeWorld(t, withMaxBody(4096))
	big := `{"ragioneSociale":"` + strings.Repeat("x", 8192) + `","abilitato":true}`
	type bad struct {
		name   string
		method string
		path   string
		body   any
		status int
		opt    reqOpt
	}
	cases := []bad{
		// path ids, checked before anything else (even before the right)
		{"entity_id_short", "GET", "/domini/123", nil, 400, nil},
		{"entity_id_letters", "PUT", "/domini/1234567890a", `{"ragioneSociale":"a","abilitato":true}`, 400, nil},
		{"entity_id_before_right", "PUT", "/domini/abc", `{"ragioneSociale":"a","abilitato":true}`, 400, as("opRO")},
		{"entity_id_before_body", "PUT", "/domini/abc", `{"ragioneSociale":`, 400, nil},
		{"type_id_too_long", "GET", "/tipiPendenza/" + strings.Repeat("a", 36), nil, 400, nil},
		{"type_id_bad_character", "PUT", "/tipiPendenza/bad!id", `{"descrizione":"a","abilitato":true}`, 400, nil},
		{"intermediary_id_space", "GET", "/intermediari/a%20b", nil, 400, nil},
		{"role_id_bad_character", "PUT", "/ruoli/r$1", `{"acl":[],"domini":[],"tipiPendenza":[]}`, 400, nil},
		{"application_id_bad_character", "GET", "/applicazioni/app*", nil, 400, nil},
		{"pendenza_ida2a_bad", "GET", "/pendenze/a%2Fb/x", nil, 400, nil},
		{"pendenza_id_bad", "GET", "/pendenze/appA/bad!id", nil, 400, nil},
		{"payment_id_not_hex", "GET", "/pagamenti/XYZ", nil, 400, nil},
		{"payment_id_upper_hex", "GET", "/pagamenti/" + strings.Repeat("A", 32), nil, 400, nil},
		// bodies
		{"malformed_json", "PUT", "/tipiPendenza/" + t1, `{"descrizione":"a",`, 400, nil},
		{"not_an_object", "PUT", "/tipiPendenza/" + t1, `["a"]`, 400, nil},
		{"null_body", "PUT", "/tipiPendenza/" + t1, `null`, 400, nil},
		{"wrong_type_bool", "PUT", "/tipiPendenza/" + t1, `{"descrizione":"a","abilitato":"yes"}`, 400, nil},
		{"wrong_type_list", "PUT", "/operatori/opRO", `{"ragioneSociale":"a","abilitato":true,"ruoli":"readOnly"}`, 400, nil},
		{"unknown_field_entity", "PUT", "/domini/" + d1, `{"ragioneSociale":"a","abilitato":true,"iban":"x"}`, 400, nil},
		{"unknown_field_intermediary_connector", "PUT", "/intermediari/" + intID, `{"denominazione":"a","abilitato":true,"connettoreNodo":{"principal":"p","passwordHash":"x"}}`, 400, nil},
		{"unknown_field_role_acl", "PUT", "/ruoli/r9", `{"acl":[{"servizio":"Pendenze","autorizzazioni":["R"],"x":1}],"domini":[],"tipiPendenza":[]}`, 400, nil},
		{"unknown_field_operator", "PUT", "/operatori/o9", `{"ragioneSociale":"a","abilitato":true,"ruoli":[],"admin":true}`, 400, nil},
		{"unknown_field_application", "PUT", "/applicazioni/a9", `{"principal":"a9","abilitato":true,"ruoli":[],"apiBackoffice":true}`, 400, nil},
		{"unknown_field_hardening", "PUT", "/configurazioni/hardening", `{"abilitato":false,"captcha":{"serverURL":"http://x","secret":"s"}}`, 400, nil},
		{"missing_abilitato", "PUT", "/intermediari/" + intID, `{"denominazione":"a","connettoreNodo":{"principal":"p"}}`, 400, nil},
		{"missing_connector", "PUT", "/intermediari/" + intID, `{"denominazione":"a","abilitato":true}`, 400, nil},
		{"missing_role_acl", "PUT", "/ruoli/r9", `{"domini":[],"tipiPendenza":[]}`, 400, nil}, // {acl} alone is GovPay's role body
		{"unknown_right", "PUT", "/ruoli/r9", `{"acl":[{"servizio":"Pendenze","autorizzazioni":["X"]}],"domini":[],"tipiPendenza":[]}`, 400, nil},
		{"service_twice", "PUT", "/ruoli/r9", `{"acl":[{"servizio":"Pendenze","autorizzazioni":["R"]},{"servizio":"Pendenze","autorizzazioni":["W"]}],"domini":[],"tipiPendenza":[]}`, 400, nil},
		{"short_password", "PUT", "/operatori/o9", `{"ragioneSociale":"a","password":"short","abilitato":true,"ruoli":[]}`, 400, nil},
		{"body_id_differs_from_path", "PUT", "/domini/" + d1, `{"idDominio":"` + d2 + `","ragioneSociale":"a","abilitato":true}`, 400, nil},
		{"soglia_out_of_range", "PUT", "/configurazioni/hardening", `{"abilitato":false,"captcha":{"serverURL":"http://x","soglia":1.5}}`, 400, nil},
		{"soglia_wrong_type", "PUT", "/configurazioni/hardening", `{"abilitato":false,"captcha":{"serverURL":"http://x","soglia":"high"}}`, 400, nil},
		{"timeout_zero", "PUT", "/configurazioni/hardening", `{"abilitato":false,"captcha":{"serverURL":"http://x","timeoutMs":0}}`, 400, nil},
		{"server_url_not_http", "PUT", "/configurazioni/hardening", `{"abilitato":true,"captcha":{"serverURL":"ftp://x","secretKey":"s"}}`, 400, nil},
		{"enable_without_captcha", "PUT", "/configurazioni/hardening", `{"abilitato":true}`, 400, nil},
		{"oversize_body", "PUT", "/domini/" + d1, big, http.StatusRequestEntityTooLarge, nil},
		{"empty_body", "PUT", "/domini/" + d1, "", 400, nil},
		{"trailing_data", "PUT", "/domini/" + d1, `{"ragioneSociale":"a","abilitato":true}x`, 400, nil},
		{"deep_nesting", "PUT", "/ruoli/r9", strings.Repeat("[", 2000) + strings.Repeat("]", 2000), 400, nil},
		{"invalid_utf8", "PUT", "/domini/" + d1, "{\"ragioneSociale\":\"\xff\xfe\",\"abilitato\":true,\"x\":1}", 400, nil},
		// query parameters
		{"pagina_zero", "GET", "/domini?pagina=0", nil, 400, nil},
		{"pagina_not_a_number", "GET", "/ruoli?pagina=x", nil, 400, nil},
		{"pagina_too_large_for_int", "GET", "/ruoli?pagina=99999999999999999999", nil, 400, nil},
		{"page_size_over_max", "GET", "/operatori?risultatiPerPagina=201", nil, 400, nil},
		{"pendenze_bad_entity_filter", "GET", "/pendenze?idDominio=abc", nil, 400, nil},
		{"pendenze_bad_state_filter", "GET", "/pendenze?stato=PAGATA", nil, 400, nil},
		{"collections_bad_entity_filter", "GET", "/riscossioni?idDominio=1", nil, 400, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opt := c.opt
			if opt == nil {
				opt = asAdmin()
			}
			r := w.do(t, c.method, bo+c.path, c.body, opt)
			if r.Status >= 500 {
				t.Fatalf("server error %d: %s", r.Status, r.Body)
			}
			r.expect(t, c.status, codiceOf(c.status))
			if strings.Contains(string(r.Body), "json:") || strings.Contains(string(r.Body), "goroutine") {
				t.Fatalf("error body reveals internals: %s", r.Body)
			}
		})
	}
	t.Run("pagina_whose_offset_overflows_is_an_empty_page", func(t *testing.T) {
		var page struct {
			NumRisultati int               `json:"numRisultati"`
			Risultati    []json.RawMessage `json:"risultati"`
		}
		w.must(t, "GET", bo+"/domini?pagina=4611686018427387905&risultatiPerPagina=2", nil).decode(t, &page)
		if page.NumRisultati == 0 || len(page.Risultati) != 0 {
			t.Fatalf("page far beyond the last: %+v", page)
		}
	})
	t.Run("wrong_content_type", func(t *testing.T) {
		w.do(t, "PUT", bo+"/domini/"+d1, `{"ragioneSociale":"a","abilitato":true}`, asAdmin(),
			withHeader("Content-Type", "text/plain")).expect(t, 400, "SINTASSI")
	})
	// Nothing of the refused writes was stored.
	var d dominioView
	w.must(t, "GET", bo+"/domini/"+d1, nil).decode(t, &d)
	if d.RagioneSociale != "Ente "+d1 {
		t.Fatalf("entity changed by bad input: %+v", d)
	}
}

// TestEventLogScopedByPendenzaType: a Giornale degli Eventi R on one entity
// with no pendenza type sees that entity's registration, and none of its
// pendenze or payments.
func TestEventLogScopedByPendenzaType(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.createPendenza(t, "appA", "typed", d1, t1, citizen1)
	w.payOwn(t, "appA", "typed")
	w.putRole(t, "giornaleNoTypes", acl{aclOf("Giornale degli Eventi", "R")}, []string{d1}, []string{})
	w.putOperator(t, "auditor-d1", pw, true, "giornaleNoTypes")
	var page eventiPage
	w.must(t, "GET", bo+"/eventi?limite=1000", nil, as("auditor-d1")).decode(t, &page)
	seen := map[string]bool{}
	for _, e := range page.Risultati {
		seen[e.Tipo] = true
	}
	if !seen["CreditorEntityRegistered"] || seen["PendenzaCreated"] || seen["PaymentStarted"] {
		t.Fatalf("auditor on %s with no types sees %v", d1, seen)
	}
	w.must(t, "GET", bo+"/eventi?limite=1000", nil, asAdmin()).decode(t, &page)
	seen = map[string]bool{}
	for _, e := range page.Risultati {
		seen[e.Tipo] = true
	}
	if !seen["PendenzaCreated"] || !seen["PaymentStarted"] {
		t.Fatalf("the administrator does not see the pendenza and its payment: %v", seen)
	}
}

// TestEventLogEntriesNameEveryField: each entry of GET /eventi and GET
// /eventi/{id} carries every field API.md section 4 names ({id,
// posizione, tipo, stream, data, attore, dati}), the fields the contract
// names being always present: the payment of an anonymous caller, which
// has no principal name, still has its attore (empty).
func TestEventLogEntriesNameEveryField(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.must(t, "POST", "/pagamento/rs/public/v2/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1,
		"idTipoPendenza": tSpont, "importo": 5, "causale": "Dono",
		"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}}}}, withHeader("X-Nothing", "1"))
	fields := []string{"id", "posizione", "tipo", "stream", "data", "attore", "dati"}
	var page struct {
		Risultati []map[string]json.RawMessage `json:"risultati"`
	}
	w.must(t, "GET", bo+"/eventi?limite=1000", nil).decode(t, &page)
	anonymous := ""
	for _, e := range page.Risultati {
		for _, f := range fields {
			if _, ok := e[f]; !ok {
				t.Fatalf("event %s %s lacks %s", e["id"], e["tipo"], f)
			}
		}
		if string(e["tipo"]) == `"PaymentStarted"` {
			var id string
			if err := json.Unmarshal(e["id"], &id); err != nil {
				t.Fatal(err)
			}
			anonymous = id
		}
	}
	if anonymous == "" {
		t.Fatal("no PaymentStarted in the log: the anonymous writer's check would be vacuous")
	}
	var one map[string]json.RawMessage
	w.must(t, "GET", bo+"/eventi/"+anonymous, nil).decode(t, &one)
	for _, f := range fields {
		if _, ok := one[f]; !ok {
			t.Fatalf("GET /eventi/%s lacks %s: %v", anonymous, f, one)
		}
	}
}

// TestPathIDsAreDecoded: a client may percent-encode any character of a
// path id (RFC 3986 section 2.3: an encoded unreserved character is that
// character); every route reads its ids decoded.
func TestPathIDsAreDecoded(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "n-enc", d1, t1, citizen1)
	enc := func(id string) string { return fmt.Sprintf("%%%02X", id[0]) + id[1:] }

	var dom struct {
		IDDominio string `json:"idDominio"`
	}
	w.must(t, "GET", bo+"/domini/"+enc(d1), nil).decode(t, &dom)
	var tipo struct {
		IDTipoPendenza string `json:"idTipoPendenza"`
	}
	w.must(t, "GET", bo+"/tipiPendenza/"+enc(t1), nil).decode(t, &tipo)
	var pd pendenzaView
	w.must(t, "GET", "/pendenze/rs/basic/v2/pendenze/"+enc("appA")+"/"+enc("n-enc"), nil, as("appA")).decode(t, &pd)
	if dom.IDDominio != d1 || tipo.IDTipoPendenza != t1 || pd.IDPendenza != "n-enc" {
		t.Fatalf("read %q, %q, %q; want %q, %q, n-enc", dom.IDDominio, tipo.IDTipoPendenza, pd.IDPendenza, d1, t1)
	}
	// Decoded, an escaped slash is a slash: no id holds one.
	w.do(t, "GET", bo+"/tipiPendenza/a%2Fb", nil, asAdmin()).expect(t, 400, "SINTASSI")
}
