package httpapi

import (
	"fmt"
	"strconv"
	"strings"
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
		tb.end(key, now, true)
		tb.end(key, now, true)
		if len(tb.m) > 100 {
			t.Fatalf("%d keys, max 100", len(tb.m))
		}
	}
	tb.end("a", now, true)
	tb.end("a", now, true)
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

// TestFailedLoginLogNamesRegisteredPrincipalsOnly: the service log's
// 'login failed' line names the principal whose password or key failed
// when that name is registered (an application, an operator, a node
// connector; one without a password of the kind too), and no one when it
// is not: an unregistered name is whatever the caller typed, a password in
// the wrong field among them, as the decision log names no unverified
// caller. The throttles still count each failure.
func TestFailedLoginLogNamesRegisteredPrincipalsOnly(t *testing.T) {
	log := newJSONLog()
	w := newWorld(t, withServiceLog(log.h))
	w.must(t, "PUT", bo+"/intermediari/int1", map[string]any{"denominazione": "Intermediario 1", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": nodeUser, "password": nodeSecr}})
	const notice = "/nodo/rs/basic/v1/intermediari/int1/avvisi/" + d1 + "/001234567890123456"
	cases := []struct {
		name      string
		send      func(typed string)
		principal string // "" when the line must name no one
	}{
		{"basic_wrong_password", func(string) {
			w.do(t, "GET", pe+"/pendenze", nil, asBasic("appA", "wrong-password-1")).expect(t, 401, "401000")
		}, "appA"},
		{"basic_unregistered_name", func(typed string) {
			w.do(t, "GET", pe+"/pendenze", nil, asBasic(typed, "wrong-password-1")).expect(t, 401, "401000")
		}, ""},
		{"basic_registered_without_password", func(string) {
			w.do(t, "GET", pe+"/pendenze", nil, asBasic("CN=app-ssl, O=Ente, C=IT", "wrong-password-1")).expect(t, 401, "401000")
		}, "CN=app-ssl, O=Ente, C=IT"},
		{"apikey_registered_without_key", func(string) {
			w.do(t, "GET", "/pendenze/rs/apikey/v2/pendenze", nil, asAPIKey("appA", "wrong-key-0123456789")).expect(t, 401, "401000")
		}, "appA"},
		{"apikey_unregistered_id", func(typed string) {
			w.do(t, "GET", "/pendenze/rs/apikey/v2/pendenze", nil, asAPIKey(typed, "wrong-key-0123456789")).expect(t, 401, "401000")
		}, ""},
		{"node_connector_wrong_password", func(string) {
			w.do(t, "GET", notice, nil, asBasic(nodeUser, "wrong-password-1")).expect(t, 401, "401000")
		}, nodeUser},
		{"node_unregistered_user", func(typed string) {
			w.do(t, "GET", notice, nil, asBasic(typed, "wrong-password-1")).expect(t, 401, "401000")
		}, ""},
		{"console_unregistered_user", func(typed string) {
			w.consoleClient(t).tryLogin(typed, "wrong-password-1")
		}, ""},
	}
	for _, c := range cases {
		typed := "typed-secret-" + c.name
		before := len(loginFailures(t, log))
		c.send(typed)
		lines := loginFailures(t, log)[before:]
		if len(lines) != 1 {
			t.Fatalf("%s: %d 'login failed' lines, want 1", c.name, len(lines))
		}
		want := ""
		if c.principal != "" {
			want = strconv.Quote(c.principal)
		}
		if got := lines[0]["principal"]; got != want || lines[0]["client"] == "" {
			t.Errorf("%s: principal %q, client %q; want principal %q and the client address", c.name, got, lines[0]["client"], want)
		}
		if strings.Contains(log.String(), typed) {
			t.Errorf("%s: the service log holds the unregistered name the caller typed", c.name)
		}
	}
}

// loginFailures is the 'login failed' records of log, in order.
func loginFailures(t *testing.T, log *jsonLog) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, rec := range log.records(t) {
		if rec["msg"] == "login failed" {
			out = append(out, rec)
		}
	}
	return out
}
