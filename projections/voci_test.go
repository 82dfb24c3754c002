package projections

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
)

// vociOfEveryKind are voci of the three kinds GovPay knows (an entrata,
// IBANs with an accounting code, a stamp), every field of a voce set in
// one of them.
var vociOfEveryKind = []events.Voce{
	{AmountCents: 10000, VoceFields: events.VoceFields{IDVocePendenza: "v1", Descrizione: "Tassa", DescrizioneCausaleRPT: "TARI 2026",
		CodEntrata: "SRV-1", DatiAllegati: json.RawMessage(`{"riga":1}`)}},
	{AmountCents: 2345, VoceFields: events.VoceFields{IDVocePendenza: "v2", Descrizione: "Addizionale", IDDominio: "01234567890",
		IBANAccredito: "IT60X0542811101000000123456", IBANAppoggio: "IT60X0542811101000000654321", TipoContabilita: "SIOPE",
		CodiceContabilita: "3321", Contabilita: json.RawMessage(`{"quote":[]}`)}},
	{AmountCents: 0, VoceFields: events.VoceFields{IDVocePendenza: "v3", Descrizione: "Bollo", TipoBollo: "01",
		HashDocumento: "aGFzaA==", ProvinciaResidenza: "RM"}},
}

func TestPackVociRoundTrip(t *testing.T) {
	for _, voci := range [][]events.Voce{nil, vociOfEveryKind[:1], vociOfEveryKind} {
		got, err := unpackVoci(packVoci(voci))
		if err != nil || !reflect.DeepEqual(got, voci) {
			t.Errorf("round trip of %+v: %+v, %v", voci, got, err)
		}
	}
	// What one reader is handed is its own: changing it changes no other
	// read of the same version.
	p := packVoci(vociOfEveryKind)
	first, _ := unpackVoci(p)
	first[0].DatiAllegati[0] = '['
	if again, _ := unpackVoci(p); !reflect.DeepEqual(again, vociOfEveryKind) {
		t.Fatalf("a reader's change reached the stored voci: %+v", again)
	}
}

// FuzzUnpackVoci: whatever a damaged snapshot holds, unpacking answers
// voci or an error, never a panic, and what it answers encodes as JSON and
// survives a round trip.
func FuzzUnpackVoci(f *testing.F) {
	f.Add(packVoci(vociOfEveryKind))
	// Empty, no voci counted, a count past the bytes, a voce cut short,
	// data after the last voce.
	f.Add("")
	f.Add("\x00")
	f.Add("\xff\xff\xff\xff\x0f")
	f.Add(packVoci(vociOfEveryKind)[:20])
	f.Add(packVoci(vociOfEveryKind[:1]) + "x")
	// Values no decoded event holds: not JSON.
	f.Add(packVoci([]events.Voce{{VoceFields: events.VoceFields{IDVocePendenza: "v", DatiAllegati: json.RawMessage("{")}}}))
	f.Add(packVoci([]events.Voce{{VoceFields: events.VoceFields{IDVocePendenza: "v", Contabilita: json.RawMessage("x")}}}))
	f.Fuzz(func(t *testing.T, p string) {
		voci, err := unpackVoci(p)
		if err != nil {
			return
		}
		if _, err := json.Marshal(voci); err != nil {
			t.Fatalf("%q unpacked as voci no answer can encode: %v", p, err)
		}
		if again, err := unpackVoci(packVoci(voci)); err != nil || !reflect.DeepEqual(again, voci) {
			t.Fatalf("%q unpacked as %+v, which does not survive a round trip: %+v, %v", p, voci, again, err)
		}
	})
}

// TestPackVociKeepsEveryField: packVoci names a voce's fields in a list
// of its own (voceText), so a field added to events.VoceFields would be
// dropped by the read model without a word. Every field, whatever it is,
// is set here by reflection and must survive the round trip.
func TestPackVociKeepsEveryField(t *testing.T) {
	var v events.Voce
	v.AmountCents = -7
	fields := reflect.ValueOf(&v.VoceFields).Elem()
	for i := range fields.NumField() {
		f := fields.Field(i)
		switch {
		case f.Kind() == reflect.String:
			f.SetString(fields.Type().Field(i).Name)
		case f.Type() == reflect.TypeFor[json.RawMessage]():
			f.SetBytes([]byte(`"` + fields.Type().Field(i).Name + `"`))
		default:
			t.Fatalf("VoceFields.%s is a %s: packVoci packs strings and JSON values", fields.Type().Field(i).Name, f.Type())
		}
	}
	got, err := unpackVoci(packVoci([]events.Voce{v}))
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], v) {
		t.Fatalf("round trip of a voce with every field set:\n got %+v, %v\nwant %+v", got, err, v)
	}
}

// TestSnapshotRefusesVociNotJSON: a voce's datiAllegati and contabilita
// are JSON values (a decoded event's raw values); a snapshot body whose
// packed voci hold anything else there, which no write packs, is refused
// and the log replayed, not loaded to make every read of that pendenza a
// 500 (its answer cannot be encoded).
func TestSnapshotRefusesVociNotJSON(t *testing.T) {
	m := New()
	m.pendenze.put(events.PendenzaCreated{IDA2A: "app", IDPendenza: "P1", IDDominio: "00000000001", IDTipoPendenza: "TARI",
		Causale: "c", AmountCents: 12345, Payer: events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U"},
		NumeroAvviso: "000000000000000001", PendenzaDetails: events.PendenzaDetails{Voci: vociOfEveryKind}}, 1, time.Time{})
	body := encodedState(t, m)
	if _, err := decodeBody(string(body)); err != nil {
		t.Fatalf("the body as written does not load: %v", err)
	}
	for _, c := range []struct{ name, valid, crafted string }{
		{"dati_allegati", `{"riga":1}`, `{"riga":1]`},
		{"contabilita", `{"quote":[]}`, `{"quote":[]]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			at := bytes.Index(body, []byte(c.valid))
			if at < 0 || len(c.crafted) != len(c.valid) {
				t.Fatalf("%s not in the body, or %s of another length", c.valid, c.crafted)
			}
			crafted := slices.Concat(body[:at], []byte(c.crafted), body[at+len(c.valid):])
			if got, err := decodeBody(string(crafted)); err == nil {
				p, _ := got.Pendenza("app", "P1")
				_, merr := json.Marshal(p.Voci())
				t.Fatalf("a body whose voce holds %s loads (its voci encode: %v)", c.crafted, merr)
			}
		})
	}
}
