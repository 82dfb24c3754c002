package httpapi

import (
	"testing"

	"github.com/payauthz/payauthz/events"
)

// TestConsistencyTokenNamesItsBackend: a token is read back only by a
// service on the same backend; a token of the other backend, whose
// positions mean something else, is refused rather than misread.
func TestConsistencyTokenNamesItsBackend(t *testing.T) {
	cases := []struct {
		name    string
		backend string
		token   string
		want    events.Position
		ok      bool
	}{
		{"jetstream_reads_its_own", "jetstream", Token("jetstream", 42), 42, true},
		{"kurrentdb_reads_its_own", "kurrentdb", Token("kurrentdb", 1_234_567), 1_234_567, true},
		{"kurrentdb_refuses_jetstream", "kurrentdb", Token("jetstream", 42), 0, false},
		{"jetstream_refuses_kurrentdb", "jetstream", Token("kurrentdb", 42), 0, false},
		{"no_backend", "kurrentdb", "42", 0, false},
		{"backend_case_matters", "kurrentdb", "KurrentDB:42", 0, false},
		{"no_position", "kurrentdb", "kurrentdb:", 0, false},
		{"negative", "kurrentdb", "kurrentdb:-1", 0, false},
		{"overflow", "kurrentdb", "kurrentdb:18446744073709551616", 0, false},
		{"trailing_garbage", "kurrentdb", "kurrentdb:42x", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseToken(c.backend, c.token)
			if (err == nil) != c.ok || got != c.want {
				t.Fatalf("ParseToken(%q, %q) = %d, %v; want %d, ok=%v", c.backend, c.token, got, err, c.want, c.ok)
			}
		})
	}
}
