package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// row is one line of an authorization matrix: a request and the status and
// FaultBean codice it must get.
type row struct {
	name   string
	method string
	path   string
	body   any
	opts   []reqOpt
	status int
	codice string
}

func runRows(t *testing.T, h *harness, rows []row) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			res := h.do(t, r.method, r.path, r.body, r.opts...)
			res.expect(t, r.status, r.codice)
			if res.Status >= 500 {
				t.Fatalf("5xx: %s", res.Body)
			}
		})
	}
}

func opts(o ...reqOpt) []reqOpt { return o }

func TestBackofficeMatrix(t *testing.T) {
	w := newWorld(t)
	p1 := w.createPendenza(t, "appA", "bo-p1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "bo-p2", d2, t1, citizen1)
	ent := map[string]any{"ragioneSociale": "Ente", "abilitato": true}

	rows := []row{
		// registry: entity-scoped
		{"admin_reads_entity", "GET", bo + "/domini/" + d1, nil, opts(asAdmin()), 200, ""},
		{"scoped_operator_reads_own_entity", "GET", bo + "/domini/" + d1, nil, opts(as("opD1")), 200, ""},
		{"scoped_operator_denied_other_entity", "GET", bo + "/domini/" + d2, nil, opts(as("opD1")), 403, "403000"},
		{"scoped_operator_denied_unknown_entity_out_of_scope", "GET", bo + "/domini/" + dNone, nil, opts(as("opD1")), 403, "403000"},
		{"admin_unknown_entity_404", "GET", bo + "/domini/" + dNone, nil, opts(asAdmin()), 404, "404000"},
		{"scoped_operator_writes_own_entity", "PUT", bo + "/domini/" + d1, ent, opts(as("opD1")), 200, ""},
		{"scoped_operator_denied_write_other_entity", "PUT", bo + "/domini/" + d2, ent, opts(as("opD1")), 403, "403000"},
		{"read_only_operator_reads", "GET", bo + "/domini/" + d2, nil, opts(as("opRO")), 200, ""},
		{"read_only_operator_denied_write", "PUT", bo + "/domini/" + d2, ent, opts(as("opRO")), 403, "403000"},
		{"disabled_operator_denied", "GET", bo + "/domini/" + d1, nil, opts(as("opDisabled")), 403, "403000"},
		{"operator_without_roles_denied", "GET", bo + "/domini/" + d1, nil, opts(as("opNoRole")), 403, "403000"},
		{"application_without_roles_denied", "GET", bo + "/domini/" + d1, nil, opts(as("appA")), 403, "403000"},
		{"unknown_principal_401", "GET", bo + "/domini/" + d1, nil, opts(asBasic("nobody", pw)), 401, "401000"},
		{"wrong_password_401", "GET", bo + "/domini/" + d1, nil, opts(asBasic("opD1", "wrong-password")), 401, "401000"},
		{"no_credentials_401", "GET", bo + "/domini/" + d1, nil, nil, 401, "401000"},
		{"basic_header_not_base64_401", "GET", bo + "/domini/" + d1, nil, opts(withHeader("Authorization", "Basic %%%")), 401, "401000"},
		{"public_auth_not_accepted_403", "GET", "/backoffice/rs/public/v1/domini/" + d1, nil, nil, 403, "403"},
		{"ssl_on_plain_listener_401", "GET", "/backoffice/rs/ssl/v1/domini/" + d1, nil, nil, 401, "401000"},
		{"bad_entity_id_400", "GET", bo + "/domini/abc", nil, opts(asAdmin()), 400, "SINTASSI"},
		// unscoped registries
		{"read_only_lists_types", "GET", bo + "/tipiPendenza", nil, opts(as("opRO")), 200, ""},
		{"scoped_operator_reads_roles", "GET", bo + "/ruoli/opD1", nil, opts(as("opD1")), 200, ""},
		{"read_only_denied_role_write", "PUT", bo + "/ruoli/x", map[string]any{"acl": acl{}, "domini": []string{}, "tipiPendenza": []string{}}, opts(as("opRO")), 403, "403000"},
		{"admin_unknown_role_404", "GET", bo + "/ruoli/nope", nil, opts(asAdmin()), 404, "404000"},
		{"read_only_reads_applications", "GET", bo + "/applicazioni/appA", nil, opts(as("opRO")), 200, ""},
		{"operator_without_roles_denied_applications", "GET", bo + "/applicazioni", nil, opts(as("opNoRole")), 403, "403000"},
		// business reads, scoped by role
		{"scoped_operator_reads_pendenza_in_scope", "GET", bo + "/pendenze/appA/bo-p1", nil, opts(as("opD1")), 200, ""},
		{"scoped_operator_denied_pendenza_out_of_scope", "GET", bo + "/pendenze/appB/bo-p2", nil, opts(as("opD1")), 403, "403000"},
		{"admin_unknown_pendenza_404", "GET", bo + "/pendenze/appA/missing", nil, opts(asAdmin()), 404, "404000"},
		{"events_need_giornale_right", "GET", bo + "/eventi", nil, opts(as("opNoRole")), 403, "403000"},
		{"events_bad_limit_400", "GET", bo + "/eventi?limite=0", nil, opts(asAdmin()), 400, "SINTASSI"},
		{"reset_cache_needs_w", "GET", bo + "/operazioni/resetCacheAnagrafica", nil, opts(as("opRO")), 403, "403000"},
		{"reset_cache_admin_noop", "GET", bo + "/operazioni/resetCacheAnagrafica", nil, opts(asAdmin()), 200, ""},
		{"profile_any_role", "GET", bo + "/profilo", nil, opts(as("opRO")), 200, ""},
		{"hardening_read_only_reads", "GET", bo + "/configurazioni/hardening", nil, opts(as("opRO")), 200, ""},
	}
	runRows(t, w.harness, rows)

	t.Run("scoped_list_shows_only_scope", func(t *testing.T) {
		var page Page[pendenzaView]
		w.must(t, "GET", bo+"/pendenze", nil, as("opD1")).decode(t, &page)
		if page.NumRisultati != 1 || page.Risultati[0].IDPendenza != p1.IDPendenza {
			t.Fatalf("opD1 sees %+v, want only %s", page.Risultati, p1.IDPendenza)
		}
		var all Page[pendenzaView]
		w.must(t, "GET", bo+"/pendenze", nil, asAdmin()).decode(t, &all)
		if all.NumRisultati != 2 {
			t.Fatalf("admin sees %d pendenze, want 2", all.NumRisultati)
		}
	})
	// resetCacheAnagrafica is kept for GovPay's clients and does nothing:
	// 200, no write, so no consistency token.
	t.Run("reset_cache_writes_nothing", func(t *testing.T) {
		before := w.logEnd(t)
		r := w.must(t, "GET", bo+"/operazioni/resetCacheAnagrafica", nil, asAdmin())
		if r.Status != http.StatusOK || r.Header.Get("X-Consistency-Token") != "" || w.logEnd(t) != before {
			t.Fatalf("status %d, token %q, log end %d → %d: want 200, no token, nothing written", r.Status, r.Header.Get("X-Consistency-Token"), before, w.logEnd(t))
		}
	})
}

func TestBackofficeDelegation(t *testing.T) {
	w := newWorld(t)
	role := func(domini []string) map[string]any {
		return map[string]any{"acl": acl{aclOf("Pendenze", "R")}, "domini": domini, "tipiPendenza": []string{"*"}}
	}
	app := func(domini []string) map[string]any {
		return map[string]any{"principal": "delegated", "password": pw, "abilitato": true, "ruoli": []string{},
			"autorizzazioniApi": []map[string]any{apiGrant("PENDENZE", domini, []string{"*"})}}
	}
	typesOnly := func(tipi []string) map[string]any {
		return map[string]any{"acl": acl{aclOf("Anagrafica Creditore", "W")}, "domini": []string{}, "tipiPendenza": tipi}
	}
	w.putRole(t, "opTari", fullACL("R", "W"), []string{d1}, []string{t1})
	w.putOperator(t, "opTari", pw, true, "opTari")
	runRows(t, w.harness, []row{
		{"limited_operator_cannot_grant_all_entities_in_role", "PUT", bo + "/ruoli/r1", role([]string{"*"}), opts(as("opD1")), 403, "403000"},
		{"limited_operator_cannot_grant_other_entity_in_role", "PUT", bo + "/ruoli/r1", role([]string{d2}), opts(as("opD1")), 403, "403000"},
		{"limited_operator_grants_own_entity_in_role", "PUT", bo + "/ruoli/r1", role([]string{d1}), opts(as("opD1")), 201, ""},
		{"limited_operator_cannot_grant_all_entities_to_application", "PUT", bo + "/applicazioni/delegated", app([]string{"*"}), opts(as("opD1")), 403, "403000"},
		{"limited_operator_cannot_grant_other_entity_to_application", "PUT", bo + "/applicazioni/delegated", app([]string{d2}), opts(as("opD1")), 403, "403000"},
		{"limited_operator_grants_own_entity_to_application", "PUT", bo + "/applicazioni/delegated", app([]string{d1}), opts(as("opD1")), 201, ""},
		{"limited_operator_cannot_assign_admin_role", "PUT", bo + "/operatori/newop", map[string]any{"ragioneSociale": "x", "password": pw, "abilitato": true, "ruoli": []string{"Amministratore"}}, opts(as("opD1")), 403, "403000"},
		{"limited_operator_assigns_own_role", "PUT", bo + "/operatori/newop", map[string]any{"ragioneSociale": "x", "password": pw, "abilitato": true, "ruoli": []string{"opD1"}}, opts(as("opD1")), 201, ""},
		// Types alone are a scope (PUT /tipiPendenza needs the type, not an
		// entity), so a role or grant with empty domini still grants its
		// types: "*" needs "*".
		{"type_limited_operator_cannot_grant_all_types_without_entities_in_role", "PUT", bo + "/ruoli/r2", typesOnly([]string{"*"}), opts(as("opTari")), 403, "403000"},
		{"type_limited_operator_grants_own_type_without_entities_in_role", "PUT", bo + "/ruoli/r2", typesOnly([]string{t1}), opts(as("opTari")), 201, ""},
		{"type_limited_operator_cannot_grant_all_types_without_entities_to_application", "PUT", bo + "/applicazioni/delegated2", map[string]any{"principal": "delegated2", "password": pw, "abilitato": true, "ruoli": []string{},
			"autorizzazioniApi": []map[string]any{apiGrant("PENDENZE", []string{}, []string{"*"})}}, opts(as("opTari")), 403, "403000"},
		{"principal_in_use_409", "PUT", bo + "/applicazioni/clash", map[string]any{"principal": "opRO", "abilitato": true, "ruoli": []string{}}, opts(asAdmin()), 409, "409000"},
		{"unknown_role_422", "PUT", bo + "/operatori/x2", map[string]any{"ragioneSociale": "x", "abilitato": true, "ruoli": []string{"ghost"}}, opts(asAdmin()), 422, "422000"},
	})
}

func TestBackofficeWritesAndSecrets(t *testing.T) {
	w := newWorld(t)
	r := w.do(t, "PUT", bo+"/intermediari/INT1", map[string]any{"denominazione": "Intermediario", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "node-user", "password": "node-secret-1"}}, asAdmin())
	r.expect(t, 201, "")
	if r.Header.Get("X-Consistency-Token") == "" { // the wire name, not ConsistencyHeader: a rename would pass
		t.Fatal("write without X-Consistency-Token")
	}
	r2 := w.do(t, "PUT", bo+"/intermediari/INT1", map[string]any{"denominazione": "Intermediario 2", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "node-user"}}, asAdmin())
	r2.expect(t, 200, "")
	for _, path := range []string{bo + "/intermediari/INT1", bo + "/intermediari", bo + "/applicazioni/appA", bo + "/operatori/opD1", bo + "/eventi?limite=1000"} {
		body := string(w.must(t, "GET", path, nil).Body)
		for _, secret := range []string{"node-secret-1", pw, "passwordHash", "argon2id", "password\""} {
			if strings.Contains(body, secret) {
				t.Fatalf("GET %s leaks %q: %s", path, secret, body)
			}
		}
	}
	w.must(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": false,
		"captcha": map[string]any{"serverURL": "http://127.0.0.1:1/siteverify", "secretKey": "captcha-secret-1"}})
	if body := string(w.must(t, "GET", bo+"/configurazioni/hardening", nil).Body); strings.Contains(body, "captcha-secret-1") || strings.Contains(body, "secretKey") {
		t.Fatalf("hardening GET leaks the secret: %s", body)
	}
	if body := string(w.must(t, "GET", bo+"/eventi?limite=1000", nil).Body); strings.Contains(body, "captcha-secret-1") {
		t.Fatalf("event log leaks the captcha secret")
	}
}

