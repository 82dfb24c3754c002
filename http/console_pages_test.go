package httpapi

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// grantForm is the Applicazioni form of the granting flow.
func grantForm(idA2A, principal, password string, newApp bool, grants map[string][2][]string) url.Values {
	f := url.Values{"idA2A": {idA2A}, "auth": {"basic"}, "principal": {principal}, "abilitato": {"on"}}
	if password != "" {
		f.Set("password", password)
	}
	if newApp {
		f.Set("nuova", "1")
	}
	for api, scope := range grants {
		f.Set("api_"+api, "on")
		f["domini_"+api] = scope[0]
		f["tipi_"+api] = scope[1]
	}
	return f
}

var writtenAt = regexp.MustCompile(`scritto=(\d+)`)

func TestConsoleGrantingFlow(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.createPendenza(t, "appA", "gf-1", d1, t1, citizen1)
	pay := map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "numeroAvviso": p.NumeroAvviso}}}
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)

	cc.get("/console/applicazioni?nuova").expect(t, 200, `<label for="principal">`, "API Pagamento")
	res := cc.post("/console/applicazioni", grantForm("appNew", "appNew", pw, true,
		map[string][2][]string{"PAGAMENTO": {{d1}, {t1}}}))
	res.expect(t, 303)
	m := writtenAt.FindStringSubmatch(res.Location)
	if m == nil || !strings.HasPrefix(res.Location, "/console/applicazioni/appNew?") {
		t.Fatalf("location %q", res.Location)
	}
	// The page shows the write's position; the grant is effective at once.
	cc.get(res.Location).expect(t, 200, "Posizione <strong data-posizione=\""+m[1]+"\">", "jetstream:"+m[1])
	w.do(t, "POST", "/pagamento/rs/basic/v2/pagamenti", pay, as("appNew")).expect(t, 201, "")

	// Revoke in the console: the same call is refused at once.
	res = cc.post("/console/applicazioni", grantForm("appNew", "appNew", "", false, nil))
	res.expect(t, 303)
	w.do(t, "POST", "/pagamento/rs/basic/v2/pagamenti", pay, as("appNew")).expect(t, 403, "403000")

	// ssl: the canonical form of the subject is shown.
	res = cc.post("/console/applicazioni", url.Values{"idA2A": {"appCert"}, "auth": {"ssl"}, "nuova": {"1"},
		"principal": {"C=IT, O=Ente, CN=app-cert"}, "abilitato": {"on"}})
	res.expect(t, 303)
	cc.get("/console/applicazioni/appCert").expect(t, 200, `id="canonico"`, `id="auth-ssl" name="auth" value="ssl" checked`)

	// Bad input: the contract's message next to the field, what was typed kept.
	cc.post("/console/applicazioni", url.Values{"idA2A": {"bad id!"}, "auth": {"basic"}, "nuova": {"1"},
		"principal": {"typed-principal"}}).expect(t, 400, `id="err-idA2A"`, `value="typed-principal"`)
	if _, ok := w.model.Application("bad id!"); ok {
		t.Fatal("an invalid application was written")
	}
	// An idA2A that is an operator's principal (its X-APP-ID): 409, told
	// next to the idA2A field, not the principal's.
	cc.post("/console/applicazioni", grantForm("opD1", "opD1-app", pw, true, nil)).
		expect(t, 409, `<span class="errore-campo" id="err-idA2A">È già l&#39;X-APP-ID`)
	if _, ok := w.model.Application("opD1"); ok {
		t.Fatal("an application under an operator's X-APP-ID was written")
	}
}

