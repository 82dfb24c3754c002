package domain

import (
	"regexp"
	"testing"
	"time"
)

func TestSameFlowDate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, stored, asked string
		want                bool
	}{
		{"same_date", "2026-01-03", "2026-01-03", true},
		{"date_as_midnight_in_rome", "2026-01-03", "2026-01-02T23:00:00Z", true},
		{"date_as_midnight_rome_offset", "2026-01-03", "2026-01-03T00:00:00+01:00", true},
		{"date_not_midnight_utc", "2026-01-03", "2026-01-03T00:00:00Z", false},
		{"date_as_midnight_without_zone", "2026-01-03", "2026-01-03T00:00:00", true},
		{"date_as_midnight_with_millis", "2026-01-03", "2026-01-03T00:00:00.000", true},
		{"summer_date_as_midnight_in_rome", "2026-07-01", "2026-06-30T22:00:00Z", true},
		{"date_on_the_day_of_23_hours", "2026-03-29", "2026-03-28T23:00:00Z", true},
		{"date_on_the_day_of_25_hours", "2026-10-25", "2026-10-24T22:00:00Z", true},
		{"date_at_another_hour", "2026-01-03", "2026-01-03T10:00:00Z", false},
		{"another_date", "2026-01-03", "2026-01-04", false},
		{"same_instant_other_zone", "2026-01-03T10:00:00+01:00", "2026-01-03T09:00:00Z", true},
		{"same_date_time_rome_wall_clock", "2026-01-03T10:00:00Z", "2026-01-03T11:00:00", true},
		{"date_time_without_zone_not_utc", "2026-01-03T10:00:00Z", "2026-01-03T10:00:00", false},
		{"summer_wall_clock", "2026-07-01T10:00:00Z", "2026-07-01T12:00:00", true},
		{"repeated_hour_is_standard_time", "2026-10-25T01:30:00Z", "2026-10-25T02:30:00", true},
		{"repeated_hour_not_summer_time", "2026-10-25T00:30:00Z", "2026-10-25T02:30:00", false},
		{"skipped_hour_an_hour_later", "2026-03-29T01:30:00Z", "2026-03-29T02:30:00", true},
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
	for _, s := range []string{"2026-01-03", "2026-03-29", "2026-10-25", "2026-01-03T10:00:00Z", "2026-01-03T10:00:00+01:00", "2026-01-03T10:00:00.123Z"} {
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
	// What time.Parse alone takes and RFC 3339 does not write: a one-digit
	// hour, a comma before the fraction, offsets of 24 hours or 60 minutes.
	for _, s := range []string{"2026-01-03T9:00:00Z", "2026-01-03T10:00:00,5Z", "2026-01-03T10:00:00+24:00",
		"2026-01-03T10:00:00+23:60", "2026-01-03T9:00:00", "2026-01-03T10:00:00,5"} {
		if _, ok := ParseFlowDate(s); ok {
			t.Errorf("%q is read as a date", s)
		}
	}
}

// rfc3339 is RFC 3339's grammar (section 5.6) of a full-date or a
// date-time, and the date-time without a zone a path may name: a second
// reading of the dates ParseRecordedDate and ParseFlowDate accept.
var rfc3339 = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])` +
	`(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(?P<zone>Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?)?$`)

// FuzzFlowDate: a date is recorded only when RFC 3339 writes it, a path's
// date also as a date-time without zone; ParseFlowDate reads back every
// recorded date, and a report is found under its own date and the other
// spellings of its instant, and not under the next instant.
func FuzzFlowDate(f *testing.F) {
	for _, s := range []string{"2026-01-03", "2026-01-03T10:00:00Z", "2026-01-03T10:00:00+01:00", "2026-01-03T10:00:00.123Z",
		"2026-01-03T10:00:00", "2026-01-03T10:00:00.5", "0000-01-01T00:00:00+01:00", "9999-12-31T23:59:59.999999999Z",
		"2026-02-29", "2026-01-03T24:00:00Z", "2026-01-03T10:00:00-00:00", "03/01/2026", "",
		// A leap second, RFC 3339's lower-case t and z, a day past the
		// month's end, a five-digit year, white space, a time alone.
		"2026-12-31T23:59:60Z", "2026-01-03t10:00:00z", "2026-04-31", "10000-01-01", " 2026-01-03", "10:00:00Z"} {
		f.Add(s)
	}
	zone := rfc3339.SubexpIndex("zone")
	f.Fuzz(func(t *testing.T, s string) {
		rt, rok := ParseRecordedDate(s)
		ft, fok := ParseFlowDate(s)
		m := rfc3339.FindStringSubmatch(s)
		withZone := m != nil && (len(s) == len("2006-01-02") || m[zone] != "")
		if rok && !withZone {
			t.Fatalf("%q recorded: RFC 3339 does not write it", s)
		}
		if fok && m == nil {
			t.Fatalf("%q read as a flow date: RFC 3339 does not write it", s)
		}
		if rok && (!fok || !ft.Equal(rt)) {
			t.Fatalf("%q recorded as %v, read back as %v (%v)", s, rt, ft, fok)
		}
		if !fok {
			if SameFlowDate(s, s) {
				t.Fatalf("%q is no date but names a report", s)
			}
			return
		}
		asked := []string{s}
		if u := ft.UTC(); u.Year() >= 0 && u.Year() <= 9999 {
			asked = append(asked, u.Format(time.RFC3339Nano))
		}
		if r := ft.In(Rome); r.Year() >= 0 && r.Year() <= 9999 {
			// Rome's wall clock names the instant, but for the hour
			// October repeats, whose two instants it reads as the second.
			wall := r.Format("2006-01-02T15:04:05.999999999")
			if back, _ := ParseFlowDate(wall); back.Equal(ft) {
				asked = append(asked, wall)
			} else if back.In(Rome).Format("2006-01-02T15:04:05.999999999") != wall {
				t.Fatalf("the wall clock %q of %q is read as %v", wall, s, back)
			}
			// An offset of whole minutes is one RFC 3339 writes (Rome's
			// mean time before 1893 was not).
			if _, off := r.Zone(); off%60 == 0 {
				asked = append(asked, r.Format(time.RFC3339Nano))
			}
		}
		for _, a := range asked {
			if !SameFlowDate(s, a) {
				t.Fatalf("the report of %q is not found under %q", s, a)
			}
		}
		if next := ft.Add(time.Nanosecond).UTC().Format(time.RFC3339Nano); SameFlowDate(s, next) {
			t.Fatalf("the report of %q is found under %q", s, next)
		}
	})
}

// TestRecordedDateAs: a recorded date answered as GovPay's date-time (a
// date-time as written, a date its midnight in Rome) or date (a date as
// written, a date-time its day in Rome); what is not a recorded date is
// answered as it is.
func TestRecordedDateAs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, dateTime, date string }{
		{"2026-01-03", "2026-01-03T00:00:00+01:00", "2026-01-03"},
		{"2026-07-03", "2026-07-03T00:00:00+02:00", "2026-07-03"},
		{"2026-01-03T10:00:00Z", "2026-01-03T10:00:00Z", "2026-01-03"},
		{"2026-01-03T23:30:00Z", "2026-01-03T23:30:00Z", "2026-01-04"},
		{"2026-01-04T00:30:00+02:00", "2026-01-04T00:30:00+02:00", "2026-01-03"},
		{"", "", ""},
	} {
		if got := RecordedDateTime(c.in); got != c.dateTime {
			t.Errorf("RecordedDateTime(%q) = %q, want %q", c.in, got, c.dateTime)
		}
		if got := RecordedDay(c.in); got != c.date {
			t.Errorf("RecordedDay(%q) = %q, want %q", c.in, got, c.date)
		}
	}
}
