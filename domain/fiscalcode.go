package domain

import "strings"

// ValidFiscalCode reports whether s, already upper-cased, has the form of
// a fiscal code as the contract checks it (API.md section 5:
// `^[A-Z0-9]{11,16}$`, which holds a person's 16 characters and an
// organisation's 11 digits). It does not allocate.
func ValidFiscalCode(s string) bool {
	if len(s) < 11 || len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

// NormalFiscalCode is raw as a fiscal code is compared: surrounding white
// space trimmed, ASCII letters upper-cased. Only ASCII's: a letter that is
// not ASCII stays as it is (and fails ValidFiscalCode), where Unicode's
// upper case would turn "ſ" into "S" and "ı" into "I", so that a value
// that is no fiscal code would read as one.
func NormalFiscalCode(raw string) string {
	s := strings.TrimSpace(raw)
	for i := 0; i < len(s); i++ {
		if s[i] >= 'a' && s[i] <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'a' && b[j] <= 'z' {
					b[j] -= 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// ParseCitizen returns the fiscal code a citizen authenticates under from
// what a trusted identity proxy sends (API.md section 2, spid):
// NormalFiscalCode, its "TINIT-" prefix stripped. ok is false when the
// rest is not a fiscal code: no citizen is that caller
// (AnonymousIdentificativo included).
func ParseCitizen(raw string) (code string, ok bool) {
	code = strings.TrimPrefix(NormalFiscalCode(raw), "TINIT-")
	return code, ValidFiscalCode(code)
}
