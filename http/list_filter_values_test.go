package httpapi

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
)

// windowList is a list that takes GovPay's dataDa and dataA, and a caller
// that reads it.
type windowList struct {
	path   string
	caller reqOpt
}

// windowLists are every list of every API that takes a window (API.md
// section 10): the Pagamento API's lists take none.
var windowLists = []windowList{
	{bo + "/pendenze", asAdmin()}, {bo + "/pagamenti", asAdmin()}, {bo + "/riscossioni", asAdmin()},
	{bo + "/flussiRendicontazione", asAdmin()}, {bo + "/ricevute", asAdmin()}, {bo + "/riconciliazioni", asAdmin()},
	{bo + "/incassi", asAdmin()}, {pe + "/pendenze", as("appA")},
	{rg + "/riscossioni", as("appA")}, {rg + "/flussiRendicontazione", as("appA")}, {rg + "/ricevute", as("appA")},
	{rg + "/riconciliazioni", as("appC")}, // reconciliations by creator
}

// newWindowWorld is a world with a record in each of windowLists, all
// written today (a collection's instant, its dataPagamento, is the
// receipts' own: 2026-01-02T10:00:00Z and 2026-02-10).
func newWindowWorld(t *testing.T) *nodeWorld {
	t.Helper()
	w := newNodeWorld(t)
	w.recordMoney(t)
	w.createPendenza(t, "appA", "win-pay", d1, t1, citizen1)
	w.payOwn(t, "appA", "win-pay")
	w.must(t, "POST", bo+"/incassi/"+d1, map[string]any{"causale": "c", "importo": 10}, asAdmin())
	return w
}

// counted is numRisultati of the list path?query as caller.
func counted(t *testing.T, h *harness, path, query string, caller reqOpt) int {
	t.Helper()
	var page struct {
		NumRisultati int `json:"numRisultati"`
	}
	h.must(t, "GET", path+"?"+query, nil, caller).decode(t, &page)
	return page.NumRisultati
}

// TestListWindowsReadOddBounds: every list's dataDa and dataA read a
// bound alike. A value that is no RFC 3339 date-time or date (a day or
// month that does not exist, 29 February of a common year, a fifth digit
// of year, 24:00:00, blanks or a newline around it, a time without
// seconds) is 400 SINTASSI naming the parameter, as is a bound given
// twice, even twice the same: the second was silently ignored (200),
// whatever it held. A year 0000 or 9999, 29 February of a leap year, a
// date-time with or without a zone or with a fraction are read; an empty
// value is no bound; a window whose dataDa is after its dataA keeps
// nothing.
func TestListWindowsReadOddBounds(t *testing.T) {
	t.Parallel()
	w := newWindowWorld(t)
	bad := []struct{ param, query string }{
		{"dataDa", "dataDa=2026-02-30"}, {"dataA", "dataA=2026-13-01"}, {"dataDa", "dataDa=2025-02-29"},
		{"dataA", "dataA=10000-01-01"}, {"dataDa", "dataDa=-0001-01-01"}, {"dataDa", "dataDa=2026-01-01T24:00:00"},
		{"dataA", "dataA=2026-01-01T10:00"}, {"dataDa", "dataDa=%202026-01-01"}, {"dataA", "dataA=2026-01-01%0A"},
		{"dataDa", "dataDa=2026-01-01+10:00:00"}, {"dataA", "dataA=garbage"},
		{"dataDa", "dataDa=2026-01-01&dataDa=garbage"}, {"dataA", "dataA=2026-01-31&dataA=2026-01-31"},
		{"dataDa", "dataA=2026-01-31&dataDa=2000-01-01&dataDa=2099-01-01"},
	}
	read := []string{"dataDa=0000-01-01", "dataA=9999-12-31", "dataA=9999-12-31T23:59:59.999999999Z",
		"dataDa=2024-02-29", "dataDa=2026-01-01T10:00:00", "dataDa=2026-01-01T10:00:00Z", "dataDa=2026-01-01T10:00:00%2B01:00",
		"dataDa=2026-01-01T10:00:00.123456789Z", "dataDa=&dataA=", "dataDa=&dataDa=2000-01-01"}
	for _, l := range windowLists {
		for _, b := range bad {
			t.Run(l.path+"?"+b.query, func(t *testing.T) {
				res := w.do(t, "GET", l.path+"?"+b.query, nil, l.caller)
				res.expect(t, 400, "SINTASSI")
				if d := res.fault(t).Dettaglio; !strings.HasPrefix(d, b.param+" ") {
					t.Fatalf("dettaglio %q does not name %s", d, b.param)
				}
			})
		}
		all := counted(t, w.harness, l.path, "", l.caller)
		if all == 0 {
			t.Fatalf("%s lists nothing", l.path)
		}
		for _, q := range read {
			t.Run(l.path+"?"+q, func(t *testing.T) { counted(t, w.harness, l.path, q, l.caller) })
		}
		t.Run(l.path+"/upside_down", func(t *testing.T) {
			if n := counted(t, w.harness, l.path, "dataDa=2099-01-01&dataA=2000-01-01", l.caller); n != 0 {
				t.Fatalf("an upside-down window lists %d", n)
			}
		})
		t.Run(l.path+"/the_widest_window", func(t *testing.T) {
			if n := counted(t, w.harness, l.path, "dataDa=0000-01-01&dataA=9999-12-31", l.caller); n != all {
				t.Fatalf("the window 0000-01-01 to 9999-12-31 lists %d of %d", n, all)
			}
		})
	}
}

