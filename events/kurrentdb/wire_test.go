package kurrentdb

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/kurrent-io/KurrentDB-Client-Go/protos/kurrentdb/protocols/v1/shared"
	api "github.com/kurrent-io/KurrentDB-Client-Go/protos/kurrentdb/protocols/v1/streams"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	kdb "github.com/kurrent-io/KurrentDB-Client-Go/kurrentdb"

	"github.com/payauthz/payauthz/events"
)

// wireServer is a local gRPC server speaking KurrentDB's streams protocol
// (the client's own generated server side) with scripted answers, so the
// real client sees what a server would send. It answers server-features
// calls as Unimplemented, as an old server does.
//
//   - Append answers with answer() and records the stream.
//   - A read of one stream sends streams[name] from the requested revision
//     (or "stream not found" when the stream is absent).
//   - A read of $all (backwards: LastPosition, Open's ping) sends all, the
//     log newest first.
//   - The i-th subscription to $all sends script[i] and then drops with
//     drops[i] (Unavailable when absent or nil); the last one stays open.
//     Its start and its stream prefix filter are recorded.
//   - When positioned, the server knows where its events start, as a real
//     one does: all is the whole log, a read of it backwards from a
//     position sends the events before it, a subscription with no script
//     of its own sends all's events after its start (oldest first) and
//     stays open, and a read or subscription from a position where no
//     event of all starts fails with InvalidArgument, as KurrentDB answers
//     a read from inside a record (a subscription once confirmed).
type wireServer struct {
	api.UnimplementedStreamsServer
	answer  func() (*api.AppendResp, error)
	streams map[string][]*api.ReadResp_ReadEvent
	all     []*api.ReadResp_ReadEvent
	script  [][]*api.ReadResp_ReadEvent
	drops   []error

	positioned bool

	mu      sync.Mutex
	appends []string // stream names appended to, in order
	starts  []uint64 // where each subscription started (0: the beginning)
	filters []string // the stream prefix filter of each subscription
	n       int
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
	w.mu.Unlock()
	resp, err := w.answer()
	if err != nil {
		return err
	}
	return st.SendAndClose(resp)
}

func (w *wireServer) Read(req *api.ReadReq, st grpc.ServerStreamingServer[api.ReadResp]) error {
	o := req.GetOptions()
	send := func(evs []*api.ReadResp_ReadEvent, n uint64) error {
		for i, ev := range evs {
			if uint64(i) >= n {
				break
			}
			if err := st.Send(&api.ReadResp{Content: &api.ReadResp_Event{Event: ev}}); err != nil {
				return err
			}
		}
		return nil
	}
	switch {
	case o.GetStream() != nil:
		so := o.GetStream()
		evs, ok := w.streams[string(so.GetStreamIdentifier().GetStreamName())]
		if !ok {
			return st.Send(&api.ReadResp{Content: &api.ReadResp_StreamNotFound_{
				StreamNotFound: &api.ReadResp_StreamNotFound{StreamIdentifier: so.GetStreamIdentifier()}}})
		}
		var from []*api.ReadResp_ReadEvent
		for _, ev := range evs {
			if ev.GetEvent().GetStreamRevision() >= so.GetRevision() {
				from = append(from, ev)
			}
		}
		return send(from, o.GetCount())
	case o.GetSubscription() == nil:
		p := o.GetAll().GetPosition()
		if !w.positioned || p == nil {
			return send(w.all, o.GetCount())
		}
		if !w.startsAt(p.GetCommitPosition()) {
			return errInvalidPosition
		}
		var before []*api.ReadResp_ReadEvent
		for _, ev := range w.all {
			if ev.GetEvent().GetCommitPosition() < p.GetCommitPosition() {
				before = append(before, ev)
			}
		}
		return send(before, o.GetCount())
	}
	w.mu.Lock()
	i := w.n
	w.n++
	var start uint64
	if p := o.GetAll().GetPosition(); p != nil {
		start = p.GetCommitPosition()
	}
	w.starts = append(w.starts, start)
	var prefix string
	if f := o.GetFilter().GetStreamIdentifier(); f != nil && len(f.GetPrefix()) == 1 {
		prefix = f.GetPrefix()[0]
	}
	w.filters = append(w.filters, prefix)
	var batch []*api.ReadResp_ReadEvent
	if i < len(w.script) {
		batch = w.script[i]
	} else if w.positioned {
		for j := len(w.all) - 1; j >= 0; j-- {
			if w.all[j].GetEvent().GetCommitPosition() > start {
				batch = append(batch, w.all[j])
			}
		}
	}
	w.mu.Unlock()
	if err := st.Send(&api.ReadResp{Content: &api.ReadResp_Confirmation{
		Confirmation: &api.ReadResp_SubscriptionConfirmation{SubscriptionId: "sub"}}}); err != nil {
		return err
	}
	if w.positioned && start != 0 && !w.startsAt(start) {
		return errInvalidPosition
	}
	if err := send(batch, uint64(len(batch))); err != nil {
		return err
	}
	if i < len(w.drops) && w.drops[i] != nil {
		return w.drops[i]
	}
	if i < len(w.script)-1 {
		return status.Error(codes.Unavailable, "scripted drop")
	}
	<-st.Context().Done()
	return st.Context().Err()
}

