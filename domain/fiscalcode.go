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

// ParseCitizen returns the fiscal code a citizen authenticates under from
// what a trusted identity proxy sends (API.md section 2, spid): trimmed,
// upper-cased, its "TINIT-" prefix stripped. ok is false when the rest is
// not a fiscal code: no citizen is that caller (AnonymousIdentificativo
// included).
func ParseCitizen(raw string) (code string, ok bool) {
	code = strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(raw)), "TINIT-")
	return code, ValidFiscalCode(code)
}