func TestConsoleAuthorization(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.createPendenza(t, "appA", "az-d1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "az-d2", d2, t1, citizen1)
	w.putRole(t, "soloPendenze", acl{aclOf("Pendenze", "R")}, []string{"*"}, []string{"*"})
	w.putOperator(t, "opPendenze", pw, true, "soloPendenze")

	t.Run("scoped_operator_sees_only_its_entity", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/domini").expect(t, 200, d1)
		cc.get("/console/domini").lacks(t, d2)
		cc.get("/console/domini/"+d2).expect(t, 403, "403000")
		cc.get("/console/pendenze").expect(t, 200, "appA/az-d1")
		cc.get("/console/pendenze").lacks(t, "az-d2", `value="`+d2+`"`)
		cc.get("/console/pendenze?idDominio="+d2).expect(t, 200, "Nessuna pendenza.") // as GET /pendenze?idDominio=
		cc.get("/console/pendenze/appB/az-d2").expect(t, 403, "403000")
		cc.get("/console/pendenze/appA/az-d1").expect(t, 200, "Tassa rifiuti 2026")
	})
	t.Run("scoped_operator_changes_only_its_entity", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/domini/" + d1)
		cc.post("/console/domini", url.Values{"idDominio": {d2}, "ragioneSociale": {"Presa"}, "abilitato": {"on"}}).
			expect(t, 403, "403000")
		if e, _ := w.model.Entity(d2); e.RagioneSociale != "Ente "+d2 {
			t.Fatalf("d2 changed: %+v", e)
		}
		cc.post("/console/domini", url.Values{"idDominio": {d1}, "ragioneSociale": {"Comune Uno"}, "abilitato": {"on"}}).
			expect(t, 303)
		if e, _ := w.model.Entity(d1); e.RagioneSociale != "Comune Uno" {
			t.Fatalf("d1 not changed: %+v", e)
		}
	})
	t.Run("delegation_refused_with_the_reason", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/applicazioni?nuova").expect(t, 200, "Puoi autorizzare solo domini e tipi che possiedi")
		cc.post("/console/applicazioni", grantForm("appWide", "appWide", pw, true,
			map[string][2][]string{"PAGAMENTO": {{"*"}, {"*"}}})).expect(t, 403, "Non si può concedere più di quanto si possiede", `value="appWide"`)
		if _, ok := w.model.Application("appWide"); ok {
			t.Fatal("a grant beyond the operator's scope was written")
		}
		cc.post("/console/applicazioni", grantForm("appNarrow", "appNarrow", pw, true,
			map[string][2][]string{"PAGAMENTO": {{d1}, {"*"}}})).expect(t, 303)
	})
	t.Run("read_only_operator_sees_no_write_and_is_refused", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opRO", pw)
		cc.get("/console/applicazioni").expect(t, 200, "appA")
		cc.get("/console/applicazioni").lacks(t, "Registra una nuova applicazione")
		cc.get("/console/applicazioni?nuova").expect(t, 403, "403000")
		settings := cc.get("/console/impostazioni") // it reads them (Configurazione e manutenzione R)
		settings.expect(t, 200, "Protezione dell'API Pagamento pubblica")
		settings.lacks(t, `id="salva"`)
		cc.post("/console/applicazioni", grantForm("appRO", "appRO", pw, true, nil)).expect(t, 403, "403000")
		cc.post("/console/impostazioni", url.Values{"serverURL": {"http://127.0.0.1:1/x"}, "soglia": {"0.5"},
			"parametro": {"gRecaptchaResponse"}, "timeoutMs": {"300"}}).expect(t, 403, "403000")
		if _, ok := w.model.Application("appRO"); ok {
			t.Fatal("a read-only operator wrote an application")
		}
	})
	t.Run("menu_shows_only_what_the_role_grants", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opPendenze", pw)
		cc.get("/console/").expect(t, 200, `href="/console/pendenze"`)
		cc.get("/console/").lacks(t, `href="/console/applicazioni"`, `href="/console/impostazioni"`, `href="/console/audit"`)
		cc.get("/console/applicazioni").expect(t, 403, "403000")
		cc.get("/console/manutenzione").expect(t, 403, "403000")
		cc.get("/console/audit").expect(t, 403, "403000")
	})
	t.Run("settings_form_not_shown_to_who_may_not_read_them", func(t *testing.T) {
		// A secret is stored; an operator without Configurazione e
		// manutenzione R posts settings the save refuses for their input:
		// it is refused as the page's GET refuses it, never shown the form
		// that tells whether a secret is stored.
		w.must(t, "PUT", bo+"/configurazioni/hardening", map[string]any{"abilitato": false,
			"captcha": map[string]any{"serverURL": "http://127.0.0.1:9/siteverify", "secretKey": "s3cret", "soglia": 0.5}})
		cc := w.consoleClient(t)
		cc.login("opPendenze", pw)
		cc.get("/console/")
		cc.get("/console/impostazioni").expect(t, 403, "403000")
		for _, form := range []url.Values{
			{"soglia": {"abc"}},                           // the console's own check
			{"serverURL": {"notaurl"}, "soglia": {"0.5"}}, // the command's
			{"serverURL": {"http://127.0.0.1:1/x"}, "timeoutMs": {"x"}},
		} {
			p := cc.post("/console/impostazioni", form)
			p.expect(t, 403, "403000")
			p.lacks(t, "Chiave segreta", "registrata")
		}
	})
	t.Run("csrf_missing_or_wrong_writes_nothing", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login(adminUser, adminPass)
		before := w.model.AppliedPosition()
		for _, tok := range []string{"", "wrong", strings.Repeat("A", 43)} {
			cc.post("/console/impostazioni", url.Values{"csrf": {tok}, "abilitato": {"on"}, "serverURL": {"http://127.0.0.1:1/x"},
				"secretKey": {"s"}}).expect(t, 403, "CSRF")
			cc.post("/console/applicazioni", url.Values{"csrf": {tok}, "idA2A": {"appCSRF"}, "auth": {"basic"},
				"principal": {"appCSRF"}, "nuova": {"1"}}).expect(t, 403, "CSRF")
		}
		if last := w.logEnd(t); last != before || w.model.Protection().Enabled {
			t.Fatalf("something was written: last %d, before %d", last, before)
		}
	})
}

