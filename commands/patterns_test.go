package commands

import (
	"regexp"
	"strings"
	"testing"
)

// TestPatternsMatchTheValidators: the published patterns accept and refuse
// what the validators do.
func TestPatternsMatchTheValidators(t *testing.T) {
	for _, c := range []struct {
		pattern string
		valid   func(string) bool
	}{{PatternDominio, ValidDominio}, {PatternID, ValidID}, {PatternAvviso, ValidAvviso}, {PatternFlusso, ValidFlusso}} {
		re := regexp.MustCompile(c.pattern)
		for _, s := range []string{"", "01234567890", "0123456789", "012345678901234567", "abc", "a.b_c-D",
			strings.Repeat("a", 35), strings.Repeat("a", 36), strings.Repeat("a", 70), strings.Repeat("a", 71), "a b", "a/b", "è"} {
			if re.MatchString(s) != c.valid(s) {
				t.Errorf("%s on %q: pattern %v, validator %v", c.pattern, s, re.MatchString(s), c.valid(s))
			}
		}
	}
}
