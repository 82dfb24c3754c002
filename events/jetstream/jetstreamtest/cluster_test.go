package jetstreamtest

import (
	"fmt"
	"net"
	"strings"
	"testing"
)

// TestClusterNodeOnATakenPortIsAnError: a node whose port another process
// took after it was chosen fails to start with an error naming it (which
// NewCluster answers by starting the cluster again on other ports), not
// with the test's end.
func TestClusterNodeOnATakenPortIsAnError(t *testing.T) {
	c := newCluster(t, 3)
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", c.opts[1].Port))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	err = c.startAll()
	c.StopAll()
	if err == nil || !strings.Contains(err.Error(), "nats node 2 did not start") {
		t.Fatalf("startAll = %v, want node 2 not started", err)
	}
}