func TestConsoleSettingsAndMaintenance(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sv := newSiteverify(t)
	p := w.createPendenza(t, "appA", "st-1", d1, t1, citizen1)
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)

	cc.get("/console/impostazioni").expect(t, 200, "non registrata")
	cc.post("/console/impostazioni", url.Values{"abilitato": {"on"}, "serverURL": {"notaurl"}, "secretKey": {svSecret},
		"soglia": {"0.5"}, "parametro": {"gRecaptchaResponse"}, "denyOnFail": {"on"}, "timeoutMs": {"300"}}).
		expect(t, 400, `id="err-serverURL"`, `value="notaurl"`)
	res := cc.post("/console/impostazioni", url.Values{"abilitato": {"on"}, "serverURL": {sv.URL + "/siteverify"},
		"secretKey": {svSecret}, "soglia": {"0.5"}, "parametro": {"gRecaptchaResponse"}, "denyOnFail": {"on"}, "timeoutMs": {"300"}})
	res.expect(t, 303)
	w.do(t, "POST", pgPublic+"/pagamenti", noticeRef(p)).expect(t, 403, "403000")
	page := cc.get(res.Location)
	page.expect(t, 200, "registrata: lascia vuoto", "Posizione")
	page.lacks(t, svSecret)

	// Switching it off keeps the secret (an empty field keeps it).
	cc.post("/console/impostazioni", url.Values{"serverURL": {sv.URL + "/siteverify"}, "soglia": {"0.5"},
		"parametro": {"gRecaptchaResponse"}, "timeoutMs": {"300"}}).expect(t, 303)
	if pr := w.model.Protection(); pr.Enabled || pr.Captcha.SecretKey == "" {
		t.Fatalf("protection %+v", pr.Enabled)
	}
	w.do(t, "POST", pgPublic+"/pagamenti", noticeRef(p)).expect(t, 201, "")

	m := cc.get("/console/manutenzione?principal=appA")
	m.expect(t, 200, "Non c'è una cache da azzerare", `id="applicata"`, `id="pos-principal"`)
	rec, _ := w.model.Lookup("appA")
	if !strings.Contains(m.Body, `<strong id="pos-principal">`+strconv.FormatUint(uint64(rec.Position), 10)+`</strong>`) {
		t.Fatalf("principal position %d not shown:\n%s", rec.Position, m.Body)
	}
	const denied, missing = "Non hai il diritto di leggere questa utenza.", "Nessuna applicazione o operatore con questo principal."
	cc.get("/console/manutenzione?principal=nobody").expect(t, 200, missing)

	// Who may read one kind of principal only never learns which names
	// exist: a missing name and one of the other kind get the same answer.
	w.putRole(t, "manutOps", acl{aclOf("Configurazione e manutenzione", "R"), aclOf("Anagrafica Ruoli", "R")}, []string{"*"}, []string{"*"})
	w.putOperator(t, "opManut", pw, true, "manutOps")
	w.putRole(t, "manutOnly", acl{aclOf("Configurazione e manutenzione", "R")}, []string{"*"}, []string{"*"})
	w.putOperator(t, "opManutOnly", pw, true, "manutOnly")
	co := w.consoleClient(t)
	co.login("opManut", pw)
	co.get("/console/manutenzione?principal=opD1").expect(t, 200, `id="pos-principal"`)
	for _, name := range []string{"appA", "nobody"} {
		r := co.get("/console/manutenzione?principal=" + name)
		r.expect(t, 200, denied)
		r.lacks(t, missing)
		r.lacks(t, `id="pos-principal"`)
	}
	cn := w.consoleClient(t)
	cn.login("opManutOnly", pw)
	for _, name := range []string{"opD1", "appA", "nobody"} {
		r := cn.get("/console/manutenzione?principal=" + name)
		r.expect(t, 200, denied)
		r.lacks(t, missing)
	}
}