// TestListWindowsKeepWholeDays: on every list a date is a whole day in
// Europe/Rome: as dataDa from its first instant, as dataA until its last,
// so that dataDa=D&dataA=D keeps what day D holds; a date-time is that
// instant alone. The lists of records written today are asked about
// today, the collections about their payment dates.
func TestListWindowsKeepWholeDays(t *testing.T) {
	t.Parallel()
	before := domain.DateOf(time.Now())
	w := newWindowWorld(t)
	today := domain.DateOf(time.Now())
	if today != before {
		t.Skip("the records were written across midnight in Europe/Rome")
	}
	day, _ := time.ParseInLocation(time.DateOnly, today, domain.Rome)
	yesterday, tomorrow := day.AddDate(0, 0, -1).Format(time.DateOnly), day.AddDate(0, 0, 1).Format(time.DateOnly)
	for _, l := range windowLists {
		if strings.HasSuffix(l.path, "/riscossioni") {
			continue
		}
		all := counted(t, w.harness, l.path, "", l.caller)
		for _, c := range []struct {
			name, query string
			want        int
		}{
			{"today", "dataDa=" + today + "&dataA=" + today, all},
			{"until_today", "dataA=" + today, all},
			{"from_today", "dataDa=" + today, all},
			{"until_yesterday", "dataA=" + yesterday, 0},
			{"from_tomorrow", "dataDa=" + tomorrow, 0},
			{"until_todays_first_instant", "dataA=" + today + "T00:00:00", 0},
			{"until_todays_last_second", "dataA=" + today + "T23:59:59.999999999", all},
		} {
			t.Run(l.path+"/"+c.name, func(t *testing.T) {
				if n := counted(t, w.harness, l.path, c.query, l.caller); n != c.want {
					t.Fatalf("%s?%s lists %d, want %d", l.path, c.query, n, c.want)
				}
			})
		}
	}
	// RIC-A was paid at 2026-01-02T10:00:00Z, RIC-B on 2026-02-10 (its
	// midnight in Europe/Rome); opD1's and appA's scope is d1 alone.
	for _, path := range []string{bo + "/riscossioni", rg + "/riscossioni"} {
		caller := as("appA")
		if strings.HasPrefix(path, bo) {
			caller = as("opD1")
		}
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"dataDa=2026-01-02&dataA=2026-01-02", []string{"RIC-A"}},
			{"dataDa=2026-02-10&dataA=2026-02-10", []string{"RIC-B"}},
			{"dataA=2026-02-09", []string{"RIC-A"}},
			{"dataA=2026-01-02T10:00:00Z", []string{"RIC-A"}},
			{"dataA=2026-01-02T09:59:59Z", nil},
		} {
			t.Run(path+"?"+c.query, func(t *testing.T) {
				got := w.listed(t, path+"?"+c.query, "iur", caller)
				if strings.Join(got, ",") != strings.Join(c.want, ",") {
					t.Fatalf("%s?%s lists %v, want %v", path, c.query, got, c.want)
				}
			})
		}
	}
}

