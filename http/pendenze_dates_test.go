package httpapi

import (
	"encoding/json"
	"testing"
	"time"
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
// every API, item of a list and read alike: the date (UTC) of the event
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
	want := times["PendenzaCreated"][0].UTC().Format(time.DateOnly)

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
