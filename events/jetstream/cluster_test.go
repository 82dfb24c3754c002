package jetstream_test

import (
	"context"
	"fmt"
	"testing"

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
