package domain

import "time"

// Date layouts. What is recorded (a receipt's payment date, a settlement
// report's date, an incasso's dates) is an RFC 3339 date-time or a date;
// GovPay's paths also name a report by a date-time without a zone (read
// as UTC).
var (
	recordedDateLayouts = []string{time.RFC3339Nano, time.DateOnly}
	flowDateLayouts     = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", time.DateOnly}
)

// ParseRecordedDate parses a date as it is recorded: an RFC 3339
// date-time or a date (its midnight UTC); ok is false for anything else.
// Every date it accepts ParseFlowDate reads back.
func ParseRecordedDate(s string) (t time.Time, ok bool) { return parseDate(s, recordedDateLayouts) }

// ParseFlowDate parses a settlement report's date as a path names it:
// what ParseRecordedDate accepts, or a date-time without a zone (UTC).
func ParseFlowDate(s string) (t time.Time, ok bool) { return parseDate(s, flowDateLayouts) }

func parseDate(s string, layouts []string) (time.Time, bool) {
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
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
