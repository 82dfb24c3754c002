package domain

import "testing"

func TestParseCitizen(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, raw, code string
		ok              bool
	}{
		{"person", "RSSMRA80A01H501U", "RSSMRA80A01H501U", true},
		{"lower_case_and_spaces", "  rssmra80a01h501u ", "RSSMRA80A01H501U", true},
		{"spid_prefix", "TINIT-RSSMRA80A01H501U", "RSSMRA80A01H501U", true},
		{"spid_prefix_lower_case", "tinit-rssmra80a01h501u", "RSSMRA80A01H501U", true},
		{"organisation", "01234567890", "01234567890", true},
		{"anonymous_payer_is_no_citizen", AnonymousIdentificativo, AnonymousIdentificativo, false},
		{"too_short", "RSSMRA80A01", "RSSMRA80A01", true},
		{"ten_characters", "RSSMRA80A0", "RSSMRA80A0", false},
		{"seventeen_characters", "RSSMRA80A01H501UX", "RSSMRA80A01H501UX", false},
		{"punctuation", "RSSMRA80A01H501-", "RSSMRA80A01H501-", false},
		{"prefix_alone", "TINIT-", "", false},
		{"empty", "", "", false},
		{"non_ascii", "RSSMRÀ80A01H501U", "RSSMRÀ80A01H501U", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, ok := ParseCitizen(c.raw)
			if code != c.code || ok != c.ok {
				t.Fatalf("ParseCitizen(%q) = %q, %v; want %q, %v", c.raw, code, ok, c.code, c.ok)
			}
		})
	}
}
