package httpapi

import (
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/whatcan"
)

// TestGovPayDominioBody: GovPay's dominio body is accepted as it is (issue
// 13 §1): its fields are validated, kept and returned, the intermediary
// is taken from the station, and the payment-notification connectors,
// which may hold credentials, are kept but never returned.
func TestGovPayDominioBody(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	const interm = "77777777777"
	h.must(t, "PUT", bo+"/intermediari/"+interm, map[string]any{"denominazione": "Intermediario", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "nodo", "password": pw}})
	logo := base64.StdEncoding.EncodeToString([]byte("\x89PNG logo"))
	govpay := func(changes map[string]any) map[string]any {
		b := map[string]any{"ragioneSociale": "Comune di Monopoli", "indirizzo": "Corso Italia", "civico": "1A",
			"cap": "00000", "localita": "Roma", "provincia": "Roma", "nazione": "IT", "email": "peo@creditore.it",
			"pec": "pec@creditore.it", "tel": "021234567890", "fax": "021234567890", "web": "http://www.comune.it/",
			"gln": "0011223344556", "cbill": "12345", "iuvPrefix": "%(y)%(a)", "stazione": interm + "_01", "auxDigit": "0",
			"segregationCode": "88", "logo": logo, "abilitato": true, "autStampaPosteItaliane": "AUT. DB/1234",
			"area": "Affari generali", "servizioGovPay": map[string]any{"url": "https://ente.example/notifiche",
				"auth": map[string]any{"username": "gp", "password": "connector-secret"}}}
		for k, v := range changes {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	const path = bo + "/domini/12345678901"
	h.do(t, "PUT", path, govpay(nil), asAdmin()).expect(t, http.StatusCreated, "")

	t.Run("get_returns_the_fields_but_the_connectors", func(t *testing.T) {
		var v dominioView
		res := h.must(t, "GET", path, nil)
		res.decode(t, &v)
		if v.IDIntermediario != interm || v.GLN != "0011223344556" || v.Stazione != interm+"_01" || v.Logo != logo ||
			v.IUVPrefix != "%(y)%(a)" || v.Area != "Affari generali" {
			t.Fatalf("dominio = %+v", v)
		}
		if strings.Contains(string(res.Body), "servizioGovPay") || strings.Contains(string(res.Body), "connector-secret") {
			t.Fatalf("a connector was returned: %s", res.Body)
		}
	})
	t.Run("event_log_redacts_the_connector", func(t *testing.T) {
		body := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body)
		if !strings.Contains(body, "0011223344556") || strings.Contains(body, "connector-secret") {
			t.Fatalf("event log: %s", body)
		}
	})
	t.Run("repeat_without_the_connector_keeps_it_and_writes_nothing", func(t *testing.T) {
		before := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body)
		h.do(t, "PUT", path, govpay(map[string]any{"servizioGovPay": nil}), asAdmin()).expect(t, http.StatusOK, "")
		if after := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body); after != before {
			t.Fatal("a PUT that left the connector out changed the entity")
		}
	})

	bad := []struct {
		name   string
		change map[string]any
		status int
	}{
		{"gln_not_13_digits", map[string]any{"gln": "12AB"}, http.StatusBadRequest},
		{"station_of_another_intermediary", map[string]any{"stazione": "88888888888_01", "idIntermediario": interm}, http.StatusBadRequest},
		{"station_of_an_unknown_intermediary", map[string]any{"stazione": "88888888888_01"}, http.StatusUnprocessableEntity},
		{"aux_digit", map[string]any{"auxDigit": "7"}, http.StatusBadRequest},
		{"iuv_prefix", map[string]any{"iuvPrefix": "%(x)"}, http.StatusBadRequest},
		{"logo_not_base64", map[string]any{"logo": "not base64!"}, http.StatusBadRequest},
		{"connector_not_an_object", map[string]any{"servizioGovPay": "http://x"}, http.StatusBadRequest},
		{"field_in_no_govpay_schema", map[string]any{"nonGovPay": "x"}, http.StatusBadRequest},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			h.do(t, "PUT", bo+"/domini/12345678902", govpay(c.change), asAdmin()).expect(t, c.status, codiceOf(c.status))
			h.do(t, "GET", bo+"/domini/12345678902", nil, asAdmin()).expect(t, http.StatusNotFound, codiceOf(http.StatusNotFound))
		})
	}
}

// TestRegistryNamesCountCharacters: the registry's names (an entity's or
// unit's ragioneSociale, an intermediary's denominazione, a type's
// descrizione, an operator's ragioneSociale) and the other texts bounded
// by commands.MaxNameLength (an entity's address and contacts,
// autStampaPosteItaliane, an application's regExpIuv) are at most 255
// characters, GovPay's limits counting characters (its schemas' maxLength,
// its database's VARCHAR columns): 255 accented letters (510 bytes) are
// written, 256 are a 400 that writes nothing. Before, the limit counted bytes and refused
// the 255 letters while its message said characters.
func TestRegistryNamesCountCharacters(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	letters := func(n int) string { return strings.Repeat("è", n) }
	const n = commands.MaxNameLength
	entity := func(k string, n int) map[string]any {
		b := map[string]any{"ragioneSociale": "Ente", "abilitato": true}
		b[k] = letters(n)
		return b
	}
	unit := map[string]any{"abilitato": true}
	intermediary := func(n int) map[string]any {
		return map[string]any{"denominazione": letters(n), "abilitato": true,
			"connettoreNodo": map[string]any{"principal": "nodo-" + strconv.Itoa(n), "password": pw}}
	}
	application := func(n int) map[string]any {
		return map[string]any{"principal": "gestionale-" + strconv.Itoa(n), "password": pw, "abilitato": true, "ruoli": []string{},
			"codificaAvvisi": map[string]any{"regExpIuv": letters(n)}}
	}
	admin := opts(asAdmin())
	rows := []row{
		{"entity_of_255_letters", "PUT", bo + "/domini/12345678901", entity("ragioneSociale", n), admin, 201, ""},
		{"entity_of_256_letters", "PUT", bo + "/domini/12345678902", entity("ragioneSociale", n+1), admin, 400, "SINTASSI"},
		{"unit_of_255_letters", "PUT", bo + "/domini/" + d1 + "/unitaOperative/U1", withField(unit, "ragioneSociale", letters(n)), admin, 201, ""},
		{"unit_of_256_letters", "PUT", bo + "/domini/" + d1 + "/unitaOperative/U2", withField(unit, "ragioneSociale", letters(n+1)), admin, 400, "SINTASSI"},
		{"intermediary_of_255_letters", "PUT", bo + "/intermediari/I1", intermediary(n), admin, 201, ""},
		{"intermediary_of_256_letters", "PUT", bo + "/intermediari/I2", intermediary(n + 1), admin, 400, "SINTASSI"},
		{"type_of_255_letters", "PUT", bo + "/tipiPendenza/T1", map[string]any{"descrizione": letters(n), "abilitato": true}, admin, 201, ""},
		{"type_of_256_letters", "PUT", bo + "/tipiPendenza/T2", map[string]any{"descrizione": letters(n + 1), "abilitato": true}, admin, 400, "SINTASSI"},
		{"operator_of_255_letters", "PUT", bo + "/operatori/op1", map[string]any{"ragioneSociale": letters(n), "abilitato": true, "ruoli": []string{}}, admin, 201, ""},
		{"operator_of_256_letters", "PUT", bo + "/operatori/op2", map[string]any{"ragioneSociale": letters(n + 1), "abilitato": true, "ruoli": []string{}}, admin, 400, "SINTASSI"},
		{"address_of_255_letters", "PUT", bo + "/domini/12345678903", entity("indirizzo", n), admin, 201, ""},
		{"address_of_256_letters", "PUT", bo + "/domini/12345678904", entity("indirizzo", n+1), admin, 400, "SINTASSI"},
		{"aut_stampa_of_255_letters", "PUT", bo + "/domini/12345678905", entity("autStampaPosteItaliane", n), admin, 201, ""},
		{"aut_stampa_of_256_letters", "PUT", bo + "/domini/12345678906", entity("autStampaPosteItaliane", n+1), admin, 400, "SINTASSI"},
		{"reg_exp_iuv_of_255_letters", "PUT", bo + "/applicazioni/A1", application(n), admin, 201, ""},
		{"reg_exp_iuv_of_256_letters", "PUT", bo + "/applicazioni/A2", application(n + 1), admin, 400, "SINTASSI"},
	}
	runRows(t, w.harness, rows)
	for _, r := range rows {
		if r.status == 400 {
			w.do(t, "GET", r.path, nil, asAdmin()).expect(t, 404, "404000")
		}
	}
	if got := string(w.must(t, "GET", bo+"/domini/12345678901", nil, asAdmin()).Body); !strings.Contains(got, `"ragioneSociale":"`+letters(n)+`"`) {
		t.Fatalf("the ragioneSociale of 255 letters reads %s", got)
	}
}

// TestTipiPendenzaTypeScope: writes, reads and the list of pendenza types
// apply the role's tipiPendenza (issue 13 §5). An operator whose role
// gives Anagrafica Creditore RW on [SEGRETERIA] manages that type only.
func TestTipiPendenzaTypeScope(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putType(t, "SEGRETERIA", false)
	h.putType(t, "LIBERO", true)
	h.putRole(t, "segreteria", acl{aclOf("Anagrafica Creditore", "R", "W")}, []string{"*"}, []string{"SEGRETERIA"})
	h.putOperator(t, "opSeg", pw, true, "segreteria")
	seg := asBasic("opSeg", pw)
	tipo := func(abilitato bool) map[string]any {
		return map[string]any{"descrizione": "Tipo", "abilitato": abilitato, "pagamentoSpontaneo": false}
	}

	cases := []struct {
		name   string
		method string
		path   string
		body   any
		opt    reqOpt
		want   int
	}{
		{"create_type_out_of_scope", "PUT", bo + "/tipiPendenza/XXXX", tipo(true), seg, http.StatusForbidden},
		{"disable_type_out_of_scope", "PUT", bo + "/tipiPendenza/LIBERO", tipo(false), seg, http.StatusForbidden},
		{"update_type_in_scope", "PUT", bo + "/tipiPendenza/SEGRETERIA", tipo(true), seg, http.StatusOK},
		{"read_type_in_scope", "GET", bo + "/tipiPendenza/SEGRETERIA", nil, seg, http.StatusOK},
		{"read_type_out_of_scope", "GET", bo + "/tipiPendenza/LIBERO", nil, seg, http.StatusForbidden},
		{"read_unknown_type_out_of_scope", "GET", bo + "/tipiPendenza/GHOST", nil, seg, http.StatusForbidden},
		{"admin_creates_any_type", "PUT", bo + "/tipiPendenza/XXXX", tipo(true), asAdmin(), http.StatusCreated},
		{"admin_disables_any_type", "PUT", bo + "/tipiPendenza/LIBERO", tipo(false), asAdmin(), http.StatusOK},
		{"admin_reads_unknown_type", "GET", bo + "/tipiPendenza/GHOST", nil, asAdmin(), http.StatusNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, c.method, c.path, c.body, c.opt)
			res.expect(t, c.want, codiceOf(c.want))
			if c.want == http.StatusForbidden {
				if fb := res.fault(t); fb.Descrizione == "" {
					t.Fatalf("denial without descrizione: %s", res.Body)
				}
			}
		})
	}

	// A type the operator could not write is unchanged.
	var libero tipoView
	h.must(t, "GET", bo+"/tipiPendenza/LIBERO", nil).decode(t, &libero)
	if libero.Abilitato {
		t.Fatalf("LIBERO should be disabled by the admin only: %+v", libero)
	}

	ids := func(opt reqOpt) []string {
		var page struct {
			Risultati []tipoView `json:"risultati"`
		}
		h.must(t, "GET", bo+"/tipiPendenza", nil, opt).decode(t, &page)
		var out []string
		for _, r := range page.Risultati {
			out = append(out, r.IDTipoPendenza)
		}
		slices.Sort(out)
		return out
	}
	t.Run("list_shows_types_in_scope", func(t *testing.T) {
		if got := ids(seg); !slices.Equal(got, []string{"SEGRETERIA"}) {
			t.Fatalf("opSeg lists %v, want [SEGRETERIA]", got)
		}
	})
	t.Run("list_shows_every_type_to_admin", func(t *testing.T) {
		if got := ids(asAdmin()); !slices.Equal(got, []string{"LIBERO", "SEGRETERIA", "XXXX"}) {
			t.Fatalf("admin lists %v", got)
		}
	})
	t.Run("list_needs_the_right", func(t *testing.T) {
		h.putOperator(t, "opNone", pw, true)
		h.do(t, "GET", bo+"/tipiPendenza", nil, asBasic("opNone", pw)).expect(t, http.StatusForbidden, "403000")
	})
}

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

