package httpapi

import (
	"bytes"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/payauthz/payauthz/events/jetstream"
)

// TestFullStoreRefusesWritesWith503: a NATS server whose JetStream storage
// is used up (its account's max_file, a full disk) answers each append
// "insufficient resources" (JetStream's own 503, err_code 10023). That is
// the event store unavailable for a write, API.md section 2: 503 503000
// with Retry-After, not a 500; the read models and reads are untouched,
// and once space is freed the same write succeeds.
func TestFullStoreRefusesWritesWith503(t *testing.T) {
	t.Parallel() // each test runs its own service and NATS server
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: filepath.Join(t.TempDir(), "nats"), JetStreamMaxStore: 512 << 10, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(5 * time.Second) {
		t.Fatal("nats server did not start")
	}
	h := newHarness(t, onCluster([]string{ns.ClientURL()}, 1))
	h.putEntity(t, d1)

	// Another stream of the account takes what storage is left.
	js := h.store.(*jetstream.Store).JetStream()
	if _, err := js.CreateStream(t.Context(), natsjs.StreamConfig{Name: "FILLER", Subjects: []string{"filler"}}); err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 4<<10)
	for i := 0; ; i++ {
		if _, err := js.Publish(t.Context(), "filler", chunk); err != nil {
			break
		}
		if i > 1000 {
			t.Fatal("the storage limit never refused a publish")
		}
	}

	r := h.do(t, "PUT", bo+"/domini/"+d2, map[string]any{"ragioneSociale": "Ente " + d2, "abilitato": true}, asAdmin())
	r.expect(t, http.StatusServiceUnavailable, "503000")
	if fb := r.fault(t); fb.Categoria != "INTERNO" || fb.Dettaglio != "the event store is unavailable" {
		t.Fatalf("FaultBean %+v, want INTERNO, the event store is unavailable", fb)
	}
	if ra := r.Header.Get("Retry-After"); ra == "" {
		t.Fatal("a 503 without Retry-After")
	}
	h.do(t, "GET", bo+"/domini/"+d1, nil, asAdmin()).expect(t, http.StatusOK, "")

	if err := js.DeleteStream(t.Context(), "FILLER"); err != nil {
		t.Fatal(err)
	}
	h.do(t, "PUT", bo+"/domini/"+d2, map[string]any{"ragioneSociale": "Ente " + d2, "abilitato": true}, asAdmin()).
		expect(t, http.StatusCreated, "")
}
