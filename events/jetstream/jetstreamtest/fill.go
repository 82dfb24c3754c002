// Package jetstreamtest helps benchmarks and tests fill a JetStream log
// fast.
package jetstreamtest

import (
	"context"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
)

// Event is the i-th pendenza of a filled log: 1,000 applications, 100
// entities.
func Event(i int) events.Event {
	return events.PendenzaCreated{IDA2A: fmt.Sprintf("app%05d", i%1000), IDPendenza: fmt.Sprintf("P%07d", i),
		IDDominio: fmt.Sprintf("%011d", i%100), IDTipoPendenza: "TARI", Causale: "Tassa rifiuti", AmountCents: 12345,
		Payer:        events.Subject{Tipo: "F", Identificativo: fmt.Sprintf("RSSMRA80A01H%04d", i%10000), Anagrafica: "Mario Rossi"},
		NumeroAvviso: fmt.Sprintf("%018d", i), UUID: fmt.Sprintf("%032x", i)}
}

// Fill appends n single-event commits quickly (async publishes, no
// expected version) for read benchmarks.
func Fill(ctx context.Context, s *jetstream.Store, n int) error { return FillFrom(ctx, s, 0, n) }

// FillFrom is Fill of the events first to first+n-1 (to grow a log filled
// before).
func FillFrom(ctx context.Context, s *jetstream.Store, first, n int) error {
	return Publish(ctx, s, first, n, func(i int) (string, events.Event) {
		return "pendenza-fill/" + strconv.Itoa(i%1000), Event(i)
	})
}

// Publish appends the single-event commits gen(first) to gen(first+n-1),
// in that order, in the store's wire format, by async publishes with no
// expected version, 4,000 in flight at most: the fast way to write a large
// log for benchmarks and scale tests. gen returns the stream and event of
// commit i.
func Publish(ctx context.Context, s *jetstream.Store, first, n int, gen func(i int) (stream string, e events.Event)) error {
	codec := events.DefaultCodec
	var futures []js.PubAckFuture
	wait := func() error {
		for _, f := range futures {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				return err
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		futures = futures[:0]
		return nil
	}
	for i := first; i < first+n; i++ {
		stream, e := gen(i)
		data, err := codec.Encode(e)
		if err != nil {
			return err
		}
		payload := []byte(fmt.Sprintf(`[{"id":"%d","name":"%s","time":"2026-11-22T00:00:00Z","data":%s}]`, i, e.EventName(), data))
		f, err := s.JetStream().PublishMsgAsync(&nats.Msg{Subject: s.Subject(stream), Data: payload})
		if err != nil {
			return err
		}
		if futures = append(futures, f); len(futures) >= 4000 {
			if err := wait(); err != nil {
				return err
			}
		}
	}
	return wait()
}
