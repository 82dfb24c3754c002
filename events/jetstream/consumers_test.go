package jetstream_test

import (
	"context"
	"testing"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
)

// TestReadsLeaveNoConsumers: every read of the log deletes its ordered
// consumer when it ends. Left to the inactivity threshold, reads in quick
// succession (audit tools, proofs, GET /eventi) piled up consumers until
// the server refused every new one ("maximum consumers limit reached"),
// the service's own subscription included.
func TestReadsLeaveNoConsumers(t *testing.T) {
	ctx := context.Background()
	s := jetstreamtest.Open(t)
	if err := jetstreamtest.FillFrom(ctx, s, 0, 50); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		n := 0
		read := s.Read
		if i%2 == 1 {
			read = s.ReadRaw
		}
		if err := read(ctx, 0, func(context.Context, events.Envelope) error { n++; return nil }); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if n != 50 {
			t.Fatalf("read %d saw %d events, want 50", i, n)
		}
	}
	st, err := s.JetStream().Stream(ctx, s.StreamName())
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Consumers != 0 {
		t.Fatalf("%d consumers left after the reads ended, want 0", info.State.Consumers)
	}
}
