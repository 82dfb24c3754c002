package httpapi

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestConsolePatchPendenza: a pendenza's page cancels or reopens it with
// the command of the Backoffice's PATCH /pendenze/{idA2A}/{idPendenza},
// offered only to whom that PATCH's operation allows it (Pendenze W on
// the pendenza's entity × type): a read-only operator sees no form and
// its forged POST gets the API's 403; a pendenza paid once the form was
// open gets the API's 422, its page then saying why; the form carries the
// base of the other saves, so a cancel over a change it did not show
// writes nothing (409).
func TestConsolePatchPendenza(t *testing.T) {
	t.Parallel()
	w, node, nodeBase := sslNodeServingD1(t)
	for _, id := range []string{"pc1", "pc2", "pc3", "pc4"} {
		w.createPendenza(t, "appA", id, d1, t1, citizen1)
	}
	w.createPendenza(t, "appB", "pc-d2", d2, t1, citizen2)
	stato := func(id string) string {
		pd, _ := w.model.Pendenza("appA", id)
		return pd.Stato
	}
	formOf := func(id string) string { return `action="/console/pendenze/appA/` + id + `"` }
	// apiSays is the dettaglio of the Backoffice's PATCH as user, which
	// must answer status (a refusal: nothing is written): the API's words,
	// which the console's page says in Italian.
	apiSays := func(t *testing.T, user, a2a, id string, status int) string {
		t.Helper()
		r := w.do(t, "PATCH", bo+"/pendenze/"+a2a+"/"+id, patchStato("ANNULLATA"), as(user))
		r.expect(t, status, "")
		return html.EscapeString(r.fault(t).Dettaglio)
	}
	cancel := url.Values{"stato": {"ANNULLATA"}, "descrizioneStato": {"Annullata dall'ufficio"}}

	t.Run("operator_with_pendenze_w_cancels_and_reopens", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/pendenze/appA/pc1").expect(t, http.StatusOK, formOf("pc1"), `name="stato" value="ANNULLATA"`, "Annulla la pendenza")
		p := cc.post("/console/pendenze/appA/pc1", cancel)
		p.expect(t, http.StatusSeeOther)
		if !strings.HasPrefix(p.Location, "/console/pendenze/appA/pc1?scritto=") {
			t.Fatalf("after the cancel: Location %q", p.Location)
		}
		if got := stato("pc1"); got != "ANNULLATA" {
			t.Fatalf("stato after the cancel = %q", got)
		}
		after := cc.get(p.Location)
		after.expect(t, http.StatusOK, "<dd>ANNULLATA</dd>", "Annullata dall&#39;ufficio", `id="scritto"`,
			`data-posizione="`+strings.TrimPrefix(p.Location, "/console/pendenze/appA/pc1?scritto=")+`"`,
			`name="stato" value="NON_ESEGUITA"`, "Riapri la pendenza")
		cc.post("/console/pendenze/appA/pc1", url.Values{"stato": {"NON_ESEGUITA"}}).expect(t, http.StatusSeeOther)
		if got := stato("pc1"); got != "NON_ESEGUITA" {
			t.Fatalf("stato after the reopening = %q", got)
		}
	})
	t.Run("bad_input_comes_back_to_the_form", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/pendenze/appA/pc2").expect(t, http.StatusOK, formOf("pc2"))
		before := w.logEnd(t)
		cc.post("/console/pendenze/appA/pc2", url.Values{"stato": {"ANNULLATA"}, "descrizioneStato": {strings.Repeat("x", 256)}}).
			expect(t, http.StatusBadRequest, formOf("pc2"), `aria-invalid="true"`)
		cc.post("/console/pendenze/appA/pc2", url.Values{"stato": {"PAGATA"}}).
			expect(t, http.StatusBadRequest, formOf("pc2"), "stato: può essere solo ANNULLATA (annulla) o NON_ESEGUITA (riapri).")
		cc.post("/console/pendenze/appA/pc2", url.Values{"stato": {"ANNULLATA"}, "base": {"0"}}).
			expect(t, http.StatusBadRequest, "Il modulo non indica la versione")
		if after := w.logEnd(t); after != before || stato("pc2") != "NON_ESEGUITA" {
			t.Fatalf("refused input wrote (log %d → %d), stato %q", before, after, stato("pc2"))
		}
	})
	t.Run("read_only_operator_sees_no_form_and_gets_the_apis_403", func(t *testing.T) {
		want := apiSays(t, "opRO", "appA", "pc2", http.StatusForbidden)
		cc := w.consoleClient(t)
		cc.login("opRO", pw)
		page := cc.get("/console/pendenze/appA/pc2")
		page.expect(t, http.StatusOK, "Tassa rifiuti 2026")
		page.lacks(t, formOf("pc2"), `name="stato"`)
		base := strconv.FormatUint(uint64(w.logEnd(t)), 10)
		for _, s := range []string{"ANNULLATA", "PAGATA"} { // the gate decides before the input, as the API's
			p := cc.post("/console/pendenze/appA/pc2", url.Values{"stato": {s}, "base": {base}})
			p.expect(t, http.StatusForbidden, "403000", html.EscapeString("Nessun ruolo dell'utenza dà Pendenze W (scrittura)."))
			p.lacks(t, want) // the API's words, not the console's
		}
		if got := stato("pc2"); got != "NON_ESEGUITA" {
			t.Fatalf("a read-only operator changed the stato to %q", got)
		}
	})
	t.Run("operator_outside_the_entity_gets_the_apis_403", func(t *testing.T) {
		want := apiSays(t, "opD1", "appB", "pc-d2", http.StatusForbidden)
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/pendenze/appA/pc2")
		p := cc.post("/console/pendenze/appB/pc-d2", cancel)
		p.expect(t, http.StatusForbidden, "403000",
			html.EscapeString("Nessun ruolo dell'utenza che dà Pendenze W (scrittura) copre il dominio e il tipo di questa pendenza."))
		p.lacks(t, want)
		if pd, _ := w.model.Pendenza("appB", "pc-d2"); pd.Stato != "NON_ESEGUITA" {
			t.Fatalf("stato of the other entity's pendenza = %q", pd.Stato)
		}
	})
	t.Run("paid_since_the_form_opened_shows_the_apis_422", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/pendenze/appA/pc3").expect(t, http.StatusOK, formOf("pc3"))
		var paid pendenzaView
		w.must(t, "GET", bo+"/pendenze/appA/pc3", nil, asAdmin()).decode(t, &paid)
		w.do(t, "POST", nodeBase+"/ricevute", ricevuta(paid, "IUR-CONSOLE-1", 123.45, "ESEGUITO"), node).expect(t, 201, "")
		want := apiSays(t, "opD1", "appA", "pc3", http.StatusUnprocessableEntity)
		p := cc.post("/console/pendenze/appA/pc3", cancel)
		const paidNote = "La pendenza appA/pc3 è pagata: il suo stato non si può più cambiare."
		p.expect(t, http.StatusUnprocessableEntity, paidNote)
		p.lacks(t, formOf("pc3"), want)
		if got := stato("pc3"); got != "ESEGUITA" {
			t.Fatalf("stato of the paid pendenza = %q", got)
		}
		page := cc.get("/console/pendenze/appA/pc3")
		page.expect(t, http.StatusOK, "<dd>ESEGUITA</dd>", `id="stato-immutabile">`+paidNote)
		page.lacks(t, formOf("pc3"))
	})
	t.Run("cancel_over_a_change_it_did_not_show_writes_nothing", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login("opD1", pw)
		cc.get("/console/pendenze/appA/pc4").expect(t, http.StatusOK, formOf("pc4"))
		// Meanwhile its creator cancels it and reopens it.
		w.must(t, "PATCH", pe+"/pendenze/appA/pc4", patchStato("ANNULLATA"), as("appA"))
		w.must(t, "PATCH", pe+"/pendenze/appA/pc4", patchStato("NON_ESEGUITA"), as("appA"))
		before := w.logEnd(t)
		cc.post("/console/pendenze/appA/pc4", cancel).expect(t, http.StatusConflict, staleNotice, formOf("pc4"))
		if after := w.logEnd(t); after != before || stato("pc4") != "NON_ESEGUITA" {
			t.Fatalf("a cancel over a later change wrote (log %d → %d), stato %q", before, after, stato("pc4"))
		}
		cc.post("/console/pendenze/appA/pc4", cancel).expect(t, http.StatusSeeOther) // from the form shown again
		if got := stato("pc4"); got != "ANNULLATA" {
			t.Fatalf("stato after the second cancel = %q", got)
		}
	})
}

