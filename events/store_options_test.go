package events

import (
	"io"
	"log/slog"
	"testing"
	"time"
)

// TestStoreOptionsDefaults: an unset option gets its default, a set one is
// kept; both backends open with these, so they cannot default apart.
func TestStoreOptionsDefaults(t *testing.T) {
	t.Parallel()
	got := StoreOptions{}.WithDefaults()
	if got.Codec != DefaultCodec || got.Logger != slog.Default() || got.ConnectTimeout != 10*time.Second {
		t.Fatalf("zero options: got %+v, want DefaultCodec, slog.Default() and 10s", got)
	}
	codec, logger := NewCodec(), slog.New(slog.NewTextHandler(io.Discard, nil))
	set := StoreOptions{Codec: codec, Logger: logger, ConnectTimeout: time.Second}
	if got := set.WithDefaults(); got != set {
		t.Fatalf("set options: got %+v, want them kept: %+v", got, set)
	}
	if got := (StoreOptions{ConnectTimeout: -time.Second}).WithDefaults(); got.ConnectTimeout != 10*time.Second {
		t.Fatalf("negative timeout: got %v, want the 10s default", got.ConnectTimeout)
	}
}
