package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// staleNotice is what the console says of a save over a record changed
// since its form was opened (apostrophes as the page escapes them).
const staleNotice = "sono stati modificati da un&#39;altra operazione dopo che hai aperto il modulo"

// TestConsoleSaveKeepsWritesMadeSinceTheFormOpened: a console form saves
// the whole record as it shows it. When another operator (or the API)
// changed the record after the form was opened, saving it wrote the
// older state back, answered 303: a role taken away, an API grant
// revoked, a right narrowed, an entity, type or intermediary disabled,
// the protection switched on came back with an unrelated edit. The form
// carries the position it was read at (hidden field base); a save over a
// record changed since writes nothing and answers 409 with the record as
// it is now and a message asking to review it and save again, which then
// saves.
func TestConsoleSaveKeepsWritesMadeSinceTheFormOpened(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.putRole(t, "rStale", acl{aclOf("Anagrafica Ruoli", "R", "W")}, []string{"*"}, []string{"*"})
	w.putOperator(t, "opStale", pw, true, "readOnly", "opD1")
	w.putApp(t, "appStale", "appStale", pw, true, apiGrant("PENDENZE", []string{d1}, []string{"*"}),
		apiGrant("PAGAMENTO", []string{d1}, []string{"*"}))
	w.must(t, "PUT", bo+"/intermediari/INTS", map[string]any{"denominazione": "Banca", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "nodoS", "password": "nodoS-secret"}})
	const siteverify = "http://127.0.0.1:9/siteverify"
	w.must(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": false,
		"captcha": map[string]any{"serverURL": siteverify, "secretKey": "s1"}})
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)

	for _, c := range []struct {
		name, form, save string
		values           url.Values              // what the form showed, with an unrelated edit
		other            func(t *testing.T)      // the write made meanwhile
		kept             func(t *testing.T) bool // the write made meanwhile still holds
		shows            string                  // the reopened form shows that write
	}{
		{"operatore_role_taken_away", "/console/operatore?principal=opStale", "/console/operatori",
			url.Values{"principal": {"opStale"}, "ragioneSociale": {"Nuovo nome"}, "abilitato": {"on"}, "ruoli": {"readOnly", "opD1"}},
			func(t *testing.T) { w.putOperator(t, "opStale", pw, true, "readOnly") },
			func(t *testing.T) bool {
				o, _ := w.model.Operator("opStale")
				return slices.Equal(o.Roles, []string{"readOnly"})
			}, `id="ruolo-opD1" name="ruoli" value="opD1">`},
		{"applicazione_grant_revoked", "/console/applicazioni/appStale", "/console/applicazioni",
			grantForm("appStale", "appStale", "", false, map[string][2][]string{"PENDENZE": {{d1}, {"*"}}, "PAGAMENTO": {{d1}, {"*"}}}),
			func(t *testing.T) {
				w.putApp(t, "appStale", "appStale", "", false, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
			},
			func(t *testing.T) bool {
				a, _ := w.model.Application("appStale")
				return !a.Enabled && len(a.Grants) == 1 && a.Grants[0].API == domain.APIPendenze
			}, `id="api_PAGAMENTO" name="api_PAGAMENTO">`},
		{"ruolo_right_narrowed", "/console/ruoli/rStale", "/console/ruoli",
			url.Values{"idRuolo": {"rStale"}, aclField(3, "R"): {"on"}, aclField(3, "W"): {"on"}, "domini": {d1}, "tipi": {"*"}},
			func(t *testing.T) {
				w.putRole(t, "rStale", acl{aclOf("Anagrafica Ruoli", "R")}, []string{"*"}, []string{"*"})
			},
			func(t *testing.T) bool {
				r, _ := w.model.Role("rStale")
				return !r.Role.Has(domain.ServiceAnagraficaRuoli, domain.RightWrite) && r.Role.Domini.Contains(d2)
			}, `id="` + aclField(3, "W") + `" name="` + aclField(3, "W") + `">`},
		{"dominio_disabled", "/console/domini/" + d2, "/console/domini",
			url.Values{"idDominio": {d2}, "ragioneSociale": {"Ente rinominato"}, "abilitato": {"on"}},
			func(t *testing.T) {
				w.must(t, "PUT", bo+"/domini/"+d2, map[string]any{"ragioneSociale": "Ente " + d2, "abilitato": false})
			},
			func(t *testing.T) bool {
				e, _ := w.model.Entity(d2)
				return !e.Enabled && e.RagioneSociale == "Ente "+d2
			}, `id="abilitato" name="abilitato"> <label`},
		{"tipo_disabled", "/console/tipi/" + tSpont, "/console/tipi",
			url.Values{"idTipoPendenza": {tSpont}, "descrizione": {"Altra descrizione"}, "abilitato": {"on"}, "pagamentoSpontaneo": {"on"}},
			func(t *testing.T) {
				w.must(t, "PUT", bo+"/tipiPendenza/"+tSpont, map[string]any{"descrizione": "Tipo " + tSpont, "abilitato": false,
					"pagamentoSpontaneo": true})
			},
			func(t *testing.T) bool {
				tp, _ := w.model.PendenzaType(tSpont)
				return !tp.Enabled && tp.Descrizione == "Tipo "+tSpont
			}, `id="abilitato" name="abilitato"> <label`},
		{"intermediario_disabled", "/console/intermediari/INTS", "/console/intermediari",
			url.Values{"idIntermediario": {"INTS"}, "denominazione": {"Banca nuova"}, "abilitato": {"on"}, "connettorePrincipal": {"nodoS"}},
			func(t *testing.T) {
				w.must(t, "PUT", bo+"/intermediari/INTS", map[string]any{"denominazione": "Banca", "abilitato": false,
					"connettoreNodo": map[string]any{"principal": "nodoS"}})
			},
			func(t *testing.T) bool {
				i, _ := w.model.Intermediary("INTS")
				return !i.Event.Enabled && i.Event.Denominazione == "Banca"
			}, `id="abilitato" name="abilitato"> <label`},
		{"impostazioni_protection_switched_on", "/console/impostazioni", "/console/impostazioni",
			url.Values{"serverURL": {siteverify}, "soglia": {"0.7"}, "parametro": {"g"}, "denyOnFail": {"on"}, "timeoutMs": {"1000"}},
			func(t *testing.T) {
				w.must(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": true,
					"captcha": map[string]any{"serverURL": siteverify, "secretKey": "s2", "soglia": 0.5}})
			},
			func(t *testing.T) bool {
				p := w.model.Protection()
				return p.Enabled && p.Captcha.Soglia == 0.5 && p.Captcha.SecretKey == "s2"
			}, `id="abilitato" name="abilitato" checked>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cc.get(c.form).expect(t, http.StatusOK, `name="base" value="`)
			c.other(t)
			before := w.logEnd(t)
			p := cc.post(c.save, c.values)
			p.expect(t, http.StatusConflict, staleNotice, "salva di nuovo", c.shows)
			if after := w.logEnd(t); after != before || !c.kept(t) {
				t.Fatalf("the save over a record changed since its form opened wrote (log %d → %d) or undid the change", before, after)
			}
			// The form shown is the record as it is now: saved again, it
			// writes what the operator chose.
			cc.post(c.save, c.values).expect(t, http.StatusSeeOther)
			if c.kept(t) {
				t.Fatal("the save from the reopened form did not write")
			}
		})
	}
}

