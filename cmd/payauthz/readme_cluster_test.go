package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestReadmeCluster runs README.md's cluster block as written: it builds
// the images, starts three NATS nodes and two replicas with Compose (v2 or
// v1), writes on one replica and reads with the consistency token on the
// other, and drops everything. It needs a Docker engine and Compose, and
// the ports the README uses (8181, 8182); it skips, saying so, otherwise.
func TestReadmeCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the cluster block builds images and starts five containers")
	}
	if err := exec.Command("docker", "info").Run(); err != nil {
		t.Skip("no Docker engine: the README's cluster block is not run")
	}
	if exec.Command("docker", "compose", "version").Run() != nil && exec.Command("docker-compose", "version").Run() != nil {
		t.Skip("no Docker Compose (v1 or v2): the README's cluster block is not run")
	}
	for _, port := range []string{"8181", "8182"} {
		ln, err := net.Listen("tcp", ":"+port)
		if err != nil {
			t.Skipf("port %s is taken: the README's cluster block is not run", port)
		}
		ln.Close()
	}
	block := readmeBlock(t, "cluster")
	want := expectedCodes(block)
	project := fmt.Sprintf("payauthztest%d", os.Getpid())
	env := append(os.Environ(), "COMPOSE_PROJECT_NAME="+project)
	t.Cleanup(func() {
		for _, dc := range [][]string{{"docker", "compose"}, {"docker-compose"}} {
			cmd := exec.Command(dc[0], append(dc[1:], "down", "-v")...)
			cmd.Dir, cmd.Env = "../..", env
			if cmd.Run() == nil {
				return
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -eu\n"+block)
	cmd.Dir, cmd.Env = "../..", env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's cluster block failed: %v\n%s", err, out)
	}
	var got []string
	healthy := 0
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if len(line) == 3 && strings.Trim(line, "0123456789") == "" {
			got = append(got, line)
		}
		if strings.Contains(line, "(healthy)") {
			healthy++
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("status codes %v, the README promises %v\n%s", got, want, out)
	}
	if healthy != 5 {
		t.Fatalf("%d services healthy, want 5 (3 NATS, 2 replicas):\n%s", healthy, out)
	}
}
