package kurrentdb

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/kurrent-io/KurrentDB-Client-Go/protos/kurrentdb/protocols/v1/shared"
	api "github.com/kurrent-io/KurrentDB-Client-Go/protos/kurrentdb/protocols/v1/streams"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/payauthz/payauthz/events"
)

// subServer serves $all subscriptions from a script: the i-th
// subscription sends script[i] then drops with Unavailable, the last one
// stays open. It records where each subscription started and its filter.
type subServer struct {
	api.UnimplementedStreamsServer
	mu      sync.Mutex
	script  [][]*api.ReadResp_ReadEvent
	starts  []uint64 // 0 for Start
	filters []string // the stream prefix filter of each subscription
	n       int
}

func (w *subServer) Read(req *api.ReadReq, st grpc.ServerStreamingServer[api.ReadResp]) error {
	o := req.GetOptions()
	if o.GetSubscription() == nil || o.GetAll() == nil {
		return nil // the ping of Open: an empty $all
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
	}
	w.mu.Unlock()
	if err := st.Send(&api.ReadResp{Content: &api.ReadResp_Confirmation{
		Confirmation: &api.ReadResp_SubscriptionConfirmation{SubscriptionId: "sub"}}}); err != nil {
		return err
	}
	for _, ev := range batch {
		if err := st.Send(&api.ReadResp{Content: &api.ReadResp_Event{Event: ev}}); err != nil {
			return err
		}
	}
	if i < len(w.script)-1 {
		return status.Error(codes.Unavailable, "scripted drop")
	}
	<-st.Context().Done()
	return st.Context().Err()
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

func TestSubscribeResumesAfterTheLastCommitOnDrop(t *testing.T) {
	w := &subServer{script: [][]*api.ReadResp_ReadEvent{
		{
			wireEvent(t, "CreditorEntityRegistered", "payauthz-a", 0, 100, "a", "a", 0, 1),
			wireEvent(t, "$statsCollected", "payauthz-a", 1, 150, "stats", "stats", 0, 1),
			wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 0, 200, "b0", "b0", 0, 2),
			// dropped here, in the middle of b's commit
		},
		{
			wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 0, 200, "b0", "b0", 0, 2),
			wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 1, 210, "b1", "b0", 1, 2),
			wireEvent(t, "CreditorEntityRegistered", "payauthz-c", 0, 300, "c", "c", 0, 1),
		},
	}}
	s := openOn(t, w)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type seen struct {
		id          string
		pos         events.Position
		index, size int
	}
	var got []seen
	err := s.Subscribe(ctx, 0, func(_ context.Context, env events.Envelope) error {
		got = append(got, seen{env.ID, env.Position, env.Index, env.CommitSize})
		if env.ID == "c" {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("subscribe ended with %v, want context.Canceled", err)
	}
	want := []seen{{"a", 100, 0, 1}, {"b0", 210, 0, 2}, {"b1", 210, 1, 2}, {"c", 300, 0, 1}}
	if len(got) != len(want) {
		t.Fatalf("handled %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("handled %+v, want %+v", got, want)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.starts) != 2 || w.starts[0] != 0 || w.starts[1] != 100 {
		t.Fatalf("subscriptions started at %v, want [start 100]: resume after the last whole commit", w.starts)
	}
	for _, f := range w.filters {
		if f != "payauthz-" {
			t.Fatalf("subscription filters %v, want the stream prefix payauthz-", w.filters)
		}
	}
}

func TestSubscribeFromAPositionStartsAfterIt(t *testing.T) {
	w := &subServer{script: [][]*api.ReadResp_ReadEvent{{
		// A server replaying the start position itself must not make the
		// store hand it out again.
		wireEvent(t, "CreditorEntityRegistered", "payauthz-a", 0, 500, "a", "a", 0, 1),
		wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 0, 600, "b", "b", 0, 1),
	}}}
	s := openOn(t, w)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ids []string
	err := s.Subscribe(ctx, 500, func(_ context.Context, env events.Envelope) error {
		ids = append(ids, env.ID)
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || len(ids) != 1 || ids[0] != "b" {
		t.Fatalf("subscribe from 500: %v, handled %v; want only b", err, ids)
	}
	if w.starts[0] != 500 {
		t.Fatalf("subscription started at %d, want 500", w.starts[0])
	}
}

func TestHandlerErrorStopsTheSubscription(t *testing.T) {
	w := &subServer{script: [][]*api.ReadResp_ReadEvent{{
		wireEvent(t, "CreditorEntityRegistered", "payauthz-a", 0, 100, "a", "a", 0, 1),
	}}}
	s := openOn(t, w)
	boom := errors.New("boom")
	if err := s.Subscribe(context.Background(), 0, func(context.Context, events.Envelope) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("subscribe = %v, want the handler's error", err)
	}
}