// TestConsoleSaveOnALaggingReplica: a form opened on a replica that has
// not applied another replica's write of the record shows the older
// state; its save must not write that state over the newer commit, nor a
// blank form register over a record registered there. The replica waits
// for that commit and shows the record as it is now (409).
func TestConsoleSaveOnALaggingReplica(t *testing.T) {
	t.Parallel()
	gate := newProjectionGate()
	h := newHarness(t, withProjectionGate(gate))
	h.putRole(t, "rA", acl{aclOf("Pendenze", "R")}, []string{"*"}, []string{"*"})
	h.putRole(t, "rB", acl{aclOf("Pagamenti", "R")}, []string{"*"}, []string{"*"})
	h.putOperator(t, "opLag", pw, true, "rA", "rB")
	admin, _ := h.model.Lookup(adminUser)
	actor := commands.Actor{Principal: admin.Principal, CorrelationID: "other-replica"}
	cc := h.consoleClient(t)
	cc.login(adminUser, adminPass)

	t.Run("record_form", func(t *testing.T) {
		gate.shut()
		defer gate.reopen()
		if _, err := h.cmds.PutOperator(t.Context(), actor, commands.PutOperator{Principal: "opLag",
			RagioneSociale: "Operatore opLag", Credentials: commands.Credentials{Enabled: true, Roles: []string{"rA"}}}); err != nil {
			t.Fatal(err)
		}
		cc.get("/console/operatore?principal=opLag").expect(t, http.StatusOK, `id="ruolo-rB" name="ruoli" value="rB" checked>`)
		time.AfterFunc(300*time.Millisecond, gate.reopen)
		p := cc.post("/console/operatori", url.Values{"principal": {"opLag"}, "ragioneSociale": {"Nuovo nome"}, "abilitato": {"on"},
			"ruoli": {"rA", "rB"}})
		p.expect(t, http.StatusConflict, staleNotice, `id="ruolo-rB" name="ruoli" value="rB">`)
		if o, _ := h.model.Operator("opLag"); !slices.Equal(o.Roles, []string{"rA"}) || o.RagioneSociale != "Operatore opLag" {
			t.Fatalf("operator after the save = %+v: the role taken away on the other replica came back", o)
		}
	})
	t.Run("blank_form", func(t *testing.T) {
		gate.shut()
		defer gate.reopen()
		cc.get("/console/ruoli?nuovo").expect(t, http.StatusOK)
		if _, err := h.cmds.DefineRole(t.Context(), actor, commands.DefineRole{IDRuolo: "rNew", Domini: []string{d1},
			TipiPendenza: []string{"*"}, ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}}}); err != nil {
			t.Fatal(err)
		}
		before := h.logEnd(t)
		cc.post("/console/ruoli", url.Values{"nuovo": {"1"}, "idRuolo": {"rNew"}, aclField(5, "R"): {"on"}, aclField(5, "W"): {"on"},
			"domini": {"*"}, "tipi": {"*"}}).expect(t, http.StatusConflict, "già registrato")
		if after := h.logEnd(t); after != before {
			t.Fatalf("the blank form registered over the role registered on the other replica (log %d → %d)", before, after)
		}
	})
}

