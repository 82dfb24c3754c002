package jetstream_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/eventstoretest"
	"github.com/payauthz/payauthz/events/jetstream"
)

// The container tests run the store against nats-server in a container
// of the locally built image payauthz-nats:local (FROM scratch + a static
// nats-server built from the Go module proxy: no registry is used). When
// the image is missing, the helper builds it as scripts/build-images.sh
// does. Where no Docker engine answers, they skip with a message;
// everything else runs on the embedded and in-process servers. Ryuk is
// not used (TESTCONTAINERS_RYUK_DISABLED=true): the container is
// terminated when the package's tests end.

const natsImage = "payauthz-nats:local"

var natsCtr = eventstoretest.Server{Name: "NATS container", Start: startNATSContainer}

func TestMain(m *testing.M) {
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	code := m.Run()
	natsCtr.Stop()
	os.Exit(code)
}

// containerURL returns the client URL of the NATS container, or skips.
func containerURL(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("container tests skipped in -short")
	}
	url := natsCtr.URL(t)
	t.Logf("NATS container at %s", url)
	return url
}

func startNATSContainer() (url, skip string, stop func(), err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return "", fmt.Sprintf("no Docker engine (%v): container tests skipped; the embedded-server tests still run", err), nil, nil
	}
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		_ = cli.Close()
		return "", fmt.Sprintf("no Docker engine answers (%v): container tests skipped; the embedded-server tests still run", err), nil, nil
	}
	_, inspectErr := cli.ImageInspect(ctx, natsImage)
	_ = cli.Close()
	if inspectErr != nil {
		if err := buildNATSImage(ctx); err != nil {
			return "", "", nil, fmt.Errorf("build %s: %w", natsImage, err)
		}
	}
	ctr, err := testcontainers.Run(ctx, natsImage,
		testcontainers.WithCmd("--jetstream", "--store_dir", "/data", "--port", "4222"),
		testcontainers.WithExposedPorts("4222/tcp"),
		testcontainers.WithWaitStrategyAndDeadline(time.Minute,
			// scratch has no shell for a port probe inside the container
			wait.ForLog("Server is ready")),
	)
	if err != nil {
		if ctr != nil {
			_ = testcontainers.TerminateContainer(ctr)
		}
		return "", "", nil, fmt.Errorf("run %s: %w", natsImage, err)
	}
	stop = func() { _ = testcontainers.TerminateContainer(ctr) }
	host, err := ctr.Host(ctx)
	if err != nil {
		return "", "", stop, err
	}
	port, err := ctr.MappedPort(ctx, "4222/tcp")
	if err != nil {
		return "", "", stop, err
	}
	// testcontainers guesses the Docker host; when the guess (e.g. a
	// default gateway) does not answer, the engine is local: use loopback.
	for _, h := range []string{host, "127.0.0.1"} {
		addr := net.JoinHostPort(h, port.Port())
		if c, err := net.DialTimeout("tcp", addr, 2*time.Second); err == nil {
			_ = c.Close()
			return "nats://" + addr, "", stop, nil
		}
	}
	return "", "", stop, fmt.Errorf("the container's port %s answers neither on %s nor on 127.0.0.1", port.Port(), host)
}

// buildNATSImage builds payauthz-nats:local like scripts/build-images.sh:
// a static nats-server at the version go.mod pins, on scratch, with
// payauthz for its health check.
func buildNATSImage(ctx context.Context) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "payauthz-nats-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	// The image also holds payauthz (its HEALTHCHECK) and runs as uid 65532.
	if err := os.MkdirAll(filepath.Join(dir, "bin", "rootfs", "data"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "rootfs", "passwd"), []byte("payauthz:x:65532:65532:payauthz:/data:/payauthz\n"), 0o644); err != nil {
		return err
	}
	for name, pkg := range map[string]string{"nats-server": "github.com/nats-io/nats-server/v2", "payauthz": "./cmd/payauthz"} {
		build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "bin", name), pkg)
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %w: %s", name, err, out)
		}
	}
	docker := exec.CommandContext(ctx, "docker", "build", "-q", "-t", natsImage, "-f",
		filepath.Join(root, "deploy", "nats", "Dockerfile"), dir)
	if out, err := docker.CombinedOutput(); err != nil {
		return fmt.Errorf("docker build: %w: %s", err, out)
	}
	return nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the module")
	}
	return filepath.Dir(mod), nil
}

// external opens stores on one external server (or cluster) at urls,
// each log under its own stream name and subject prefix, with the given
// replicas.
func external(urls func(t *testing.T) []string, replicas int) eventstoretest.HarnessFunc {
	return func(t *testing.T) func(*testing.T) events.Store {
		n := logSeq.Add(1)
		cfg := jetstream.Config{URLs: urls(t), Replicas: replicas,
			StreamName: fmt.Sprintf("T%d", n), SubjectPrefix: fmt.Sprintf("t%d.ev", n)}
		return func(t *testing.T) events.Store { return openExternal(t, cfg) }
	}
}

var logSeq atomic.Int64

func openExternal(t *testing.T, cfg jetstream.Config) *jetstream.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := jetstream.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func TestConformanceInContainer(t *testing.T) {
	url := containerURL(t)
	eventstoretest.Run(t, external(func(*testing.T) []string { return []string{url} }, 1),
		eventstoretest.Capabilities{DedupeByID: true})
}