// errInvalidPosition is KurrentDB's answer to a read of $all from a
// position where no record starts.
var errInvalidPosition = status.Error(codes.InvalidArgument, "Trying to read from an invalid position.")

// startsAt reports whether an event of all starts at position p.
func (w *wireServer) startsAt(p uint64) bool {
	for _, ev := range w.all {
		if ev.GetEvent().GetCommitPosition() == p {
			return true
		}
	}
	return false
}

// wireEvent is one event of the log as the server sends it.
func wireEvent(t *testing.T, typ, stream string, rev, pos uint64, id, commit string, i, n int) *api.ReadResp_ReadEvent {
	t.Helper()
	data, _ := json.Marshal(events.CreditorEntityRegistered{IDDominio: "00000000001", RagioneSociale: id})
	m, _ := json.Marshal(meta{ID: id, Commit: commit, Index: i, Size: n})
	return &api.ReadResp_ReadEvent{
		Event: &api.ReadResp_ReadEvent_RecordedEvent{
			Id:               &shared.UUID{Value: &shared.UUID_String_{String_: eventID(id).String()}},
			StreamIdentifier: &shared.StreamIdentifier{StreamName: []byte(stream)},
			StreamRevision:   rev, CommitPosition: pos, PreparePosition: pos,
			Metadata:       map[string]string{"type": typ, "content-type": "application/json", "created": "17000000000000000"},
			CustomMetadata: m, Data: data,
		},
		Position: &api.ReadResp_ReadEvent_CommitPosition{CommitPosition: pos},
	}
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
	grpcStatus := func(c codes.Code, msg string) func() (*api.AppendResp, error) {
		return func() (*api.AppendResp, error) { return nil, status.Error(c, msg) }
	}
	grpcErr := func(c codes.Code) func() (*api.AppendResp, error) { return grpcStatus(c, "scripted") }
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
		// What the server answers an append over --max-append-size, or
		// holding an event over --max-append-event-size.
		{"over_max_append_size_is_too_large", grpcStatus(codes.InvalidArgument, "Maximum Append Size of 1048576 Exceeded."),
			0, events.ErrTooLarge, false},
		{"over_max_event_size_is_too_large", grpcStatus(codes.InvalidArgument,
			"Event with Id: 6f1f3b0e-6b0a-4c5e-9a52-706179617574, Size: 2097300, exceeds Maximum Append Event Size of 1048576."),
			0, events.ErrTooLarge, false},
		{"other_invalid_argument_is_neither", grpcStatus(codes.InvalidArgument, "Required Metadata Property 'type' is missing"),
			0, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &wireServer{answer: c.answer}
			s := startWire(t, w)
			pos, err := s.Append(context.Background(), "dominio-1", events.ExpectVersion(4),
				events.Record{ID: "r1", Event: events.CreditorEntityRegistered{IDDominio: "00000000001"}})
			switch {
			case c.notOther:
				if err == nil || errors.Is(err, events.ErrConflict) || errors.Is(err, events.ErrUnavailable) || errors.Is(err, events.ErrTooLarge) {
					t.Fatalf("err = %v, want a plain error", err)
				}
			case c.wantErr != nil:
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v, want %v", err, c.wantErr)
				}
				if c.wantErr != events.ErrUnavailable && errors.Is(err, events.ErrUnavailable) {
					t.Fatalf("a refusal also reads as an outage: %v", err)
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

func TestLastPositionSkipsForeignAndSystemEvents(t *testing.T) {
	s := openOn(t, &wireServer{all: []*api.ReadResp_ReadEvent{ // newest first
		wireEvent(t, "$statsCollected", "$stats-node", 0, 900, "s", "s", 0, 1),
		wireEvent(t, "OrderPlaced", "orders-1", 4, 800, "o", "o", 0, 1),
		wireEvent(t, "$metadata", "$$payauthz-a", 0, 700, "m", "m", 0, 1),
		wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 1, 600, "b1", "b0", 1, 2),
		wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 0, 590, "b0", "b0", 0, 2),
	}})
	if p, err := s.LastPosition(context.Background()); err != nil || p != 600 {
		t.Fatalf("LastPosition = %d, %v; want 600 (the newest payauthz commit)", p, err)
	}
}

func TestReadStopsAtTheLastPositionOfTheCall(t *testing.T) {
	a := wireEvent(t, "CreditorEntityRegistered", "payauthz-a", 0, 100, "a", "a", 0, 1)
	b := wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 0, 200, "b", "b", 0, 1)
	s := openOn(t, &wireServer{all: []*api.ReadResp_ReadEvent{b, a}, script: [][]*api.ReadResp_ReadEvent{{a, b}}})
	var ids []string
	// The subscription stays open after b: Read must return on its own.
	if err := s.Read(context.Background(), 0, func(_ context.Context, env events.Envelope) error {
		ids = append(ids, env.ID)
		return nil
	}); err != nil || len(ids) != 2 || ids[1] != "b" {
		t.Fatalf("read = %v, %v; want a and b", ids, err)
	}
	ids = nil
	if err := s.Read(context.Background(), 200, func(_ context.Context, env events.Envelope) error {
		ids = append(ids, env.ID)
		return nil
	}); err != nil || len(ids) != 0 {
		t.Fatalf("read from the end = %v, %v; want nothing", ids, err)
	}
}

