package console

import (
	"testing"
	"time"
)

// TestConsoleTimesAreRomes: the console shows an instant on Rome's clock,
// an Italian operator's (to the minute, or exactly with Rome's offset),
// and reads a form's date or date-time without a zone on it: a date is
// its first instant in Rome, and in the hour October repeats a time is its
// second, standard time.
func TestConsoleTimesAreRomes(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct{ at, ora, istante, quando string }{
		{"2026-03-28T23:30:00Z", "2026-03-29 00:30", "2026-03-29T00:30:00+01:00", "2026-03-29 00:30:00"},
		{"2026-07-01T10:00:00.5Z", "2026-07-01 12:00", "2026-07-01T12:00:00+02:00", "2026-07-01 12:00:00.5"},
		{"2026-10-25T00:30:00Z", "2026-10-25 02:30", "2026-10-25T02:30:00+02:00", "2026-10-25 02:30:00"},
		{"2026-10-25T01:30:00Z", "2026-10-25 02:30", "2026-10-25T02:30:00+01:00", "2026-10-25 02:30:00"},
	} {
		v := at(c.at)
		if got := ora(v); got != c.ora {
			t.Errorf("ora(%s) = %s, want %s", c.at, got, c.ora)
		}
		if got := istante(v); got != c.istante {
			t.Errorf("istante(%s) = %s, want %s", c.at, got, c.istante)
		}
		if got := quando(v); got != c.quando {
			t.Errorf("quando(%s) = %s, want %s", c.at, got, c.quando)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"2026-07-01", "2026-06-30T22:00:00Z"},
		{"2026-01-15", "2026-01-14T23:00:00Z"},
	} {
		if got, err := giorno(c.in); err != nil || !got.Equal(at(c.want)) {
			t.Errorf("giorno(%s) = %v (%v), want %s", c.in, got.UTC(), err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"2026-07-01T12:00", "2026-07-01T10:00:00Z"},
		{"2026-07-01T12:00:30", "2026-07-01T10:00:30Z"},
		{"2026-10-25T02:30", "2026-10-25T01:30:00Z"},
		{"2026-01-15T00:00", "2026-01-14T23:00:00Z"},
	} {
		if got, err := oraDelModulo(c.in); err != nil || !got.Equal(at(c.want)) {
			t.Errorf("oraDelModulo(%s) = %v (%v), want %s", c.in, got.UTC(), err, c.want)
		}
	}
	for _, bad := range []string{"ieri", "2026-07-01", "2026-07-01T12:00Z", "01/07/2026 12:00"} {
		if _, err := oraDelModulo(bad); err == nil {
			t.Errorf("oraDelModulo(%q) is read", bad)
		}
	}
}
