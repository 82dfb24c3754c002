package domain

import (
	"testing"
	"time"
)

// TestDateOf: the date of an instant is its day in Rome, on either side of
// midnight there and of both changes of the clock (the last Sundays of
// March and October).
func TestDateOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ at, want string }{
		{"2026-03-28T22:59:59Z", "2026-03-28"}, // 23:59:59 CET
		{"2026-03-28T23:30:00Z", "2026-03-29"}, // 00:30 CET: the UTC date is the day before
		{"2026-03-29T21:59:59Z", "2026-03-29"}, // 23:59:59 CEST, the day of 23 hours
		{"2026-03-29T22:00:00Z", "2026-03-30"},
		{"2026-06-30T21:59:59Z", "2026-06-30"},
		{"2026-06-30T22:00:00Z", "2026-07-01"},
		{"2026-10-24T22:00:00Z", "2026-10-25"}, // midnight CEST
		{"2026-10-25T22:59:59Z", "2026-10-25"}, // 23:59:59 CET, the day of 25 hours
		{"2026-10-25T23:00:00Z", "2026-10-26"},
		{"2026-07-01T01:30:00+05:00", "2026-06-30"}, // an instant is one whatever the zone it is written in
	} {
		at, err := time.Parse(time.RFC3339, c.at)
		if err != nil {
			t.Fatal(err)
		}
		if got := DateOf(at); got != c.want {
			t.Errorf("DateOf(%s) = %s, want %s", c.at, got, c.want)
		}
	}
}

// TestParseWindowBound: a bound of GovPay's window (dataDa, dataA) that is
// a date is the first instant of that day in Rome, or its last for the
// window's end, a day of 23 or 25 hours included; a date-time without a
// zone is Rome's wall clock (in the hour October repeats, its second
// time, standard time; in the hour March skips, an hour later); one with a
// zone is that instant.
func TestParseWindowBound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		bound string
		end   bool
		want  string
	}{
		{"2026-07-01", false, "2026-06-30T22:00:00Z"},
		{"2026-07-01", true, "2026-07-01T21:59:59.999999999Z"},
		{"2026-01-15", false, "2026-01-14T23:00:00Z"},
		{"2026-01-15", true, "2026-01-15T22:59:59.999999999Z"},
		{"2026-03-29", false, "2026-03-28T23:00:00Z"},
		{"2026-03-29", true, "2026-03-29T21:59:59.999999999Z"},
		{"2026-10-25", false, "2026-10-24T22:00:00Z"},
		{"2026-10-25", true, "2026-10-25T22:59:59.999999999Z"},
		{"2026-07-01T10:00:00", false, "2026-07-01T08:00:00Z"},
		{"2026-07-01T10:00:00.5", true, "2026-07-01T08:00:00.5Z"}, // a date-time is an instant, the end's too
		{"2026-10-25T02:30:00", false, "2026-10-25T01:30:00Z"},
		{"2026-03-29T02:30:00", false, "2026-03-29T01:30:00Z"},
		{"2026-07-01T10:00:00Z", false, "2026-07-01T10:00:00Z"},
		{"2026-07-01T10:00:00+05:00", true, "2026-07-01T05:00:00Z"},
	} {
		got, ok := ParseWindowBound(c.bound, c.end)
		if want, _ := time.Parse(time.RFC3339Nano, c.want); !ok || !got.Equal(want) {
			t.Errorf("ParseWindowBound(%q, end %v) = %v (%v), want %s", c.bound, c.end, got.UTC(), ok, c.want)
		}
	}
	for _, bad := range []string{"", "ieri", "2026-13-01", "2026-07-01T10:00", "01/07/2026"} {
		if _, ok := ParseWindowBound(bad, false); ok {
			t.Errorf("ParseWindowBound(%q) is a bound", bad)
		}
	}
}