// TestListFilterGivenTwice: a filter that takes one value, given twice
// (even twice the same), is 400 SINTASSI naming it on every list, after
// the list's gate: its second value was silently ignored, whatever it
// held. An empty value is no filter, and a repeatable filter (tipo,
// idTipoPendenza) still keeps what any of its values keeps.
func TestListFilterGivenTwice(t *testing.T) {
	t.Parallel()
	w := newWindowWorld(t)
	lists := append(slices.Clone(windowLists), windowList{pg + "/pendenze", as("appA")})
	for _, l := range lists {
		for _, q := range []struct{ param, query string }{
			{"idDominio", "idDominio=" + d1 + "&idDominio=abc"},
			{"idDominio", "idDominio=" + d1 + "&idDominio=" + d1},
		} {
			t.Run(l.path+"?"+q.query, func(t *testing.T) {
				res := w.do(t, "GET", l.path+"?"+q.query, nil, l.caller)
				res.expect(t, 400, "SINTASSI")
				if d := res.fault(t).Dettaglio; !strings.HasPrefix(d, q.param+" ") {
					t.Fatalf("dettaglio %q does not name %s", d, q.param)
				}
			})
		}
	}
	for _, c := range []struct {
		path, query string
		caller      reqOpt
		status      int
	}{
		{bo + "/pendenze", "stato=ESEGUITA&stato=ESEGUITA", asAdmin(), 400},
		{bo + "/riscossioni", "iur=RIC-A&iur=RIC-B", asAdmin(), 400},
		{rg + "/riconciliazioni", "sct=S1&sct=S2", as("appC"), 400},
		{bo + "/domini", "abilitato=true&abilitato=false", asAdmin(), 400},
		{bo + "/riscossioni", "idDominio=" + d1 + "&idDominio=abc", as("opNoRole"), 403},
		{bo + "/riscossioni", "dataDa=x&dataDa=y", as("opNoRole"), 403},
		{bo + "/pendenze", "idDominio=&idDominio=" + d1 + "&stato=&stato=ESEGUITA", asAdmin(), 200},
		{bo + "/riscossioni", "tipo=MBT&tipo=ENTRATA", asAdmin(), 200},
		{bo + "/pendenze", "idTipoPendenza=" + t1 + "&idTipoPendenza=" + tSpont, asAdmin(), 200},
	} {
		t.Run(c.path+"?"+c.query, func(t *testing.T) {
			w.do(t, "GET", c.path+"?"+c.query, nil, c.caller).expect(t, c.status, map[int]string{400: "SINTASSI", 403: "403000", 200: ""}[c.status])
		})
	}
}

