package projections

import (
	"testing"

	"github.com/payauthz/payauthz/events"
)

func TestPackSubjectRoundTrip(t *testing.T) {
	for _, s := range []events.Subject{
		{},
		{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "Mario Rossi"},
		{Tipo: "G", Identificativo: "01234567890", Anagrafica: "Ditta", Email: "d@example.it", Indirizzo: "Via Roma",
			Civico: "1", CAP: "00100", Localita: "Roma", Provincia: "RM", Nazione: "IT", Cellulare: "+39 333"},
		{Cellulare: "only the last field"},
	} {
		got, err := unpackSubject(packSubject(s))
		if err != nil || got != s {
			t.Errorf("round trip of %+v: %+v, %v", s, got, err)
		}
	}
}

// FuzzUnpackSubject: whatever a damaged snapshot holds, unpacking answers
// a Subject or an error, never a panic, and what it answers survives a
// round trip.
func FuzzUnpackSubject(f *testing.F) {
	f.Add(packSubject(events.Subject{Tipo: "F", Identificativo: "X", Email: "e"}))
	f.Add("\x01")
	f.Add("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01")
	// Empty, a length past the end, a varint cut short, data after the
	// last field, a field that is not UTF-8.
	f.Add("")
	f.Add("\x05ab")
	f.Add("\x80")
	f.Add(packSubject(events.Subject{Tipo: "F"}) + "x")
	f.Add(packSubject(events.Subject{Anagrafica: "\xff\x00"}))
	f.Fuzz(func(t *testing.T, p string) {
		s, err := unpackSubject(p)
		if err != nil {
			return
		}
		if again, err := unpackSubject(packSubject(s)); err != nil || again != s {
			t.Fatalf("%q unpacked as %+v, which does not survive a round trip: %+v, %v", p, s, again, err)
		}
	})
}
