package domain

import "testing"

func TestIUVOfNotice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, avviso, want string
	}{
		{"aux_3_segregation_code", "301000000000012345", "01000000000012345"},
		{"aux_0_application_code", "012123456789012345", "123456789012345"},
		{"aux_1", "112345678901234567", "12345678901234567"},
		{"aux_2", "212345678901234567", "12345678901234567"},
		{"aux_4_outside_pagopa_still_drops_aux_digit", "412345678901234567", "12345678901234567"},
		{"aux_9_outside_pagopa_still_drops_aux_digit", "998765432109876543", "98765432109876543"},
		{"too_short", "30100000000001234", ""},
		{"not_digits", "30100000000001234X", ""},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := IUVOfNotice(c.avviso); got != c.want {
				t.Fatalf("IUVOfNotice(%q) = %q, want %q", c.avviso, got, c.want)
			}
		})
	}
}
