package kurrentdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	api "github.com/kurrent-io/KurrentDB-Client-Go/protos/kurrentdb/protocols/v1/streams"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

func TestSubscribeResumesAfterTheLastCommitOnDrop(t *testing.T) {
	w := &wireServer{script: [][]*api.ReadResp_ReadEvent{
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
	w := &wireServer{script: [][]*api.ReadResp_ReadEvent{{
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
	w := &wireServer{script: [][]*api.ReadResp_ReadEvent{{
		wireEvent(t, "CreditorEntityRegistered", "payauthz-a", 0, 100, "a", "a", 0, 1),
	}}}
	s := openOn(t, w)
	boom := errors.New("boom")
	if err := s.Subscribe(context.Background(), 0, func(context.Context, events.Envelope) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("subscribe = %v, want the handler's error", err)
	}
}

// TestSubscriptionDropsRetryingCannotCure: a subscription that the server
// ends after it started, refusing the account (its rights to $all
// revoked, its password changed), ends Subscribe and Read at once with
// events.ErrAccessDenied; one that a retry can cure (the server not
// ready, a deadline, a timeout) is subscribed again after the last
// commit handed out. The client hands a drop after the start on as the
// bare gRPC status, not as its own error codes.
func TestSubscriptionDropsRetryingCannotCure(t *testing.T) {
	cases := []struct {
		name string
		drop error
		want error // nil: subscribed again
	}{
		{"permission_denied_ends_it", status.Error(codes.PermissionDenied, "Access Denied"), events.ErrAccessDenied},
		{"unauthenticated_ends_it", status.Error(codes.Unauthenticated, "Bad credentials"), events.ErrAccessDenied},
		{"unavailable_subscribes_again", status.Error(codes.Unavailable, "Server Is Not Ready"), nil},
		{"deadline_subscribes_again", status.Error(codes.DeadlineExceeded, "deadline"), nil},
		{"timeout_subscribes_again", status.Error(codes.Aborted, "Operation timed out"), nil},
	}
	for _, c := range cases {
		for _, op := range []string{"subscribe", "read"} {
			t.Run(c.name+"/"+op, func(t *testing.T) {
				a := wireEvent(t, "CreditorEntityRegistered", "payauthz-a", 0, 100, "a", "a", 0, 1)
				b := wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 0, 200, "b", "b", 0, 1)
				w := &wireServer{all: []*api.ReadResp_ReadEvent{b, a}, script: [][]*api.ReadResp_ReadEvent{{a}, {b}},
					drops: []error{c.drop}}
				s := openOn(t, w)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				var ids []string
				h := func(_ context.Context, env events.Envelope) error {
					ids = append(ids, env.ID)
					if env.ID == "b" {
						cancel()
					}
					return nil
				}
				var err error
				if op == "subscribe" {
					err = s.Subscribe(ctx, 0, h)
				} else {
					err = s.Read(ctx, 0, h)
				}
				w.mu.Lock()
				subs := len(w.starts)
				w.mu.Unlock()
				if c.want != nil {
					if !errors.Is(err, c.want) || errors.Is(err, events.ErrUnavailable) || subs != 1 || len(ids) != 1 {
						t.Fatalf("%s = %v after %d subscriptions, handled %v; want %v at once after a", op, err, subs, ids, c.want)
					}
					return
				}
				if subs != 2 || len(ids) != 2 || ids[1] != "b" || (op == "subscribe" && !errors.Is(err, context.Canceled)) ||
					(op == "read" && err != nil) {
					t.Fatalf("%s = %v after %d subscriptions, handled %v; want a, then b subscribed again", op, err, subs, ids)
				}
			})
		}
	}
}

// positionedLog is a log on a server that knows where its events start:
// commits at 100 (a), 210 (b0 at 200 and b1) and 300 (c), a system event
// at 250 between them.
func positionedLog(t *testing.T) *wireServer {
	return &wireServer{positioned: true, all: []*api.ReadResp_ReadEvent{ // newest first
		wireEvent(t, "CreditorEntityRegistered", "payauthz-c", 0, 300, "c", "c", 0, 1),
		wireEvent(t, "$statsCollected", "$stats-node", 0, 250, "s", "s", 0, 1),
		wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 1, 210, "b1", "b0", 1, 2),
		wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 0, 200, "b0", "b0", 0, 2),
		wireEvent(t, "CreditorEntityRegistered", "payauthz-a", 0, 100, "a", "a", 0, 1),
	}, streams: map[string][]*api.ReadResp_ReadEvent{"payauthz-b": {
		wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 0, 200, "b0", "b0", 0, 2),
		wireEvent(t, "CreditorEntityRegistered", "payauthz-b", 1, 210, "b1", "b0", 1, 2),
	}}}
}

// TestSnapshotRecognisesItsOwnLog: a snapshot's loader checks that the
// log holds, at the snapshot's position, the commit the snapshot applied
// last (projections.ReadModel.SameLog). On KurrentDB that commit's
// position is where its last event starts in the transaction log; the
// check read from the position before it, inside the previous record,
// which the server refuses: every snapshot of a KurrentDB log was
// refused as unreadable and the service rebuilt from the log's start.
func TestSnapshotRecognisesItsOwnLog(t *testing.T) {
	s := openOn(t, positionedLog(t))
	for _, upTo := range []events.Position{100, 210, 300} {
		m := projections.New()
		err := s.Read(context.Background(), 0, func(_ context.Context, env events.Envelope) error {
			if env.Position > upTo {
				return errStop
			}
			return m.Apply(env)
		})
		if err != nil && !errors.Is(err, errStop) {
			t.Fatal(err)
		}
		if m.AppliedPosition() != upTo {
			t.Fatalf("applied %d, want %d", m.AppliedPosition(), upTo)
		}
		if err := m.SameLog(context.Background(), s); err != nil {
			t.Fatalf("a model built from this log up to %d: %v, want it recognised", upTo, err)
		}
	}
	// One built from another log, whose last commit is where no record
	// of this one starts: another log, not an unreadable one.
	other := projections.New()
	if err := other.Apply(events.Envelope{ID: "x", Name: "CreditorEntityRegistered", Stream: "dominio-x", Version: 1,
		Position: 150, CommitSize: 1, Event: events.CreditorEntityRegistered{IDDominio: "00000000009"}}); err != nil {
		t.Fatal(err)
	}
	if err := other.SameLog(context.Background(), s); !errors.Is(err, projections.ErrSnapshotUnusable) {
		t.Fatalf("a model of another log (last commit at 150): %v, want ErrSnapshotUnusable", err)
	}
}

var errStop = errors.New("stop")

// TestReadFromOnSparsePositions: ReadFrom on a server that refuses a read
// from where no record starts, as KurrentDB does. From a commit's position
// it starts after the event before it (a system event, or the commit's own
// earlier event); from one past it, after it; a position neither is
// events.ErrInvalidPosition at once, not an outage retried.
func TestReadFromOnSparsePositions(t *testing.T) {
	for _, c := range []struct {
		at      events.Position
		want    []string
		wantErr error
	}{
		{0, []string{"a", "b0", "b1", "c"}, nil},
		{1, []string{"a", "b0", "b1", "c"}, nil},
		{100, []string{"a", "b0", "b1", "c"}, nil},
		{101, []string{"b0", "b1", "c"}, nil},
		{200, []string{"b0", "b1", "c"}, nil}, // the commit's first event: the commit is at 210
		{210, []string{"b0", "b1", "c"}, nil},
		{211, []string{"c"}, nil},
		{300, []string{"c"}, nil},
		{301, nil, nil},
		{150, nil, events.ErrInvalidPosition},
	} {
		t.Run(fmt.Sprint(c.at), func(t *testing.T) {
			s := openOn(t, positionedLog(t))
			var ids []string
			err := s.ReadFrom(context.Background(), c.at, func(_ context.Context, env events.Envelope) error {
				ids = append(ids, env.ID)
				return nil
			})
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) || !slices.Equal(ids, c.want) {
				t.Fatalf("ReadFrom(%d) = %v, %v; want %v, %v", c.at, ids, err, c.want, c.wantErr)
			}
			if errors.Is(err, events.ErrUnavailable) {
				t.Fatalf("ReadFrom(%d): %v reads as an outage", c.at, err)
			}
		})
	}
}
