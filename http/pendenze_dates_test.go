package httpapi

import (
	"encoding/json"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/payauthz/payauthz/domain"
)

// pendenzaEventTimes reads the event log as the administrator and returns
// the recorded time of each event of the pendenza idA2A/idPendenza, by
// event type, oldest first.
func pendenzaEventTimes(t *testing.T, w *world, idA2A, idPendenza string) map[string][]time.Time {
	t.Helper()
	var page struct {
		Risultati []struct {
			Tipo string          `json:"tipo"`
			Data time.Time       `json:"data"`
			Dati json.RawMessage `json:"dati"`
		} `json:"risultati"`
	}
	w.must(t, "GET", bo+"/eventi?limite=1000", nil).decode(t, &page)
	out := map[string][]time.Time{}
	for _, e := range page.Risultati {
		var d struct{ IDA2A, IDPendenza string }
		if json.Unmarshal(e.Dati, &d) == nil && d.IDA2A == idA2A && d.IDPendenza == idPendenza {
			out[e.Tipo] = append(out[e.Tipo], e.Data)
		}
	}
	return out
}

// TestPendenzaDataCaricamento: a pendenza answers GovPay's dataCaricamento
// (a date, required by the Pendenze and Pagamento APIs' PendenzaBase) on
// every API, item of a list and read alike: the date (in Rome) of the event
// that created it, as the log recorded it; an update keeps it. A replica
// restarted from a snapshot answers the same date.
func TestPendenzaDataCaricamento(t *testing.T) {
	t.Parallel() // each test runs its own service
	dataDir, snapDir := t.TempDir(), t.TempDir()
	w := newWorld(t, withDataDir(dataDir))
	created := w.must(t, "PUT", pe+"/pendenze/appA/dc1", pendenzaBodyFor(d1, t1, citizen1), as("appA"))
	updated := w.must(t, "PUT", pe+"/pendenze/appA/dc1", withField(pendenzaBodyFor(d1, t1, citizen1), "causale", "cambiata"), as("appA"))
	times := pendenzaEventTimes(t, w, "appA", "dc1")
	if len(times["PendenzaCreated"]) != 1 || len(times["PendenzaUpdated"]) != 1 {
		t.Fatalf("events of appA/dc1: %v", times)
	}
	want := times["PendenzaCreated"][0].In(domain.Rome).Format(time.DateOnly)

	dataCaricamento := func(t *testing.T, what string, body []byte) {
		t.Helper()
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if v["dataCaricamento"] != want {
			t.Fatalf("%s: dataCaricamento = %#v, want %q (the creating event's date)", what, v["dataCaricamento"], want)
		}
	}
	dataCaricamento(t, "PUT that created", created.Body)
	dataCaricamento(t, "PUT that updated", updated.Body)
	check := func(t *testing.T, w *world) {
		t.Helper()
		for _, r := range []struct{ path, user string }{
			{pe + "/pendenze/appA/dc1", "appA"}, {pg + "/pendenze/appA/dc1", "appA"}, {bo + "/pendenze/appA/dc1", "opD1"},
		} {
			dataCaricamento(t, "GET "+r.path, w.must(t, "GET", r.path, nil, as(r.user)).Body)
		}
		for _, r := range []struct{ path, user string }{
			{pe + "/pendenze", "appA"}, {pg + "/pendenze", "appA"}, {bo + "/pendenze", "opD1"},
		} {
			var page Page[json.RawMessage]
			w.must(t, "GET", r.path, nil, as(r.user)).decode(t, &page)
			if len(page.Risultati) != 1 {
				t.Fatalf("GET %s: %d pendenze, want 1", r.path, len(page.Risultati))
			}
			dataCaricamento(t, "GET "+r.path+" item", page.Risultati[0])
		}
	}
	check(t, w)

	if _, err := w.model.WriteSnapshot(snapDir); err != nil {
		t.Fatal(err)
	}
	w.stop()
	check(t, &world{harness: newHarness(t, withDataDir(dataDir), fromSnapshot(snapDir))})
}

