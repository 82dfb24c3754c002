package httpapi

import (
	"html"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payauthz/payauthz/domain"
)

func TestConsoleMoneyAndEventLog(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.createPendenza(t, "appA", "ml-d1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "ml-d2", d2, t1, citizen2)
	payD1, payD2 := w.payOwn(t, "appA", "ml-d1"), w.payOwn(t, "appB", "ml-d2")
	w.putRole(t, "soloPendenze", acl{aclOf("Pendenze", "R")}, []string{"*"}, []string{"*"})
	w.putOperator(t, "opPendenze", pw, true, "soloPendenze")

	t.Run("payments_in_scope_only", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		list := cc.get("/console/pagamenti")
		list.expect(t, 200, payD1)
		list.lacks(t, payD2)
		cc.get("/console/pagamenti/"+payD1).expect(t, 200, "appA/ml-d1")
		cc.get("/console/pagamenti/"+payD2).expect(t, 403, "403000")
		for _, p := range []string{"/console/riconciliazioni", "/console/rendicontazioni", "/console/riscossioni"} {
			cc.get(p).expect(t, 200, "Nessun risultato.")
		}
		cc.get("/console/riconciliazioni").lacks(t, `value="`+d2+`"`)
	})
	t.Run("no_service_no_list", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opPendenze", pw)
		for _, p := range []string{"/console/pagamenti", "/console/pagamenti/" + payD1, "/console/riconciliazioni",
			"/console/rendicontazioni", "/console/riscossioni", "/console/eventi"} {
			cc.get(p).expect(t, 403, "403000")
		}
	})
	// A malformed idDominio filter is the API's error on the console too:
	// the API's list answers 400 after its gate (403 without the
	// service), and the console's page the same status and codice, its
	// dettaglio in Italian, not an empty table.
	t.Run("bad_entity_filter_as_the_api", func(t *testing.T) {
		lists := map[string]string{"/console/riconciliazioni": bo + "/riconciliazioni", "/console/rendicontazioni": bo + "/flussiRendicontazione",
			"/console/riscossioni": bo + "/riscossioni", "/console/pendenze": bo + "/pendenze"}
		for _, op := range []string{"opD1", "opPendenze"} {
			cc := w.consoleClient(t)
			cc.login(op, pw)
			for page, api := range lists {
				const filter = "?idDominio=abc"
				res := w.do(t, "GET", api+filter, nil, as(op))
				if res.Status != 400 && res.Status != 403 {
					t.Fatalf("GET %s as %s: %d %s", api+filter, op, res.Status, res.Body)
				}
				fb := res.fault(t)
				says := "idDominio: deve essere di 11 cifre"
				if res.Status == 403 {
					says = html.EscapeString("Nessun ruolo dell'utenza dà")
				}
				p := cc.get(page + filter)
				p.expect(t, res.Status, "<code>"+fb.Codice+"</code>", says)
				p.lacks(t, html.EscapeString(fb.Dettaglio))
			}
		}
	})
	t.Run("event_log_scoped_and_redacted", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		log := cc.get("/console/eventi")
		log.expect(t, 200, "ml-d1", "<td>PendenzaCreated</td>")
		log.lacks(t, "ml-d2", "<td>OperatorRegistered</td>", "passwordHash\":\"$")
		ca := w.consoleClient(t)
		ca.login(adminUser, adminPass)
		all := ca.get("/console/eventi?tipo=OperatorRegistered")
		all.expect(t, 200, "<td>OperatorRegistered</td>", "opD1")
		all.lacks(t, "<td>PendenzaCreated</td>", "$argon2")
		if !strings.Contains(ca.get("/console/eventi?idDominio="+d2).Body, "ml-d2") {
			t.Fatal("entity filter lost d2's pendenza")
		}
		ca.get("/console/eventi?da=abc").expect(t, 400, "La posizione")
		// An event type the catalogue does not have is the error of its
		// input, not an empty log; the input offers the catalogue's types.
		typo := ca.get("/console/eventi?tipo=OperatorRegistred")
		typo.expect(t, 400, `value="OperatorRegistred" aria-invalid="true" aria-describedby="err-tipo"`,
			`<span class="errore-campo" id="err-tipo">`, `list="tipi-evento"`, `<option value="OperatorRegistered">`)
		typo.lacks(t, "Nessun evento.")
		ca.get("/console/eventi").expect(t, 200, `<datalist id="tipi-evento">`, `<option value="PendenzaCreated">`)
		// An event's time is the API's, on Rome's clock with its offset;
		// the day to start from is a day in Rome.
		var page struct {
			Risultati []struct {
				Posizione uint64    `json:"posizione"`
				Data      time.Time `json:"data"`
			} `json:"risultati"`
		}
		w.must(t, "GET", bo+"/eventi?limite=1000", nil).decode(t, &page)
		last := page.Risultati[len(page.Risultati)-1]
		pos := strconv.FormatUint(last.Posizione, 10)
		ca.get("/console/eventi?da="+pos).expect(t, 200, `<th scope="col">Ora italiana</th>`,
			"<td>"+pos+"</td><td>"+strings.ReplaceAll(last.Data.In(domain.Rome).Format(time.RFC3339), "+", "&#43;")+"</td>")
		day := last.Data.In(domain.Rome)
		ca.get("/console/eventi?da="+pos+"&dal="+day.Format(time.DateOnly)).expect(t, 200, "<td>"+pos+"</td>")
		ca.get("/console/eventi?da="+pos+"&dal="+day.AddDate(0, 0, 1).Format(time.DateOnly)).expect(t, 200, "Nessun evento.")
		ca.get("/console/audit?posizione=3").expect(t, 200, `id="posizione" name="posizione" type="text" inputmode="numeric" value="3"`)
	})
}

