package projections

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"

	"github.com/payauthz/payauthz/events"
)

// A pendenza's voci are held packed in one string, as its payer is (see
// packSubject): a uvarint count, then for each voce its amount (a signed
// varint) and each field of vocePacked's order as a uvarint length then
// its bytes; no voci is "". A voce's fourteen fields, most of them empty,
// would cost 248 bytes of headers each as an events.Voce; packed they
// cost their bytes and one length byte each, and the details of a
// pendenza without voci one empty string. The string never changes, so a
// version's details share nothing a later version could alter; unpacking
// slices it for the strings and copies the JSON values (a json.RawMessage
// is mutable), so what a reader is handed is its own.

// minPackedVoce is the fewest bytes a packed voce takes: a one-byte
// amount and fourteen empty fields.
const minPackedVoce = 15

// voceText lists the string fields of v in their packed order; its two
// JSON values (datiAllegati, contabilita) follow them.
func voceText(v *events.Voce) [12]*string {
	f := &v.VoceFields
	return [12]*string{&f.IDVocePendenza, &f.Descrizione, &f.DescrizioneCausaleRPT, &f.IDDominio, &f.CodEntrata,
		&f.IBANAccredito, &f.IBANAppoggio, &f.TipoContabilita, &f.CodiceContabilita, &f.TipoBollo, &f.HashDocumento,
		&f.ProvinciaResidenza}
}

// packVoci returns the packed form of voci.
func packVoci(voci []events.Voce) string {
	if len(voci) == 0 {
		return ""
	}
	n := binary.MaxVarintLen64
	for i := range voci {
		v := &voci[i]
		n += binary.MaxVarintLen64 + 14*binary.MaxVarintLen16 + len(v.DatiAllegati) + len(v.Contabilita)
		for _, f := range voceText(v) {
			n += len(*f)
		}
	}
	b := binary.AppendUvarint(make([]byte, 0, n), uint64(len(voci)))
	for i := range voci {
		v := &voci[i]
		b = binary.AppendVarint(b, v.AmountCents)
		for _, f := range voceText(v) {
			b = appendString(b, *f)
		}
		b = appendString(b, string(v.DatiAllegati))
		b = appendString(b, string(v.Contabilita))
	}
	return string(b)
}

var errPackedVoci = errors.New("malformed packed voci")

// unpackVoci returns the voci packed in p (nil for none), or an error for
// a string packVoci did not write from decoded voci (read from a damaged
// snapshot), a datiAllegati or contabilita that is no JSON value included.
func unpackVoci(p string) ([]events.Voce, error) { return unpackVociInto(nil, p) }

// unpackVociInto is unpackVoci into dst's array when it holds them (dst
// itself when there are none): a restore checks every record's voci in
// one, where a slice of its own for each would be garbage.
func unpackVociInto(dst []events.Voce, p string) ([]events.Voce, error) {
	if p == "" {
		return dst[:0], nil
	}
	r := snapReader{s: p}
	count := r.uvarint()
	if r.err != nil || count == 0 || count > uint64(len(r.s)/minPackedVoce) {
		return dst[:0], errPackedVoci
	}
	voci := slices.Grow(dst[:0], int(count))[:count]
	for i := range voci {
		v := &voci[i] // every field is read below
		v.AmountCents = r.varint()
		for _, f := range voceText(v) {
			*f = r.str()
		}
		for _, raw := range [...]*json.RawMessage{&v.DatiAllegati, &v.Contabilita} {
			s := r.str()
			if s == "" {
				*raw = nil
				continue
			}
			// A copy of its own (in dst's when it has one); a JSON value,
			// as a decoded event holds: anything else no answer could
			// encode.
			if *raw = append((*raw)[:0], s...); !json.Valid(*raw) {
				return voci[:0], errPackedVoci
			}
		}
	}
	if r.err != nil || r.s != "" {
		return voci[:0], errPackedVoci
	}
	return voci, nil
}
