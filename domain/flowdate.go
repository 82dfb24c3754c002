package domain

import "time"

// Date layouts. What is recorded (a receipt's payment date, a settlement
// report's date, an incasso's dates) is an RFC 3339 date-time or a date;
// GovPay's paths also name a report by a date-time without a zone. A
// date, or a date-time without a zone, is read in Rome (GovPay's zone).
var (
	recordedDateLayouts = []string{time.RFC3339Nano, time.DateOnly}
	flowDateLayouts     = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", time.DateOnly}
)

// ParseRecordedDate parses a date as it is recorded: an RFC 3339
// date-time or a date (its midnight in Rome); ok is false for anything
// else.
// Every date it accepts ParseFlowDate reads back.
func ParseRecordedDate(s string) (t time.Time, ok bool) { return parseDate(s, recordedDateLayouts) }

// RecordedDateTime is a recorded date (ParseRecordedDate) as GovPay's
// date-time members write one: a date-time as written, a date its
// midnight in Rome (RFC 3339, Rome's offset). Anything else, which no
// command records, is returned as it is.
func RecordedDateTime(s string) string {
	if t, ok := ParseRecordedDate(s); ok && len(s) == len(time.DateOnly) {
		return t.Format(time.RFC3339)
	}
	return s
}

// RecordedDay is a recorded date (ParseRecordedDate) as GovPay's date
// members write one: a date as written, a date-time its day in Rome
// (DateOf). Anything else, which no command records, is returned as it is.
func RecordedDay(s string) string {
	if t, ok := ParseRecordedDate(s); ok {
		return DateOf(t)
	}
	return s
}

// ParseFlowDate parses a settlement report's date as a path names it:
// what ParseRecordedDate accepts, or a date-time without a zone (Rome's
// wall clock: in the hour October repeats, its second time, standard
// time; in the hour March skips, an hour later).
func ParseFlowDate(s string) (t time.Time, ok bool) { return parseDate(s, flowDateLayouts) }

func parseDate(s string, layouts []string) (time.Time, bool) {
	if !rfc3339Spelling(s) {
		return time.Time{}, false
	}
	for _, l := range layouts {
		if t, err := time.ParseInLocation(l, s, Rome); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// SameFlowDate reports whether asked (GovPay's dataOraFlusso) names the
// same instant as a stored report's date: the report is found only under
// its own date.
func SameFlowDate(stored, asked string) bool {
	s, ok1 := ParseFlowDate(stored)
	a, ok2 := ParseFlowDate(asked)
	return ok1 && ok2 && s.Equal(a)
}

// rfc3339Spelling reports whether s is spelt as RFC 3339 (section 5.6)
// writes a full-date or a date-time, its zone optional (the layouts
// decide whether one is required): two digits for each field of the time,
// '.' before a fraction, a numeric offset of at most 23:59. time.Parse
// alone also takes a one-digit hour, a ',' before the fraction and an
// offset of 24:00 or of 60 minutes, which no RFC 3339 writer produces:
// such a date is no date, not a second spelling of one.
func rfc3339Spelling(s string) bool {
	if !digitsAt(s, "dddd-dd-dd") {
		return false
	}
	s = s[len("2006-01-02"):]
	if s == "" {
		return true
	}
	if !digitsAt(s, "Tdd:dd:dd") {
		return false
	}
	s = s[len("T15:04:05"):]
	if len(s) > 1 && s[0] == '.' {
		n := 1
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 1 {
			return false
		}
		s = s[n:]
	}
	switch {
	case s == "" || s == "Z":
		return true
	case len(s) == len("+07:00") && (s[0] == '+' || s[0] == '-') && digitsAt(s[1:], "dd:dd"):
		return s[1:3] <= "23" && s[4:6] <= "59"
	}
	return false
}

// digitsAt reports whether s starts with shape, where 'd' stands for an
// ASCII digit and any other byte for itself.
func digitsAt(s, shape string) bool {
	if len(s) < len(shape) {
		return false
	}
	for i := 0; i < len(shape); i++ {
		if shape[i] == 'd' && (s[i] < '0' || s[i] > '9') || shape[i] != 'd' && s[i] != shape[i] {
			return false
		}
	}
	return true
}
