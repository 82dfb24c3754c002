package httpapi

import (
	"fmt"
	"testing"
	"time"
)

func TestClientKey(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"127.0.0.1:5555", "127.0.0.1"},
		{"[::ffff:10.0.0.1]:80", "10.0.0.1"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "2001:db8:1:2::/64"}, // same /64, same key
		{"not an address", "not an address"},
	} {
		if got := clientKey(c.addr); got != c.want {
			t.Errorf("clientKey(%q) = %q, want %q", c.addr, got, c.want)
		}
	}
}

func TestTruncateUTF8(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"}, {"abcdef", 3, "abc"}, {"aèb", 2, "a"}, {"aèb", 3, "aè"}, {"", 0, ""},
	} {
		if got := truncateUTF8(c.s, c.n); got != c.want {
			t.Errorf("truncateUTF8(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// A limiter table holds at most its maximum of keys: idle keys (full
// buckets) are dropped first, and a table full of active keys is reset.
func TestLimiterTableIsBounded(t *testing.T) {
	now := time.Now()
	tb := newLimiterTable(1, 2, 100)
	for i := range 1000 {
		key := fmt.Sprintf("k%d", i)
		tb.fail(key, now)
		tb.fail(key, now)
		if len(tb.m) > 100 {
			t.Fatalf("%d keys, max 100", len(tb.m))
		}
	}
	tb.fail("a", now)
	tb.fail("a", now)
	if d := tb.delay("a", now); d <= 0 {
		t.Fatalf("delay after the burst = %v, want > 0", d)
	}
	if d := tb.delay("a", now.Add(2*time.Second)); d != 0 {
		t.Fatalf("delay after the refill = %v, want 0", d)
	}
	if d := tb.delay("never-failed", now); d != 0 {
		t.Fatalf("delay of a new key = %v", d)
	}
}
