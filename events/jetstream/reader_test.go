package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
)

// TestLocalReader: an embedded server opened with LocalReader serves its
// log on loopback to the reader user while the service keeps appending;
// the reader may read (load, read, subscribe) but not publish into the
// log nor change the stream; a wrong or absent secret is refused.
func TestLocalReader(t *testing.T) {
	ctx := context.Background()
	s, err := jetstream.Open(ctx, jetstream.Config{DataDir: filepath.Join(t.TempDir(), "d"), LocalReader: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	append1 := func(i int) {
		t.Helper()
		if _, err := s.Append(ctx, fmt.Sprintf("dominio-%d", i), events.ExpectNoStream(), events.Record{
			Event: events.CreditorEntityRegistered{IDDominio: fmt.Sprintf("%011d", i), RagioneSociale: "A"}}); err != nil {
			t.Fatal(err)
		}
	}
	append1(1)
	access, ok := s.LocalReader()
	if !ok || access.User != jetstream.ReaderUser || len(access.Password) < 40 || access.URL == "" {
		t.Fatalf("reader access: %v %v", ok, access)
	}

	r, err := jetstream.Open(ctx, jetstream.Config{URLs: []string{access.URL}, User: access.User, Password: access.Password, ReadOnly: true})
	if err != nil {
		t.Fatalf("the reader cannot connect: %v", err)
	}
	defer r.Close()
	append1(2) // the service keeps writing while the reader is connected
	if last, err := r.LastPosition(ctx); err != nil || last != 2 {
		t.Fatalf("reader's last position: %d %v", last, err)
	}
	var read []string
	if err := r.Read(ctx, 0, func(_ context.Context, e events.Envelope) error { read = append(read, e.Stream); return nil }); err != nil ||
		len(read) != 2 || read[1] != "dominio-2" {
		t.Fatalf("reader's read: %v %v", read, err)
	}
	if envs, err := r.Load(ctx, "dominio-1"); err != nil || len(envs) != 1 {
		t.Fatalf("reader's load: %v %v", envs, err)
	}

	// Denied: a publish into the log, a stream update, a purge or a
	// delete: the server answers each with a permissions violation.
	violations := make(chan error, 1)
	nc, err := nats.Connect(access.URL, nats.UserInfo(access.User, access.Password),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { violations <- err }))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, subject := range []string{r.Subject("dominio-3"), "$JS.API.STREAM.UPDATE." + s.StreamName(),
		"$JS.API.STREAM.PURGE." + s.StreamName(), "$JS.API.STREAM.DELETE." + s.StreamName(), "$JS.API.STREAM.CREATE.OTHER"} {
		if err := nc.Publish(subject, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		if err := <-violations; !errors.Is(err, nats.ErrPermissionViolation) || !strings.Contains(err.Error(), subject) {
			t.Fatalf("publish to %s: %v, want a permissions violation", subject, err)
		}
	}
	if last, _ := s.LastPosition(ctx); last != 2 {
		t.Fatalf("the log changed under the reader: last position %d", last)
	}

	// Denied: listening on the service's inboxes, where its log messages
	// and the answers to its writes arrive.
	if _, err := nc.SubscribeSync("_PAYAUTHZ_SERVICE_INBOX.>"); err != nil {
		t.Fatal(err)
	}
	if err := <-violations; !errors.Is(err, nats.ErrPermissionViolation) || !strings.Contains(err.Error(), "_PAYAUTHZ_SERVICE_INBOX") {
		t.Fatalf("subscribe to the service's inboxes: %v, want a permissions violation", err)
	}
	// The reader's own inboxes hear none of the service's traffic.
	overheard, err := nc.SubscribeSync("_INBOX.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	append1(3)
	if err := s.Read(ctx, 0, func(context.Context, events.Envelope) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if m, err := overheard.NextMsg(200 * time.Millisecond); err == nil {
		t.Fatalf("the reader overheard the service on %s", m.Subject)
	}

	// Denied: a wrong secret, no secret, the service user with the reader's secret.
	for name, opts := range map[string][]nats.Option{
		"wrong_secret":   {nats.UserInfo(access.User, access.Password+"x")},
		"no_secret":      nil,
		"service_user":   {nats.UserInfo("payauthz-service", access.Password)},
		"empty_password": {nats.UserInfo(access.User, "")},
	} {
		t.Run(name, func(t *testing.T) {
			nc, err := nats.Connect(access.URL, opts...)
			if err == nil {
				nc.Close()
				t.Fatal("connected")
			}
			if !errors.Is(err, nats.ErrAuthorization) {
				t.Fatalf("connect: %v, want an authorization violation", err)
			}
		})
	}

	// Without LocalReader the embedded server does not listen.
	plain := openEmbedded(t, filepath.Join(t.TempDir(), "p"))
	defer plain.Close()
	if _, ok := plain.LocalReader(); ok {
		t.Fatal("a plain embedded server offers reader access")
	}
}
