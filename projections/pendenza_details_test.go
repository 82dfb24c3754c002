package projections

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
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

// fieldsOfEveryKind are a pendenza's fields that bear on no decision,
// every one that is kept set.
var fieldsOfEveryKind = events.PendenzaFields{AnnoRiferimento: 2026, Tassonomia: "Tributi", TassonomiaAvviso: "Imposte e tasse",
	Direzione: "Dir-1", Divisione: "Div-2", CartellaPagamento: "CART-1", DataValidita: "2026-12-01", DataScadenza: "2026-12-31",
	DataNotificaAvviso: "2026-11-15", DataPromemoriaScadenza: "2026-12-20", DatiAllegati: json.RawMessage(`{"pratica":"P-7"}`),
	Documento: json.RawMessage(`{"identificativo":"DOC-1","descrizione":"Rate","rata":1}`),
	Proprieta: json.RawMessage(`{"lineaTestoRicevuta1":"Grazie"}`)}

func TestPackDetailsRoundTrip(t *testing.T) {
	for _, d := range []events.PendenzaDetails{
		{},
		{Voci: vociOfEveryKind[:1]},
		{Voci: vociOfEveryKind},
		{PendenzaFields: fieldsOfEveryKind},
		{PendenzaFields: events.PendenzaFields{DataScadenza: "2026-12-31"}},
		{PendenzaFields: events.PendenzaFields{AnnoRiferimento: 2026}},
		{Voci: vociOfEveryKind, PendenzaFields: fieldsOfEveryKind},
	} {
		got, err := unpackDetails(packDetails(d))
		if err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("round trip of %+v: %+v, %v", d, got, err)
		}
	}
	// What one reader is handed is its own: changing it changes no other
	// read of the same version.
	p := packDetails(events.PendenzaDetails{Voci: vociOfEveryKind, PendenzaFields: fieldsOfEveryKind})
	first, _ := unpackDetails(p)
	first.Voci[0].DatiAllegati[0] = '['
	first.DatiAllegati[0], first.Documento[0], first.Proprieta[0] = '[', '[', '['
	if again, _ := unpackDetails(p); !reflect.DeepEqual(again, events.PendenzaDetails{Voci: vociOfEveryKind, PendenzaFields: fieldsOfEveryKind}) {
		t.Fatalf("a reader's change reached the stored details: %+v", again)
	}
	// A pendenza written without any costs its details nothing.
	if p := packDetails(events.PendenzaDetails{PendenzaFields: events.PendenzaFields{Allegati: json.RawMessage(`[]`)}}); p != "" {
		t.Fatalf("details holding nothing kept packed as %q", p)
	}
}

// FuzzUnpackDetails: whatever a damaged snapshot holds, unpacking answers
// details or an error, never a panic, and what it answers encodes as JSON
// and survives a round trip.
func FuzzUnpackDetails(f *testing.F) {
	f.Add(packDetails(events.PendenzaDetails{Voci: vociOfEveryKind, PendenzaFields: fieldsOfEveryKind}))
	f.Add(packDetails(events.PendenzaDetails{Voci: vociOfEveryKind}))
	f.Add(packDetails(events.PendenzaDetails{PendenzaFields: fieldsOfEveryKind}))
	// Empty, nothing but a year, a count past the bytes, a voce cut short,
	// data after the last voce.
	f.Add("")
	f.Add("\x00")
	f.Add("\x00" + strings.Repeat("\x00", 12) + "\xff\xff\xff\xff\x0f")
	f.Add(packDetails(events.PendenzaDetails{Voci: vociOfEveryKind})[:40])
	f.Add(packDetails(events.PendenzaDetails{Voci: vociOfEveryKind[:1]}) + "x")
	// Values no decoded event holds: not JSON.
	f.Add(packDetails(events.PendenzaDetails{Voci: []events.Voce{{VoceFields: events.VoceFields{IDVocePendenza: "v", DatiAllegati: json.RawMessage("{")}}}}))
	f.Add(packDetails(events.PendenzaDetails{Voci: []events.Voce{{VoceFields: events.VoceFields{IDVocePendenza: "v", Contabilita: json.RawMessage("x")}}}}))
	f.Add(packDetails(events.PendenzaDetails{PendenzaFields: events.PendenzaFields{Documento: json.RawMessage("{")}}))
	f.Fuzz(func(t *testing.T, p string) {
		d, err := unpackDetails(p)
		if err != nil {
			return
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatalf("%q unpacked as details no answer can encode: %v", p, err)
		}
		if again, err := unpackDetails(packDetails(d)); err != nil || !reflect.DeepEqual(again, d) {
			t.Fatalf("%q unpacked as %+v, which does not survive a round trip: %+v, %v", p, d, again, err)
		}
	})
}

// notKept are the fields of events.PendenzaFields the read model does not
// keep, with why: every other is packed.
var notKept = map[string]string{
	"Allegati": "GovPay answers a path to each file, which this service does not serve; files in every version would outweigh the rest",
}