// TestPendenzeListDateWindow: GovPay's dataDa and dataA narrow the
// Backoffice's and the Pendenze API's lists of pendenze to those created
// (as the log recorded it) in the window, both bounds kept: a date-time
// (RFC 3339, or without a zone: Rome's clock) is that instant, a date is
// its midnight in Rome for dataDa and its whole day there for dataA. An update does not
// move a pendenza in time. A value that is neither is 400 SINTASSI. The
// Pagamento API's list takes neither (GovPay's has no such filter) and
// ignores them.
func TestPendenzeListDateWindow(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	for _, id := range []string{"w1", "w2", "w3"} {
		w.createPendenza(t, "appA", id, d1, t1, citizen1)
	}
	w.createPendenza(t, "appA", "w1", d1, t1, citizen2) // an update, after w3's creation
	created := map[string]time.Time{}
	for _, id := range []string{"w1", "w2", "w3"} {
		times := pendenzaEventTimes(t, w, "appA", id)
		if len(times["PendenzaCreated"]) != 1 {
			t.Fatalf("events of appA/%s: %v", id, times)
		}
		created[id] = times["PendenzaCreated"][0].In(domain.Rome)
	}
	if !created["w1"].Before(created["w2"]) || !created["w2"].Before(created["w3"]) {
		t.Fatalf("creation times out of order: %v", created)
	}
	instant := func(id string) string { return url.QueryEscape(created[id].Format(time.RFC3339Nano)) }
	noZone := func(id string) string { return url.QueryEscape(created[id].Format("2006-01-02T15:04:05.999999999")) }
	date := func(id string, days int) string { return created[id].AddDate(0, 0, days).Format(time.DateOnly) }
	for _, l := range []struct {
		path string
		as   reqOpt
	}{{bo + "/pendenze", as("opD1")}, {pe + "/pendenze", as("appA")}} {
		for _, tc := range []struct {
			name, query string
			want        []string
		}{
			{"none", "", []string{"w1", "w2", "w3"}},
			{"from_an_instant", "dataDa=" + instant("w2"), []string{"w2", "w3"}},
			{"until_an_instant", "dataA=" + instant("w2"), []string{"w1", "w2"}},
			{"one_instant", "dataDa=" + instant("w2") + "&dataA=" + instant("w2"), []string{"w2"}},
			{"from_an_instant_without_zone", "dataDa=" + noZone("w2"), []string{"w2", "w3"}},
			{"until_an_instant_without_zone", "dataA=" + noZone("w1"), []string{"w1"}},
			{"dates_around", "dataDa=" + date("w1", 0) + "&dataA=" + date("w3", 0), []string{"w1", "w2", "w3"}},
			{"until_the_day_before", "dataA=" + date("w1", -1), nil},
			{"from_the_day_after", "dataDa=" + date("w3", 1), nil},
			{"window_upside_down", "dataDa=" + instant("w3") + "&dataA=" + instant("w1"), nil},
		} {
			t.Run(l.path+"/"+tc.name, func(t *testing.T) {
				if got := w.listed(t, l.path+"?"+tc.query, "idPendenza", l.as); !slices.Equal(got, tc.want) {
					t.Fatalf("GET %s?%s: %v, want %v", l.path, tc.query, got, tc.want)
				}
			})
		}
		for _, bad := range []string{"dataDa=ieri", "dataA=2026-13-01", "dataDa=2026-11-27T25:00:00Z", "dataA=2026-11-27T10:00", "dataDa=27/11/2026"} {
			t.Run(l.path+"/"+bad, func(t *testing.T) {
				w.do(t, "GET", l.path+"?"+bad, nil, l.as).expect(t, 400, "SINTASSI")
			})
		}
	}
	// The Pagamento API's list has no such filter: ignored, bad or not.
	for _, q := range []string{"dataDa=ieri", "dataA=" + date("w1", -1)} {
		if got := w.listed(t, pg+"/pendenze?"+q, "idPendenza", as("appA")); !slices.Equal(got, []string{"w1", "w2", "w3"}) {
			t.Fatalf("GET %s/pendenze?%s: %v, want every pendenza", pg, q, got)
		}
	}
}