func TestLoadRegroupsCommits(t *testing.T) {
	s := openOn(t, &wireServer{streams: map[string][]*api.ReadResp_ReadEvent{"payauthz-dominio-1": {
		wireEvent(t, "CreditorEntityRegistered", "payauthz-dominio-1", 0, 100, "a1", "a1", 0, 1),
		wireEvent(t, "CreditorEntityRegistered", "payauthz-dominio-1", 1, 200, "a2", "a2", 0, 2),
		wireEvent(t, "CreditorEntityRegistered", "payauthz-dominio-1", 2, 210, "a3", "a2", 1, 2),
	}}})
	envs, err := s.Load(context.Background(), "dominio-1")
	if err != nil || len(envs) != 3 {
		t.Fatalf("load = %+v, %v", envs, err)
	}
	if envs[0].Version != 1 || envs[1].Version != 3 || envs[2].Version != 3 ||
		envs[0].Position != 100 || envs[1].Position != 210 || envs[2].Position != 210 || envs[2].Stream != "dominio-1" {
		t.Fatalf("versions/positions = %+v", envs)
	}
	if got := expectedState(events.ExpectVersion(envs[2].Version)); got != kdb.Revision(2) {
		t.Fatalf("the loaded version expects %#v, want revision 2", got)
	}
}

