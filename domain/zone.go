package domain

import (
	"time"
	// The zone's rules, for a host without its own (the FROM scratch
	// image has no /usr/share/zoneinfo): loading Rome must not fail
	// wherever this package runs, so the embed is here, not left to each
	// program's main.
	_ "time/tzdata"
)

// Rome is the zone of the service's days and wall clock, Europe/Rome:
// GovPay's, and its users'. A date (YYYY-MM-DD) the service reads or
// writes as GovPay's is a day there, and a date-time without a zone is a
// time of its clock. An instant with a zone is that instant whatever the
// zone; the log's own times (events, checkpoints, the audit tools) stay
// UTC.
var Rome = mustLoadZone("Europe/Rome")

// mustLoadZone loads the zone name: from the host's zoneinfo when it has
// one, else from the copy time/tzdata embeds, so it cannot fail.
func mustLoadZone(name string) *time.Location {
	l, err := time.LoadLocation(name)
	if err != nil {
		panic("domain: zone " + name + ": " + err.Error())
	}
	return l
}

// DateOf is the date (YYYY-MM-DD) of the instant t in Rome: the day an
// Italian user reckons it on, whatever the zone t is written in.
func DateOf(t time.Time) string { return t.In(Rome).Format(time.DateOnly) }

// ParseWindowBound reads a bound of a window of time as GovPay's lists
// take one (dataDa, dataA): a date-time is the instant ParseFlowDate
// reads (without a zone, Rome's clock); a date is the first instant of
// that day in Rome, or for the window's end (end) its last, so that the
// window keeps the whole day (of 23 or 25 hours when the clock changes).
// ok is false for anything ParseFlowDate does not read.
func ParseWindowBound(s string, end bool) (t time.Time, ok bool) {
	t, ok = ParseFlowDate(s)
	if ok && end && len(s) == len(time.DateOnly) {
		t = t.AddDate(0, 0, 1).Add(-time.Nanosecond) // in Rome: the next midnight there
	}
	return t, ok
}
