package commands

import (
	"regexp"
	"testing"
)

// FuzzPatternsAgree checks that the patterns the OpenAPI document
// publishes accept exactly what the validators accept.
func FuzzPatternsAgree(f *testing.F) {
	for _, s := range []string{"", ".", "..", "a", "A-b_c.d", "x y", "é", "12345678901", "123456789012345678",
		"a23456789012345678901234567890123456", "a2345678901234567890123456789012345"} {
		f.Add(s)
	}
	id, flusso := regexp.MustCompile(PatternID), regexp.MustCompile(PatternFlusso)
	dominio, avviso := regexp.MustCompile(PatternDominio), regexp.MustCompile(PatternAvviso)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidID(s), id.MatchString(s) && s != "." && s != ".."; got != want {
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
	})
}
