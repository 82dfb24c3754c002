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

// TestRecordedDatesReadBack: every date a command records is one a path
// may name it by (ParseFlowDate reads back what ParseRecordedDate takes,
// the same instant), and a date-time without a zone is read on paths only.
func TestRecordedDatesReadBack(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"2026-01-03", "2026-01-03T10:00:00Z", "2026-01-03T10:00:00+01:00", "2026-01-03T10:00:00.123Z"} {
		rt, rok := ParseRecordedDate(s)
		ft, fok := ParseFlowDate(s)
		if !rok || !fok || !ft.Equal(rt) {
			t.Errorf("%q: recorded as %v (%v), read back as %v (%v)", s, rt, rok, ft, fok)
		}
	}
	if _, ok := ParseFlowDate("2026-01-03T10:00:00"); !ok {
		t.Error("a path's date-time without a zone is not read")
	}
	for _, s := range []string{"2026-01-03T10:00:00", "03/01/2026", ""} {
		if _, ok := ParseRecordedDate(s); ok {
			t.Errorf("%q is recorded", s)
		}
	}
}