// TestConsolePendenzeOfAUnitScope: an operator whose role holds one unit
// of an entity is offered the entity and sees its unit's pendenze there,
// as GET /pendenze lists them; not the entity's pendenze without a unit,
// nor another entity.
func TestConsolePendenzeOfAUnitScope(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/UO1", map[string]any{"ragioneSociale": "Ufficio UO1", "abilitato": true})
	w.grantUO1(t, "appUO1", "PENDENZE", "opPendenzeUO1", aclOf("Pendenze", "R"))
	b := pendenzaBodyFor(d1, t1, citizen1)
	b["idUnitaOperativa"] = "UO1"
	w.must(t, "PUT", pe+"/pendenze/appA/cu-uo1", b, as("appA"))
	w.createPendenza(t, "appA", "cu-entity", d1, t1, citizen1)
	w.createPendenza(t, "appB", "cu-d2", d2, t1, citizen2)

	api := string(w.must(t, "GET", bo+"/pendenze", nil, as("opPendenzeUO1")).Body)
	if !strings.Contains(api, "cu-uo1") || strings.Contains(api, "cu-entity") || strings.Contains(api, "cu-d2") {
		t.Fatalf("GET /pendenze as the unit's operator: %s", api)
	}
	cc := w.consoleClient(t)
	cc.login("opPendenzeUO1", pw)
	page := cc.get("/console/pendenze")
	page.expect(t, 200, `value="`+d1+`"`, "cu-uo1")
	page.lacks(t, `value="`+d2+`"`)
	page.lacks(t, "cu-entity")
	cc.get("/console/pendenze?idDominio="+d1).expect(t, 200, "cu-uo1")
	// An entity outside the scope lists nothing, as the API's filter does.
	if b := string(w.must(t, "GET", bo+"/pendenze?idDominio="+d2, nil, as("opPendenzeUO1")).Body); !strings.Contains(b, `"risultati":[]`) {
		t.Fatalf("GET /pendenze?idDominio=%s as the unit's operator: %s", d2, b)
	}
	cc.get("/console/pendenze?idDominio="+d2).expect(t, 200, "Nessuna pendenza.")
	cc.get("/console/pendenze?idDominio="+d2).lacks(t, "cu-d2")
	cc.get("/console/pendenze?idDominio=abc").expect(t, 400, "SINTASSI") // as GET /pendenze?idDominio=abc
}

// TestConsoleEventLogLinks: the event log links only to what exists: no
// "prima" for the log's first event (position 0 is no point of history,
// projections.Until.AtPosition; the Audit form took it for the log's
// end), and the next page only while later events are left.
func TestConsoleEventLogLinks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cc := h.consoleClient(t)
	cc.login(adminUser, adminPass)
	first := cc.get("/console/eventi")
	first.expect(t, 200, `<td>1</td>`, `<td><a href="/console/audit?posizione=1">dopo</a></td>`,
		`<a href="/console/audit?posizione=1">prima</a> · <a href="/console/audit?posizione=2">dopo</a>`)
	first.lacks(t, "posizione=0", "Eventi successivi")
	for i := range 51 {
		h.putType(t, "T"+strconv.Itoa(i), false)
	}
	end := uint64(h.logEnd(t))
	cc.get("/console/eventi").expect(t, 200, "Eventi successivi (dalla posizione 51)")
	last := cc.get("/console/eventi?da=51")
	last.expect(t, 200, "<td>"+strconv.FormatUint(end, 10)+"</td>")
	last.lacks(t, "Eventi successivi")
	// A filter whose rows fill a page links on to the rest of the log.
	cc.get("/console/eventi?tipo=PendenzaTypeRegistered").expect(t, 200, "Eventi successivi")
	cc.get("/console/eventi?tipo=RoleDefined").lacks(t, "Eventi successivi")
}
