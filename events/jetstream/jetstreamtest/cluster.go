package jetstreamtest

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Cluster is a NATS JetStream cluster of in-process servers on loopback
// ports, each with its own server name and file store under a test temp
// dir. Nodes can be stopped and started again on the same ports and
// store, which is how fault tests kill and revive them. A cluster of one
// node is a single server, not clustered: service replicas that share
// one NATS server. It is safe for concurrent use.
type Cluster struct {
	tb      testing.TB
	name    string
	opts    []*server.Options
	mu      sync.Mutex
	servers []*server.Server // nil while a node is stopped
}

// NewCluster starts a cluster of n nodes and waits until JetStream has a
// meta leader. The nodes are shut down when the test ends.
//
// Its ports are chosen free, then let go for the servers to bind (each
// node's routes must name the others' ports before any starts), so another
// process may take one in between: an outgoing connection of a test
// beside it takes an ephemeral port too. A node that cannot start then is
// not this cluster's fault, and the cluster is started again on other
// ports, at most three times.
func NewCluster(tb testing.TB, n int) *Cluster {
	tb.Helper()
	for attempt := 1; ; attempt++ {
		c := newCluster(tb, n)
		err := c.startAll()
		if err == nil {
			tb.Cleanup(c.StopAll)
			c.WaitReady(30 * time.Second)
			return c
		}
		c.StopAll()
		if attempt == 3 {
			tb.Fatal(err)
		}
		tb.Logf("%v; starting the cluster again on other ports", err)
	}
}

// newCluster configures a cluster of n nodes on free loopback ports.
func newCluster(tb testing.TB, n int) *Cluster {
	tb.Helper()
	dir := tb.TempDir()
	clientPorts, routePorts := freePorts(tb, n), freePorts(tb, n)
	var routes []string
	for _, p := range routePorts {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	c := &Cluster{tb: tb, name: "payauthz-test", servers: make([]*server.Server, n)}
	for i := range n {
		o := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1",
			Port:       clientPorts[i],
			JetStream:  true,
			StoreDir:   filepath.Join(dir, fmt.Sprintf("n%d", i+1)),
			NoSigs:     true,
			NoLog:      true,
			SyncAlways: true,
		}
		if n > 1 {
			// NoAdvertise: clients know only the URLs they were given, so a
			// test can isolate a replica by stopping the one node it uses.
			o.Cluster = server.ClusterOpts{Name: c.name, Host: "127.0.0.1", Port: routePorts[i], NoAdvertise: true}
			o.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		}
		c.opts = append(c.opts, o)
	}
	return c
}

// startAll starts every node of a new cluster, or says which could not.
func (c *Cluster) startAll() error {
	for i := range c.opts {
		if err := c.start(i); err != nil {
			return err
		}
	}
	return nil
}

// URLs returns the client URLs of every node (stopped ones included).
func (c *Cluster) URLs() []string {
	out := make([]string, len(c.opts))
	for i, o := range c.opts {
		out[i] = (&url.URL{Scheme: "nats", Host: fmt.Sprintf("%s:%d", o.Host, o.Port)}).String()
	}
	return out
}

// Start starts node i (0-based) if it is stopped, on its ports and store.
func (c *Cluster) Start(i int) {
	c.tb.Helper()
	if err := c.start(i); err != nil {
		c.tb.Fatal(err)
	}
}

func (c *Cluster) start(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.servers[i] != nil {
		return nil
	}
	o := *c.opts[i]
	o.Routes = append([]*url.URL(nil), c.opts[i].Routes...)
	s, err := server.NewServer(&o)
	if err != nil {
		return fmt.Errorf("nats node %d: %w", i+1, err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return fmt.Errorf("nats node %d did not start (client port %d, route port %d)", i+1, o.Port, o.Cluster.Port)
	}
	c.servers[i] = s
	return nil
}

// Stop shuts node i down (a crash from the clients' point of view: their
// connections drop).
func (c *Cluster) Stop(i int) {
	c.mu.Lock()
	s := c.servers[i]
	c.servers[i] = nil
	c.mu.Unlock()
	if s != nil {
		s.Shutdown()
		s.WaitForShutdown()
	}
}

// StopAll stops every node.
func (c *Cluster) StopAll() {
	for i := range c.opts {
		c.Stop(i)
	}
}

// StartAll starts every stopped node and waits for a meta leader.
func (c *Cluster) StartAll() {
	c.tb.Helper()
	for i := range c.opts {
		c.Start(i)
	}
	c.WaitReady(30 * time.Second)
}

// WaitReady waits until the running nodes agree on a JetStream meta
// leader that sees all of them online (the cluster can then place
// streams of up to that many replicas); a single server, until its
// JetStream is enabled.
func (c *Cluster) WaitReady(timeout time.Duration) {
	c.tb.Helper()
	if err := c.waitReady(timeout); err != nil {
		c.tb.Fatal(err)
	}
}

func (c *Cluster) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		var running []*server.Server
		for _, s := range c.servers {
			if s != nil {
				running = append(running, s)
			}
		}
		c.mu.Unlock()
		if len(c.opts) == 1 && len(running) == 1 && running[0].JetStreamEnabled() {
			return nil
		}
		ok := len(running) > 0 && len(c.opts) > 1
		for _, s := range running {
			if !s.JetStreamIsClustered() || !s.JetStreamIsCurrent() {
				ok = false
				break
			}
		}
		if ok {
			for _, s := range running {
				// The leader must also see every running node online with
				// its stats, or an R3 stream cannot be placed yet.
				if s.JetStreamIsLeader() && len(s.JetStreamClusterPeers()) >= len(running) {
					return nil
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("nats cluster: no JetStream meta leader in time")
}

func freePorts(tb testing.TB, n int) []int {
	tb.Helper()
	var ls []net.Listener
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return out
}
