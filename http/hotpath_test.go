package httpapi

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestParseBasicAllocatesOnce: parsing a basic Authorization header makes
// one allocation, the "user:password" string its two results share; the
// decoded bytes live on the stack. A header too long for that buffer
// (up to the 4096 bytes accepted) still parses.
func TestParseBasicAllocatesOnce(t *testing.T) {
	for _, tc := range []struct {
		name, user, pass string
	}{
		{"usual", "appA", "password-123"},
		// Credentials as an integrator's are (72 base64 characters): still
		// the one allocation.
		{"usual_longer", "gestionale-comune-di-esempio", "Una-Password-Lunga-2026!"},
		{"long_password", "appA", strings.Repeat("p", 3000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := "Basic " + base64.StdEncoding.EncodeToString([]byte(tc.user+":"+tc.pass))
			user, pass, ok := parseBasic(h)
			if !ok || user != tc.user || pass != tc.pass {
				t.Fatalf("parseBasic = %q %q %v", user, pass, ok)
			}
			if tc.name == "long_password" {
				return
			}
			if n := testing.AllocsPerRun(100, func() { _, _, _ = parseBasic(h) }); n != 1 {
				t.Errorf("%v allocations, want 1", n)
			}
		})
	}
	if _, _, ok := parseBasic("Basic " + base64.StdEncoding.EncodeToString([]byte("nocolon"))); ok {
		t.Error("a header without a colon was accepted")
	}
}