// TestConsolePendenzaDataCaricamento: the console's list of pendenze and a
// pendenza's page show its data di caricamento, the date the Backoffice
// API answers as dataCaricamento (in Rome, read from the same read model);
// an operator outside the pendenza's entity sees neither.
func TestConsolePendenzaDataCaricamento(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.createPendenza(t, "appA", "dcc1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "dcc2", d2, t1, citizen2)
	var api struct {
		DataCaricamento string `json:"dataCaricamento"`
	}
	w.must(t, "GET", bo+"/pendenze/appA/dcc1", nil, as("opD1")).decode(t, &api)
	if len(api.DataCaricamento) != len("2006-01-02") {
		t.Fatalf("the API's dataCaricamento = %q", api.DataCaricamento)
	}

	cc := w.consoleClient(t)
	cc.login("opD1", pw)
	cc.get("/console/pendenze?idDominio="+d1).expect(t, http.StatusOK, `<th scope="col">Data di caricamento</th>`,
		`<td>`+api.DataCaricamento+`</td></tr>`)
	cc.get("/console/pendenze/appA/dcc1").expect(t, http.StatusOK,
		`<dt>Data di caricamento</dt><dd>`+api.DataCaricamento+`</dd>`)

	// opD1's roles do not reach d2: its pendenza is neither listed nor shown.
	list := cc.get("/console/pendenze?idDominio=" + d2)
	list.expect(t, http.StatusOK, "Nessuna pendenza.")
	list.lacks(t, "dcc2")
	page := cc.get("/console/pendenze/appB/dcc2")
	page.expect(t, http.StatusForbidden, "403000")
	page.lacks(t, "Data di caricamento")
}
