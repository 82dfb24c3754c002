package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/payauthz/payauthz/events"
)

// TestStoreErrorsAreUnavailable: an event store that cannot answer —
// unreachable, or closed while a request outlived the server's shutdown
// grace — is 503 503000 (with Retry-After, a reply to retry), never a 500.
// A closed JetStream store's reads once answered ErrUnavailable and now
// answer ErrClosed, as its Append and the KurrentDB store always did.
func TestStoreErrorsAreUnavailable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		err  error
	}{
		{"unavailable", fmt.Errorf("load x: %w: not connected to NATS", events.ErrUnavailable)},
		{"closed", fmt.Errorf("read the log: %w", events.ErrClosed)},
		{"deadline", context.DeadlineExceeded},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if status, fb := fault(c.err); status != http.StatusServiceUnavailable || fb.Codice != "503000" {
				t.Fatalf("fault(%v) = %d %+v, want 503 503000", c.err, status, fb)
			}
		})
	}
}