func TestBackofficeEventPaging(t *testing.T) {
	w := newWorld(t)
	seen := map[uint64]bool{}
	da := uint64(1)
	for pages := 0; pages < 100; pages++ {
		var p eventiPage
		w.must(t, "GET", bo+"/eventi?limite=3&da="+itoa(da), nil).decode(t, &p)
		for _, e := range p.Risultati {
			if e.Posizione < da {
				t.Fatalf("event at %d returned for da=%d", e.Posizione, da)
			}
			seen[e.Posizione] = true
		}
		if len(p.Risultati) == 0 {
			break
		}
		da = p.ProssimaPosizione
	}
	last := uint64(w.model.AppliedPosition())
	for pos := uint64(1); pos <= last; pos++ {
		if !seen[pos] {
			t.Fatalf("paging skipped position %d (last %d)", pos, last)
		}
	}
	// A scoped operator sees only its entity's events.
	var p eventiPage
	w.must(t, "GET", bo+"/eventi?limite=1000", nil, as("opD1")).decode(t, &p)
	for _, e := range p.Risultati {
		if strings.Contains(string(e.Dati), d2) || e.Tipo == "RoleDefined" || e.Tipo == "OperatorRegistered" {
			t.Fatalf("scoped operator sees %s %s", e.Tipo, e.Dati)
		}
	}
}