// TestConsoleSaveRefusesABadBase: the base a form posts is the position
// its data was read at, a position of this log. A form without one, or
// with one that is not a position (0 included: "no check" for an API
// PUT) or lies beyond the end of the log, is refused 400 on the form
// with nothing written, never a 500 nor a save without the check; a
// position this replica has not applied in time (the form was opened on
// a replica ahead of it) is 503 with nothing written.
func TestConsoleSaveRefusesABadBase(t *testing.T) {
	t.Parallel()
	gate := newProjectionGate()
	h := newHarness(t, withConsistencyWait(200*time.Millisecond), withProjectionGate(gate))
	h.putEntity(t, d1)
	cc := h.consoleClient(t)
	cc.login(adminUser, adminPass)
	beyond := strconv.FormatUint(uint64(h.logEnd(t))+1000, 10)
	forms := []struct {
		name, page, save string
		values           url.Values
	}{
		{"record", "/console/domini/" + d1, "/console/domini", url.Values{"idDominio": {d1}, "ragioneSociale": {"Altro"}, "abilitato": {"on"}}},
		{"blank", "/console/tipi?nuovo", "/console/tipi", url.Values{"nuovo": {"1"}, "idTipoPendenza": {"TNEW"}, "descrizione": {"Nuovo"}}},
		{"settings", "/console/impostazioni", "/console/impostazioni", url.Values{"serverURL": {"http://127.0.0.1:9/x"}, "soglia": {"0.5"},
			"parametro": {"g"}, "timeoutMs": {"1000"}}},
	}
	for _, f := range forms {
		for _, base := range []string{"", "x", "0", "-1", "1e3", "18446744073709551616", beyond} {
			t.Run(f.name+"_"+base, func(t *testing.T) {
				cc.get(f.page)
				v := url.Values{}
				for k, x := range f.values {
					v[k] = x
				}
				v.Set("base", base)
				before := h.logEnd(t)
				cc.post(f.save, v).expect(t, http.StatusBadRequest, "id=\"errore-modulo\"", "Il modulo non indica")
				if after := h.logEnd(t); after != before {
					t.Fatalf("a save with base %q wrote (log %d → %d)", base, before, after)
				}
			})
		}
	}
	t.Run("no_base_field", func(t *testing.T) {
		cc.get("/console/domini/" + d1)
		cc.version = "" // a form posted without the field
		before := h.logEnd(t)
		cc.post("/console/domini", url.Values{"idDominio": {d1}, "ragioneSociale": {"Altro"}, "abilitato": {"on"}}).
			expect(t, http.StatusBadRequest, "Il modulo non indica")
		if after := h.logEnd(t); after != before {
			t.Fatalf("a save without base wrote (log %d → %d)", before, after)
		}
	})
	t.Run("not_applied_here_in_time", func(t *testing.T) {
		cc.get("/console/domini/" + d1)
		gate.shut()
		defer gate.reopen()
		admin, _ := h.model.Lookup(adminUser)
		// Another replica's write, this one does not apply.
		if _, err := h.cmds.PutEntity(t.Context(), commands.Actor{Principal: admin.Principal, CorrelationID: "other-replica"},
			commands.PutEntity{IDDominio: d2, RagioneSociale: "Ente " + d2, Enabled: true}); err != nil {
			t.Fatal(err)
		}
		ahead := h.logEnd(t)
		p := cc.post("/console/domini", url.Values{"idDominio": {d1}, "ragioneSociale": {"Altro"}, "abilitato": {"on"},
			"base": {strconv.FormatUint(uint64(ahead), 10)}})
		p.expect(t, http.StatusServiceUnavailable, "non ha ancora applicato")
		if got := p.Header.Get("Retry-After"); got != "1" { // as every 503 of the API
			t.Fatalf("the form's 503 has Retry-After %q, want 1", got)
		}
		if after := h.logEnd(t); after != ahead {
			t.Fatalf("a save this replica could not check wrote (log %d → %d)", ahead, after)
		}
	})
}

