package commands

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzPatternsAgree checks that the patterns the OpenAPI document
// publishes accept exactly what the validators accept: PatternID refuses
// "." and ".." as ValidID does (it accepted them).
func FuzzPatternsAgree(f *testing.F) {
	for _, s := range []string{"", ".", "..", "a", "A-b_c.d", "x y", "é", "12345678901", "123456789012345678",
		"a23456789012345678901234567890123456", "a2345678901234567890123456789012345", "...", "a.", ".a", "-.",
		"a\x01b", "a\x7fb", "a\u0085b", "a\u00a0b", "\xff", "CN=app, O=Ente, C=IT"} {
		f.Add(s)
	}
	id, flusso := regexp.MustCompile(PatternID), regexp.MustCompile(PatternFlusso)
	dominio, avviso := regexp.MustCompile(PatternDominio), regexp.MustCompile(PatternAvviso)
	principal := regexp.MustCompile(PatternPrincipal)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidID(s), id.MatchString(s); got != want {
			t.Fatalf("ValidID(%q) = %v, pattern says %v", s, got, want)
		}
		if got, want := ValidFlusso(s), flusso.MatchString(s); got != want {
			t.Fatalf("ValidFlusso(%q) = %v, pattern says %v", s, got, want)
		}
		if got, want := ValidDominio(s), dominio.MatchString(s); got != want {
			t.Fatalf("ValidDominio(%q) = %v, pattern says %v", s, got, want)
		}
		if got, want := ValidAvviso(s), avviso.MatchString(s); got != want {
			t.Fatalf("ValidAvviso(%q) = %v, pattern says %v", s, got, want)
		}
		// A principal: 1 to MaxPrincipalLength bytes of UTF-8 (what the
		// document states beside the pattern) without the characters
		// unicode.IsControl reports.
		sized := s != "" && len(s) <= MaxPrincipalLength && utf8.ValidString(s)
		if got, want := ValidPrincipal(s), sized && principal.MatchString(s); got != want {
			t.Fatalf("ValidPrincipal(%q) = %v, pattern says %v", s, got, want)
		}
		if got, want := ValidPrincipal(s), sized && !strings.ContainsFunc(s, unicode.IsControl); got != want {
			t.Fatalf("ValidPrincipal(%q) = %v, unicode.IsControl says %v", s, got, want)
		}
	})
}