func TestBackofficeBadInput(t *testing.T) {
	w := newWorld(t, withMaxBody(2048))
	big := `{"ragioneSociale":"` + strings.Repeat("x", 4096) + `","abilitato":true}`
	runRows(t, w.harness, []row{
		{"malformed_json", "PUT", bo + "/domini/" + d1, `{"ragioneSociale":`, opts(asAdmin()), 400, "SINTASSI"},
		{"wrong_type", "PUT", bo + "/domini/" + d1, `{"ragioneSociale":1,"abilitato":true}`, opts(asAdmin()), 400, "SINTASSI"},
		{"unknown_field", "PUT", bo + "/domini/" + d1, `{"ragioneSociale":"a","abilitato":true,"extra":1}`, opts(asAdmin()), 400, "SINTASSI"},
		{"missing_required", "PUT", bo + "/domini/" + d1, `{"ragioneSociale":"a"}`, opts(asAdmin()), 400, "SINTASSI"},
		{"trailing_data", "PUT", bo + "/domini/" + d1, `{"ragioneSociale":"a","abilitato":true} {}`, opts(asAdmin()), 400, "SINTASSI"},
		{"oversize_body", "PUT", bo + "/domini/" + d1, big, opts(asAdmin()), http.StatusRequestEntityTooLarge, "SINTASSI"},
		{"empty_body", "PUT", bo + "/domini/" + d1, "", opts(asAdmin()), 400, "SINTASSI"},
		{"short_password", "PUT", bo + "/operatori/o9", `{"ragioneSociale":"a","password":"short","abilitato":true,"ruoli":[]}`, opts(asAdmin()), 400, "SINTASSI"},
		{"bad_scope_id", "PUT", bo + "/ruoli/r9", `{"acl":[],"domini":["bad"],"tipiPendenza":[]}`, opts(asAdmin()), 400, "SINTASSI"},
		{"unknown_service", "PUT", bo + "/ruoli/r9", `{"acl":[{"servizio":"Nope","autorizzazioni":["R"]}],"domini":[],"tipiPendenza":[]}`, opts(asAdmin()), 400, "SINTASSI"},
		{"both_application_shapes", "PUT", bo + "/applicazioni/x", `{"principal":"x","abilitato":true,"ruoli":[],"apiPendenze":true,"autorizzazioniApi":[]}`, opts(asAdmin()), 400, "SINTASSI"},
		{"garbage_consistency_token", "GET", bo + "/domini", nil, opts(asAdmin(), withToken("garbage")), 400, "SINTASSI"},
		{"future_consistency_token", "GET", bo + "/domini", nil, opts(asAdmin(), withToken("jetstream:999999")), 400, "SINTASSI"},
		{"foreign_backend_token", "GET", bo + "/domini", nil, opts(asAdmin(), withToken("kurrentdb:1")), 400, "SINTASSI"},
	})
	// Nothing half-written: the entity is as it was.
	var d dominioView
	w.must(t, "GET", bo+"/domini/"+d1, nil).decode(t, &d)
	if d.RagioneSociale != "Ente "+d1 {
		t.Fatalf("entity changed by bad input: %+v", d)
	}
}