// TestGovPayRoleACLAlone: GovPay's role body {acl} alone is accepted; such
// a role gives its service rights on no entity and no type (issue 13 §1).
func TestGovPayRoleACLAlone(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	runRows(t, w.harness, []row{
		{"acl_alone_accepted", "PUT", bo + "/ruoli/soloAcl", map[string]any{"acl": acl{aclOf("Anagrafica Creditore", "R"),
			aclOf("Anagrafica Ruoli", "R")}}, opts(asAdmin()), 201, ""},
		{"acl_missing", "PUT", bo + "/ruoli/senzaAcl", map[string]any{"domini": []string{"*"}, "tipiPendenza": []string{"*"}},
			opts(asAdmin()), 400, "SINTASSI"},
		{"operator_with_it", "PUT", bo + "/operatori/opAcl", map[string]any{"ragioneSociale": "Operatore", "password": pw,
			"abilitato": true, "ruoli": []string{"soloAcl"}}, opts(asAdmin()), 201, ""},
		// Unscoped registries: the right is enough.
		{"reads_roles", "GET", bo + "/ruoli/soloAcl", nil, opts(as("opAcl")), 200, ""},
		// Scoped by entity or type: the role reaches none.
		{"no_entity_in_scope", "GET", bo + "/domini/" + d1, nil, opts(as("opAcl")), 403, "403000"},
		{"no_type_in_scope", "GET", bo + "/tipiPendenza/" + t1, nil, opts(as("opAcl")), 403, "403000"},
	})
	var v ruoloView
	w.must(t, "GET", bo+"/ruoli/soloAcl", nil).decode(t, &v)
	if v.Domini.IDs == nil || len(v.Domini.IDs) != 0 || v.TipiPendenza == nil || len(v.TipiPendenza) != 0 {
		t.Fatalf("role without scope reads %+v, want empty domini and tipiPendenza", v)
	}
}