func TestConsoleAuditAndEscaping(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)

	// An entity named like a script is rendered as text.
	cc.get("/console/domini?nuovo")
	cc.post("/console/domini", url.Values{"idDominio": {"33333333333"}, "ragioneSociale": {"<script>alert(1)</script>"},
		"abilitato": {"on"}, "nuovo": {"1"}}).expect(t, 303)
	list := cc.get("/console/domini")
	list.expect(t, 200, "&lt;script&gt;alert(1)&lt;/script&gt;")
	list.lacks(t, "<script>alert")

	// Explain at a past date: before appLate existed it could not pay.
	time.Sleep(1100 * time.Millisecond)
	before := time.Now().In(domain.Rome).Truncate(time.Second) // after everything above; the form reads Rome's clock
	time.Sleep(1100 * time.Millisecond)
	w.putApp(t, "appLate", "appLate", pw, true, apiGrant("PAGAMENTO", []string{d1}, []string{"*"}))
	q := url.Values{"principal": {"appLate"}, "auth": {"basic"}, "api": {"PAGAMENTO"}, "operazione": {"profilo"}}
	cc.get("/console/audit")
	cc.post("/console/audit", q).expect(t, 200, `<span id="esito">`+"allow")
	q.Set("data", before.Format("2006-01-02T15:04:05"))
	cc.post("/console/audit", q).expect(t, 200, `<span id="esito">unauthenticated`, "nessun principal registrato ha questo nome a questa posizione")
	// Who can, at the same date and now.
	wq := url.Values{"domanda": {"chi"}, "api": {"PAGAMENTO"}, "operazione": {"profilo"}, "auth": {"basic"}}
	now := cc.post("/console/audit", wq)
	now.expect(t, 200, `id="chi"`, "<td>appLate</td>", "<td>appA</td>")
	wq.Set("data", before.Format("2006-01-02T15:04:05"))
	then := cc.post("/console/audit", wq)
	then.expect(t, 200, "<td>appA</td>")
	then.lacks(t, "<td>appLate</td>")
	q.Set("data", "ieri")
	cc.post("/console/audit", q).expect(t, 400, "AAAA-MM-GGThh:mm (ora italiana)", `value="ieri"`)
	// A point of history the log does not hold is refused on the form, as
	// by the API (the same server functions).
	q.Set("data", "2000-01-01T00:00")
	past := cc.post("/console/audit", q)
	past.expect(t, 400, `id="errore-modulo">La data 2000-01-01 00:00:00 (ora italiana) è precedente al primo evento del giornale`, `value="2000-01-01T00:00"`)
	past.lacks(t, "invalid :")
	q.Del("data")
	q.Set("posizione", "999999")
	cc.post("/console/audit", q).expect(t, 400, "La posizione 999999 è oltre la fine del giornale", `value="999999"`)
	wq.Set("posizione", "999999")
	cc.post("/console/audit", wq).expect(t, 400, "La posizione 999999 è oltre la fine del giornale")
	// Position 0 is no point of history (projections.Until.AtPosition, the
	// API's and the CLI's check): a field error, not the log's end.
	q.Set("posizione", "0")
	cc.post("/console/audit", q).expect(t, 400, "La posizione è un numero intero da 1.", `value="0"`)
	// An operation the catalogue does not have on the API is the error of
	// its input, which offers the catalogue's names, and keeps what was
	// typed; for who-can too.
	q.Del("posizione")
	q.Set("operazione", "paga")
	unknownOp := []string{`value="paga" aria-invalid="true" aria-describedby="err-operazione"`,
		`<span class="errore-campo" id="err-operazione">Scegli un&#39;operazione dell&#39;API PAGAMENTO: `, `list="operazioni"`,
		`<option value="payable-domini">`}
	bad := cc.post("/console/audit", q)
	bad.expect(t, 400, unknownOp...)
	bad.lacks(t, "invalid :", `id="errore-modulo"`)
	wq.Del("posizione")
	wq.Set("operazione", "paga")
	cc.post("/console/audit", wq).expect(t, 400, unknownOp...)
	cc.get("/console/audit").expect(t, 200, `<datalist id="operazioni">`, `<option value="audit-whole-log">`, `<option value="write-reconciliation">`)
	q.Set("operazione", "audit-whole-log") // BACKOFFICE's, not PAGAMENTO's
	cc.post("/console/audit", q).expect(t, 400, unknownOp[1])
	q.Set("operazione", "PROFILO") // names are case-insensitive (audit.Lookup)
	cc.post("/console/audit", q).expect(t, 200, `<span id="esito">`)

	// A scoped auditor is refused questions outside its scope, as by the API.
	w.putRole(t, "auditD1", acl{aclOf("Giornale degli Eventi", "R")}, []string{d1}, []string{"*"})
	w.putOperator(t, "opAudit", pw, true, "auditD1")
	ca := w.consoleClient(t)
	ca.login("opAudit", pw)
	ca.get("/console/audit")
	ca.post("/console/audit", url.Values{"principal": {"appA"}, "api": {"PAGAMENTO"}, "operazione": {"profilo"},
		"auth": {"basic"}}).expect(t, 403, "403000")
	// Naming its own entity beside another entity's pendenza changes
	// nothing; its own entity's pendenza it may ask about.
	w.createPendenza(t, "appA", "pa1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "pb1", d2, t1, citizen1)
	ca.post("/console/audit", url.Values{"principal": {"appA"}, "api": {"PENDENZE"}, "operazione": {"read"}, "auth": {"basic"},
		"idA2A": {"appA"}, "idPendenza": {"pa1"}, "idDominio": {d1}}).expect(t, 200, `<span id="esito">`+"allow")
	ca.post("/console/audit", url.Values{"principal": {"appB"}, "api": {"PENDENZE"}, "operazione": {"read"}, "auth": {"basic"},
		"idA2A": {"appB"}, "idPendenza": {"pb1"}, "idDominio": {d1}}).expect(t, 403, "403000")
}

