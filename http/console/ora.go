package console

import (
	"time"

	"github.com/payauthz/payauthz/domain"
)

// The console shows and reads times on Rome's clock (domain.Rome), an
// Italian operator's; the APIs and the log keep their exact instants.

// ora is an instant to the minute, on Rome's clock: 2006-01-02 15:04.
func ora(t time.Time) string { return t.In(domain.Rome).Format("2006-01-02 15:04") }

// istante is an instant to the second with Rome's offset (RFC 3339): the
// clock an operator reads, and exact across the hour October repeats.
func istante(t time.Time) string { return t.In(domain.Rome).Format(time.RFC3339) }

// quando is an instant of the log's history on Rome's clock, as the
// Audit page's form reads it, to the nanosecond it holds:
// 2006-01-02 15:04:05.999999999.
func quando(t time.Time) string { return t.In(domain.Rome).Format("2006-01-02 15:04:05.999999999") }

// giorno reads a form's date (AAAA-MM-GG): its first instant in Rome.
func giorno(s string) (time.Time, error) { return time.ParseInLocation(time.DateOnly, s, domain.Rome) }

// oraDelModulo reads a browser's datetime-local, to the minute or the
// second and without a zone, on Rome's clock (in the hour October
// repeats, its second time, standard time, as domain.ParseFlowDate).
func oraDelModulo(s string) (time.Time, error) {
	t, err := time.ParseInLocation("2006-01-02T15:04", s, domain.Rome)
	if err != nil {
		t, err = time.ParseInLocation("2006-01-02T15:04:05", s, domain.Rome)
	}
	return t, err
}
