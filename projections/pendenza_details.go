package projections

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"

	"github.com/payauthz/payauthz/events"
)

// A version's GovPay details (events.PendenzaDetails: its voci and the
// fields of GovPay's pendenza that bear on no decision) are held packed in
// one string, as its payer is (see packSubject): annoRiferimento (a signed
// varint), each of pendenzaText's and pendenzaJSON's fields as a uvarint
// length then its bytes, then a uvarint count of voci and for each voce
// its amount (a signed varint) and each of voceText's and voceJSON's
// fields the same way; no details at all is "". A voce's fourteen fields,
// most of them empty, would cost 248 bytes of headers each as an
// events.Voce, and the pendenza's thirteen 232 more; packed they cost
// their bytes and one length byte each, and the details of a pendenza
// written without any one empty string. The string never changes, so a
// version's details share nothing a later version could alter; unpacking
// slices it for the strings and copies the JSON values (a
// json.RawMessage is mutable), so what a reader is handed is its own.
//
// allegati are not kept: GovPay answers them as paths to files (its
// AllegatoPendenza's contenuto, /allegati/{id}) this service does not
// serve, and a file's content in every version would outweigh the rest.

// minPackedVoce is the fewest bytes a packed voce takes: a one-byte
// amount and fourteen empty fields.
const minPackedVoce = 15

// pendenzaText lists the string fields of f in their packed order; its
// JSON values (pendenzaJSON) follow them.
func pendenzaText(f *events.PendenzaFields) [9]*string {
	return [9]*string{&f.Tassonomia, &f.TassonomiaAvviso, &f.Direzione, &f.Divisione, &f.CartellaPagamento,
		&f.DataValidita, &f.DataScadenza, &f.DataNotificaAvviso, &f.DataPromemoriaScadenza}
}

// pendenzaJSON lists the JSON values of f that are kept, in their packed
// order (not its allegati, see above).
func pendenzaJSON(f *events.PendenzaFields) [3]*json.RawMessage {
	return [3]*json.RawMessage{&f.DatiAllegati, &f.Documento, &f.Proprieta}
}

// voceText lists the string fields of v in their packed order; its two
// JSON values (voceJSON) follow them.
func voceText(v *events.Voce) [12]*string {
	f := &v.VoceFields
	return [12]*string{&f.IDVocePendenza, &f.Descrizione, &f.DescrizioneCausaleRPT, &f.IDDominio, &f.CodEntrata,
		&f.IBANAccredito, &f.IBANAppoggio, &f.TipoContabilita, &f.CodiceContabilita, &f.TipoBollo, &f.HashDocumento,
		&f.ProvinciaResidenza}
}

// voceJSON lists the JSON values of v in their packed order.
func voceJSON(v *events.Voce) [2]*json.RawMessage {
	return [2]*json.RawMessage{&v.DatiAllegati, &v.Contabilita}
}

// packDetails returns the packed form of d ("" when it holds nothing
// kept).
func packDetails(d events.PendenzaDetails) string {
	f := &d.PendenzaFields
	n := 2 * binary.MaxVarintLen64
	empty := len(d.Voci) == 0 && f.AnnoRiferimento == 0
	for _, s := range pendenzaText(f) {
		n += binary.MaxVarintLen16 + len(*s)
		empty = empty && *s == ""
	}
	for _, raw := range pendenzaJSON(f) {
		n += binary.MaxVarintLen16 + len(*raw)
		empty = empty && len(*raw) == 0
	}
	if empty {
		return ""
	}
	for i := range d.Voci {
		v := &d.Voci[i]
		n += binary.MaxVarintLen64 + 14*binary.MaxVarintLen16 + len(v.DatiAllegati) + len(v.Contabilita)
		for _, s := range voceText(v) {
			n += len(*s)
		}
	}
	b := binary.AppendVarint(make([]byte, 0, n), int64(f.AnnoRiferimento))
	for _, s := range pendenzaText(f) {
		b = appendString(b, *s)
	}
	for _, raw := range pendenzaJSON(f) {
		b = appendString(b, string(*raw))
	}
	b = binary.AppendUvarint(b, uint64(len(d.Voci)))
	for i := range d.Voci {
		v := &d.Voci[i]
		b = binary.AppendVarint(b, v.AmountCents)
		for _, s := range voceText(v) {
			b = appendString(b, *s)
		}
		for _, raw := range voceJSON(v) {
			b = appendString(b, string(*raw))
		}
	}
	return string(b)
}

var errPackedDetails = errors.New("malformed packed pendenza details")

// unpackDetails returns the details packed in p (the zero details for
// ""), or an error for a string packDetails did not write from decoded
// details (read from a damaged snapshot), a JSON field that is no JSON
// value included.
func unpackDetails(p string) (events.PendenzaDetails, error) {
	var d events.PendenzaDetails
	err := unpackDetailsInto(&d, p)
	return d, err
}

// unpackDetailsInto is unpackDetails into d, in the arrays d's voci and
// JSON values hold: a restore checks every record's details in one, where
// values of their own for each would be garbage. The arrays are kept
// whatever a record holds (a JSON value it has not is d's array emptied,
// not nil), so records without details or without a value do not make
// the next record's allocate again; from the zero d (unpackDetails) an
// absent value is nil.
func unpackDetailsInto(d *events.PendenzaDetails, p string) error {
	voci := d.Voci[:0]
	var raws [3]json.RawMessage // d's arrays, to fill again
	for i, raw := range pendenzaJSON(&d.PendenzaFields) {
		raws[i] = (*raw)[:0]
	}
	*d = events.PendenzaDetails{Voci: voci}
	for i, raw := range pendenzaJSON(&d.PendenzaFields) {
		*raw = raws[i]
	}
	if p == "" {
		return nil
	}
	r := snapReader{s: p}
	d.AnnoRiferimento = int(r.varint())
	for _, s := range pendenzaText(&d.PendenzaFields) {
		*s = r.str()
	}
	for _, raw := range pendenzaJSON(&d.PendenzaFields) {
		if !r.json(raw) {
			return errPackedDetails
		}
	}
	count := r.uvarint()
	if r.err != nil || count > uint64(len(r.s)/minPackedVoce) {
		return errPackedDetails
	}
	d.Voci = slices.Grow(voci, int(count))[:count]
	for i := range d.Voci {
		v := &d.Voci[i] // every field is read below
		v.AmountCents = r.varint()
		for _, s := range voceText(v) {
			*s = r.str()
		}
		for _, raw := range voceJSON(v) {
			if !r.json(raw) {
				return errPackedDetails
			}
		}
	}
	if r.err != nil || r.s != "" {
		return errPackedDetails
	}
	return nil
}

// json reads a packed JSON value into raw, a copy of its own (in raw's
// array when it has one), empty for none (nil when raw has no array), and
// reports whether it is one, as a decoded event holds: anything else no
// answer could encode.
func (r *snapReader) json(raw *json.RawMessage) bool {
	*raw = append((*raw)[:0], r.str()...)
	return len(*raw) == 0 || json.Valid(*raw)
}
