package kurrentdb

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	api "github.com/kurrent-io/KurrentDB-Client-Go/protos/kurrentdb/protocols/v1/streams"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/payauthz/payauthz/events"
)

// wireServer is a local gRPC server speaking KurrentDB's streams protocol
// (the client's own generated server side) with scripted answers, so the
// real client produces the errors a server would cause. It answers
// server-features calls as Unimplemented, as an old server does.
type wireServer struct {
	api.UnimplementedStreamsServer
	mu      sync.Mutex
	appends []string // stream names appended to, in order
	answer  func() (*api.AppendResp, error)
}

func (w *wireServer) Append(st grpc.ClientStreamingServer[api.AppendReq, api.AppendResp]) error {
	var stream string
	for {
		req, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if o := req.GetOptions(); o != nil {
			stream = string(o.GetStreamIdentifier().GetStreamName())
		}
	}
	w.mu.Lock()
	w.appends = append(w.appends, stream)
	answer := w.answer
	w.mu.Unlock()
	resp, err := answer()
	if err != nil {
		return err
	}
	return st.SendAndClose(resp)
}

// Read answers every read with no event, and a read of one stream with
// "stream not found".
func (w *wireServer) Read(req *api.ReadReq, st grpc.ServerStreamingServer[api.ReadResp]) error {
	if s := req.GetOptions().GetStream(); s != nil {
		return st.Send(&api.ReadResp{Content: &api.ReadResp_StreamNotFound_{
			StreamNotFound: &api.ReadResp_StreamNotFound{StreamIdentifier: s.GetStreamIdentifier()}}})
	}
	return nil
}

func startWire(t *testing.T, w *wireServer) *Store { return openOn(t, w) }

// openOn serves w on a loopback port and opens a store on it.
func openOn(t *testing.T, w api.StreamsServer) *Store {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	api.RegisterStreamsServer(srv, w)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	s, err := Open(context.Background(), Config{URL: "kurrentdb://" + ln.Addr().String() + "?tls=false"})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func success(commit, rev uint64) func() (*api.AppendResp, error) {
	return func() (*api.AppendResp, error) {
		return &api.AppendResp{Result: &api.AppendResp_Success_{Success: &api.AppendResp_Success{
			CurrentRevisionOption: &api.AppendResp_Success_CurrentRevision{CurrentRevision: rev},
			PositionOption: &api.AppendResp_Success_Position{Position: &api.AppendResp_Position{
				CommitPosition: commit, PreparePosition: commit}}}}}, nil
	}
}

func TestAppendOverTheWire(t *testing.T) {
	wrongVersion := func() (*api.AppendResp, error) {
		return &api.AppendResp{Result: &api.AppendResp_WrongExpectedVersion_{WrongExpectedVersion: &api.AppendResp_WrongExpectedVersion{
			CurrentRevisionOption:  &api.AppendResp_WrongExpectedVersion_CurrentRevision{CurrentRevision: 7},
			ExpectedRevisionOption: &api.AppendResp_WrongExpectedVersion_ExpectedRevision{ExpectedRevision: 3}}}}, nil
	}
	grpcErr := func(c codes.Code) func() (*api.AppendResp, error) {
		return func() (*api.AppendResp, error) { return nil, status.Error(c, "scripted") }
	}
	cases := []struct {
		name     string
		answer   func() (*api.AppendResp, error)
		wantPos  events.Position
		wantErr  error
		notOther bool // the error must be neither a conflict nor an outage
	}{
		{"success_returns_commit_position", success(8192, 4), 8192, nil, false},
		{"wrong_expected_version_is_conflict", wrongVersion, 0, events.ErrConflict, false},
		{"unavailable_is_unavailable", grpcErr(codes.Unavailable), 0, events.ErrUnavailable, false},
		{"aborted_is_unavailable", grpcErr(codes.Aborted), 0, events.ErrUnavailable, false},
		{"permission_denied_is_neither", grpcErr(codes.PermissionDenied), 0, nil, true},
		{"unauthenticated_is_neither", grpcErr(codes.Unauthenticated), 0, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &wireServer{answer: c.answer}
			s := startWire(t, w)
			pos, err := s.Append(context.Background(), "dominio-1", events.ExpectVersion(4),
				events.Record{ID: "r1", Event: events.CreditorEntityRegistered{IDDominio: "00000000001"}})
			switch {
			case c.notOther:
				if err == nil || errors.Is(err, events.ErrConflict) || errors.Is(err, events.ErrUnavailable) {
					t.Fatalf("err = %v, want a plain error", err)
				}
			case c.wantErr != nil:
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v, want %v", err, c.wantErr)
				}
				if c.wantErr == events.ErrConflict && errors.Is(err, events.ErrUnavailable) {
					t.Fatalf("a conflict also reads as an outage: %v", err)
				}
			default:
				if err != nil || pos != c.wantPos {
					t.Fatalf("append = %d, %v; want %d", pos, err, c.wantPos)
				}
			}
			if len(w.appends) != 1 || w.appends[0] != "payauthz-dominio-1" {
				t.Fatalf("server saw appends to %v, want [payauthz-dominio-1]", w.appends)
			}
		})
	}
}

func TestLoadOfAMissingStreamIsEmpty(t *testing.T) {
	s := startWire(t, &wireServer{answer: success(1, 0)})
	envs, err := s.Load(context.Background(), "dominio-nowhere")
	if err != nil || len(envs) != 0 {
		t.Fatalf("load = %v, %v; want nothing and no error", envs, err)
	}
	if p, err := s.LastPosition(context.Background()); err != nil || p != 0 {
		t.Fatalf("last position of an empty log = %d, %v", p, err)
	}
}

func TestClosedStoreRefusesWork(t *testing.T) {
	s := startWire(t, &wireServer{answer: success(1, 0)})
	_ = s.Close()
	if _, err := s.Append(context.Background(), "d", events.ExpectNoStream(),
		events.Record{Event: events.CreditorEntityRegistered{IDDominio: "00000000001"}}); !errors.Is(err, events.ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
	if _, err := s.Load(context.Background(), "d"); !errors.Is(err, events.ErrClosed) {
		t.Fatalf("load after close: %v", err)
	}
}

func TestOpenFailsOnBadConfig(t *testing.T) {
	for _, c := range []struct{ name, url, prefix string }{
		{"not_a_connection_string", "jetstream", ""},
		{"system_prefix", "kurrentdb://127.0.0.1:1?tls=false", "$payauthz-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Open(context.Background(), Config{URL: c.url, StreamPrefix: c.prefix}); err == nil {
				t.Fatal("opened")
			}
		})
	}
}
