package logtree_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/payauthz/payauthz/projections/logtree"
)

// TestKeyGeneratedOnceWhenStartsRace: processes sharing a signing key
// path that start at once generate one key between them: each signs with
// the key the file holds, never with one another start replaced.
func TestKeyGeneratedOnceWhenStartsRace(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "log-signing.key")
	const starts = 8
	vkeys := make([]string, starts)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range starts {
		wg.Go(func() {
			<-start
			_, vkey, err := logtree.LoadOrCreateKey(path, "replica")
			if err != nil {
				t.Error(err)
			}
			vkeys[i] = vkey
		})
	}
	close(start)
	wg.Wait()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, inFile, err := logtree.ParseSigningKey(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vkeys {
		if v != inFile {
			t.Fatalf("start %d signs with %s; the file holds %s", i, v, inFile)
		}
	}
}