func itoa(n uint64) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{digits[n%10]}, b...)
		n /= 10
	}
	return string(b)
}

// TestPasswordsHoldAtLeastEightCharacters: "a password is at least 8
// characters" (API.md section 4) holds for every password a Backoffice PUT
// carries, an operator's, an application's and a node connector's, and
// counts characters, not bytes: 7 (even of 14 bytes) is 400 SINTASSI and
// writes nothing, 8 is taken. Before, only an operator's 5-character
// password was tried.
func TestPasswordsHoldAtLeastEightCharacters(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	bodies := map[string]func(password string) map[string]any{
		"/operatori/": func(p string) map[string]any {
			return map[string]any{"ragioneSociale": "Operatore", "password": p, "abilitato": true, "ruoli": []string{}}
		},
		"/applicazioni/": func(p string) map[string]any {
			return map[string]any{"principal": "", "password": p, "abilitato": true, "ruoli": []string{}}
		},
		"/intermediari/": func(p string) map[string]any {
			return map[string]any{"denominazione": "Intermediario", "abilitato": true, "connettoreNodo": map[string]any{"principal": "", "password": p}}
		},
	}
	for path, body := range bodies {
		for _, c := range []struct {
			name, password string
			status         int
		}{
			{"seven_characters_400", "1234567", 400},
			{"seven_characters_of_two_bytes_400", "èèèèèèè", 400},
			{"eight_characters_201", "12345678", 201},
			{"eight_characters_of_two_bytes_201", "èèèèèèèè", 201},
		} {
			id := fmt.Sprintf("%s%d%s", path[1:3], len(c.password), c.name[:5])
			t.Run(strings.Trim(path, "/")+"_"+c.name, func(t *testing.T) {
				b := body(c.password)
				if _, ok := b["principal"]; ok {
					b["principal"] = id
				}
				if conn, ok := b["connettoreNodo"].(map[string]any); ok {
					conn["principal"] = "node-" + id
				}
				codice := ""
				if c.status == 400 {
					codice = "SINTASSI"
				}
				h.do(t, "PUT", bo+path+id, b, asAdmin()).expect(t, c.status, codice)
				want := http.StatusOK
				if c.status == 400 {
					want = http.StatusNotFound
				}
				h.do(t, "GET", bo+path+id, nil, asAdmin()).expect(t, want, "")
			})
		}
	}
}
