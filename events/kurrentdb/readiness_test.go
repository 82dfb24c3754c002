package kurrentdb

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	api "github.com/kurrent-io/KurrentDB-Client-Go/protos/kurrentdb/protocols/v1/streams"
	"google.golang.org/grpc"

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

	ctx, cancel := context.WithCancel(context.Background())
	model := projections.New()
	runDone := make(chan struct{})
	go func() { defer close(runDone); _ = model.Run(ctx, s, logger) }()
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

	readyz := func() (int, string) {
		res, err := http.Get("http://" + httpLn.Addr().String() + "/readyz")
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		var body struct{ Status string }
		_ = json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode, body.Status
	}
	waitFor := func(what string, code int, status string) {
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
