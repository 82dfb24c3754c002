package jetstream_test

import (
	"testing"

	"github.com/payauthz/payauthz/events/eventstoretest"
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
