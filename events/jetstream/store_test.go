package jetstream_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/eventstoretest"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
)

// embedded opens stores over embedded servers in temp dirs.
var embedded = eventstoretest.HarnessFunc(func(t *testing.T) func(*testing.T) events.Store {
	dir := t.TempDir()
	return func(t *testing.T) events.Store { return openEmbedded(t, dir) }
})

func openEmbedded(t *testing.T, dir string) *jetstream.Store {
	t.Helper()
	s, err := jetstream.Open(context.Background(), jetstream.Config{DataDir: dir})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	eventstoretest.Run(t, embedded, eventstoretest.Capabilities{DedupeByID: true, DensePositions: true})
}

func TestGarbageMessageIsADecodeErrorNotAPanic(t *testing.T) {
	s := openEmbedded(t, filepath.Join(t.TempDir(), "d"))
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Append(ctx, "dominio-1", events.ExpectNoStream(), events.Record{
		Event: events.CreditorEntityRegistered{IDDominio: "00000000001", RagioneSociale: "A"}}); err != nil {
		t.Fatal(err)
	}
	for _, payload := range []string{`not json`, `[]`, `[{"id":"x","name":"NoSuchEvent","data":{}}]`,
		`[{"id":"x","name":"CreditorEntityRegistered","data":{"abilitato":"yes"}}]`} {
		if _, err := s.JetStream().PublishMsg(ctx, &nats.Msg{Subject: s.Subject("garbage"), Data: []byte(payload)}); err != nil {
			t.Fatal(err)
		}
		_, err := s.Load(ctx, "garbage")
		if !errors.Is(err, events.ErrDecode) && !errors.Is(err, events.ErrUnknownEvent) {
			t.Fatalf("payload %q: load = %v, want a decode error", payload, err)
		}
	}
	err := s.Read(ctx, 0, func(context.Context, events.Envelope) error { return nil })
	if !errors.Is(err, events.ErrDecode) && !errors.Is(err, events.ErrUnknownEvent) {
		t.Fatalf("read = %v, want a decode error", err)
	}
}

func FuzzSubjectEncoding(f *testing.F) {
	for _, s := range []string{"dominio-1", "a.b", "x.*", "x.>", "CN=a, O=b, C=IT", "", " ", "é",
		"\xff\xfe", "\x00", "=", "-_/+", strings.Repeat("x", 1000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stream string) {
		subj := jetstream.SubjectFor("payauthz.ev", stream)
		back, err := jetstream.StreamFor("payauthz.ev", subj)
		if err != nil || back != stream {
			t.Fatalf("%q → %q → %q, %v", stream, subj, back, err)
		}
	})
}

// TestCancelledReadIsACancellation: a Load, LastPosition or Read whose
// context is cancelled returns the cancellation, as Append and the
// KurrentDB store do, not events.ErrUnavailable: a client that went away
// is no store outage (the HTTP layer logs an outage as a failure).
func TestCancelledReadIsACancellation(t *testing.T) {
	s := jetstreamtest.Open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, call := range map[string]func() error{
		"load":          func() error { _, err := s.Load(ctx, "dominio-1"); return err },
		"last_position": func() error { _, err := s.LastPosition(ctx); return err },
		"read":          func() error { return s.Read(ctx, 0, func(context.Context, events.Envelope) error { return nil }) },
	} {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, context.Canceled) || errors.Is(err, events.ErrUnavailable) {
				t.Fatalf("with a cancelled context: %v, want context.Canceled", err)
			}
		})
	}
}

// TestClosedStoreRefusesWork: after Close every call returns
// events.ErrClosed, as the port says, not an outage of the server.
func TestClosedStoreRefusesWork(t *testing.T) {
	s := openEmbedded(t, t.TempDir())
	ctx := context.Background()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	nop := func(context.Context, events.Envelope) error { return nil }
	for name, call := range map[string]func() error{
		"append": func() error {
			_, err := s.Append(ctx, "dominio-1", events.ExpectNoStream(), events.Record{
				Event: events.CreditorEntityRegistered{IDDominio: "00000000001"}})
			return err
		},
		"load":          func() error { _, err := s.Load(ctx, "dominio-1"); return err },
		"last_position": func() error { _, err := s.LastPosition(ctx); return err },
		"read":          func() error { return s.Read(ctx, 0, nop) },
		"subscribe":     func() error { return s.Subscribe(ctx, 0, nop) },
	} {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, events.ErrClosed) {
				t.Fatalf("after Close: %v, want events.ErrClosed", err)
			}
		})
	}
}
