package domain

import "testing"

func TestSameFlowDate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, stored, asked string
		want                bool
	}{
		{"same_date", "2026-01-03", "2026-01-03", true},
		{"date_as_midnight_utc", "2026-01-03", "2026-01-03T00:00:00Z", true},
		{"date_as_midnight_without_zone", "2026-01-03", "2026-01-03T00:00:00", true},
		{"date_as_midnight_with_millis", "2026-01-03", "2026-01-03T00:00:00.000", true},
		{"date_at_another_hour", "2026-01-03", "2026-01-03T10:00:00Z", false},
		{"another_date", "2026-01-03", "2026-01-04", false},
		{"same_instant_other_zone", "2026-01-03T10:00:00+01:00", "2026-01-03T09:00:00Z", true},
		{"same_date_time", "2026-01-03T10:00:00Z", "2026-01-03T10:00:00", true},
		{"another_time", "2026-01-03T10:00:00Z", "2026-01-03T10:00:01Z", false},
		{"asked_not_a_date", "2026-01-03", "03/01/2026", false},
		{"stored_not_a_date", "yesterday", "2026-01-03", false},
		{"empty", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := SameFlowDate(c.stored, c.asked); got != c.want {
				t.Fatalf("SameFlowDate(%q, %q) = %v, want %v", c.stored, c.asked, got, c.want)
			}
		})
	}
}
