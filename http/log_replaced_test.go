package httpapi

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections"
)

// TestReplacedLogStopsTheReplica: the log's stream deleted under a running
// replica and created anew (an operator's mistake, an external NATS server
// that lost its storage, then another replica starting on it) is another
// log: its positions name other commits. The replica's read models, which
// hold the old log up to a position the new one has not reached, must not
// go on as if they followed it: a write there answered the new log's token
// as already applied (404 for the entity it just registered, /readyz 200),
// and every token of the new log below the old position was honoured at
// once. They stop instead (projections.ErrStopped, the replica answers 503
// and the process exits, to replay the new log on its next start).
func TestReplacedLogStopsTheReplica(t *testing.T) {
	t.Parallel() // each test runs its own service and NATS server
	c := jetstreamtest.NewCluster(t, 1)
	a := newHarness(t, onCluster(c.URLs(), 1))
	a.putEntity(t, d1)
	a.putEntity(t, d2)
	store := a.store.(*jetstream.Store)
	if err := store.JetStream().DeleteStream(t.Context(), store.StreamName()); err != nil {
		t.Fatal(err)
	}
	newHarness(t, onCluster(c.URLs(), 1)) // creates the stream again and bootstraps it
	eventually(t, "the replica on the replaced log stops", func() bool { return a.model.Stopped() != nil })
	if err := a.model.Stopped(); !errors.Is(err, projections.ErrStopped) || !strings.Contains(err.Error(), "another or a reset log") {
		t.Fatalf("stopped with %v, want the log named another", err)
	}
	a.do(t, "PUT", bo+"/domini/"+dNone, map[string]any{"ragioneSociale": "Ente", "abilitato": true}, asAdmin()).
		expect(t, http.StatusServiceUnavailable, "503000")
	if r := a.do(t, "GET", "/readyz", nil); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("/readyz %d, want 503: %s", r.Status, r.Body)
	}
}