// TestConsoleWaitsShareTheRequestsTimeout: a console save whose base this
// replica has not applied waits for it, then reads the log's end; the two
// share the request's deadline (requestWaits) as the API's waits do: the
// read is given only what the wait for the base left, within
// --request-timeout.
func TestConsoleWaitsShareTheRequestsTimeout(t *testing.T) {
	t.Parallel()
	h, log := waitDeadlines(t)
	h.putEntity(t, d1)
	cc := h.consoleClient(t)
	cc.login(adminUser, adminPass)
	cc.get("/console/domini/" + d1)
	beyond := strconv.FormatUint(uint64(h.logEnd(t))+1000, 10)
	reads := len(log.since(0))
	start := time.Now()
	cc.post("/console/domini", url.Values{"idDominio": {d1}, "ragioneSociale": {"Altro"}, "abilitato": {"on"}, "base": {beyond}}).
		expect(t, http.StatusBadRequest, "Il modulo non indica")
	if got := log.since(reads); len(got) != 1 {
		t.Fatalf("%d reads of the log's end, want 1", len(got))
	} else if dl := got[0]; dl.IsZero() || dl.After(start.Add(waitsTimeout)) {
		t.Fatalf("after waiting %v for its base the save read the log's end until %v after it came in, past --request-timeout %v",
			waitsFor, dl.Sub(start), waitsTimeout)
	}
}