// TestPackDetailsKeepsEveryField: packDetails names a pendenza's and a
// voce's fields in lists of its own (pendenzaText, pendenzaJSON,
// voceText, voceJSON), so a field added to events.PendenzaFields or
// events.VoceFields would be dropped by the read model without a word.
// Every field, whatever it is, is set here by reflection and must survive
// the round trip, but those notKept names, which must not.
func TestPackDetailsKeepsEveryField(t *testing.T) {
	setEvery := func(t *testing.T, fields reflect.Value) {
		t.Helper()
		for i := range fields.NumField() {
			f, name := fields.Field(i), fields.Type().Field(i).Name
			switch {
			case f.Kind() == reflect.String:
				f.SetString(name)
			case f.Kind() == reflect.Int:
				f.SetInt(int64(1000 + i))
			case f.Type() == reflect.TypeFor[json.RawMessage]():
				f.SetBytes([]byte(`"` + name + `"`))
			default:
				t.Fatalf("%s.%s is a %s: packDetails packs strings, ints and JSON values", fields.Type(), name, f.Type())
			}
		}
	}
	var d events.PendenzaDetails
	setEvery(t, reflect.ValueOf(&d.PendenzaFields).Elem())
	var v events.Voce
	v.AmountCents = -7
	setEvery(t, reflect.ValueOf(&v.VoceFields).Elem())
	d.Voci = []events.Voce{v}
	want := d
	for name := range notKept {
		f := reflect.ValueOf(&want.PendenzaFields).Elem().FieldByName(name)
		if !f.IsValid() {
			t.Fatalf("notKept names %s, no field of events.PendenzaFields", name)
		}
		f.SetZero()
	}
	got, err := unpackDetails(packDetails(d))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip of details with every field set:\n got %+v, %v\nwant %+v", got, err, want)
	}
}

// TestSnapshotRefusesDetailsNotJSON: a voce's datiAllegati and
// contabilita, a pendenza's datiAllegati, documento and proprieta are
// JSON values (a decoded event's raw values); a snapshot body whose packed
// details hold anything else there, which no write packs, is refused and
// the log replayed, not loaded to make every read of that pendenza a 500
// (its answer cannot be encoded).
func TestSnapshotRefusesDetailsNotJSON(t *testing.T) {
	m := New()
	m.pendenze.put(events.PendenzaCreated{IDA2A: "app", IDPendenza: "P1", IDDominio: "00000000001", IDTipoPendenza: "TARI",
		Causale: "c", AmountCents: 12345, Payer: events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U"},
		NumeroAvviso: "000000000000000001", PendenzaDetails: events.PendenzaDetails{Voci: vociOfEveryKind, PendenzaFields: fieldsOfEveryKind}}, 1, time.Time{})
	body := encodedState(t, m)
	if _, err := decodeBody(string(body)); err != nil {
		t.Fatalf("the body as written does not load: %v", err)
	}
	for _, c := range []struct{ name, valid, crafted string }{
		{"dati_allegati", `{"riga":1}`, `{"riga":1]`},
		{"contabilita", `{"quote":[]}`, `{"quote":[]]`},
		{"pendenza_dati_allegati", `{"pratica":"P-7"}`, `{"pratica":"P-7"]`},
		{"documento", `"rata":1}`, `"rata":1]`},
		{"proprieta", `{"lineaTestoRicevuta1":"Grazie"}`, `{"lineaTestoRicevuta1":"Grazie"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			at := bytes.Index(body, []byte(c.valid))
			if at < 0 || len(c.crafted) != len(c.valid) {
				t.Fatalf("%s not in the body, or %s of another length", c.valid, c.crafted)
			}
			crafted := slices.Concat(body[:at], []byte(c.crafted), body[at+len(c.valid):])
			if got, err := decodeBody(string(crafted)); err == nil {
				p, _ := got.Pendenza("app", "P1")
				_, merr := json.Marshal(p.Details())
				t.Fatalf("a body whose voce holds %s loads (its voci encode: %v)", c.crafted, merr)
			}
		})
	}
}

// TestUnpackDetailsIntoAllocatesNothing: a restore checks every record's
// details in one value (unpackDetailsInto), so that the check costs no
// garbage a record. Records differ in what they hold: one without any
// details, or without a JSON value another has, must not make the next
// record's JSON values allocate arrays again.
func TestUnpackDetailsIntoAllocatesNothing(t *testing.T) {
	bare := vociOfEveryKind[2:] // a voce without JSON values
	records := []string{
		packDetails(events.PendenzaDetails{Voci: vociOfEveryKind, PendenzaFields: fieldsOfEveryKind}),
		"", // a pendenza written without details
		packDetails(events.PendenzaDetails{Voci: bare, PendenzaFields: events.PendenzaFields{DataScadenza: "2026-12-31"}}),
		packDetails(events.PendenzaDetails{PendenzaFields: fieldsOfEveryKind}),
		packDetails(events.PendenzaDetails{Voci: vociOfEveryKind}),
	}
	var d events.PendenzaDetails
	check := func() {
		for _, p := range records {
			if err := unpackDetailsInto(&d, p); err != nil {
				t.Fatalf("%q: %v", p, err)
			}
		}
	}
	check() // the arrays' first fill
	// Under the race detector sync.Pool drops a quarter of what is put
	// back, so json.Valid's pooled scanner is allocated again now and then:
	// the records' ten validations cost about 6 allocations a run there
	// (measured), and buffers allocated again 13 (0 and 7 without -race).
	limit := 0.0
	if raceDetector {
		limit = 9
	}
	if n := testing.AllocsPerRun(100, check); n > limit {
		t.Fatalf("checking %d records' details allocates %v times", len(records), n)
	}
}
