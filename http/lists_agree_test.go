package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events"
)

// listsWorld is newBackofficeWorld with operational units, a second type,
// pendenze in units, payments over two entities, citizens' and an
// anonymous session's payments, receipts of every kind and incassi: what
// a list may show one caller and hide from another.
type listsWorld struct {
	*boWorld
	anon *http.Cookie // the anonymous session that created and paid pendenze
}

const (
	t2   = "TASSA2"
	spid = "/pagamento/rs/spid/v2"
	pub  = "/pagamento/rs/public/v2"
)

func newListsWorld(t *testing.T) *listsWorld {
	t.Helper()
	w := &listsWorld{boWorld: newBackofficeWorld(t)}
	ctx := context.Background()
	for _, u := range []string{"UO1", "UO2"} {
		w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/"+u, map[string]any{"ragioneSociale": "Ufficio " + u, "abilitato": true})
	}
	w.putType(t, t2, false)
	w.putApp(t, "appAll", "appAll", pw, true, apiGrant("PENDENZE", []string{"*"}, []string{"*"}),
		apiGrant("PAGAMENTO", []string{"*"}, []string{"*"}), apiGrant("RAGIONERIA", []string{"*"}, []string{"*"}))
	onUO1 := []any{map[string]any{"idDominio": d1, "unitaOperative": []string{"UO1"}}}
	w.must(t, "PUT", bo+"/applicazioni/appUO1", map[string]any{"principal": "appUO1", "password": pw, "abilitato": true, "ruoli": []string{},
		"autorizzazioniApi": []any{
			map[string]any{"api": "PENDENZE", "domini": onUO1, "tipiPendenza": []string{"*"}},
			map[string]any{"api": "PAGAMENTO", "domini": onUO1, "tipiPendenza": []string{"*"}},
			map[string]any{"api": "RAGIONERIA", "domini": onUO1, "tipiPendenza": []string{"*"}}}})
	w.putApp(t, "appT1", "appT1", pw, true, apiGrant("PENDENZE", []string{"*"}, []string{t1}),
		apiGrant("PAGAMENTO", []string{"*"}, []string{t1}), apiGrant("RAGIONERIA", []string{d2}, []string{t1}))

	// Backoffice roles of partial scope, every service R.
	w.must(t, "PUT", bo+"/ruoli/allUO1", map[string]any{"acl": fullACL("R"), "domini": onUO1, "tipiPendenza": []string{"*"}})
	w.putOperator(t, "opUO1", pw, true, "allUO1")
	w.putRole(t, "allT1", fullACL("R"), []string{"*"}, []string{t1})
	w.putOperator(t, "opT1", pw, true, "allT1")
	w.putRole(t, "pendD1", acl{aclOf("Pendenze", "R")}, []string{d1}, []string{"*"})
	w.putRole(t, "pagD2", acl{aclOf("Pagamenti", "R"), aclOf("Rendicontazioni e Incassi", "R")}, []string{d2}, []string{"*"})
	w.putOperator(t, "opMix", pw, true, "pendD1", "pagD2")

	put := func(app, id, dominio, unit, tipo, payer string) pendenzaView {
		body := pendenzaBodyFor(dominio, tipo, payer)
		if unit != "" {
			body["idUnitaOperativa"] = unit
		}
		var v pendenzaView
		w.must(t, "PUT", pe+"/pendenze/"+app+"/"+id, body, as(app)).decode(t, &v)
		return v
	}
	pu1 := put("appAll", "l-u1", d1, "UO1", t1, citizen1)
	pu2 := put("appAll", "l-u2", d1, "UO2", t2, citizen2)
	put("appAll", "l-d1t2", d1, "", t2, citizen1)
	pd2 := put("appAll", "l-d2", d2, "", t1, citizen2)
	put("appUO1", "l-own-u1", d1, "UO1", t1, citizen2)

	pay := func(opt reqOpt, base string, refs ...map[string]any) *response {
		return w.must(t, "POST", base+"/pagamenti", map[string]any{"pendenze": refs}, opt)
	}
	ref := func(app, id string) map[string]any { return map[string]any{"idA2A": app, "idPendenza": id} }
	pay(as("appAll"), pg, ref("appAll", "l-u1"), ref("appAll", "l-d2"))                            // d1/UO1 and d2
	pay(as("appAll"), pg, ref("appAll", "l-u2"))                                                   // d1/UO2
	pay(as("appUO1"), pg, ref("appAll", "l-u1"))                                                   // d1/UO1, by the unit's app
	pay(asSPID(citizen1), spid, ref("appAll", "l-d1t2"))                                           // a citizen pays its own
	pay(asSPID(citizen2), spid, map[string]any{"idDominio": d1, "numeroAvviso": pu1.NumeroAvviso}) // remitter of another's
	// An anonymous session creates a pendenza and pays a notice.
	r := w.must(t, "POST", pub+"/pendenze/"+d1+"/"+tSpont, map[string]any{"causale": "Donazione", "importo": 5,
		"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "Luigi Verdi"}}, withHeader("X-Test", "anon"))
	w.anon = sessionCookieOf(r)
	if w.anon == nil {
		t.Fatal("no session cookie")
	}
	pay(withCookie(w.anon), pub, map[string]any{"idDominio": d2, "numeroAvviso": pd2.NumeroAvviso})

	// Pendenze that move after they were listed under their first place
	// and payer, and one cancelled.
	put("appAll", "l-d1t2", d2, "", t1, citizen2)
	put("appAll", "l-mv", d1, "UO1", t1, citizen1)
	put("appAll", "l-mv", d1, "UO2", t2, citizen2)
	put("appAll", "l-mv2", d2, "", t1, citizen2)
	put("appAll", "l-mv2", d1, "UO1", t1, citizen1)
	w.must(t, "PATCH", bo+"/pendenze/appAll/l-mv2", []map[string]any{{"op": "REPLACE", "path": "/stato", "value": "ANNULLATA"}})
	for i, p := range []pendenzaView{pu1, pu2, pd2} {
		esito := "ESEGUITO"
		if i == 1 {
			esito = "NON_ESEGUITO"
		}
		res, err := w.cmds.RecordReceipt(ctx, commands.System, commands.RecordReceipt{IDIntermediario: intID,
			IDDominio: p.IDDominio, NumeroAvviso: p.NumeroAvviso, IDRicevuta: fmt.Sprintf("LRIC%d", i),
			AmountCents: int64(p.Importo), Esito: esito, DataPagamento: "2026-01-04"})
		if err != nil {
			t.Fatalf("record receipt: %v", err)
		}
		w.waitFor(t, res.Position)
	}
	res, err := w.cmds.RecordSettlementReport(ctx, commands.System, commands.RecordSettlementReport{IDIntermediario: intID,
		IDFlusso: "LFLUSSO-U1", IDDominio: d1, DataFlusso: "2026-01-05T10:00:00Z", TotalCents: int64(pu1.Importo),
		Items: []events.SettlementItem{{NumeroAvviso: pu1.NumeroAvviso, AmountCents: int64(pu1.Importo), Esito: 0}}})
	if err != nil {
		t.Fatalf("record settlement report: %v", err)
	}
	w.waitFor(t, res.Position)
	w.must(t, "PUT", rg+"/riconciliazioni/"+d1+"/ric-all1", map[string]any{"importo": 1, "causale": "R"}, as("appAll"))
	w.must(t, "PUT", rg+"/riconciliazioni/"+d2+"/ric-all", map[string]any{"importo": 1, "causale": "R"}, as("appAll"))
	for _, d := range []string{d1, d2} {
		w.must(t, "POST", bo+"/incassi/"+d, map[string]any{"causale": "Incasso " + d, "importo": 7})
	}
	return w
}

// listEndpoint is a list and the read of one of its items.
type listEndpoint struct {
	list string
	read func(item map[string]any) string // the item's path
}

// detailOnly are, by list, the members the read of one item answers and
// its list's item does not: GovPay's detail schema of a pendenza has its
// voci, its index (PendenzaIndex, a list's item) has not; the members of
// its PendenzaBase a pendenza is written with are answered by its reads
// alone (docs/API.md section 4).
var detailOnly = map[string][]string{"/pendenze": {"voci", "dataValidita", "dataScadenza", "annoRiferimento",
	"cartellaPagamento", "datiAllegati", "tassonomia", "tassonomiaAvviso", "direzione", "divisione", "proprieta",
	"documento", "dataNotificaAvviso", "dataPromemoriaScadenza"}}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func esc(s string) string { return url.PathEscape(s) }

var (
	pendenzaPath  = func(m map[string]any) string { return "/pendenze/" + str(m, "idA2A") + "/" + str(m, "idPendenza") }
	pagamentoPath = func(m map[string]any) string { return "/pagamenti/" + str(m, "id") }
	flussoAtPath  = func(m map[string]any) string {
		return "/flussiRendicontazione/" + str(m, "idDominio") + "/" + str(m, "idFlusso") + "/" + esc(str(m, "dataFlusso"))
	}
	riscossionePath = func(m map[string]any) string {
		return fmt.Sprintf("/riscossioni/%s/%s/%s/%v", str(m, "idDominio"), str(m, "iuv"), str(m, "iur"), m["indice"])
	}
	ricevutaPath = func(m map[string]any) string {
		d, _ := m["dominio"].(map[string]any)
		return "/ricevute/" + str(d, "idDominio") + "/" + str(m, "iuv") + "/" + str(m, "idRicevuta")
	}
)

// listAll reads every page of a list (5 a page: paging is part of it),
// checking that the counts agree with what the pages hold.
func listAll(t *testing.T, h *harness, path string, opt reqOpt) ([]map[string]any, int) {
	t.Helper()
	var all []map[string]any
	sep := "?"
	if slices.Contains([]byte(path), '?') {
		sep = "&"
	}
	first := h.do(t, "GET", path+sep+"risultatiPerPagina=5", nil, opt)
	if first.Status != http.StatusOK {
		return nil, first.Status
	}
	var page Page[map[string]any]
	first.decode(t, &page)
	n, pages := page.NumRisultati, page.NumPagine
	all = append(all, page.Risultati...)
	for p := 2; p <= pages; p++ {
		var next Page[map[string]any]
		h.must(t, "GET", fmt.Sprintf("%s%srisultatiPerPagina=5&pagina=%d", path, sep, p), nil, opt).decode(t, &next)
		all = append(all, next.Risultati...)
	}
	if len(all) != n || pages != max((n+4)/5, 1) { // an empty list has one page
		t.Fatalf("GET %s: numRisultati %d, numPagine %d, but the pages hold %d items", path, n, pages, len(all))
	}
	return all, http.StatusOK
}

// TestListsAgreeWithReads: for several callers (operators and
// applications scoped to an entity, a unit, a type, roles mixing scopes;
// citizens; an anonymous session), every item a list shows is what the
// read of that item answers the same caller (but the members only the read
// answers, detailOnly), and every item the caller
// may read one by one is in the list (both ways), the counts are what the
// pages hold, and the filters keep what they name.
func TestListsAgreeWithReads(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newListsWorld(t)

	type api struct {
		base      string
		endpoints []listEndpoint
		callers   map[string]reqOpt
	}
	apis := []api{
		{bo, []listEndpoint{
			{"/pendenze", pendenzaPath},
			{"/pagamenti", pagamentoPath},
			{"/flussiRendicontazione", flussoAtPath},
			{"/riscossioni", riscossionePath},
			{"/ricevute", ricevutaPath},
			{"/incassi", func(m map[string]any) string { return "/incassi/" + str(m, "idDominio") + "/" + str(m, "idIncasso") }},
			{"/domini", func(m map[string]any) string { return "/domini/" + str(m, "idDominio") }},
			{"/domini/" + d1 + "/unitaOperative", func(m map[string]any) string { return "/domini/" + d1 + "/unitaOperative/" + str(m, "idUnita") }},
			{"/tipiPendenza", func(m map[string]any) string { return "/tipiPendenza/" + str(m, "idTipoPendenza") }},
			{"/ruoli", func(m map[string]any) string { return "/ruoli/" + str(m, "idRuolo") }},
			{"/operatori", func(m map[string]any) string { return "/operatori/" + esc(str(m, "principal")) }},
			{"/applicazioni", func(m map[string]any) string { return "/applicazioni/" + str(m, "idA2A") }},
			{"/intermediari", func(m map[string]any) string { return "/intermediari/" + str(m, "idIntermediario") }},
		}, map[string]reqOpt{"admin": asAdmin(), "opD1": as("opD1"), "opRO": as("opRO"), "appRoled": as("appRoled"),
			"opUO1": as("opUO1"), "opT1": as("opT1"), "opMix": as("opMix")}},
		{pe, []listEndpoint{{"/pendenze", pendenzaPath}},
			map[string]reqOpt{"appA": as("appA"), "appB": as("appB"), "appAll": as("appAll"), "appUO1": as("appUO1"), "appT1": as("appT1")}},
		{pg, []listEndpoint{{"/pendenze", pendenzaPath}, {"/pagamenti", pagamentoPath}},
			map[string]reqOpt{"appA": as("appA"), "appB": as("appB"), "appAll": as("appAll"), "appUO1": as("appUO1"), "appT1": as("appT1")}},
		{spid, []listEndpoint{{"/pendenze", pendenzaPath}, {"/pagamenti", pagamentoPath}},
			map[string]reqOpt{"citizen1": asSPID(citizen1), "citizen2": asSPID(citizen2)}},
		{pub, []listEndpoint{{"/pagamenti", pagamentoPath}}, map[string]reqOpt{"anonymous": withCookie(w.anon)}},
		{rg, []listEndpoint{
			{"/riconciliazioni", func(m map[string]any) string { return "/riconciliazioni/" + str(m, "idDominio") + "/" + str(m, "id") }},
			{"/flussiRendicontazione", func(m map[string]any) string {
				return "/flussiRendicontazione/" + str(m, "idDominio") + "/" + str(m, "idFlusso")
			}},
			{"/flussiRendicontazione", flussoAtPath},
			{"/riscossioni", riscossionePath},
			{"/ricevute", ricevutaPath},
			{"/pagamenti", pagamentoPath},
		}, map[string]reqOpt{"appA": as("appA"), "appB": as("appB"), "appC": as("appC"), "appAll": as("appAll"),
			"appUO1": as("appUO1"), "appT1": as("appT1")}},
	}

	// Every item's read path on each API, from what the widest callers
	// list (the administrator, appAll), so that an item missing from a
	// narrower caller's list is found by reading it.
	candidates := map[string]map[string]bool{}
	for _, a := range apis {
		for i, e := range a.endpoints {
			key := fmt.Sprint(a.base, e.list, i)
			candidates[key] = map[string]bool{}
			for _, opt := range a.callers {
				items, _ := listAll(t, w.harness, a.base+e.list, opt)
				for _, it := range items {
					candidates[key][e.read(it)] = true
				}
			}
		}
	}
	// The items no caller above lists, read by their ids.
	for _, wide := range []struct {
		list, base string
		ep         listEndpoint
		i          int
	}{
		{"/pendenze", pg, listEndpoint{"/pendenze", pendenzaPath}, 0},
		{"/pendenze", spid, listEndpoint{"/pendenze", pendenzaPath}, 0},
		{"/pendenze", pe, listEndpoint{"/pendenze", pendenzaPath}, 0},
		{"/pagamenti", pg, listEndpoint{"/pagamenti", pagamentoPath}, 1},
		{"/pagamenti", spid, listEndpoint{"/pagamenti", pagamentoPath}, 1},
		{"/pagamenti", pub, listEndpoint{"/pagamenti", pagamentoPath}, 0},
		{"/pagamenti", rg, listEndpoint{"/pagamenti", pagamentoPath}, 5},
		{"/riscossioni", rg, listEndpoint{"/riscossioni", riscossionePath}, 3},
		{"/ricevute", rg, listEndpoint{"/ricevute", ricevutaPath}, 4},
	} {
		items, _ := listAll(t, w.harness, bo+wide.list, asAdmin())
		for _, it := range items {
			candidates[fmt.Sprint(wide.base, wide.list, wide.i)][wide.ep.read(it)] = true
		}
	}

	t.Run("filters", func(t *testing.T) { listFiltersKeepWhatTheyName(t, w) })
	t.Run("console_money_lists_are_the_apis", func(t *testing.T) { consoleMoneyListsAreTheAPIs(t, w) })
	for _, a := range apis {
		for i, e := range a.endpoints {
			for name, opt := range a.callers {
				t.Run(a.base+e.list+"/"+name, func(t *testing.T) {
					items, status := listAll(t, w.harness, a.base+e.list, opt)
					listed := map[string]bool{}
					for _, it := range items {
						p := e.read(it)
						listed[p] = true
						r := w.do(t, "GET", a.base+p, nil, opt)
						if r.Status != http.StatusOK {
							t.Errorf("listed %s, but its read answers %d: %s", p, r.Status, r.Body)
							continue
						}
						var one map[string]any
						r.decode(t, &one)
						for _, k := range detailOnly[e.list] {
							delete(one, k)
						}
						if !reflect.DeepEqual(normalize(one), normalize(it)) {
							t.Errorf("listed %s as %v, read as %v", p, it, one)
						}
					}
					for p := range candidates[fmt.Sprint(a.base, e.list, i)] {
						if listed[p] {
							continue
						}
						if r := w.do(t, "GET", a.base+p, nil, opt); r.Status == http.StatusOK {
							t.Errorf("reads %s (list answered %d), but the list does not show it", p, status)
						}
					}
				})
			}
		}
	}
}

// listFiltersKeepWhatTheyName: a list filtered by idDominio or stato is
// the unfiltered list's items of that entity or state, for every caller,
// in the same order (an entity outside the caller's scope, or unknown, an
// empty page).
func listFiltersKeepWhatTheyName(t *testing.T, w *listsWorld) {
	type list struct {
		path    string
		filters []string
		callers []reqOpt
	}
	dominio := func(m map[string]any) string {
		if d := str(m, "idDominio"); d != "" {
			return d
		}
		d, _ := m["dominio"].(map[string]any)
		return str(d, "idDominio")
	}
	bos := []reqOpt{asAdmin(), as("opD1"), as("opUO1"), as("opT1"), as("opMix"), as("appRoled")}
	apps := []reqOpt{as("appA"), as("appB"), as("appAll"), as("appUO1"), as("appT1"), as("appC")}
	for _, l := range []list{
		{bo + "/pendenze", []string{"idDominio", "stato"}, bos},
		{bo + "/riconciliazioni", []string{"idDominio"}, bos},
		{bo + "/flussiRendicontazione", []string{"idDominio"}, bos},
		{bo + "/riscossioni", []string{"idDominio"}, bos},
		{bo + "/ricevute", []string{"idDominio"}, bos},
		{bo + "/incassi", []string{"idDominio"}, bos},
		{pe + "/pendenze", []string{"idDominio", "stato"}, apps},
		{pg + "/pendenze", []string{"idDominio", "stato"}, apps},
		{spid + "/pendenze", []string{"idDominio", "stato"}, []reqOpt{asSPID(citizen1), asSPID(citizen2)}},
		{rg + "/riconciliazioni", []string{"idDominio"}, apps},
		{rg + "/flussiRendicontazione", []string{"idDominio"}, apps},
		{rg + "/riscossioni", []string{"idDominio"}, apps},
		{rg + "/ricevute", []string{"idDominio"}, apps},
	} {
		for ci, opt := range l.callers {
			all, status := listAll(t, w.harness, l.path, opt)
			if status != http.StatusOK {
				continue
			}
			for _, f := range l.filters {
				values, key := []string{d1, d2, dNone}, dominio
				if f == "stato" {
					values, key = []string{"ESEGUITA", "NON_ESEGUITA", "ANNULLATA"}, func(m map[string]any) string { return str(m, "stato") }
				}
				for _, v := range values {
					var want []map[string]any
					for _, it := range all {
						if key(it) == v {
							want = append(want, it)
						}
					}
					got, st := listAll(t, w.harness, l.path+"?"+f+"="+v, opt)
					if st != http.StatusOK || !reflect.DeepEqual(normalize(got), normalize(want)) {
						t.Errorf("%s?%s=%s (caller %d): %d, %d items, want the %d of the unfiltered list", l.path, f, v, ci, st, len(got), len(want))
					}
				}
			}
		}
	}
}

// normalize re-encodes v so that two decodings compare alike.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// consoleMoneyListsAreTheAPIs: the console's Riconciliazioni,
// Rendicontazioni and Riscossioni pages show each caller the rows the
// Backoffice API's list of the same name shows it (each row kept by one
// choice of rule, operations.EntityScope's), no more, no fewer.
func consoleMoneyListsAreTheAPIs(t *testing.T, w *listsWorld) {
	lists := []struct {
		page, api string
		id        func(m map[string]any) string // the row's detail path on the console
	}{
		{"riconciliazioni", "/riconciliazioni", func(m map[string]any) string { return str(m, "idDominio") + "/" + str(m, "id") }},
		{"rendicontazioni", "/flussiRendicontazione", func(m map[string]any) string { return str(m, "idDominio") + "/" + str(m, "idFlusso") }},
		{"riscossioni", "/riscossioni", func(m map[string]any) string { return str(m, "idDominio") + "/" + str(m, "iur") }},
	}
	for _, op := range []string{adminUser, "opD1", "opUO1", "opT1", "opMix"} {
		cc := w.consoleClient(t)
		if op == adminUser {
			cc.login(adminUser, adminPass)
		} else {
			cc.login(op, pw)
		}
		opt := as(op)
		if op == adminUser {
			opt = asAdmin()
		}
		for _, l := range lists {
			items, status := listAll(t, w.harness, bo+l.api, opt)
			pg := cc.get("/console/" + l.page)
			if pg.Status != status {
				t.Fatalf("%s %s: console %d, API %d", op, l.page, pg.Status, status)
			}
			var api, shown []string
			for _, it := range items {
				api = append(api, l.id(it))
			}
			for _, m := range regexp.MustCompile(`href="/console/`+l.page+`/([^"]+)"`).FindAllStringSubmatch(pg.Body, -1) {
				shown = append(shown, m[1])
			}
			slices.Sort(api)
			slices.Sort(shown)
			if len(api) >= 25 || !slices.Equal(api, shown) {
				t.Errorf("%s %s: the console shows %v, the API lists %v", op, l.page, shown, api)
			}
		}
	}
}
