package projections

import (
	"encoding/binary"
	"errors"
	"strings"

	"github.com/payauthz/payauthz/events"
)

// A payer is held packed in one string: each field of events.Subject, in
// subjectFields order, as a uvarint length then its bytes; the zero
// Subject is "". Most of GovPay's eleven fields are empty, so a pendenza's
// payer costs one string header and a few bytes instead of eleven string
// headers (176 bytes); unpacking slices the string and never allocates.

// subjectFields lists the fields of s in their packed order.
func subjectFields(s *events.Subject) [11]*string {
	return [11]*string{&s.Tipo, &s.Identificativo, &s.Anagrafica, &s.Email, &s.Indirizzo, &s.Civico,
		&s.CAP, &s.Localita, &s.Provincia, &s.Nazione, &s.Cellulare}
}

// packSubject returns the packed form of s.
func packSubject(s events.Subject) string {
	if s == (events.Subject{}) {
		return ""
	}
	fields := subjectFields(&s)
	n := 0
	for _, f := range fields {
		n += binary.MaxVarintLen16 + len(*f)
	}
	var sb strings.Builder
	sb.Grow(n)
	var l [binary.MaxVarintLen16]byte
	for _, f := range fields {
		sb.Write(binary.AppendUvarint(l[:0], uint64(len(*f))))
		sb.WriteString(*f)
	}
	return sb.String()
}

var errPackedSubject = errors.New("malformed packed payer")

// unpackSubject returns the Subject packed in p, or an error for a string
// packSubject did not write (read from a damaged snapshot).
func unpackSubject(p string) (events.Subject, error) {
	var s events.Subject
	if p == "" {
		return s, nil
	}
	r := snapReader{s: p}
	for _, f := range subjectFields(&s) {
		*f = r.str()
	}
	if r.err != nil || r.s != "" {
		return events.Subject{}, errPackedSubject
	}
	return s, nil
}
