package jetstreamtest

import (
	"context"
	"testing"

	"github.com/payauthz/payauthz/events/jetstream"
)

// Open starts an embedded server with file storage in a temporary
// directory of t, closed when t ends: the store most tests run against.
func Open(t testing.TB) *jetstream.Store {
	t.Helper()
	s, err := jetstream.Open(context.Background(), jetstream.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("open the embedded store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
