package jetstream_test

import (
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

// The compose cluster's nats-server config fsyncs every write before its
// acknowledgement, as the README promises for R3.
func TestComposeNATSConfigSyncsAlways(t *testing.T) {
	opts, err := server.ProcessConfigFile("../../deploy/nats/jetstream.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !opts.SyncAlways || !opts.JetStream {
		t.Fatalf("SyncAlways=%v JetStream=%v, want both", opts.SyncAlways, opts.JetStream)
	}
}
