package httpapi

import (
	"strconv"
	"testing"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/eventstoretest"
)

// TestEventLogOnSparsePositions: on a store whose positions are sparse
// (KurrentDB), a position where no commit starts is the caller's input,
// not the service failing: GET /eventi?da= of one is 400 SINTASSI (the
// console's page says so next to its field), GET /eventi/{id} of one is a
// missing id (404 with every entity and type, the same 403 as any
// missing id for a scoped caller); the positions the log gave (an
// event's posizione, a page's prossimaPosizione) are read as on every
// store.
func TestEventLogOnSparsePositions(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withLogReader(func(s events.LogReader) events.LogReader { return eventstoretest.SparseLog{Store: s.(events.Store)} }))
	var page eventiPage
	w.must(t, "GET", bo+"/eventi?limite=3", nil).decode(t, &page)
	if len(page.Risultati) < 2 || page.Risultati[1].Posizione%eventstoretest.SparseStep != 0 {
		t.Fatalf("the log's first events: %+v", page.Risultati)
	}
	second := page.Risultati[1].Posizione
	hole := strconv.FormatUint(second-3, 10) // inside the log, no commit there

	t.Run("a_position_of_the_log_is_read", func(t *testing.T) {
		var from eventiPage
		w.must(t, "GET", bo+"/eventi?limite=1&da="+strconv.FormatUint(second, 10), nil).decode(t, &from)
		if len(from.Risultati) == 0 || from.Risultati[0].Posizione != second {
			t.Fatalf("da=%d answered %+v", second, from.Risultati)
		}
		var next eventiPage
		w.must(t, "GET", bo+"/eventi?limite=1&da="+strconv.FormatUint(from.ProssimaPosizione, 10), nil).decode(t, &next)
		if len(next.Risultati) == 0 || next.Risultati[0].Posizione <= second {
			t.Fatalf("da=prossimaPosizione %d answered %+v", from.ProssimaPosizione, next.Risultati)
		}
		w.must(t, "GET", bo+"/eventi/"+page.Risultati[1].ID, nil)
	})
	t.Run("list_from_no_position_is_bad_input", func(t *testing.T) {
		w.do(t, "GET", bo+"/eventi?da="+hole, nil, asAdmin()).expect(t, 400, "SINTASSI")
	})
	t.Run("event_at_no_position_is_missing", func(t *testing.T) {
		w.do(t, "GET", bo+"/eventi/"+hole, nil, asAdmin()).expect(t, 404, "404000")
		missing := w.do(t, "GET", bo+"/eventi/"+strconv.FormatUint(1<<40, 10), nil, as("opD1"))
		missing.expect(t, 403, "403000")
		at := w.do(t, "GET", bo+"/eventi/"+hole, nil, as("opD1"))
		at.expect(t, 403, "403000")
		if at.fault(t) != missing.fault(t) {
			t.Fatalf("a scoped caller tells an id at no position (%+v) from a missing one (%+v)", at.fault(t), missing.fault(t))
		}
	})
	t.Run("console_from_no_position_is_bad_input", func(t *testing.T) {
		cc := w.consoleClient(t)
		cc.login(adminUser, adminPass)
		cc.get("/console/eventi?da="+strconv.FormatUint(second, 10)).expect(t, 200, "Giornale degli eventi")
		p := cc.get("/console/eventi?da=" + hole)
		p.expect(t, 400, `id="err-da"`)
		p.lacks(t, "500000")
	})
}
