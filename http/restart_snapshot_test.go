package httpapi

import (
	"crypto/x509/pkix"
	"strings"
	"testing"
)

// TestNodoAfterRestartFromSnapshot restarts the service from a read-model
// snapshot and checks that the node API still tells another
// intermediary's connector (403, it is authenticated but not the
// connector of the intermediary on the path) from the right one (allowed),
// for ssl and basic connectors: the connector index and the parsed
// connector DNs must come back with the snapshot.
func TestNodoAfterRestartFromSnapshot(t *testing.T) {
	dataDir, snapDir := t.TempDir(), t.TempDir()
	subjectA := pkix.Name{CommonName: "node-a", Organization: []string{"PagoPA"}, Country: []string{"IT"}}
	subjectB := pkix.Name{CommonName: "node-b", Organization: []string{"PagoPA"}, Country: []string{"IT"}}

	w := &nodeWorld{world: newWorld(t, withDataDir(dataDir))}
	w.putIntermediary(t, "INTA", "CN=node-a, O=PagoPA, C=IT", "", true)
	w.putIntermediary(t, "INTB", "/C=IT/O=PagoPA/CN=node-b", "", true)
	w.putServedEntity(t, d1, "INTA")
	w.putServedEntity(t, d2, "INTB")
	w.putIntermediary(t, "INTC", "node-c", "node-c-secret", true)
	w.putIntermediary(t, "INTD", "node-d", "node-d-secret", true)
	const dC = "40000000099"
	w.putServedEntity(t, dC, "INTC")
	p1 := w.createPendenza(t, "appA", "n1", d1, t1, citizen1)
	pC := w.createPendenza(t, "appB", "nC", dC, t1, citizen2)
	pathA := ndSSL + "/intermediari/INTA/avvisi/" + d1 + "/" + p1.NumeroAvviso
	pathC := nd + "/intermediari/INTC/avvisi/" + dC + "/" + pC.NumeroAvviso
	check := func(t *testing.T, w *nodeWorld) {
		t.Helper()
		for _, tc := range []struct {
			name         string
			path         string
			right, other reqOpt
			avviso       string
		}{
			{"ssl", pathA, asCert(w.ca.ClientCert(t, subjectA)), asCert(w.ca.ClientCert(t, subjectB)), p1.NumeroAvviso},
			{"basic", pathC, asBasic("node-c", "node-c-secret"), asBasic("node-d", "node-d-secret"), pC.NumeroAvviso},
		} {
			r := w.do(t, "GET", tc.path, nil, tc.other)
			r.expect(t, 403, "403000")
			if d := r.fault(t).Dettaglio; !strings.Contains(d, "node connector") {
				t.Fatalf("%s: another intermediary's connector: dettaglio = %q", tc.name, d)
			}
			r = w.do(t, "GET", tc.path, nil, tc.right)
			r.expect(t, 200, "")
			var v avvisoView
			r.decode(t, &v)
			if v.NumeroAvviso != tc.avviso {
				t.Fatalf("%s: the intermediary's own connector: notice = %+v", tc.name, v)
			}
		}
	}
	check(t, w)
	at, err := w.model.WriteSnapshot(snapDir)
	if err != nil {
		t.Fatal(err)
	}
	last, err := w.store.LastPosition(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	w.stop()
	if at == 0 || at != last {
		t.Fatalf("snapshot at %d, the log ends at %d: the restart must have nothing to replay", at, last)
	}

	// The restarted read models start at the snapshot's position, with the
	// whole log in it: every connector they know came back with it (the
	// harness waits until they reach the log's end, which a replay from
	// the start would reach too).
	restarted := &nodeWorld{world: &world{harness: newHarness(t, withDataDir(dataDir), fromSnapshot(snapDir))}}
	if restarted.startedAt != at {
		t.Fatalf("the restarted replica started at position %d, not at the snapshot's %d", restarted.startedAt, at)
	}
	check(t, restarted)
}