// TestIdempotentRetryWithoutPositionReadsItBack: a server that answers a
// retried append without a position: the store reads the position of the
// commit's last event, so the retry returns the first append's position.
func TestIdempotentRetryWithoutPositionReadsItBack(t *testing.T) {
	w := &wireServer{
		answer: func() (*api.AppendResp, error) {
			return &api.AppendResp{Result: &api.AppendResp_Success_{Success: &api.AppendResp_Success{
				CurrentRevisionOption: &api.AppendResp_Success_CurrentRevision{CurrentRevision: 0},
				PositionOption:        &api.AppendResp_Success_NoPosition{NoPosition: &shared.Empty{}}}}}, nil
		},
		streams: map[string][]*api.ReadResp_ReadEvent{"payauthz-pagamento-1": {
			wireEvent(t, "CreditorEntityRegistered", "payauthz-pagamento-1", 0, 4242, "same-id", "same-id", 0, 1),
		}},
	}
	s := openOn(t, w)
	pos, err := s.Append(context.Background(), "pagamento-1", events.ExpectNoStream(),
		events.Record{ID: "same-id", Event: events.CreditorEntityRegistered{IDDominio: "00000000001"}})
	if err != nil || pos != 4242 {
		t.Fatalf("retried append = %d, %v; want the first append's 4242", pos, err)
	}
}

// TestBackendNamedInTokens: the store names its backend for consistency
// tokens, so a token of a JetStream deployment is refused here.
func TestBackendNamedInTokens(t *testing.T) {
	if got := openOn(t, &wireServer{}).Backend(); got != "kurrentdb" {
		t.Fatalf("Backend() = %q", got)
	}
}

func TestCancelledAppendIsACancellation(t *testing.T) {
	s := openOn(t, &wireServer{answer: success(1, 0)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Append(ctx, "dominio-1", events.ExpectNoStream(),
		events.Record{Event: events.CreditorEntityRegistered{IDDominio: "00000000001"}})
	if !errors.Is(err, context.Canceled) || errors.Is(err, events.ErrUnavailable) {
		t.Fatalf("append with a cancelled context = %v, want context.Canceled", err)
	}
}

// TestCancelledReadsAreCancellations: a read whose caller cancelled it or
// whose deadline passed ends with the context's error, as JetStream's do,
// never as an outage (the HTTP layer answers and logs those differently).
func TestCancelledReadsAreCancellations(t *testing.T) {
	s := openOn(t, &wireServer{answer: success(1, 0), all: []*api.ReadResp_ReadEvent{
		wireEvent(t, "CreditorEntityRegistered", "payauthz-a", 0, 100, "a", "a", 0, 1),
	}})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		name string
		ctx  context.Context
		want error
	}{{"cancelled", cancelled, context.Canceled}, {"deadline_passed", expired, context.DeadlineExceeded}} {
		t.Run(c.name, func(t *testing.T) {
			reads := map[string]func() error{
				"last_position": func() error { _, err := s.LastPosition(c.ctx); return err },
				"read":          func() error { return s.Read(c.ctx, 0, func(context.Context, events.Envelope) error { return nil }) },
				"load":          func() error { _, err := s.Load(c.ctx, "a"); return err },
				"position_at":   func() error { _, err := s.positionAt(c.ctx, "payauthz-a", 0); return err },
			}
			for name, read := range reads {
				if err := read(); !errors.Is(err, c.want) || errors.Is(err, events.ErrUnavailable) {
					t.Errorf("%s: %v, want %v and not an outage", name, err, c.want)
				}
			}
		})
	}
	// The same reads with a live context answer.
	if p, err := s.LastPosition(context.Background()); err != nil || p != 100 {
		t.Fatalf("last position = %d, %v; want 100", p, err)
	}
}