// TestUnitaOperative: the operational units of a creditor entity (issue 13
// §2's registry): Anagrafica Creditore on the unit's entity on the
// Backoffice, the entity's payable gate on the Pagamento API, and the
// event log scoped by the unit's entity.
func TestUnitaOperative(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	unit := func(name string, enabled bool) map[string]any {
		return map[string]any{"ragioneSociale": name, "abilitato": enabled, "indirizzo": "Borgo stretto", "civico": "55bis",
			"cap": "99999", "localita": "Milano", "email": "uo@ente.example", "area": "Affari generali"}
	}
	uo := func(d, id string) string { return bo + "/domini/" + d + "/unitaOperative/" + id }
	ff, nf := codiceOf(http.StatusForbidden), codiceOf(http.StatusNotFound)
	runRows(t, w.harness, []row{
		{name: "admin_registers", method: "PUT", path: uo(d1, "UO1"), body: unit("Ufficio uno", true), opts: []reqOpt{asAdmin()}, status: http.StatusCreated},
		{name: "admin_registers_disabled", method: "PUT", path: uo(d1, "UO2"), body: unit("Ufficio due", false), opts: []reqOpt{asAdmin()}, status: http.StatusCreated},
		{name: "admin_registers_other_entity", method: "PUT", path: uo(d2, "UO9"), body: unit("Ufficio nove", true), opts: []reqOpt{asAdmin()}, status: http.StatusCreated},
		{name: "repeat_is_200", method: "PUT", path: uo(d1, "UO1"), body: unit("Ufficio uno", true), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
		{name: "scoped_operator_in_scope", method: "PUT", path: uo(d1, "UO3"), body: unit("Ufficio tre", true), opts: []reqOpt{as("opD1")}, status: http.StatusCreated},
		{name: "scoped_operator_out_of_scope", method: "PUT", path: uo(d2, "UO4"), body: unit("Ufficio quattro", true), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},
		{name: "read_only_operator_cannot_write", method: "PUT", path: uo(d1, "UO5"), body: unit("Ufficio cinque", true), opts: []reqOpt{as("opRO")}, status: http.StatusForbidden, codice: ff},
		{name: "unknown_entity", method: "PUT", path: uo(dNone, "UO1"), body: unit("Ufficio", true), opts: []reqOpt{asAdmin()}, status: http.StatusUnprocessableEntity, codice: codiceOf(http.StatusUnprocessableEntity)},
		{name: "bad_unit_id", method: "PUT", path: uo(d1, "bad!id"), body: unit("Ufficio", true), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "field_in_no_govpay_schema", method: "PUT", path: uo(d1, "UO6"), body: map[string]any{"ragioneSociale": "U", "abilitato": true, "gln": "0011223344556"}, opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},

		{name: "read_in_scope", method: "GET", path: uo(d1, "UO1"), opts: []reqOpt{as("opD1")}, status: http.StatusOK},
		{name: "read_out_of_scope", method: "GET", path: uo(d2, "UO9"), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},
		{name: "unknown_out_of_scope_is_403", method: "GET", path: uo(d2, "GHOST"), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},
		{name: "unknown_in_scope_is_404", method: "GET", path: uo(d1, "GHOST"), opts: []reqOpt{as("opD1")}, status: http.StatusNotFound, codice: nf},
		{name: "list_in_scope", method: "GET", path: bo + "/domini/" + d1 + "/unitaOperative", opts: []reqOpt{as("opD1")}, status: http.StatusOK},
		{name: "list_out_of_scope", method: "GET", path: bo + "/domini/" + d2 + "/unitaOperative", opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},

		{name: "pagamento_units_of_a_payable_entity", method: "GET", path: pg + "/domini/" + d1 + "/unitaOperative", opts: []reqOpt{as("appA")}, status: http.StatusOK},
		{name: "pagamento_units_outside_the_grant", method: "GET", path: pg + "/domini/" + d2 + "/unitaOperative", opts: []reqOpt{as("appA")}, status: http.StatusForbidden, codice: ff},
	})

	var page struct {
		Risultati []unitaOperativaRef `json:"risultati"`
	}
	w.must(t, "GET", pg+"/domini/"+d1+"/unitaOperative", nil, as("appA")).decode(t, &page)
	if len(page.Risultati) != 2 || page.Risultati[0].IDUnita != "UO1" || page.Risultati[1].IDUnita != "UO3" {
		t.Fatalf("payable units = %+v (UO2 is disabled)", page.Risultati)
	}
	// An application authorized on unit UO1 alone lists UO1 alone; a
	// citizen every enabled unit.
	w.grantUO1(t, "appPagUO1", "PAGAMENTO", "opUnitaUO1", aclOf("Pendenze", "R"))
	for _, c := range []struct {
		mount string
		who   reqOpt
		want  []string
	}{{pg, as("appPagUO1"), []string{"UO1"}}, {"/pagamento/rs/spid/v2", asSPID(citizen1), []string{"UO1", "UO3"}}} {
		var got struct {
			Risultati []unitaOperativaRef `json:"risultati"`
		}
		w.must(t, "GET", c.mount+"/domini/"+d1+"/unitaOperative", nil, c.who).decode(t, &got)
		var ids []string
		for _, u := range got.Risultati {
			ids = append(ids, u.IDUnita)
		}
		if !slices.Equal(ids, c.want) {
			t.Fatalf("units listed = %v, want %v", ids, c.want)
		}
	}
	var u unitaOperativaView
	w.must(t, "GET", uo(d1, "UO1"), nil).decode(t, &u)
	if u.RagioneSociale != "Ufficio uno" || !u.Abilitato || u.Localita != "Milano" {
		t.Fatalf("unit = %+v", u)
	}
	log := string(w.must(t, "GET", bo+"/eventi?risultatiPerPagina=200", nil, as("opD1")).Body)
	if !strings.Contains(log, `"UO1"`) || strings.Contains(log, `"UO9"`) {
		t.Fatalf("opD1's event log shows another entity's unit, or not its own: %s", log)
	}
}

// TestUnitScopes: operational units as GovPay's third scope dimension
// (issue 13 §2). A grant or role naming an entity with units covers only
// those units' pendenze, payments and events, never one of that entity
// without a unit; an entity named alone still covers all of it. The
// scope is accepted and returned in GovPay's object form.
func TestUnitScopes(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	for _, u := range []string{"UO1", "UO2"} {
		w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/"+u, map[string]any{"ragioneSociale": "Ufficio " + u, "abilitato": true})
	}
	w.grantUO1(t, "appU", "PENDENZE", "opUO1", aclOf("Pendenze", "R"), aclOf("Giornale degli Eventi", "R"))

	// The scope is returned as it was given.
	var app applicazioneView
	w.must(t, "GET", bo+"/applicazioni/appU", nil).decode(t, &app)
	if g := app.AutorizzazioniAPI; len(g) != 1 || len(g[0].Domini.IDs) != 0 || !slices.Equal(g[0].Domini.Units[d1], []string{"UO1"}) {
		t.Fatalf("appU's grant = %+v", app.AutorizzazioniAPI)
	}
	if body := string(w.must(t, "GET", bo+"/ruoli/opUO1Role", nil).Body); !strings.Contains(body, `"domini":[{"idDominio":"`+d1+`","unitaOperative":["UO1"]}]`) {
		t.Fatalf("role = %s", body)
	}

	// A unit is added and removed by GovPay's PATCH like any domini entry.
	unitEntry := map[string]any{"idDominio": d2, "unitaOperative": []string{"UO7"}}
	w.must(t, "PATCH", bo+"/ruoli/opUO1Role", []map[string]any{{"op": "ADD", "path": "/domini", "value": unitEntry}})
	if body := string(w.must(t, "GET", bo+"/ruoli/opUO1Role", nil).Body); !strings.Contains(body, `{"idDominio":"`+d2+`","unitaOperative":["UO7"]}`) {
		t.Fatalf("role after PATCH ADD of a unit = %s", body)
	}
	w.must(t, "PATCH", bo+"/ruoli/opUO1Role", []map[string]any{{"op": "DELETE", "path": "/domini", "value": unitEntry}})
	if body := string(w.must(t, "GET", bo+"/ruoli/opUO1Role", nil).Body); strings.Contains(body, "UO7") || !strings.Contains(body, `"UO1"`) {
		t.Fatalf("role after PATCH DELETE of a unit = %s", body)
	}
	// A PATCH is decided in order: the service's W, the body, the entry.
	addUnit := []map[string]any{{"op": "ADD", "path": "/domini", "value": unitEntry}}
	w.do(t, "PATCH", bo+"/ruoli/nope", `{`, as("opRO")).expect(t, http.StatusForbidden, "403000")
	w.do(t, "PATCH", bo+"/ruoli/nope", `{`, asAdmin()).expect(t, http.StatusBadRequest, "SINTASSI")
	w.do(t, "PATCH", bo+"/ruoli/nope", addUnit, asAdmin()).expect(t, http.StatusNotFound, "404000")

	at := func(unit string) map[string]any {
		b := pendenzaBodyFor(d1, t1, citizen1)
		if unit != "" {
			b["idUnitaOperativa"] = unit
		}
		return b
	}
	const pePath = "/pendenze/rs/basic/v2/pendenze/"
	ff, unproc := codiceOf(http.StatusForbidden), codiceOf(http.StatusUnprocessableEntity)
	runRows(t, w.harness, []row{
		{name: "create_in_granted_unit", method: "PUT", path: pePath + "appU/P1", body: at("UO1"), opts: []reqOpt{as("appU")}, status: http.StatusCreated},
		{name: "create_in_other_unit", method: "PUT", path: pePath + "appU/P2", body: at("UO2"), opts: []reqOpt{as("appU")}, status: http.StatusForbidden, codice: ff},
		{name: "create_without_unit", method: "PUT", path: pePath + "appU/P3", body: at(""), opts: []reqOpt{as("appU")}, status: http.StatusForbidden, codice: ff},
		{name: "move_to_other_unit", method: "PUT", path: pePath + "appU/P1", body: at("UO2"), opts: []reqOpt{as("appU")}, status: http.StatusForbidden, codice: ff},
		{name: "whole_entity_creates_in_any_unit", method: "PUT", path: pePath + "appA/U1", body: at("UO1"), opts: []reqOpt{as("appA")}, status: http.StatusCreated},
		{name: "whole_entity_creates_in_unit_two", method: "PUT", path: pePath + "appA/U2", body: at("UO2"), opts: []reqOpt{as("appA")}, status: http.StatusCreated},
		{name: "whole_entity_creates_without_unit", method: "PUT", path: pePath + "appA/U0", body: at(""), opts: []reqOpt{as("appA")}, status: http.StatusCreated},
		{name: "unknown_unit_is_422", method: "PUT", path: pePath + "appA/U9", body: at("UO9"), opts: []reqOpt{as("appA")}, status: http.StatusUnprocessableEntity, codice: unproc},

		{name: "operator_reads_its_unit", method: "GET", path: bo + "/pendenze/appA/U1", opts: []reqOpt{as("opUO1")}, status: http.StatusOK},
		{name: "operator_not_other_unit", method: "GET", path: bo + "/pendenze/appA/U2", opts: []reqOpt{as("opUO1")}, status: http.StatusForbidden, codice: ff},
		{name: "operator_not_without_unit", method: "GET", path: bo + "/pendenze/appA/U0", opts: []reqOpt{as("opUO1")}, status: http.StatusForbidden, codice: ff},
		{name: "entity_wide_operator_reads_any_unit", method: "GET", path: bo + "/pendenze/appA/U2", opts: []reqOpt{as("opD1")}, status: http.StatusOK},
	})

	var pd pendenzaView
	w.must(t, "GET", pePath+"appU/P1", nil, as("appU")).decode(t, &pd)
	if pd.IDUnitaOperativa != "UO1" {
		t.Fatalf("pendenza = %+v", pd)
	}
	var list struct {
		Risultati []pendenzaView `json:"risultati"`
	}
	w.must(t, "GET", bo+"/pendenze?risultatiPerPagina=100", nil, as("opUO1")).decode(t, &list)
	for _, p := range list.Risultati {
		if p.IDUnitaOperativa != "UO1" {
			t.Fatalf("opUO1 lists a pendenza outside UO1: %+v", p)
		}
	}
	if len(list.Risultati) != 2 { // appU/P1 and appA/U1
		t.Fatalf("opUO1 lists %d pendenze, want 2: %+v", len(list.Risultati), list.Risultati)
	}
	// An auditor sees the unit scope: what-can probes each unit, explain
	// decides at a unit.
	var res whatcan.Result
	w.must(t, "GET", bo+"/autorizzazioni/principal?principal=appU", nil).decode(t, &res)
	var create *whatcan.Capability
	for i, c := range res.Capabilities {
		if c.API == "PENDENZE" && c.Operation == "create" {
			create = &res.Capabilities[i]
		}
	}
	if create == nil || !create.Allowed || len(create.Scope) != 1 || !slices.Equal(create.Scope[0].UnitaOperative[d1], []string{"UO1"}) {
		t.Fatalf("appU PENDENZE/create: %+v", create)
	}
	w.explainSays(t, "appU", "PENDENZE", "create", "allow", "idDominio", d1, "idTipoPendenza", t1, "idA2A", "appU", "idUnitaOperativa", "UO1")
	w.explainSays(t, "appU", "PENDENZE", "create", "deny", "idDominio", d1, "idTipoPendenza", t1, "idA2A", "appU", "idUnitaOperativa", "UO2")
	w.explainSays(t, "opUO1", "BACKOFFICE", "servizio", "allow", "servizio", "Pendenze", "autorizzazione", "R", "idA2A", "appA", "idPendenza", "U1")
	w.explainSays(t, "opUO1", "BACKOFFICE", "servizio", "deny", "servizio", "Pendenze", "autorizzazione", "R", "idA2A", "appA", "idPendenza", "U2")

	log := string(w.must(t, "GET", bo+"/eventi?risultatiPerPagina=200", nil, as("opUO1")).Body)
	if !strings.Contains(log, `"U1"`) || strings.Contains(log, `"U2"`) || strings.Contains(log, `"U0"`) {
		t.Fatalf("opUO1's event log is not its unit's: %s", log)
	}
}

// TestUnitScopedReceipts: receipts and collections lie in the unit of the
// pendenza they pay; a scope limited to units reaches only theirs, by id
// (403 for another unit's) and in the lists, on the Ragioneria API and
// the Backoffice alike.
func TestUnitScopedReceipts(t *testing.T) {
	t.Parallel() // each test runs its own service
	w, node, base := sslNodeServingD1(t)
	for _, u := range []string{"UO1", "UO2"} {
		w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/"+u, map[string]any{"ragioneSociale": "Ufficio " + u, "abilitato": true})
	}
	paid := map[string]pendenzaView{}
	for _, u := range []string{"UO1", "UO2"} {
		b := pendenzaBodyFor(d1, t1, citizen1)
		b["idUnitaOperativa"] = u
		var pd pendenzaView
		w.must(t, "PUT", pe+"/pendenze/appA/R"+u, b, as("appA")).decode(t, &pd)
		paid[u] = pd
		w.do(t, "POST", base+"/ricevute", ricevuta(pd, "IUR-"+u, 123.45, "ESEGUITO"), node).expect(t, http.StatusCreated, "")
	}
	w.grantUO1(t, "appRU", "RAGIONERIA", "opMoney", aclOf("Rendicontazioni e Incassi", "R"), aclOf("Pagamenti", "R"))

	ricevuta := func(api, u string) string {
		return api + "/ricevute/" + d1 + "/" + domain.IUVOfNotice(paid[u].NumeroAvviso) + "/IUR-" + u
	}
	riscossione := func(api, u string) string {
		return api + "/riscossioni/" + d1 + "/" + domain.IUVOfNotice(paid[u].NumeroAvviso) + "/IUR-" + u + "/1"
	}
	ff := codiceOf(http.StatusForbidden)
	runRows(t, w.harness, []row{
		{name: "ragioneria_receipt_of_its_unit", method: "GET", path: ricevuta(rg, "UO1"), opts: []reqOpt{as("appRU")}, status: http.StatusOK},
		{name: "ragioneria_receipt_of_other_unit", method: "GET", path: ricevuta(rg, "UO2"), opts: []reqOpt{as("appRU")}, status: http.StatusForbidden, codice: ff},
		{name: "ragioneria_collection_of_its_unit", method: "GET", path: riscossione(rg, "UO1"), opts: []reqOpt{as("appRU")}, status: http.StatusOK},
		{name: "ragioneria_collection_of_other_unit", method: "GET", path: riscossione(rg, "UO2"), opts: []reqOpt{as("appRU")}, status: http.StatusForbidden, codice: ff},
		{name: "ragioneria_whole_entity_reads_both", method: "GET", path: riscossione(rg, "UO2"), opts: []reqOpt{as("appC")}, status: http.StatusOK},
		{name: "backoffice_receipt_of_its_unit", method: "GET", path: ricevuta(bo, "UO1"), opts: []reqOpt{as("opMoney")}, status: http.StatusOK},
		{name: "backoffice_receipt_of_other_unit", method: "GET", path: ricevuta(bo, "UO2"), opts: []reqOpt{as("opMoney")}, status: http.StatusForbidden, codice: ff},
		{name: "backoffice_collection_of_other_unit", method: "GET", path: riscossione(bo, "UO2"), opts: []reqOpt{as("opMoney")}, status: http.StatusForbidden, codice: ff},
		{name: "backoffice_other_entity_before_lookup", method: "GET", path: bo + "/riscossioni/" + d2 + "/x/IUR-0/1", opts: []reqOpt{as("opMoney")}, status: http.StatusForbidden, codice: ff},
		// A missing one could lie in any unit of d1, or in none: only a
		// scope over the whole entity learns that it is missing (404);
		// a unit's gets the 403 of another unit's, so it cannot tell them
		// apart.
		{name: "ragioneria_missing_receipt_unit_scope", method: "GET", path: rg + "/ricevute/" + d1 + "/" + domain.IUVOfNotice(paid["UO1"].NumeroAvviso) + "/IUR-NONE", opts: []reqOpt{as("appRU")}, status: http.StatusForbidden, codice: ff},
		{name: "ragioneria_missing_collection_unit_scope", method: "GET", path: rg + "/riscossioni/" + d1 + "/" + domain.IUVOfNotice(paid["UO1"].NumeroAvviso) + "/IUR-NONE/1", opts: []reqOpt{as("appRU")}, status: http.StatusForbidden, codice: ff},
		{name: "ragioneria_missing_receipt_whole_entity", method: "GET", path: rg + "/ricevute/" + d1 + "/" + domain.IUVOfNotice(paid["UO1"].NumeroAvviso) + "/IUR-NONE", opts: []reqOpt{as("appC")}, status: http.StatusNotFound, codice: codiceOf(http.StatusNotFound)},
		{name: "backoffice_missing_receipt_unit_scope", method: "GET", path: bo + "/ricevute/" + d1 + "/" + domain.IUVOfNotice(paid["UO1"].NumeroAvviso) + "/IUR-NONE", opts: []reqOpt{as("opMoney")}, status: http.StatusForbidden, codice: ff},
		{name: "backoffice_missing_collection_unit_scope", method: "GET", path: bo + "/riscossioni/" + d1 + "/" + domain.IUVOfNotice(paid["UO1"].NumeroAvviso) + "/IUR-NONE/1", opts: []reqOpt{as("opMoney")}, status: http.StatusForbidden, codice: ff},
		{name: "backoffice_missing_collection_whole_entity", method: "GET", path: bo + "/riscossioni/" + d1 + "/" + domain.IUVOfNotice(paid["UO1"].NumeroAvviso) + "/IUR-NONE/1", opts: []reqOpt{as("opD1")}, status: http.StatusNotFound, codice: codiceOf(http.StatusNotFound)},
	})
	// The 403s of another unit's receipt and of a missing one are the same,
	// body and all.
	for _, c := range []struct{ existing, absent, caller string }{
		{ricevuta(bo, "UO2"), bo + "/ricevute/" + d1 + "/" + domain.IUVOfNotice(paid["UO1"].NumeroAvviso) + "/IUR-NONE", "opMoney"},
		{riscossione(bo, "UO2"), bo + "/riscossioni/" + d1 + "/" + domain.IUVOfNotice(paid["UO1"].NumeroAvviso) + "/IUR-NONE/1", "opMoney"},
		{ricevuta(rg, "UO2"), rg + "/ricevute/" + d1 + "/" + domain.IUVOfNotice(paid["UO1"].NumeroAvviso) + "/IUR-NONE", "appRU"},
		{riscossione(rg, "UO2"), rg + "/riscossioni/" + d1 + "/" + domain.IUVOfNotice(paid["UO1"].NumeroAvviso) + "/IUR-NONE/1", "appRU"},
	} {
		got, other := w.do(t, "GET", c.existing, nil, as(c.caller)), w.do(t, "GET", c.absent, nil, as(c.caller))
		if got.Status != http.StatusForbidden || string(got.Body) != string(other.Body) {
			t.Errorf("%s: another unit's and a missing one answer apart:\n%d %s\n%d %s", c.caller, got.Status, got.Body, other.Status, other.Body)
		}
	}
	// An auditor of UO1 asks about UO1's receipts alone: a receipt lies at
	// its unit, and a missing one at the whole entity.
	w.grantUO1(t, "appAudit", "RAGIONERIA", "opAuditUO1", aclOf("Giornale degli Eventi", "R"))
	whoCanRead := func(u, iur string, named ...string) string {
		q := url.Values{"api": {"RAGIONERIA"}, "operazione": {"read-ricevuta"}, "idDominio": {d1},
			"iuv": {domain.IUVOfNotice(paid[u].NumeroAvviso)}, "idRicevuta": {iur}}
		for i := 0; i+1 < len(named); i += 2 {
			q.Set(named[i], named[i+1])
		}
		return bo + "/autorizzazioni?" + q.Encode()
	}
	runRows(t, w.harness, []row{
		{name: "unit_auditor_receipt_of_its_unit", method: "GET", path: whoCanRead("UO1", "IUR-UO1"), opts: []reqOpt{as("opAuditUO1")}, status: http.StatusOK},
		{name: "unit_auditor_receipt_of_other_unit", method: "GET", path: whoCanRead("UO2", "IUR-UO2"), opts: []reqOpt{as("opAuditUO1")}, status: http.StatusForbidden, codice: ff},
		{name: "unit_auditor_missing_receipt", method: "GET", path: whoCanRead("UO1", "IUR-NONE"), opts: []reqOpt{as("opAuditUO1")}, status: http.StatusForbidden, codice: ff},
		{name: "unit_auditor_other_unit_named_beside_its_own_receipt", method: "GET", path: whoCanRead("UO1", "IUR-UO1", "idUnitaOperativa", "UO2"), opts: []reqOpt{as("opAuditUO1")}, status: http.StatusForbidden, codice: ff},
		{name: "entity_auditor_missing_receipt", method: "GET", path: whoCanRead("UO1", "IUR-NONE"), opts: []reqOpt{as("opD1")}, status: http.StatusOK},
		{name: "entity_auditor_receipt_of_any_unit", method: "GET", path: whoCanRead("UO2", "IUR-UO2"), opts: []reqOpt{as("opD1")}, status: http.StatusOK},
	})
	for _, q := range []struct{ path, who string }{{rg + "/riscossioni", "appRU"}, {rg + "/ricevute", "appRU"},
		{bo + "/riscossioni", "opMoney"}, {bo + "/ricevute", "opMoney"}} {
		body := string(w.must(t, "GET", q.path, nil, as(q.who)).Body)
		if !strings.Contains(body, "IUR-UO1") || strings.Contains(body, "IUR-UO2") {
			t.Fatalf("%s as %s lists another unit's, or not its own: %s", q.path, q.who, body)
		}
	}

	// A payment over both units: on the Ragioneria API a grant on UO1
	// sees the payment with UO1's item alone (and its amount), by id and
	// in the list; a whole-entity grant sees both.
	refs := []map[string]any{}
	for _, u := range []string{"UO1", "UO2"} {
		b := pendenzaBodyFor(d1, t1, citizen1)
		b["idUnitaOperativa"] = u
		w.must(t, "PUT", pe+"/pendenze/appA/P"+u, b, as("appA"))
		refs = append(refs, map[string]any{"idA2A": "appA", "idPendenza": "P" + u})
	}
	var started pagamentoCreated
	w.must(t, "POST", pg+"/pagamenti", map[string]any{"pendenze": refs}, as("appA")).decode(t, &started)
	items := func(v pagamentoView) (ids []string) {
		for _, it := range v.Pendenze {
			ids = append(ids, it.IDPendenza)
		}
		return ids
	}
	for _, c := range []struct {
		who     string
		want    []string
		importo Importo
	}{{"appRU", []string{"PUO1"}, 12345}, {"appC", []string{"PUO1", "PUO2"}, 24690}} {
		var one pagamentoView
		w.must(t, "GET", rg+"/pagamenti/"+started.ID, nil, as(c.who)).decode(t, &one)
		var page Page[pagamentoView]
		w.must(t, "GET", rg+"/pagamenti", nil, as(c.who)).decode(t, &page)
		i := slices.IndexFunc(page.Risultati, func(v pagamentoView) bool { return v.ID == started.ID })
		if i < 0 {
			t.Fatalf("%s: payment %s not listed", c.who, started.ID)
		}
		for _, v := range []pagamentoView{one, page.Risultati[i]} {
			if !slices.Equal(items(v), c.want) || v.Importo != c.importo {
				t.Fatalf("%s sees items %v, importo %v; want %v, %v", c.who, items(v), v.Importo, c.want, c.importo)
			}
		}
	}
}

// grantUO1 authorizes application app on api, and gives operator op a role
// with entries, both over unit UO1 of d1 alone; it returns that scope.
func (w *world) grantUO1(t *testing.T, app, api, op string, entries ...map[string]any) []any {
	t.Helper()
	onUO1 := []any{map[string]any{"idDominio": d1, "unitaOperative": []string{"UO1"}}}
	w.must(t, "PUT", bo+"/applicazioni/"+app, map[string]any{"principal": app, "password": pw, "abilitato": true, "ruoli": []string{},
		"autorizzazioniApi": []any{map[string]any{"api": api, "domini": onUO1, "tipiPendenza": []string{"*"}}}})
	w.must(t, "PUT", bo+"/ruoli/"+op+"Role", map[string]any{"acl": acl(entries), "domini": onUO1, "tipiPendenza": []string{"*"}})
	w.putOperator(t, op, pw, true, op+"Role")
	return onUO1
}

// TestGovPayProfilo: GET /profilo on Pendenze v2 and Ragioneria v3 in
// GovPay's shape, to whoever may enter the API (issue 13 §4).
func TestGovPayProfilo(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const rag = "/ragioneria/rs/basic/v3"
	runRows(t, w.harness, []row{
		{"pendenze_app", "GET", pe + "/profilo", nil, opts(as("appA")), 200, ""},
		{"ragioneria_app", "GET", rag + "/profilo", nil, opts(as("appC")), 200, ""},
		{"ragioneria_only_app_on_pendenze", "GET", pe + "/profilo", nil, opts(as("appC")), 403, "403000"},
		{"app_without_grants", "GET", rag + "/profilo", nil, opts(as("appNone")), 403, "403000"},
		{"operator", "GET", pe + "/profilo", nil, opts(asAdmin()), 403, "403000"},
		{"disabled_app", "GET", pe + "/profilo", nil, opts(as("appDisabled")), 403, "403000"},
		{"no_credentials", "GET", pe + "/profilo", nil, nil, 401, "401000"},
	})
	var v govpayProfilo
	w.must(t, "GET", pe+"/profilo", nil, as("appA")).decode(t, &v)
	if v.Nome != "appA" || len(v.Domini) != 1 || v.Domini[0].IDDominio != d1 || v.Domini[0].RagioneSociale == "" {
		t.Fatalf("appA's profile: %+v", v)
	}
	if len(v.TipiPendenza) != 2 || v.ACL == nil || v.Additions.IDA2A != "appA" {
		t.Fatalf("appA's profile (types: every registered one; acl present): %+v", v)
	}
	var b govpayProfilo
	w.must(t, "GET", pe+"/profilo", nil, as("appB")).decode(t, &b)
	if len(b.Domini) != 2 {
		t.Fatalf(`appB's PENDENZE grant is "*": every entity, got %+v`, b.Domini)
	}
	// A grant on one unit of d1 names d1, as the Backoffice profile does
	// for a role on a unit: the application creates and reads there.
	w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/UO1", map[string]any{"ragioneSociale": "Ufficio UO1", "abilitato": true})
	for _, api := range []struct{ name, base string }{{"PENDENZE", pe}, {"RAGIONERIA", rag}} {
		app := "appUO1" + api.name
		w.grantUO1(t, app, api.name, "op"+app, aclOf("Pendenze", "R"))
		var u govpayProfilo
		w.must(t, "GET", api.base+"/profilo", nil, as(app)).decode(t, &u)
		if len(u.Domini) != 1 || u.Domini[0].IDDominio != d1 {
			t.Fatalf("%s profile of an application granted unit UO1 of d1: domini %+v, want d1", api.name, u.Domini)
		}
	}
}

// TestGovPayProfiloPagamento: the Pagamento profile in GovPay's shape: an
// application sees the entities and types of its PAGAMENTO grant, a
// citizen the entities whose notices it may ask about and no type grant.
func TestGovPayProfiloPagamento(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	var app profiloView
	w.must(t, "GET", pg+"/profilo", nil, as("appA")).decode(t, &app)
	if app.Nome != "appA" || len(app.Domini) != 1 || app.Domini[0].IDDominio != d1 || len(app.TipiPendenza) != 2 {
		t.Fatalf("application profile = %+v", app)
	}
	var cit profiloView
	w.must(t, "GET", "/pagamento/rs/spid/v2/profilo", nil, asSPID(citizen1)).decode(t, &cit)
	if cit.Nome != citizen1 || len(cit.Domini) != 2 || len(cit.TipiPendenza) != 0 {
		t.Fatalf("citizen profile = %+v", cit)
	}
	w.do(t, "GET", pg+"/profilo", nil, as("appC")).expect(t, 403, "403000") // no PAGAMENTO grant
}

// TestPatchProfilo: GovPay's PATCH /profilo on the Backoffice (issue 13
// §4): an operator changes its own password, the old one stops working at
// once and the new one works; it cannot take rights, scope or roles
// (403 own-profile), and an application cannot patch a profile at all.
func TestPatchProfilo(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	patch := func(ops ...map[string]any) []map[string]any { return ops }
	op := func(o, path string, value any) map[string]any {
		return map[string]any{"op": o, "path": path, "value": value}
	}
	ff, bad := codiceOf(http.StatusForbidden), codiceOf(http.StatusBadRequest)
	const newPw = "nuova-password-di-opRO-1"
	// An operator that authenticates with a certificate alone has no
	// password to change (422), once its patch is well formed (400 first).
	const opSSL, sslProfilo = "CN=op-ssl, O=Ente, C=IT", "/backoffice/rs/ssl/v1/profilo"
	w.must(t, "PUT", bo+"/operatori/"+url.PathEscape(opSSL), map[string]any{"ragioneSociale": "Operatore ssl", "abilitato": true, "ruoli": []string{"readOnly"}})
	sslCert := asCert(w.ca.ClientCert(t, pkix.Name{CommonName: "op-ssl", Organization: []string{"Ente"}, Country: []string{"IT"}}))
	runRows(t, w.harness, []row{
		{"certificate_operator_has_no_password", "PATCH", sslProfilo, patch(op("REPLACE", "/password", newPw)), opts(sslCert), http.StatusUnprocessableEntity, codiceOf(http.StatusUnprocessableEntity)},
		{"certificate_operator_bad_patch_first", "PATCH", sslProfilo, patch(op("ADD", "/password", newPw)), opts(sslCert), http.StatusBadRequest, bad},
		{"certificate_operator_empty_patch_first", "PATCH", sslProfilo, patch(), opts(sslCert), http.StatusBadRequest, bad},
		{"certificate_operator_takes_roles", "PATCH", sslProfilo, patch(op("ADD", "/ruoli", "Amministratore")), opts(sslCert), http.StatusForbidden, ff},
		{"application_empty_patch", "PATCH", bo + "/profilo", patch(), opts(as("appA")), http.StatusForbidden, ff},
		{"takes_roles", "PATCH", bo + "/profilo", patch(op("ADD", "/ruoli", "Amministratore")), opts(as("opRO")), http.StatusForbidden, ff},
		{"takes_scope", "PATCH", bo + "/profilo", patch(op("ADD", "/domini", d2)), opts(as("opD1")), http.StatusForbidden, ff},
		{"takes_acl_with_password", "PATCH", bo + "/profilo", patch(op("REPLACE", "/password", newPw), op("ADD", "/acl", aclOf("Pendenze", "W"))), opts(as("opRO")), http.StatusForbidden, ff},
		{"application", "PATCH", bo + "/profilo", patch(op("REPLACE", "/password", newPw)), opts(as("appA")), http.StatusForbidden, ff},
		{"not_a_replace", "PATCH", bo + "/profilo", patch(op("ADD", "/password", newPw)), opts(as("opRO")), http.StatusBadRequest, bad},
		{"path_not_a_pointer", "PATCH", bo + "/profilo", patch(op("REPLACE", "password", newPw)), opts(as("opRO")), http.StatusBadRequest, bad},
		{"empty_password", "PATCH", bo + "/profilo", patch(op("REPLACE", "/password", "")), opts(as("opRO")), http.StatusBadRequest, bad},
		{"not_a_patch", "PATCH", bo + "/profilo", map[string]any{"password": newPw}, opts(as("opRO")), http.StatusBadRequest, bad},
		{"changes_own_password", "PATCH", bo + "/profilo", patch(op("REPLACE", "/password", newPw)), opts(as("opRO")), http.StatusOK, ""},
		{"old_password_refused", "GET", bo + "/profilo", nil, opts(as("opRO")), http.StatusUnauthorized, codiceOf(http.StatusUnauthorized)},
		{"new_password_works", "GET", bo + "/profilo", nil, opts(asBasic("opRO", newPw)), http.StatusOK, ""},
	})
	// Nothing but the password changed: the operator keeps exactly its role.
	var v operatoreView
	w.must(t, "GET", bo+"/operatori/opRO", nil).decode(t, &v)
	if !slices.Equal(v.Ruoli, []string{"readOnly"}) || v.ACL != nil {
		t.Fatalf("opRO after its patches = %+v", v)
	}
}

// TestGovPayPatch: PATCH of applicazioni, operatori and ruoli with GovPay's
// patch operations is decided and written as the PUT of the patched
// resource (issue 13 §4): the service's W first (403 before 404), the
// delegation rule, and a bad patch writes nothing.
func TestGovPayPatch(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	op := func(o, path string, value any) map[string]any {
		m := map[string]any{"op": o, "path": path}
		if value != nil {
			m["value"] = value
		}
		return m
	}
	patch := func(ops ...map[string]any) []map[string]any { return ops }
	ff := codiceOf(http.StatusForbidden)
	runRows(t, w.harness, []row{
		{name: "add_role_to_application", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("ADD", "/ruoli", "readOnly")), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
		{name: "add_entity_to_application", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("ADD", "/domini", d2)), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
		{name: "read_only_operator", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("DELETE", "/ruoli", "readOnly")), opts: []reqOpt{as("opRO")}, status: http.StatusForbidden, codice: ff},
		{name: "forbidden_before_missing", method: "PATCH", path: bo + "/applicazioni/ghost", body: patch(op("ADD", "/ruoli", "readOnly")), opts: []reqOpt{as("opRO")}, status: http.StatusForbidden, codice: ff},
		{name: "missing", method: "PATCH", path: bo + "/applicazioni/ghost", body: patch(op("ADD", "/ruoli", "readOnly")), opts: []reqOpt{asAdmin()}, status: http.StatusNotFound, codice: codiceOf(http.StatusNotFound)},
		{name: "delegation_beyond_granter_scope", method: "PATCH", path: bo + "/applicazioni/appC", body: patch(op("ADD", "/domini", d2)), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: ff},
		{name: "scope_per_api_cannot_take_domini", method: "PATCH", path: bo + "/applicazioni/appB", body: patch(op("ADD", "/domini", d1)), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "unknown_op", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("MOVE", "/ruoli", "readOnly")), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "path_not_patchable", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("REPLACE", "/idA2A", "other")), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "empty_patch", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "not_a_list", method: "PATCH", path: bo + "/applicazioni/appA", body: map[string]any{"op": "ADD"}, opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "undefined_role_is_the_puts_422", method: "PATCH", path: bo + "/applicazioni/appA", body: patch(op("ADD", "/ruoli", "ghostRole")), opts: []reqOpt{asAdmin()}, status: http.StatusUnprocessableEntity, codice: codiceOf(http.StatusUnprocessableEntity)},

		{name: "disable_operator", method: "PATCH", path: bo + "/operatori/opNoRole", body: patch(op("REPLACE", "/abilitato", false)), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
		{name: "add_acl_to_role", method: "PATCH", path: bo + "/ruoli/readOnly", body: patch(op("DELETE", "/acl", aclOf("Pendenze", "R")), op("ADD", "/acl", aclOf("Pendenze", "R", "W"))), opts: []reqOpt{asAdmin()}, status: http.StatusOK},
	})

	var a applicazioneView
	w.must(t, "GET", bo+"/applicazioni/appA", nil).decode(t, &a)
	if !slices.Equal(a.Ruoli, []string{"readOnly"}) || !slices.Equal(a.Domini.IDs, []string{d1, d2}) || len(a.AutorizzazioniAPI) != 3 {
		t.Fatalf("patched application = %+v", a)
	}
	for _, g := range a.AutorizzazioniAPI {
		if !slices.Equal(g.Domini.IDs, []string{d1, d2}) {
			t.Fatalf("grant %s after ADD /domini = %v", g.API, g.Domini)
		}
	}
	var o operatoreView
	w.must(t, "GET", bo+"/operatori/opNoRole", nil).decode(t, &o)
	if o.Abilitato {
		t.Fatalf("operator still enabled: %+v", o)
	}
	var r ruoloView
	w.must(t, "GET", bo+"/ruoli/readOnly", nil).decode(t, &r)
	// Exactly one Pendenze entry, now RW: a lost ADD leaves none (the
	// DELETE removed it), which a loop over what is there cannot see.
	if i := slices.IndexFunc(r.ACL, func(e aclEntry) bool { return e.Servizio == "Pendenze" }); i < 0 ||
		!slices.Equal(r.ACL[i].Autorizzazioni, []string{"R", "W"}) ||
		slices.ContainsFunc(r.ACL[i+1:], func(e aclEntry) bool { return e.Servizio == "Pendenze" }) {
		t.Fatalf("role after the patch: %+v, want one Pendenze entry [R W]", r.ACL)
	}
	// The application a denied patch named is unchanged.
	w.must(t, "GET", bo+"/applicazioni/appC", nil).decode(t, &a)
	if len(a.AutorizzazioniAPI) != 1 || !slices.Equal(a.AutorizzazioniAPI[0].Domini.IDs, []string{d1}) {
		t.Fatalf("appC changed by a denied patch: %+v", a)
	}
}

