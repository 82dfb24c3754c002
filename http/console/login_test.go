package console

import "testing"

// TestSafeNext: a post-login destination stays inside the console, dot
// segments (plain or escaped) resolved as the browser resolves them.
func TestSafeNext(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ next, want string }{
		{"/console/ruoli/opD1", "/console/ruoli/opD1"},
		{"/console/pendenze?idDominio=01234567890#x", "/console/pendenze?idDominio=01234567890#x"},
		{"/console/", "/console/"},
		{"/console/../metrics", "/console/"},
		{"/console/a/../../x", "/console/"},
		{"/console/%2e%2e/x", "/console/"},
		{"/console/%2E%2e/%2e%2e/x", "/console/"},
		{"/console/a/../b", "/console/a/../b"},
		{"/console/%zz", "/console/"},
		{"//evil.example/console/", "/console/"},
		{"/console/\\evil", "/console/"},
		{"/console/.\t./metrics", "/console/"},   // a browser drops tabs and newlines from a URL: /metrics
		{"/console/.\x7f./metrics", "/console/"}, // no control character reaches the Location header
		{"https://evil.example/console/", "/console/"},
		{"", "/console/"},
	} {
		if got := safeNext(c.next); got != c.want {
			t.Errorf("safeNext(%q) = %q, want %q", c.next, got, c.want)
		}
	}
}
