package domain

import "testing"

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
