package kurrentdb_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/eventstoretest"
	"github.com/payauthz/payauthz/events/kurrentdb"
)

// The conformance suite needs a real server. It uses, in this order:
//   - PAYAUTHZ_TEST_KURRENTDB_URL, a connection string of a running server
//     (kurrentdb://localhost:2113?tls=false);
//   - PAYAUTHZ_TEST_KURRENTDB_IMAGE, an image already present in the local
//     Docker (docker.io/kurrentplatform/kurrentdb:25.1, or an
//     eventstore/eventstore image), run once for the package through
//     testcontainers-go in insecure single-node mode;
//
// and skips otherwise. Each test works under its own stream prefix, so one
// server serves every test as a fresh, empty log.
const (
	envURL   = "PAYAUTHZ_TEST_KURRENTDB_URL"
	envImage = "PAYAUTHZ_TEST_KURRENTDB_IMAGE"
)

var server = eventstoretest.Server{Name: "KurrentDB test server", Start: startServer}

func TestMain(m *testing.M) {
	code := m.Run()
	server.Stop()
	os.Exit(code)
}

// serverURL returns the connection string of the test server, or skips.
func serverURL(t *testing.T) string {
	t.Helper()
	return server.URL(t)
}

func startServer() (url, skip string, stop func(), err error) {
	if u := os.Getenv(envURL); u != "" {
		return u, "", nil, nil
	}
	image := os.Getenv(envImage)
	if image == "" {
		return "", "no KurrentDB server: set " + envURL + " to a running server's connection string, or " +
			envImage + " to a KurrentDB/EventStoreDB image present in the local Docker", nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return "", fmt.Sprintf("%s=%s but Docker is not reachable (%v); or set %s", envImage, image, err, envURL), nil, nil
	}
	_, inspectErr := cli.ImageInspect(ctx, image)
	_ = cli.Close()
	if inspectErr != nil {
		return "", fmt.Sprintf("%s=%s is not present in the local Docker (no registry is used: load it first), or set %s",
			envImage, image, envURL), nil, nil
	}
	// KurrentDB reads KURRENTDB_* settings, EventStoreDB EVENTSTORE_* ones.
	prefix := "KURRENTDB_"
	if strings.Contains(strings.ToLower(image), "eventstore") {
		prefix = "EVENTSTORE_"
	}
	ctr, err := testcontainers.Run(ctx, image,
		testcontainers.WithEnv(map[string]string{
			prefix + "INSECURE":        "true",
			prefix + "RUN_PROJECTIONS": "None",
		}),
		testcontainers.WithExposedPorts("2113/tcp"),
		testcontainers.WithWaitStrategyAndDeadline(2*time.Minute,
			wait.ForHTTP("/health/live").WithPort("2113/tcp").WithStatusCodeMatcher(func(s int) bool { return s == 204 || s == 200 })),
	)
	if err != nil {
		if ctr != nil {
			_ = testcontainers.TerminateContainer(ctr)
		}
		return "", "", nil, fmt.Errorf("run %s: %w", image, err)
	}
	stop = func() { _ = testcontainers.TerminateContainer(ctr) }
	ep, err := ctr.PortEndpoint(ctx, "2113/tcp", "")
	if err != nil {
		return "", "", stop, err
	}
	return "kurrentdb://" + ep + "?tls=false", "", stop, nil
}

func openStore(t *testing.T, url, prefix string) *kurrentdb.Store {
	t.Helper()
	s, err := kurrentdb.Open(context.Background(), kurrentdb.Config{URL: url, StreamPrefix: prefix})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

// harness opens stores on the test server at url, each log under its own
// prefix.
func harness(url string) eventstoretest.HarnessFunc {
	return func(*testing.T) func(*testing.T) events.Store {
		prefix := "payauthz-t" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12] + "-"
		return func(t *testing.T) events.Store { return openStore(t, url, prefix) }
	}
}

func TestConformance(t *testing.T) {
	eventstoretest.Run(t, harness(serverURL(t)), eventstoretest.Capabilities{DedupeByID: true})
}

// TestReadFromInsideACommit starts a read at a position inside a
// three-event commit (only a hand-made position can be there): the commit
// is delivered whole, never in part.
func TestReadFromInsideACommit(t *testing.T) {
	s := harness(serverURL(t)).Open(t).Store()
	ctx := context.Background()
	p1, err := s.Append(ctx, "dominio-1", events.ExpectNoStream(), events.Record{Event: entity(1)})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s.Append(ctx, "dominio-2", events.ExpectNoStream(),
		events.Record{Event: entity(2)}, events.Record{Event: entity(3)}, events.Record{Event: entity(4)})
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []events.Position{p1, p1 + 1, p2 - 1} {
		var got []events.Envelope
		if err := s.Read(ctx, from, func(_ context.Context, env events.Envelope) error { got = append(got, env); return nil }); err != nil {
			t.Fatalf("read from %d: %v", from, err)
		}
		if len(got) != 3 || got[0].Index != 0 || got[2].Index != 2 || got[0].Position != p2 {
			t.Fatalf("read from %d (commits at %d and %d) = %+v", from, p1, p2, got)
		}
	}
}

func entity(i int) events.Event {
	return events.CreditorEntityRegistered{IDDominio: fmt.Sprintf("%011d", i), RagioneSociale: fmt.Sprintf("Ente %d", i), Enabled: true}
}