// TestConsoleWrittenNoticeFollowsThisReplica: the page a write redirects
// to says the write is in force only when this server applied it; a
// position it has not reached (the redirect reached a replica that lags,
// or a hand-made link) is waited for, at most the write wait, and then
// said not applied yet.
func TestConsoleWrittenNoticeFollowsThisReplica(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withConsistencyWait(200*time.Millisecond))
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	cc.get("/console/domini/" + d1) // the form, and its CSRF token
	res := cc.post("/console/domini", url.Values{"idDominio": {d1}, "ragioneSociale": {"Comune Uno"}, "abilitato": {"on"}})
	res.expect(t, 303)
	cc.get(res.Location).expect(t, 200, "è già in vigore", "Comune Uno")

	ahead := strconv.FormatUint(uint64(w.model.AppliedPosition())+1000, 10)
	page := cc.get("/console/domini?scritto=" + ahead)
	page.expect(t, 200, "questo server non l&#39;ha ancora applicata", `data-posizione="`+ahead+`"`)
	page.lacks(t, "è già in vigore")
}

// TestConsoleWriteNotAppliedInTimeIsStillAWrite: a save whose write this
// replica has not applied within the write wait is in the log all the
// same, so the console goes on to the next page, which says it is not
// applied yet; it is not the 503 "event store unavailable" that would have
// the operator save it again.
func TestConsoleWriteNotAppliedInTimeIsStillAWrite(t *testing.T) {
	t.Parallel()
	gate := newProjectionGate()
	h := newHarness(t, withConsistencyWait(200*time.Millisecond), withProjectionGate(gate))
	cc := h.consoleClient(t)
	cc.login(adminUser, adminPass)
	cc.get("/console/domini?nuovo") // the form, and its CSRF token
	held := h.model.AppliedPosition()
	gate.shut() // this replica applies nothing more
	defer gate.reopen()

	res := cc.post("/console/domini", url.Values{"nuovo": {"1"}, "idDominio": {d1}, "ragioneSociale": {"Comune Uno"},
		"abilitato": {"on"}})
	res.expect(t, 303)
	m := writtenAt.FindStringSubmatch(res.Location)
	if m == nil {
		t.Fatalf("redirect %q carries no written position", res.Location)
	}
	if pos, _ := strconv.ParseUint(m[1], 10, 64); pos <= uint64(held) {
		t.Fatalf("written at %d, not after the position %d this replica is held at", pos, held)
	}
	cc.get(res.Location).expect(t, 200, "questo server non l&#39;ha ancora applicata")
	stream, err := h.store.Load(t.Context(), events.StreamDominio+d1)
	if err != nil || len(stream) != 1 {
		t.Fatalf("the entity's stream holds %d events (%v), want its registration", len(stream), err)
	}
}