func asAPIKey(id, key string) reqOpt {
	return func(r *request) {
		r.header.Set(appIDHeader, id)
		r.header.Set(apiKeyHeader, key)
	}
}

// TestAPIKeyAuthentication: GovPay's apikey mount (X-APP-ID, X-API-KEY)
// on every API but the node API (issue 13 §3). The key is set by the PUT
// of the application or operator, stored hashed and never returned.
func TestAPIKeyAuthentication(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const appKey, opKey = "app-key-0123456789", "op-key-0123456789"
	w.must(t, "PUT", bo+"/applicazioni/appK", map[string]any{"principal": "appK-user", "password": pw, "apiKey": appKey,
		"abilitato": true, "ruoli": []string{}, "autorizzazioniApi": []map[string]any{
			apiGrant("PENDENZE", []string{d1}, []string{"*"}), apiGrant("PAGAMENTO", []string{d1}, []string{"*"}),
			apiGrant("RAGIONERIA", []string{d1}, []string{"*"})}})
	put := w.must(t, "PUT", bo+"/operatori/opK", map[string]any{"ragioneSociale": "Operatore K", "apiKey": opKey,
		"abilitato": true, "ruoli": []string{"readOnly"}})
	const (
		pek = "/pendenze/rs/apikey/v2"
		bok = "/backoffice/rs/apikey/v1"
		rak = "/ragioneria/rs/apikey/v3"
		pak = "/pagamento/rs/apikey/v2"
	)
	runRows(t, w.harness, []row{
		{"application_on_pendenze", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK", appKey)), 200, ""},
		{"application_on_pagamento", "GET", pak + "/pagamenti", nil, opts(asAPIKey("appK", appKey)), 200, ""},
		{"application_on_ragioneria", "GET", rak + "/riconciliazioni", nil, opts(asAPIKey("appK", appKey)), 200, ""},
		{"application_without_roles_not_on_backoffice", "GET", bok + "/profilo", nil, opts(asAPIKey("appK", appKey)), 403, "403000"},
		{"operator_on_backoffice", "GET", bok + "/domini/" + d1, nil, opts(asAPIKey("opK", opKey)), 200, ""},
		{"operator_read_only_cannot_write", "PUT", bok + "/domini/" + d1, map[string]any{"ragioneSociale": "x", "abilitato": true},
			opts(asAPIKey("opK", opKey)), 403, "403000"},
		{"operator_not_on_pendenze", "GET", pek + "/pendenze", nil, opts(asAPIKey("opK", opKey)), 403, "403000"},
		{"wrong_key", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK", "wrong-key-0123456789")), 401, "401000"},
		{"key_of_another_principal", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK", opKey)), 401, "401000"},
		{"unknown_app_id", "GET", pek + "/pendenze", nil, opts(asAPIKey("ghost", appKey)), 401, "401000"},
		{"app_id_is_the_idA2A_not_the_principal", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK-user", appKey)), 401, "401000"},
		{"principal_without_key", "GET", pek + "/pendenze", nil, opts(asAPIKey("appA", pw)), 401, "401000"},
		{"no_headers", "GET", pek + "/pendenze", nil, nil, 401, "401000"},
		{"only_app_id", "GET", pek + "/pendenze", nil, opts(withHeader(appIDHeader, "appK")), 401, "401000"},
		// A credential header given twice is ambiguous (a proxy in front
		// may read the last): 401 on every API, whichever value is good.
		{"app_id_twice_on_pendenze", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK", appKey), alsoHeader(appIDHeader, "opK")), 401, "401000"},
		{"app_id_twice_on_pagamento", "GET", pak + "/pagamenti", nil, opts(asAPIKey("appK", appKey), alsoHeader(appIDHeader, "appK")), 401, "401000"},
		{"api_key_twice_on_ragioneria", "GET", rak + "/riconciliazioni", nil, opts(asAPIKey("appK", appKey), alsoHeader(apiKeyHeader, opKey)), 401, "401000"},
		{"api_key_twice_on_backoffice", "GET", bok + "/domini/" + d1, nil, opts(asAPIKey("opK", "wrong-key-0123456789"), alsoHeader(apiKeyHeader, opKey)), 401, "401000"},
		{"oversized_key", "GET", pek + "/pendenze", nil, opts(asAPIKey("appK", strings.Repeat("k", 2000))), 401, "401000"},
		{"basic_password_is_not_the_key", "GET", pe + "/pendenze", nil, opts(asBasic("appK-user", appKey)), 401, "401000"},
		{"basic_still_works", "GET", pe + "/pendenze", nil, opts(asBasic("appK-user", pw)), 200, ""},
		{"node_api_refuses_apikey", "GET", "/nodo/rs/apikey/v1/intermediari/INT1/avvisi/" + d1 + "/000000000000000001", nil,
			opts(asAPIKey("appK", appKey)), 403, "403"},
		{"short_key_refused", "PUT", bo + "/operatori/opK", map[string]any{"ragioneSociale": "Operatore K", "apiKey": "short",
			"abilitato": true, "ruoli": []string{"readOnly"}}, opts(asAdmin()), 400, "SINTASSI"},
	})

	// The key is never returned: not by the PUT, the GET, the lists or the
	// event log.
	for _, path := range []string{bo + "/applicazioni/appK", bo + "/operatori/opK", bo + "/applicazioni", bo + "/operatori", bo + "/eventi"} {
		body := string(w.must(t, "GET", path, nil).Body)
		for _, s := range []string{appKey, opKey, "apiKey", "$argon2id$"} {
			if strings.Contains(body, s) || strings.Contains(string(put.Body), s) {
				t.Fatalf("GET %s leaks %q: %s", path, s, body)
			}
		}
	}

	t.Run("new_key_replaces_old_absent_key_keeps_it", func(t *testing.T) {
		const newKey = "op-key-new-0123456789"
		w.must(t, "PUT", bo+"/operatori/opK", map[string]any{"ragioneSociale": "Operatore K", "apiKey": newKey,
			"abilitato": true, "ruoli": []string{"readOnly"}})
		w.do(t, "GET", bok+"/profilo", nil, asAPIKey("opK", opKey)).expect(t, http.StatusUnauthorized, "401000")
		w.do(t, "GET", bok+"/profilo", nil, asAPIKey("opK", newKey)).expect(t, http.StatusOK, "")
		w.must(t, "PUT", bo+"/operatori/opK", map[string]any{"ragioneSociale": "Operatore K rinominato",
			"abilitato": true, "ruoli": []string{"readOnly"}})
		w.do(t, "GET", bok+"/profilo", nil, asAPIKey("opK", newKey)).expect(t, http.StatusOK, "")
	})
	t.Run("disabled_principal_is_refused", func(t *testing.T) {
		w.must(t, "PUT", bo+"/operatori/opK", map[string]any{"ragioneSociale": "Operatore K",
			"abilitato": false, "ruoli": []string{"readOnly"}})
		w.do(t, "GET", bok+"/profilo", nil, asAPIKey("opK", "op-key-new-0123456789")).expect(t, http.StatusForbidden, "403000")
	})
}

// TestGovPayServiziACLAndLogout: Backoffice /enumerazioni/serviziACL (any
// role) and /logout on the Backoffice and Pagamento (issue 13 §4).
func TestGovPayServiziACLAndLogout(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	runRows(t, w.harness, []row{
		{"servizi_read_only_operator", "GET", bo + "/enumerazioni/serviziACL", nil, opts(as("opRO")), 200, ""},
		{"servizi_operator_without_roles", "GET", bo + "/enumerazioni/serviziACL", nil, opts(as("opNoRole")), 403, "403000"},
		{"servizi_no_credentials", "GET", bo + "/enumerazioni/serviziACL", nil, nil, 401, "401000"},
		{"logout_operator", "GET", bo + "/logout", nil, opts(as("opRO")), 200, ""},
		{"logout_operator_without_roles", "GET", bo + "/logout", nil, opts(as("opNoRole")), 403, "403000"},
		{"logout_citizen", "GET", "/pagamento/rs/spid/v2/logout", nil, opts(asSPID(citizen1)), 200, ""},
		{"logout_application_without_pagamento", "GET", "/pagamento/rs/basic/v2/logout", nil, opts(as("appC")), 403, "403000"},
	})
	var servizi []string
	w.must(t, "GET", bo+"/enumerazioni/serviziACL", nil).decode(t, &servizi)
	if len(servizi) != len(allServices) || servizi[0] != "Anagrafica PagoPA" {
		t.Fatalf("serviziACL = %v", servizi)
	}
	t.Run("anonymous_logout_expires_the_session_cookie", func(t *testing.T) {
		res := w.do(t, "GET", "/pagamento/rs/public/v2/logout", nil)
		res.expect(t, http.StatusOK, "")
		ck := res.Header.Get("Set-Cookie")
		if !strings.HasPrefix(ck, SessionCookie+"=;") || !strings.Contains(ck, "Max-Age=0") {
			t.Fatalf("Set-Cookie = %q, want the session cookie expired", ck)
		}
	})
}

// TestMethodNotAllowed: a method no route takes on an existing path is 405
// with Allow and the FaultBean (issue 13 §4); a path no route has is 404.
func TestMethodNotAllowed(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	cases := []struct {
		name   string
		method string
		path   string
		opt    reqOpt
		want   int
		allow  string
	}{
		{"delete_entity", "DELETE", bo + "/domini/" + d1, asAdmin(), http.StatusMethodNotAllowed, "GET, PUT"},
		{"post_entity", "POST", bo + "/domini/" + d1, asAdmin(), http.StatusMethodNotAllowed, "GET, PUT"},
		{"put_profile", "PUT", bo + "/profilo", asAdmin(), http.StatusMethodNotAllowed, "GET, PATCH"},
		{"delete_entity_list", "DELETE", bo + "/domini", asAdmin(), http.StatusMethodNotAllowed, "GET"},
		{"allowed_method_still_answers", "GET", bo + "/domini/" + d1, asAdmin(), http.StatusOK, ""},
		{"unknown_path", "DELETE", bo + "/nothing/here", asAdmin(), http.StatusNotFound, ""},
		{"unknown_path_get", "GET", bo + "/nothing", asAdmin(), http.StatusNotFound, ""},
		// Echo lets a route's last ":param" take the rest of the path,
		// slashes and all; a path with more segments than the route's is
		// still no route's.
		{"extra_segment", "GET", bo + "/domini/" + d1 + "/extra", asAdmin(), http.StatusNotFound, ""},
		{"extra_segment_put", "PUT", bo + "/tipiPendenza/t1/extra", asAdmin(), http.StatusNotFound, ""},
		{"extra_segment_delete", "DELETE", bo + "/domini/" + d1 + "/x/y", asAdmin(), http.StatusNotFound, ""},
		{"trailing_slash", "GET", bo + "/domini/" + d1 + "/", asAdmin(), http.StatusNotFound, ""},
		// The rows above end where a route goes on (/domini/{id}/unitaOperative),
		// so Echo never lets their id take the rest; these end on a last :param.
		{"extra_segment_last_param", "GET", bo + "/tipiPendenza/t1/extra", asAdmin(), http.StatusNotFound, ""},
		{"trailing_slash_last_param", "GET", bo + "/tipiPendenza/t1/", asAdmin(), http.StatusNotFound, ""},
		{"extra_segments_last_param", "GET", bo + "/pendenze/appA/p1/x/y", asAdmin(), http.StatusNotFound, ""},
		{"extra_segment_last_param_other_method", "DELETE", bo + "/tipiPendenza/t1/extra", asAdmin(), http.StatusNotFound, ""},
		{"escaped_slash_is_one_segment", "GET", bo + "/domini/a%2Fb", asAdmin(), http.StatusBadRequest, ""},
		{"escaped_slash_other_method", "DELETE", bo + "/domini/a%2Fb", asAdmin(), http.StatusMethodNotAllowed, "GET, PUT"},
		// Nothing is normalized: a path is matched as sent (API.md
		// section 2).
		{"double_slash", "GET", bo + "/domini//" + d1, asAdmin(), http.StatusNotFound, ""},
		{"dot_segment", "GET", bo + "/./domini/" + d1, asAdmin(), http.StatusNotFound, ""},
		{"dot_dot_segment", "GET", bo + "/x/../domini/" + d1, asAdmin(), http.StatusNotFound, ""},
		{"upper_case_segment", "GET", bo + "/DOMINI/" + d1, asAdmin(), http.StatusNotFound, ""},
		{"empty_id_with_query", "GET", bo + "/domini/?x=1", asAdmin(), http.StatusNotFound, ""},
		{"semicolon_in_id", "GET", bo + "/domini/" + d1 + ";x=1", asAdmin(), http.StatusBadRequest, ""},
		// OPTIONS is a method like any other here (no CORS), and a method
		// is case-sensitive (RFC 9110 section 9.1): "get" is no GET.
		{"options", "OPTIONS", bo + "/domini/" + d1, asAdmin(), http.StatusMethodNotAllowed, "GET, PUT"},
		{"lower_case_get", "get", bo + "/domini/" + d1, asAdmin(), http.StatusMethodNotAllowed, "GET, PUT"},
		{"made_up_method", "FETCH", bo + "/domini/" + d1, asAdmin(), http.StatusMethodNotAllowed, "GET, PUT"},
		// The mount's authentication runs first, as for every request
		// under it: no credentials learn nothing of the routes.
		{"no_credentials", "DELETE", bo + "/domini/" + d1, nil, http.StatusUnauthorized, ""},
		{"options_no_credentials", "OPTIONS", bo + "/domini/" + d1, nil, http.StatusUnauthorized, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var opts []reqOpt
			if c.opt != nil {
				opts = append(opts, c.opt)
			}
			res := h.do(t, c.method, c.path, nil, opts...)
			codice := codiceOf(c.want)
			if c.want == http.StatusMethodNotAllowed {
				codice = "405000"
			}
			res.expect(t, c.want, codice)
			if got := res.Header.Get("Allow"); got != c.allow {
				t.Fatalf("Allow = %q, want %q", got, c.allow)
			}
		})
	}
	// HEAD is no route's method either (API.md section 2): 405 with the
	// Allow of the GET route, and no body, as HEAD has none.
	t.Run("head_of_a_get_route", func(t *testing.T) {
		res := h.do(t, "HEAD", bo+"/domini/"+d1, nil, asAdmin())
		if res.Status != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, PUT" || len(res.Body) != 0 {
			t.Fatalf("HEAD: %d, Allow %q, body %q; want 405, Allow GET, PUT, no body", res.Status, res.Header.Get("Allow"), res.Body)
		}
	})
	// The service's own endpoints answer OPTIONS 204 with Allow (Echo's
	// default), and HEAD only on the probes.
	for _, c := range []struct {
		method, path string
		want         int
		allow        string
	}{
		{"OPTIONS", "/metrics", http.StatusNoContent, "OPTIONS, GET"},
		{"OPTIONS", "/readyz", http.StatusNoContent, "OPTIONS, GET, HEAD"},
		{"HEAD", "/healthz", http.StatusOK, ""},
		{"HEAD", "/openapi.json", http.StatusMethodNotAllowed, "OPTIONS, GET"},
	} {
		req, err := http.NewRequest(c.method, h.httpURL+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != c.want || res.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d, Allow %q; want %d, Allow %q", c.method, c.path, res.StatusCode, res.Header.Get("Allow"), c.want, c.allow)
		}
	}
}

func TestRoutePatternMatches(t *testing.T) {
	t.Parallel()
	table := newAllowTable(echo.Routes{
		{Method: "GET", Path: "/a/rs/basic/v1/domini/:id"},
		{Method: "PUT", Path: "/a/rs/basic/v1/domini/:id"},
		{Method: "GET", Path: "/a/rs/basic/v1/domini"},
		{Method: "POST", Path: "/a/rs/basic/v1/files/*"},
		{Method: echo.RouteNotFound, Path: "/a/rs/basic/v1/*"},
		{Method: echo.RouteAny, Path: "/a/rs/:auth/v1/*"},
	})
	cases := []struct {
		name, path, want string
	}{
		{"param_segment", "/a/rs/basic/v1/domini/X", "GET,PUT"},
		{"static_route", "/a/rs/basic/v1/domini", "GET"},
		{"empty_param_is_no_match", "/a/rs/basic/v1/domini/", ""},
		{"extra_segment_is_no_match", "/a/rs/basic/v1/domini/X/Y", ""},
		{"trailing_wildcard", "/a/rs/basic/v1/files/x/y", "POST"},
		{"trailing_wildcard_many_segments", "/a/rs/basic/v1/files" + strings.Repeat("/x", 50), "POST"},
		{"many_segments_is_no_match", "/a/rs/basic/v1/domini" + strings.Repeat("/x", 50), ""},
		{"catch_alls_are_not_routes", "/a/rs/basic/v1/other", ""},
		{"other_mount", "/a/rs/ssl/v1/domini/X", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			for i, m := range table.allowed(c.path) {
				if i > 0 {
					got += ","
				}
				got += m
			}
			if got != c.want {
				t.Fatalf("allowed(%q) = %q, want %q", c.path, got, c.want)
			}
		})
	}
}

// TestGovPayPersonalRoles: an operator's or application's own acl over
// its own domini and tipiPendenza (GovPay's per-user scope) is a personal
// role, decided like a named role and held by that principal alone
// (issue 13 §1).
func TestGovPayPersonalRoles(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "P-D1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "P-D2", d2, t1, citizen1)
	personal := func(domini []string, entries ...map[string]any) map[string]any {
		return map[string]any{"ragioneSociale": "Mario Bianchi", "password": pw, "abilitato": true, "ruoli": []string{},
			"acl": entries, "domini": domini, "tipiPendenza": []string{"*"}}
	}
	pendenzeR := aclOf("Pendenze", "R")
	creditoreR := aclOf("Anagrafica Creditore", "R")
	w.must(t, "PUT", bo+"/operatori/opPers", personal([]string{d1}, pendenzeR, creditoreR))
	app := map[string]any{"principal": "appPers", "password": pw, "abilitato": true, "ruoli": []string{},
		"acl": []map[string]any{pendenzeR}, "domini": []string{d1}, "tipiPendenza": []string{"*"}}
	w.must(t, "PUT", bo+"/applicazioni/appPers", app)
	w.must(t, "PUT", bo+"/operatori/opD2", personal([]string{d2}, pendenzeR))

	runRows(t, w.harness, []row{
		// The personal role's rights, in its scope only.
		{name: "operator_reads_pendenza_in_personal_scope", method: "GET", path: bo + "/pendenze/appA/P-D1", opts: []reqOpt{as("opPers")}, status: http.StatusOK},
		{name: "operator_pendenza_outside_personal_scope", method: "GET", path: bo + "/pendenze/appB/P-D2", opts: []reqOpt{as("opPers")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},
		{name: "operator_reads_entity_in_personal_scope", method: "GET", path: bo + "/domini/" + d1, opts: []reqOpt{as("opPers")}, status: http.StatusOK},
		{name: "operator_entity_outside_personal_scope", method: "GET", path: bo + "/domini/" + d2, opts: []reqOpt{as("opPers")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},
		{name: "operator_right_not_in_personal_acl", method: "PUT", path: bo + "/domini/" + d1,
			body: map[string]any{"ragioneSociale": "Comune", "abilitato": true}, opts: []reqOpt{as("opPers")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},
		{name: "application_reads_pendenza_in_personal_scope", method: "GET", path: bo + "/pendenze/appA/P-D1", opts: []reqOpt{as("appPers")}, status: http.StatusOK},
		{name: "application_pendenza_outside_personal_scope", method: "GET", path: bo + "/pendenze/appB/P-D2", opts: []reqOpt{as("appPers")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},

		// Delegation: a personal role is granted like a named role.
		// opD1 holds every right on d1 only.
		{name: "delegation_within_granter_scope", method: "PUT", path: bo + "/operatori/opDeleg",
			body: personal([]string{d1}, pendenzeR), opts: []reqOpt{as("opD1")}, status: http.StatusCreated},
		{name: "delegation_beyond_granter_scope", method: "PUT", path: bo + "/operatori/opBeyond",
			body: personal([]string{d2}, pendenzeR), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},
		{name: "granter_changes_a_personal_role_it_could_grant", method: "PUT", path: bo + "/operatori/opPers",
			body: personal([]string{d1}, pendenzeR), opts: []reqOpt{as("opD1")}, status: http.StatusOK},
		{name: "granter_cannot_change_a_personal_role_it_could_not_grant", method: "PUT", path: bo + "/operatori/opD2",
			body: personal([]string{d1}, pendenzeR), opts: []reqOpt{as("opD1")}, status: http.StatusForbidden, codice: codiceOf(http.StatusForbidden)},

		// Bad input: the contract's 400, nothing written.
		{name: "unknown_servizio", method: "PUT", path: bo + "/operatori/opBad",
			body: personal([]string{d1}, aclOf("Nope", "R")), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "bad_right", method: "PUT", path: bo + "/operatori/opBad",
			body: personal([]string{d1}, aclOf("Pendenze", "X")), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "bad_dominio", method: "PUT", path: bo + "/operatori/opBad",
			body: personal([]string{"d1"}, pendenzeR), opts: []reqOpt{asAdmin()}, status: http.StatusBadRequest, codice: codiceOf(http.StatusBadRequest)},
		{name: "nothing_was_written", method: "GET", path: bo + "/operatori/opBad", opts: []reqOpt{asAdmin()}, status: http.StatusNotFound, codice: codiceOf(http.StatusNotFound)},
	})

	t.Run("get_shows_the_personal_role", func(t *testing.T) {
		var op operatoreView
		w.must(t, "GET", bo+"/operatori/opPers", nil).decode(t, &op)
		if len(op.ACL) != 1 || op.ACL[0].Servizio != "Pendenze" || !slices.Equal(op.Domini.IDs, []string{d1}) ||
			!slices.Equal(op.TipiPendenza, []string{"*"}) || len(op.Ruoli) != 0 {
			t.Fatalf("operator = %+v", op)
		}
		var a applicazioneView
		w.must(t, "GET", bo+"/applicazioni/appPers", nil).decode(t, &a)
		if len(a.ACL) != 1 || a.ACL[0].Servizio != "Pendenze" || !slices.Equal(a.Domini.IDs, []string{d1}) {
			t.Fatalf("application = %+v", a)
		}
	})
	t.Run("profile_lists_its_rights_not_a_named_role", func(t *testing.T) {
		var p profiloView
		w.must(t, "GET", bo+"/profilo", nil, as("opPers")).decode(t, &p)
		if len(p.Ruoli) != 0 || len(p.ACL) != 1 || p.ACL[0].Servizio != "Pendenze" || !slices.Equal(p.ACL[0].Domini.IDs, []string{d1}) {
			t.Fatalf("profilo = %+v", p)
		}
	})
	t.Run("repeat_changes_nothing", func(t *testing.T) {
		w.do(t, "PUT", bo+"/operatori/opPers", personal([]string{d1}, pendenzeR), asAdmin()).expect(t, http.StatusOK, "")
		before := w.must(t, "GET", bo+"/eventi", nil).Body
		w.do(t, "PUT", bo+"/operatori/opPers", map[string]any{"ragioneSociale": "Mario Bianchi", "abilitato": true, "ruoli": []string{},
			"acl": []map[string]any{pendenzeR}, "domini": []string{d1}, "tipiPendenza": []string{"*"}}, asAdmin()).expect(t, http.StatusOK, "")
		if after := w.must(t, "GET", bo+"/eventi", nil).Body; string(after) != string(before) {
			t.Fatal("an unchanged personal role wrote an event")
		}
	})
	t.Run("removing_the_acl_removes_the_rights", func(t *testing.T) {
		w.must(t, "PUT", bo+"/operatori/opPers", map[string]any{"ragioneSociale": "Mario Bianchi", "abilitato": true, "ruoli": []string{}})
		w.do(t, "GET", bo+"/pendenze/appA/P-D1", nil, as("opPers")).expect(t, http.StatusForbidden, codiceOf(http.StatusForbidden))
		var op operatoreView
		w.must(t, "GET", bo+"/operatori/opPers", nil).decode(t, &op)
		if op.ACL != nil || len(op.Domini.IDs) != 0 || op.Domini.Units != nil || len(op.TipiPendenza) != 0 {
			t.Fatalf("operator still shows a personal role: %+v", op)
		}
	})
}

// TestGovPayDominiEntries: GovPay's domini entries may be ids or objects
// {idDominio, unitaOperative}; an object without units is its id, and
// units, a scope this service does not hold yet, are refused with 422
// rather than silently widened to the whole entity.
func TestGovPayDominiEntries(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	app := func(domini any) map[string]any {
		return map[string]any{"principal": "appObj", "password": pw, "abilitato": true, "ruoli": []string{},
			"apiPendenze": true, "domini": domini, "tipiPendenza": []string{"*"}}
	}
	h.do(t, "PUT", bo+"/applicazioni/appObj", app([]any{map[string]any{"idDominio": d1}}), asAdmin()).expect(t, http.StatusCreated, "")
	var a applicazioneView
	h.must(t, "GET", bo+"/applicazioni/appObj", nil).decode(t, &a)
	if !slices.Equal(a.Domini.IDs, []string{d1}) || len(a.AutorizzazioniAPI) != 1 {
		t.Fatalf("application = %+v", a)
	}
	// An entity named whole and with units is covered whole.
	h.do(t, "PUT", bo+"/applicazioni/appObj", app([]any{d1, map[string]any{"idDominio": d1, "unitaOperative": []string{"UO1"}}}), asAdmin()).
		expect(t, http.StatusOK, "")
	h.must(t, "GET", bo+"/applicazioni/appObj", nil).decode(t, &a)
	if !slices.Equal(a.Domini.IDs, []string{d1}) || a.Domini.Units != nil {
		t.Fatalf("application = %+v", a)
	}
	h.do(t, "PUT", bo+"/applicazioni/appObj", app([]any{map[string]any{"idDominio": d1, "unitaOperative": []string{"bad unit!"}}}), asAdmin()).
		expect(t, http.StatusBadRequest, codiceOf(http.StatusBadRequest))
	h.do(t, "PUT", bo+"/applicazioni/appObj", app([]any{map[string]any{"idDominio": d1, "other": 1}}), asAdmin()).
		expect(t, http.StatusBadRequest, codiceOf(http.StatusBadRequest))
	h.do(t, "PUT", bo+"/applicazioni/appObj", app([]any{42}), asAdmin()).expect(t, http.StatusBadRequest, codiceOf(http.StatusBadRequest))
	h.do(t, "PUT", bo+"/operatori/opObj", map[string]any{"ragioneSociale": "Op", "password": pw, "abilitato": true, "ruoli": []string{},
		"acl": []map[string]any{aclOf("Pendenze", "R")}, "domini": []any{map[string]any{"idDominio": d1, "unitaOperative": []string{}}},
		"tipiPendenza": []string{"*"}}, asAdmin()).expect(t, http.StatusCreated, "")
	// Nothing the refused PUTs carried was written.
	h.must(t, "GET", bo+"/applicazioni/appObj", nil).decode(t, &a)
	if !slices.Equal(a.Domini.IDs, []string{d1}) {
		t.Fatalf("application after refused PUTs = %+v", a)
	}
}

// TestGovPayApplicazioneBody: GovPay's applicazione body as its spec's
// example shapes it (issue 13 §1): codificaAvvisi is kept and returned;
// the integration connector, which may hold credentials, is kept but
// never returned nor shown by the event log.
func TestGovPayApplicazioneBody(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	h.putType(t, t1, false)
	body := func(connector bool, iuv string) map[string]any {
		b := map[string]any{"principal": "gestionale", "password": pw, "abilitato": true,
			"codificaAvvisi": map[string]any{"codificaIuv": iuv, "regExpIuv": "[0,1]*", "generazioneIuvInterna": true},
			"domini":         []any{d1}, "tipiPendenza": []string{t1}, "apiPagamenti": true, "apiPendenze": true, "apiRagioneria": false,
			"acl": []map[string]any{aclOf("Pendenze", "R")}, "ruoli": []string{}}
		if connector {
			b["servizioIntegrazione"] = map[string]any{"url": "https://ente.example/govpay", "versioneApi": "REST v1",
				"auth": map[string]any{"username": "gp", "password": "integration-secret"}}
		}
		return b
	}
	h.do(t, "PUT", bo+"/applicazioni/gestionale", body(true, "01"), asAdmin()).expect(t, http.StatusCreated, "")
	res := h.must(t, "GET", bo+"/applicazioni/gestionale", nil)
	var a applicazioneView
	res.decode(t, &a)
	if a.CodificaAvvisi == nil || a.CodificaAvvisi.CodificaIuv != "01" || a.CodificaAvvisi.RegExpIuv != "[0,1]*" ||
		len(a.ACL) != 1 || !a.APIPagamenti || !a.APIPendenze || a.APIRagioneria {
		t.Fatalf("application = %+v", a)
	}
	for _, secret := range []string{"servizioIntegrazione", "integration-secret"} {
		if strings.Contains(string(res.Body), secret) {
			t.Fatalf("GET returned %s: %s", secret, res.Body)
		}
		if log := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body); strings.Contains(log, "integration-secret") {
			t.Fatalf("the event log shows the connector's password: %s", log)
		}
	}
	before := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body)
	repeat := body(false, "01")
	delete(repeat, "password") // a password sent is a new hash, so a change
	h.do(t, "PUT", bo+"/applicazioni/gestionale", repeat, asAdmin()).expect(t, http.StatusOK, "")
	if after := string(h.must(t, "GET", bo+"/eventi?risultatiPerPagina=100", nil).Body); after != before {
		t.Fatal("a PUT that left the connector out changed the application")
	}
	h.do(t, "PUT", bo+"/applicazioni/gestionale", body(false, "ABC"), asAdmin()).expect(t, http.StatusBadRequest, codiceOf(http.StatusBadRequest))
	h.must(t, "GET", bo+"/applicazioni/gestionale", nil).decode(t, &a)
	if a.CodificaAvvisi.CodificaIuv != "01" {
		t.Fatalf("a refused PUT changed codificaAvvisi: %+v", a.CodificaAvvisi)
	}
}

// TestGovPaySpecExamples sends, one after the other, the bodies GovPay's
// Backoffice v1 and Pendenze v2 specifications give as examples (each
// member with the spec's own example value; where an example is not a
// valid value of its own schema, e.g. a 10-digit idDominio, the nearest
// valid one), as a GovPay client or configuration script would (issue 13
// §1, done-when). Every one is accepted.
func TestGovPaySpecExamples(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const ente, interm = "01234567890", "99999999999"
	acl := []map[string]any{{"servizio": "Anagrafica PagoPA", "autorizzazioni": []string{"R", "W"}}}
	steps := []struct {
		name, method, path string
		body               any
		status             int
	}{
		{"intermediario", "PUT", bo + "/intermediari/" + interm, map[string]any{"denominazione": "Intermediario PagoPA", "abilitato": true,
			"connettoreNodo": map[string]any{"principal": "nodo-pagopa", "password": "password123456"}}, http.StatusCreated},
		{"dominioPost", "PUT", bo + "/domini/" + ente, map[string]any{"ragioneSociale": "Ente Creditore", "indirizzo": "Corso Italia",
			"civico": "1A", "cap": "00000", "localita": "Roma", "provincia": "Roma", "nazione": "IT", "email": "peo@creditore.it",
			"pec": "pec@creditore.it", "tel": "021234567890", "fax": "021234567890", "web": "http://www.comune.it/",
			"gln": "0011223344556", "cbill": "12345", "iuvPrefix": "%(y)%(a)", "stazione": interm + "_01", "auxDigit": "0",
			"segregationCode": "88", "logo": base64.StdEncoding.EncodeToString([]byte("logo")), "abilitato": true,
			"autStampaPosteItaliane": "AUT. DB/xxxx/xxx xxxxx DEL xx/xx/xxxx", "area": "Affari generali e istituzionali"}, http.StatusCreated},
		{"tipoPendenzaPost", "PUT", bo + "/tipiPendenza/IMU", map[string]any{"descrizione": "Imposta municipale urbana",
			"codificaIUV": "01", "pagaTerzi": true, "abilitato": true}, http.StatusCreated},
		{"ruolo_acl_alone", "PUT", bo + "/ruoli/Operatore", map[string]any{"acl": acl}, http.StatusCreated},
		{"operatorePost", "PUT", bo + "/operatori/operatore001", map[string]any{"ragioneSociale": "Mario Rossi",
			"password": "password123456", "domini": []any{ente, map[string]any{"idDominio": d1}}, "tipiPendenza": []string{"IMU", "TARI", "TASI"},
			"acl": acl, "ruoli": []string{"Operatore", "Amministratore"}, "abilitato": true}, http.StatusCreated},
		{"applicazionePost", "PUT", bo + "/applicazioni/A2A-12345", map[string]any{"principal": "aaa12345",
			"password": "password123456", "codificaAvvisi": map[string]any{"codificaIuv": "01", "regExpIuv": "[0,1]*", "generazioneIuvInterna": true},
			"domini": []any{map[string]any{"idDominio": ente}}, "tipiPendenza": []string{"IMU", "TARI", "TASI"},
			"apiPagamenti": true, "apiPendenze": true, "apiRagioneria": true, "acl": acl, "ruoli": []string{"Operatore"},
			"servizioIntegrazione": map[string]any{"url": "http://ente.example/govpay", "versioneApi": "REST v1"}, "abilitato": true}, http.StatusCreated},
		{"nuovaPendenza", "PUT", pe + "/pendenze/appA/esempio-1", govpayPendenzaBody(), http.StatusCreated},
	}
	for _, s := range steps {
		w.do(t, s.method, s.path, s.body, asAdmin(), asBasicIf(s.path, "appA")).expect(t, s.status, "")
	}
}

// asBasicIf authenticates a Pendenze API request as app, and leaves any
// other request as it is.
func asBasicIf(path, app string) reqOpt {
	if len(path) >= len(pe) && path[:len(pe)] == pe {
		return as(app)
	}
	return func(*request) {}
}

// members decodes a JSON object's members, each left raw.
func members(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return m
}

// TestGovPayProfiloACLAlwaysPresent: acl is a required member of GovPay's
// profilo (Backoffice v1 and Pagamento v2): a caller with no right at all
// (a role with an empty acl, a citizen) gets "acl": [], not no acl.
func TestGovPayProfiloACLAlwaysPresent(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.putRole(t, "noRights", acl{}, []string{d1}, []string{"*"})
	w.putOperator(t, "opNoRights", pw, true, "noRights")
	for _, c := range []struct {
		name, path string
		as         reqOpt
		entries    int
	}{
		{"backoffice_role_without_rights", bo + "/profilo", as("opNoRights"), 0},
		{"backoffice_administrator", bo + "/profilo", asAdmin(), len(allServices)},
		{"pagamento_citizen", "/pagamento/rs/spid/v2/profilo", asSPID(citizen1), 0},
		{"pagamento_application", pg + "/profilo", as("appA"), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := members(t, w.must(t, "GET", c.path, nil, c.as).Body)
			var entries []json.RawMessage
			if raw, ok := m["acl"]; !ok || json.Unmarshal(raw, &entries) != nil || entries == nil || len(entries) != c.entries {
				t.Fatalf("acl = %s (present %v), want a list of %d", m["acl"], ok, c.entries)
			}
		})
	}
	w.do(t, "GET", bo+"/profilo", nil, as("opNoRole")).expect(t, http.StatusForbidden, "403000") // no role: no profile
}

// TestGovPayOperatoreScopeAlwaysPresent: domini and tipiPendenza are
// required members of GovPay's operatore: an operator without a personal
// role reads "domini": [] and "tipiPendenza": [] (and no acl), in the list
// as by id, and that body PUT back unchanged changes nothing (200, no
// event, still no personal role).
func TestGovPayOperatoreScopeAlwaysPresent(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	empty := func(t *testing.T, what string, m map[string]json.RawMessage) {
		t.Helper()
		for _, f := range []string{"domini", "tipiPendenza"} {
			if string(m[f]) != "[]" {
				t.Fatalf("%s: %s = %s, want []", what, f, m[f])
			}
		}
		if _, ok := m["acl"]; ok {
			t.Fatalf("%s: acl = %s without a personal role", what, m["acl"])
		}
	}
	res := w.must(t, "GET", bo+"/operatori/opD1", nil)
	empty(t, "GET /operatori/opD1", members(t, res.Body))
	var page struct{ Risultati []json.RawMessage }
	w.must(t, "GET", bo+"/operatori?risultatiPerPagina=200", nil).decode(t, &page)
	for _, raw := range page.Risultati {
		if m := members(t, raw); string(m["principal"]) == `"opD1"` {
			empty(t, "the list's opD1", m)
		}
	}

	before := w.logEnd(t)
	var body map[string]any
	res.decode(t, &body)
	w.do(t, "PUT", bo+"/operatori/opD1", body, asAdmin()).expect(t, http.StatusOK, "")
	if after := w.logEnd(t); after != before {
		t.Fatalf("PUT of the operator as GET shows it wrote (log end %d → %d)", before, after)
	}
	empty(t, "GET after the PUT", members(t, w.must(t, "GET", bo+"/operatori/opD1", nil).Body))

	// An operator with a personal role reads it, as before.
	w.must(t, "PUT", bo+"/operatori/opPers", map[string]any{"ragioneSociale": "P", "password": pw, "abilitato": true,
		"ruoli": []string{}, "acl": acl{aclOf("Pendenze", "R")}, "domini": []string{d1}, "tipiPendenza": []string{t1}})
	m := members(t, w.must(t, "GET", bo+"/operatori/opPers", nil).Body)
	if string(m["domini"]) != `["`+d1+`"]` || string(m["tipiPendenza"]) != `["`+t1+`"]` || m["acl"] == nil {
		t.Fatalf("operator with a personal role: %v", m)
	}
	w.do(t, "GET", bo+"/operatori/opD1", nil, as("opRO")).expect(t, http.StatusOK, "")
	w.do(t, "GET", bo+"/operatori/opD1", nil, as("opNoRole")).expect(t, http.StatusForbidden, "403000")
}

// TestGovPayRuoloID: GovPay's ruolo and ruoloIndex name the role by id:
// GET of a role, the role list and a PATCH's answer carry "id" (next to
// idRuolo), and a PUT of what GET returned is accepted unchanged and
// writes nothing; an id in the body that is not the path's is a 400.
func TestGovPayRuoloID(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	named := func(t *testing.T, what string, m map[string]json.RawMessage, id string) {
		t.Helper()
		if string(m["id"]) != `"`+id+`"` || string(m["idRuolo"]) != `"`+id+`"` {
			t.Fatalf("%s: id %s, idRuolo %s, want %q", what, m["id"], m["idRuolo"], id)
		}
	}
	res := w.must(t, "GET", bo+"/ruoli/opD1", nil, as("opRO"))
	named(t, "GET /ruoli/opD1", members(t, res.Body), "opD1")
	var page struct{ Risultati []json.RawMessage }
	w.must(t, "GET", bo+"/ruoli?risultatiPerPagina=200", nil).decode(t, &page)
	if len(page.Risultati) == 0 {
		t.Fatal("no role listed")
	}
	for _, raw := range page.Risultati {
		m := members(t, raw)
		var id string
		if err := json.Unmarshal(m["idRuolo"], &id); err != nil {
			t.Fatalf("list entry %s: %v", raw, err)
		}
		named(t, "the list's "+id, m, id)
	}

	var body map[string]any
	res.decode(t, &body)
	before := w.logEnd(t)
	w.do(t, "PUT", bo+"/ruoli/opD1", body, asAdmin()).expect(t, http.StatusOK, "")
	body["id"] = "readOnly"
	w.do(t, "PUT", bo+"/ruoli/opD1", body, asAdmin()).expect(t, http.StatusBadRequest, "SINTASSI")
	if after := w.logEnd(t); after != before {
		t.Fatalf("PUT of the role as GET shows it, then with another id, wrote (log end %d → %d)", before, after)
	}
	patched := w.must(t, "PATCH", bo+"/ruoli/opD1", []map[string]any{{"op": "REPLACE", "path": "/tipiPendenza", "value": []string{t1}}})
	named(t, "PATCH /ruoli/opD1", members(t, patched.Body), "opD1")
	w.do(t, "GET", bo+"/ruoli/opD1", nil, as("opNoRole")).expect(t, http.StatusForbidden, "403000")
}

// TestRegistryIdenticalPutWritesNothing: a PUT of each registry equal to
// the entry held answers 200 with the token of the entry's last write
// (nothing is appended); one giving a password writes (a new hash); a
// role PUT of GovPay's ruoloPost shape, acl alone, leaves the role no
// scope (a PUT replaces the entry, a list left out is empty).
func TestRegistryIdenticalPutWritesNothing(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	for _, c := range []struct {
		name, path string
		body       map[string]any
	}{
		{"dominio", bo + "/domini/" + d1, map[string]any{"ragioneSociale": "Ente " + d1, "abilitato": true}},
		{"tipo_pendenza", bo + "/tipiPendenza/" + t1, map[string]any{"descrizione": "Tipo " + t1, "abilitato": true, "pagamentoSpontaneo": false}},
		{"ruolo", bo + "/ruoli/readOnly", map[string]any{"acl": fullACL("R"), "domini": []string{"*"}, "tipiPendenza": []string{"*"}}},
		{"operatore", bo + "/operatori/opRO", map[string]any{"ragioneSociale": "Operatore opRO", "abilitato": true, "ruoli": []string{"readOnly"}}},
		{"applicazione", bo + "/applicazioni/appC", map[string]any{"principal": "appC", "abilitato": true, "ruoli": []string{},
			"autorizzazioniApi": []map[string]any{apiGrant("RAGIONERIA", []string{d1}, []string{"*"})}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			first := w.do(t, "PUT", c.path, c.body, asAdmin())
			first.expect(t, 200, "")
			before := w.logEnd(t)
			again := w.do(t, "PUT", c.path, c.body, asAdmin())
			again.expect(t, 200, "")
			if again.Header.Get(ConsistencyHeader) != first.Header.Get(ConsistencyHeader) || w.logEnd(t) != before {
				t.Fatalf("an identical PUT wrote: token %s then %s", first.Header.Get(ConsistencyHeader), again.Header.Get(ConsistencyHeader))
			}
		})
	}
	before := w.logEnd(t)
	w.do(t, "PUT", bo+"/operatori/opRO", map[string]any{"ragioneSociale": "Operatore opRO", "abilitato": true,
		"ruoli": []string{"readOnly"}, "password": pw}, asAdmin()).expect(t, 200, "")
	if w.logEnd(t) == before {
		t.Fatal("a PUT giving the password held wrote nothing: a given secret is hashed anew")
	}
	var role struct{ Domini, TipiPendenza []any }
	w.do(t, "PUT", bo+"/ruoli/readOnly", map[string]any{"acl": fullACL("R")}, asAdmin()).decode(t, &role)
	if len(role.Domini) != 0 || len(role.TipiPendenza) != 0 || role.Domini == nil {
		t.Fatalf("a role PUT with acl alone answers domini %v, tipiPendenza %v; want [] and []", role.Domini, role.TipiPendenza)
	}
}
