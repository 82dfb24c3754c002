package domain

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseCitizen: what the identity proxy sends, and the fiscal code the
// citizen then authenticates under ("" when none: no citizen is that
// caller).
func TestParseCitizen(t *testing.T) {
	t.Parallel()
	citizens := map[string]string{
		"RSSMRA80A01H501U":       "RSSMRA80A01H501U",
		"  rssmra80a01h501u ":    "RSSMRA80A01H501U", // trimmed, upper-cased
		"TINIT-RSSMRA80A01H501U": "RSSMRA80A01H501U", // SPID's prefix stripped
		"tinit-rssmra80a01h501u": "RSSMRA80A01H501U",
		"01234567890":            "01234567890", // an organisation's 11 digits
		"RSSMRA80A01":            "RSSMRA80A01", // 11 characters
	}
	for raw, want := range citizens {
		if code, ok := ParseCitizen(raw); !ok || code != want {
			t.Errorf("ParseCitizen(%q) = %q, %v; want %q, true", raw, code, ok, want)
		}
	}
	for _, raw := range []string{
		AnonymousIdentificativo, // pagoPA's anonymous payer is no citizen
		"RSSMRA80A0",            // 10 characters
		"RSSMRA80A01H501UX",     // 17
		"RSSMRA80A01H501-",
		"RSSMRÀ80A01H501", // 16 bytes, one not A-Z0-9
		"TINIT-",
		"TINIT-TINIT-RSSMRA80A01H", // one prefix is stripped, not two
		"",
		// Upper-casing is ASCII's: a letter that is not ASCII does not
		// become the fiscal code it upper-cases into (ſ to S, ı to I, and
		// the TINIT- prefix's).
		"rſsmra80a01h501u",
		"RSSMRA80A01H50ıU",
		"tınit-RSSMRA80A01H501U",
	} {
		if code, ok := ParseCitizen(raw); ok {
			t.Errorf("ParseCitizen(%q) = %q, true; want no citizen", raw, code)
		}
	}
}

// FuzzParseCitizen: whatever the identity proxy sends, a citizen is read
// only from ASCII that is, after white space is trimmed and letters
// compared without case, the fiscal code or "TINIT-" and the fiscal code;
// a code read reads again as itself.
func FuzzParseCitizen(f *testing.F) {
	for _, s := range []string{"RSSMRA80A01H501U", "  rssmra80a01h501u ", "TINIT-RSSMRA80A01H501U", "tinit-01234567890",
		"TINIT-TINIT-RSSMRA80A01H", "rſsmra80a01h501u", "tınit-RSSMRA80A01H501U", "\u00a0RSSMRA80A01H501U\u0085",
		"RSSMRA80A01H501U\x00", "\xffRSSMRA80A01H501U", AnonymousIdentificativo, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		code, ok := ParseCitizen(raw)
		if !ok {
			return
		}
		if !ValidFiscalCode(code) {
			t.Fatalf("ParseCitizen(%q) = %q, not a fiscal code", raw, code)
		}
		s := strings.TrimSpace(raw)
		ascii := !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf })
		if !ascii || !strings.EqualFold(s, code) && !strings.EqualFold(s, "TINIT-"+code) {
			t.Fatalf("ParseCitizen(%q) = %q", raw, code)
		}
		if again, ok := ParseCitizen(code); !ok || again != code {
			t.Fatalf("ParseCitizen(%q) = %q, %v; want itself", code, again, ok)
		}
	})
}