// TestConsoleUnchangedSaveAnnouncesNoChange: a save that changes nothing
// writes nothing, so the page it leads to does not announce a change at
// the position of the record's last write (maybe another operator's); a
// save that changes the record does.
func TestConsoleUnchangedSaveAnnouncesNoChange(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cc := w.consoleClient(t)
	cc.login(adminUser, adminPass)
	form := url.Values{"idDominio": {d1}, "ragioneSociale": {"Comune Rinominato"}, "abilitato": {"on"}}
	cc.get("/console/domini/" + d1)
	changed := cc.post("/console/domini", form)
	changed.expect(t, 303)
	if !writtenAt.MatchString(changed.Location) {
		t.Fatalf("a change goes to %q, without its position", changed.Location)
	}
	cc.get(changed.Location).expect(t, 200, "Modifica registrata", "Comune Rinominato")

	same := cc.post("/console/domini", form)
	same.expect(t, 303)
	if writtenAt.MatchString(same.Location) {
		t.Fatalf("a save that changed nothing goes to %q, announcing a write", same.Location)
	}
	p := cc.get(same.Location)
	p.expect(t, 200, "Comune Rinominato")
	p.lacks(t, "Modifica registrata")
}

// TestConsoleAuditEmptyAnswers: the Audit page's tables say when they
// have no row, as the console's other tables do, and its heading counts
// one utenza in the singular.
func TestConsoleAuditEmptyAnswers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cc := h.consoleClient(t)
	cc.login(adminUser, adminPass)
	cc.get("/console/audit")
	who := url.Values{"domanda": {"chi"}, "api": {"BACKOFFICE"}, "operazione": {"audit-whole-log"}, "auth": {"basic"}}
	cc.post("/console/audit", who).expect(t, 200, "Chi può: 1 utenza alla posizione", "<td>admin</td>")
	who.Set("api", "PENDENZE") // no application is registered
	who.Set("operazione", "profilo")
	none := cc.post("/console/audit", who)
	none.expect(t, 200, "Chi può: 0 utenze alla posizione", `<td colspan="5">Nessuna utenza.</td>`)
	explain := url.Values{"principal": {"nessuno"}, "api": {"PAGAMENTO"}, "operazione": {"profilo"}, "auth": {"basic"}}
	cc.post("/console/audit", explain).expect(t, 200, `<span id="esito">unauthenticated`, `<td colspan="8">Nessuna evidenza.</td>`)
}
