package kurrentdb

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	api "github.com/kurrent-io/KurrentDB-Client-Go/protos/kurrentdb/protocols/v1/streams"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/payauthz/payauthz/events"
	httpapi "github.com/payauthz/payauthz/http"
	"github.com/payauthz/payauthz/http/console"
	"github.com/payauthz/payauthz/projections"
)

// TestReadinessFollowsTheServer: a replica on KurrentDB says on /readyz
// whether it reaches the server, as one on NATS does. With the server
// gone (its subscription to $all dropped and not opened again) /readyz is
// 503 "disconnected from the event log"; once the server is back and the
// subscription with it, 200 again. It answered 200 throughout: the store
// told the server nothing of its connection.
func TestReadinessFollowsTheServer(t *testing.T) {
	w := &wireServer{script: [][]*api.ReadResp_ReadEvent{nil}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	serveWire := func(ln net.Listener) *grpc.Server {
		srv := grpc.NewServer()
		api.RegisterStreamsServer(srv, w)
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(srv.Stop)
		return srv
	}
	kdbServer := serveWire(ln)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := Open(context.Background(), Config{URL: "kurrentdb://" + addr + "?tls=false",
		StoreOptions: events.StoreOptions{Logger: logger}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	readyz, _ := serveReplica(t, s, logger)
	waitFor := func(what string, code int, status string) { t.Helper(); waitForReadyz(t, readyz, what, code, status) }

	waitFor("server up", 200, "ready")
	kdbServer.Stop() // the server goes away: the subscription drops and cannot be opened again
	waitFor("server gone", 503, "disconnected from the event log")
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	serveWire(ln)
	waitFor("server back", 200, "ready")
}

// serveReplica runs read models on s and the HTTP API over them, as serve
// does, until the test ends. It returns a GET of /readyz (its status code
// and body's status) and a channel that receives what the read models'
// Run returns.
func serveReplica(t *testing.T, s *Store, logger *slog.Logger) (readyz func() (int, string), runErr <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	model := projections.New()
	runErrs := make(chan error, 1)
	runDone := make(chan struct{})
	go func() { defer close(runDone); runErrs <- model.Run(ctx, s, logger) }()
	httpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := httpapi.New(httpapi.Config{HTTPAddr: httpLn.Addr().String(), HTTPListener: httpLn,
		DisableDecisionLog: true, Console: console.Config{Disabled: true}}, s, model, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	serveDone := make(chan struct{})
	go func() { defer close(serveDone); _ = srv.Serve(ctx) }()
	t.Cleanup(func() { cancel(); <-serveDone; <-runDone })
	readyz = func() (int, string) {
		res, err := http.Get("http://" + httpLn.Addr().String() + "/readyz")
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		var body struct{ Status string }
		_ = json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode, body.Status
	}
	return readyz, runErrs
}

// waitForReadyz waits up to 20 s for /readyz to answer code and status.
func waitForReadyz(t *testing.T, readyz func() (int, string), what string, code int, status string) {
	t.Helper()
	var gotCode int
	var got string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if gotCode, got = readyz(); gotCode == code && got == status {
			return
		}
	}
	t.Fatalf("%s: /readyz %d %q, want %d %q", what, gotCode, got, code, status)
}

// TestRevokedAccessStopsTheReplica: the server ends the projections'
// subscription refusing the account (its rights to $all revoked): the
// read models stop, as at a commit they cannot apply, so serve exits
// (model.Run returns projections.ErrStopped) and /readyz answers 503
// meanwhile. The subscription was opened again and again instead, a
// warning each time, while the replica answered from models no longer
// following the log, revocations included.
func TestRevokedAccessStopsTheReplica(t *testing.T) {
	a := wireEvent(t, "CreditorEntityRegistered", "payauthz-a", 0, 100, "a", "a", 0, 1)
	w := &wireServer{all: []*api.ReadResp_ReadEvent{a}, script: [][]*api.ReadResp_ReadEvent{{a}, nil},
		drops: []error{status.Error(codes.PermissionDenied, "Access Denied")}}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	readyz, runErr := serveReplica(t, openOn(t, w), logger)
	select {
	case err := <-runErr:
		if !errors.Is(err, projections.ErrStopped) || !errors.Is(err, events.ErrAccessDenied) {
			t.Fatalf("the projections ended with %v, want ErrStopped for ErrAccessDenied", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the projections still run 10 s after the server refused their subscription")
	}
	if code, st := readyz(); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz after the refusal: %d %q, want 503", code, st)
	}
}
