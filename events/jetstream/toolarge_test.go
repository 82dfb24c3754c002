package jetstream_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/events"
)

// A commit over the server's max_payload is events.ErrTooLarge (a client
// error, never "unavailable") and writes nothing.
func TestAppendTooLarge(t *testing.T) {
	s := openEmbedded(t, t.TempDir())
	ctx := context.Background()
	big := events.CreditorEntityRegistered{IDDominio: "12345678901", RagioneSociale: strings.Repeat("x", 1<<20)}
	_, err := s.Append(ctx, events.StreamDominio+"12345678901", events.ExpectNoStream(), events.Record{Event: big})
	if !errors.Is(err, events.ErrTooLarge) {
		t.Fatalf("Append of a 1 MiB event: %v, want ErrTooLarge", err)
	}
	if last, err := s.LastPosition(ctx); err != nil || last != 0 {
		t.Fatalf("last position after the refused commit: %d, %v", last, err)
	}
	small := events.CreditorEntityRegistered{IDDominio: "12345678901", RagioneSociale: "Ente"}
	if _, err := s.Append(ctx, events.StreamDominio+"12345678901", events.ExpectNoStream(), events.Record{Event: small}); err != nil {
		t.Fatalf("Append after it: %v", err)
	}
}
