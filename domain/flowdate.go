package domain

import "time"

// flowDateLayouts are the forms a settlement report's date takes: the
// node sends an RFC 3339 date-time or a date; GovPay's paths carry a
// date-time, often without a zone (read as UTC).
var flowDateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", time.DateOnly}

// ParseFlowDate parses a settlement report's date (a date alone is its
// midnight UTC); ok is false for anything else.
func ParseFlowDate(s string) (t time.Time, ok bool) {
	for _, l := range flowDateLayouts {
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
