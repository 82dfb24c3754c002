package jetstream_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
)

// TestSubscriptionBuffersFewLargeCommits: what a subscription holds ahead
// of its handler is bounded in bytes, not only in commits: one pull
// request asks for at most twice max(max_payload, 8 MiB) bytes (16 MiB
// here). While the handler is held at the first of 24 commits near the
// largest size the server takes, the server has handed the consumer one
// request's worth at most; released, the subscription delivers every
// commit, in order (a request always holds the largest commit). Before,
// a request asked for 4096 commits whatever their size: all 24 came at
// once, and a log of large commits could fill 4 GiB.
func TestSubscriptionBuffersFewLargeCommits(t *testing.T) {
	const n = 24
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // bounds a hang only
	defer cancel()
	s := jetstreamtest.Open(t)
	large := strings.Repeat("x", int(s.Conn().MaxPayload())-4096)
	mostAhead := uint64(1 + 2*max(int(s.Conn().MaxPayload()), 8<<20)/len(large)) // the one held, and one request
	for i := range n {
		id := fmt.Sprintf("%011d", i)
		if _, err := s.Append(ctx, events.StreamDominio+id, events.ExpectNoStream(), events.Record{
			Event: events.CreditorEntityRegistered{IDDominio: id, RagioneSociale: large}}); err != nil {
			t.Fatalf("append commit %d: %v", i, err)
		}
	}
	got, release := make(chan events.Position, n), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Subscribe(ctx, 0, func(ctx context.Context, env events.Envelope) error {
			got <- env.Position
			if env.Position == 1 {
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return nil
		})
	}()
	<-got // the handler holds the first commit
	st, err := s.JetStream().Stream(ctx, s.StreamName())
	if err != nil {
		t.Fatal(err)
	}
	for range 20 { // the server hands out all it will within a second
		lister := st.ListConsumers(ctx)
		for info := range lister.Info() {
			if d := info.Delivered.Stream; d > mostAhead {
				t.Fatalf("with the handler held at commit 1, the server delivered up to commit %d, want at most %d", d, mostAhead)
			}
		}
		if err := lister.Err(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(release)
	for want := events.Position(2); want <= n; want++ {
		select {
		case pos := <-got:
			if pos != want {
				t.Fatalf("delivered commit %d, want %d", pos, want)
			}
		case err := <-done:
			t.Fatalf("the subscription ended at commit %d: %v", want, err)
		case <-ctx.Done():
			t.Fatalf("commit %d never delivered", want)
		}
	}
	cancel()
	<-done
}