// TestListFilterWordsOneEachKind: each kind of filter words its 400 the
// same on every list, naming the parameter: an id, idDominio included,
// "<param> must match <the pattern the document gives>"; a value of a
// list of them (stato, abilitato, escludiObsoleti) "<param> must be one of
// <the values>"; a window's bound one sentence. idDominio said "invalid
// idDominio: must be 11 digits" on the lists of pendenze and by entity,
// "idDominio must match ^[0-9]{11}$" on the Backoffice's payments;
// abilitato "must be true or false", escludiObsoleti "must be one of true,
// false"; the Pagamento API's stato of payments "must be one of GovPay's
// StatoPagamento: ...", every other stato "must be one of ...".
func TestListFilterWordsOneEachKind(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	detail := func(t *testing.T, path string, caller reqOpt) string {
		t.Helper()
		res := w.do(t, "GET", path, nil, caller)
		res.expect(t, 400, "SINTASSI")
		return res.fault(t).Dettaglio
	}
	lists := append(slices.Clone(windowLists), windowList{pg + "/pendenze", as("appA")})
	for _, l := range lists {
		t.Run(l.path+"/idDominio", func(t *testing.T) {
			if d, want := detail(t, l.path+"?idDominio=abc", l.caller), "idDominio must match "+commands.PatternDominio; d != want {
				t.Fatalf("dettaglio %q, want %q", d, want)
			}
		})
		if l.path == pg+"/pendenze" {
			continue
		}
		t.Run(l.path+"/window", func(t *testing.T) {
			for _, p := range []string{"dataDa", "dataA"} {
				if d, want := detail(t, l.path+"?"+p+"=x", l.caller), p+" must be a date-time (RFC 3339; without a zone, Europe/Rome) or a date"; d != want {
					t.Fatalf("dettaglio %q, want %q", d, want)
				}
			}
		})
	}
	for _, c := range []struct {
		path   string
		caller reqOpt
		want   string
	}{
		{bo + "/riscossioni?iuv=a%20b", asAdmin(), "iuv must match " + commands.PatternID},
		{bo + "/pagamenti?stato=X", asAdmin(), "stato must be one of " + strings.Join(statiPagamento, ", ")},
		{pg + "/pagamenti?stato=X", as("appA"), "stato must be one of " + strings.Join(statiPagamento, ", ")},
		{pe + "/pendenze?stato=X", as("appA"), "stato must be one of " + strings.Join(statiPendenza, ", ")},
		{bo + "/domini?abilitato=si", asAdmin(), "abilitato must be one of true, false"},
		{bo + "/operatori?abilitato=si", asAdmin(), "abilitato must be one of true, false"},
		{rg + "/flussiRendicontazione?escludiObsoleti=si", as("appA"), "escludiObsoleti must be one of true, false"},
	} {
		t.Run(c.path, func(t *testing.T) {
			if d := detail(t, c.path, c.caller); d != c.want {
				t.Fatalf("dettaglio %q, want %q", d, c.want)
			}
		})
	}
}

// TestOpenAPIWindowsOneMeaning: every list's dataDa and dataA are
// documented alike: the same schema and, after the instant each list
// bounds, the same words for what a bound may be and what a date means.
// The lists of money records said date-time (a date, which they read,
// refused) and a date "the whole day" for dataDa too; the lists of
// pendenze said no format, and a date "its midnight" for dataDa.
func TestOpenAPIWindowsOneMeaning(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	openAPIValidator(t, w.harness)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []map[string]any `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(contract.doc, &doc); err != nil {
		t.Fatal(err)
	}
	type bound struct{ schema, words, where string }
	seen := map[string][]bound{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			for _, p := range op.Parameters {
				name, _ := p["name"].(string)
				if p["in"] != "query" || (name != "dataDa" && name != "dataA") {
					continue
				}
				sch, _ := p["schema"].(map[string]any)
				desc, _ := sch["description"].(string)
				if d, ok := p["description"].(string); ok {
					desc = d
				}
				schema, _ := json.Marshal(maps.Collect(func(yield func(string, any) bool) {
					for k, v := range sch {
						if k != "description" && !yield(k, v) {
							return
						}
					}
				}))
				_, words, ok := strings.Cut(desc, "(GovPay's filter): ")
				if !ok {
					t.Errorf("%s %s %s: description %q names no instant", method, path, name, desc)
				}
				seen[name] = append(seen[name], bound{string(schema), words, method + " " + path})
			}
		}
	}
	if len(seen["dataDa"]) < len(windowLists) || len(seen["dataA"]) != len(seen["dataDa"]) {
		t.Fatalf("documented windows: %d dataDa, %d dataA; want at least %d", len(seen["dataDa"]), len(seen["dataA"]), len(windowLists))
	}
	for name, bounds := range seen {
		for _, b := range bounds[1:] {
			if b.schema != bounds[0].schema || b.words != bounds[0].words {
				t.Errorf("%s of %s is %s %q, of %s %s %q", name, b.where, b.schema, b.words, bounds[0].where, bounds[0].schema, bounds[0].words)
			}
		}
	}
	if da, a := seen["dataDa"][0].words, seen["dataA"][0].words; !strings.Contains(da, "first instant") || !strings.Contains(a, "last instant") {
		t.Errorf("a date is not said to be a whole day: dataDa %q, dataA %q", da, a)
	}
}
