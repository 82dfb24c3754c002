package httpapi

import (
	"encoding/json"
	"strconv"
	"testing"
)

// TestPageOfNoResults: risultatiPerPagina=0 asks how many results a list
// holds without any of them, as GovPay's lists take it (its
// RisultatiPerPagina from 0): numRisultati counts them, risultati is
// empty, numPagine is 0 (no page holds a result) and there is no next
// page. Below 0 is 400.
func TestPageOfNoResults(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "c1", d1, t1, citizen1)
	w.createPendenza(t, "appA", "c2", d1, t1, citizen1)
	for _, l := range []struct {
		path string
		as   reqOpt
		n    int
	}{{bo + "/domini", asAdmin(), 2}, {pe + "/pendenze", as("appA"), 2}, {pg + "/pendenze", as("appA"), 2}, {bo + "/pendenze", as("opD1"), 2}} {
		var page map[string]json.RawMessage
		w.must(t, "GET", l.path+"?risultatiPerPagina=0", nil, l.as).decode(t, &page)
		want := map[string]string{"numRisultati": strconv.Itoa(l.n), "numPagine": "0", "risultatiPerPagina": "0", "pagina": "1", "risultati": "[]"}
		if len(page) != len(want) {
			t.Fatalf("GET %s?risultatiPerPagina=0: %d members, want %d (no prossimiRisultati)", l.path, len(page), len(want))
		}
		for k, v := range want {
			if string(page[k]) != v {
				t.Fatalf("GET %s?risultatiPerPagina=0: %s = %s, want %s", l.path, k, page[k], v)
			}
		}
		w.do(t, "GET", l.path+"?risultatiPerPagina=-1", nil, l.as).expect(t, 400, "SINTASSI")
	}
}

// TestEmptyListHasOnePage: a list with no results has one page, as
// GovPay's lists count them (numPagine 1 when numRisultati is 0): the
// first page, empty, is a page of the list; a later one is empty too and
// has no next page.
func TestEmptyListHasOnePage(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	for _, q := range []string{"", "?pagina=1&risultatiPerPagina=5", "?pagina=3"} {
		var page map[string]json.RawMessage
		r := w.must(t, "GET", pe+"/pendenze"+q, nil, as("appA"))
		r.decode(t, &page)
		if string(page["numRisultati"]) != "0" || string(page["numPagine"]) != "1" || string(page["risultati"]) != "[]" ||
			page["prossimiRisultati"] != nil {
			t.Fatalf("GET %s/pendenze%s: %s, want numRisultati 0, numPagine 1, no risultati, no next page", pe, q, r.Body)
		}
	}
}
