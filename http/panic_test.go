package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAPanicIsADecision: a handler that panics (a bug) is answered with
// the 500 FaultBean and, like every request of the APIs, counted and
// recorded in the decision log as outcome error. The server here has no
// command handler, so a write's handler dereferences nil.
func TestAPanicIsADecision(t *testing.T) {
	w := newWorld(t)
	capture := newDecisionCapture()
	srv, err := New(Config{DecisionLogger: slog.New(capture)}, w.store, w.model, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	req, _ := http.NewRequestWithContext(context.Background(), "PUT", ts.URL+bo+"/domini/"+d1,
		strings.NewReader(`{"ragioneSociale":"Ente","abilitato":true}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-ID", "panics")
	req.SetBasicAuth(adminUser, adminPass)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(body), `"codice":"500000"`) {
		t.Fatalf("a panicking handler: %d %s", resp.StatusCode, body)
	}
	flushDecisions(t, srv)
	d, ok := capture.get("panics")
	if !ok {
		t.Fatal("the panic left no decision")
	}
	if d["outcome"] != "error" || d["status"] != "500" || d["principal"] != adminUser {
		t.Fatalf("decision of the panic: %v", d)
	}
	if n := testutilCounter(srv.metrics.requests.WithLabelValues("BACKOFFICE", "PUT", "500")); n != 1 {
		t.Fatalf("requests{BACKOFFICE,PUT,500} = %v, want 1", n)
	}
}
