package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/eventstoretest"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
)

// TestConformanceOnCluster runs the store contract on an R3 stream of an
// in-process 3-node cluster (no Docker needed).
func TestConformanceOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a 3-node NATS cluster; skipped in -short")
	}
	c := jetstreamtest.NewCluster(t, 3)
	eventstoretest.Run(t, external(func(*testing.T) []string { return c.URLs() }, 3),
		eventstoretest.Capabilities{DedupeByID: true})
}

// TestClusterLoadSeesOwnAppends: a Load right after an acknowledged append
// sees it, whichever server of an R3 cluster the client is connected to.
// A follower that has not applied the append yet must not answer the read
// (it would with direct gets: a server's own subscribers are preferred).
func TestClusterLoadSeesOwnAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a 3-node NATS cluster; skipped in -short")
	}
	c := jetstreamtest.NewCluster(t, 3)
	ctx := context.Background()
	const rounds = 100
	for node, url := range c.URLs() {
		cfg := jetstream.Config{URLs: []string{url}, Replicas: 3, StreamName: "LOADS", SubjectPrefix: "loads.ev"}
		s := openExternal(t, cfg)
		stream := fmt.Sprintf("dominio-node%d", node)
		exp := events.ExpectNoStream()
		for i := range rounds {
			pos, err := s.Append(ctx, stream, exp, events.Record{
				Event: events.CreditorEntityRegistered{IDDominio: fmt.Sprintf("%011d", i), RagioneSociale: "A"}})
			if err != nil {
				t.Fatalf("node %d, append %d: %v", node, i, err)
			}
			envs, err := s.Load(ctx, stream)
			if err != nil {
				t.Fatalf("node %d, load %d: %v", node, i, err)
			}
			if len(envs) != i+1 || envs[i].Position != pos {
				t.Fatalf("node %d: the load after append %d (position %d) holds %d events: the write is not visible to its writer",
					node, i, pos, len(envs))
			}
			exp = events.ExpectVersion(envs[i].Version)
		}
		_ = s.Close()
	}
}

// TestLastPositionOfALeaderlessStreamIsUnavailable: a stream member whose
// group has lost its leader (here two of three servers gone) answers
// stream info from its own state once quorum has been lost for a while;
// a member that missed commits would then report an end before the log's,
// which a replica must not read as the log's end (it would take the log
// for a replaced one and stop: projections' watchLogEnd). LastPosition
// answers such a state as the store unavailable, and a position again
// once a leader is back.
func TestLastPositionOfALeaderlessStreamIsUnavailable(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a 3-node NATS cluster; skipped in -short")
	}
	c := jetstreamtest.NewCluster(t, 3)
	ctx := context.Background()
	s := openExternal(t, jetstream.Config{URLs: []string{c.URLs()[2]}, Replicas: 3, StreamName: "LEADERLESS", SubjectPrefix: "leaderless.ev"})
	defer s.Close()
	if _, err := s.Append(ctx, "dominio-1", events.ExpectNoStream(), events.Record{
		Event: events.CreditorEntityRegistered{IDDominio: "00000000001", RagioneSociale: "A"}}); err != nil {
		t.Fatal(err)
	}
	if pos, err := s.LastPosition(ctx); err != nil || pos != 1 {
		t.Fatalf("LastPosition = %d, %v; want 1", pos, err)
	}
	c.Stop(0)
	c.Stop(1)
	// Wait until the remaining member answers stream info with no leader.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatal("the remaining member never answered stream info without a leader")
		}
		st, err := s.JetStream().Stream(ctx, s.StreamName())
		if err == nil {
			if info, err := st.Info(ctx); err == nil && info.Cluster != nil && info.Cluster.Leader == "" {
				break
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	if pos, err := s.LastPosition(ctx); !errors.Is(err, events.ErrUnavailable) {
		t.Fatalf("LastPosition of a leaderless stream = %d, %v; want events.ErrUnavailable", pos, err)
	}
	c.Start(0)
	c.Start(1)
	deadline = time.Now().Add(60 * time.Second)
	for {
		pos, err := s.LastPosition(ctx)
		if err == nil {
			if pos != 1 {
				t.Fatalf("LastPosition with a leader again = %d, want 1", pos)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("LastPosition never answered again: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
