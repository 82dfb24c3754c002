package jetstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/events"
)

// decodeCommitV1 is the decoder of the first format as it was written
// with encoding/json: the reference decodeCommit must agree with.
func decodeCommitV1(codec *events.Codec, data []byte) ([]events.Envelope, error) {
	var commit []wireEvent
	if err := json.Unmarshal(data, &commit); err != nil {
		return nil, fmt.Errorf("%w: %v", events.ErrDecode, err)
	}
	if len(commit) == 0 {
		return nil, fmt.Errorf("%w: empty commit", events.ErrDecode)
	}
	out := make([]events.Envelope, len(commit))
	for i, w := range commit {
		var err error
		zero := mustDecode(codec, w.Name)
		if zero == nil {
			return nil, fmt.Errorf("%w: %q", events.ErrUnknownEvent, w.Name)
		}
		e := reflect.New(reflect.TypeOf(zero)).Interface()
		if err = json.Unmarshal(w.Data, e); err != nil {
			return nil, fmt.Errorf("%w: %v", events.ErrDecode, err)
		}
		out[i] = events.Envelope{ID: w.ID, Name: w.Name, Index: i, Time: w.Time, Actor: w.Actor,
			CorrelationID: w.CorrelationID, Data: w.Data, Event: reflect.ValueOf(e).Elem().Interface().(events.Event)}
	}
	return out, nil
}

// mustDecode returns a zero event of the named type (nil for an unknown name).
func mustDecode(codec *events.Codec, name string) events.Event {
	e, _ := codec.Decode(name, []byte(`{}`))
	return e
}

var commitSamples = []string{
	`[{"id":"1","name":"PendenzaCreated","actor":"APPLICATION:a","correlationId":"c","time":"2026-11-22T00:00:00Z","data":{"idA2A":"a","idPendenza":"P1","idDominio":"01234567890","idTipoPendenza":"TARI","causale":"x \"y\" \u00e8","importoCentesimi":12345,"soggettoPagatore":{"tipo":"F","identificativo":"RSS","anagrafica":"M R"},"numeroAvviso":"301000000000000001","UUID":"u"}}]`,
	// members in another order, the payload before the name, whitespace, unknown members
	`[ { "data" : {"idRuolo":"R","acl":[{"servizio":"Pendenze","autorizzazioni":["R"]}],"domini":["*"],"tipiPendenza":[]}, "extra": [1,{"a":null}], "name":"RoleDefined", "id":"2", "time":"2026-11-22T00:00:00.123456789+01:00" } ]`,
	// null and absent lists stay nil, empty ones empty; names in another case or escaped; a repeated member
	`[{"ID":"3","N\u0061me":"x","name":"ApplicationAPIAuthorized","time":"2026-11-22T00:00:00Z","actor":null,"data":{"IDA2A":"a","api":"PENDENZE","domini":null,"api":"PAGAMENTO"}}]`,
	`[{"id":"4","name":"ApplicationRegistered","time":"2026-11-22T00:00:00Z","data":{"idA2A":"a","principal":"p","abilitato":true,"ruoli":[]}},{"id":"5","name":"ApplicationAPIAuthorized","time":"2026-11-22T00:00:00Z","data":{"idA2A":"a","api":"PENDENZE","domini":["01234567890"],"tipiPendenza":["*"]}}]`,
	`[{"id":"6","name":"PaymentStarted","time":"2026-11-22T00:00:00Z","data":{"id":"PAY","tipoChiamante":"ANONYMOUS","hashSessione":"ab","soggettoVersante":{"tipo":"F","identificativo":"X","anagrafica":"Y"},"pendenze":[{"idDominio":"d","idTipoPendenza":"t","importoCentesimi":1}]}}]`,
	`[{"id":"7","name":"PublicAPIProtectionConfigured","time":"2026-11-22T00:00:00Z","data":{"abilitato":true,"captcha":{"serverURL":"http://x","soglia":0.5,"timeoutMs":300}}}]`,
	// A repeated envelope member: the last one counts, as in encoding/json
	// (the payload before the name and again after it; the name again after
	// the payload, which is then of the last name's type; a string member
	// again as null, which leaves it as it was).
	`[{"id":"8","data":{"idRuolo":"A"},"name":"RoleDefined","time":"2026-11-22T00:00:00Z","data":{"idRuolo":"B"}}]`,
	`[{"id":"9","name":"RoleDefined","time":"2026-11-22T00:00:00Z","data":{"idDominio":"01234567890"},"name":"CreditorEntityUpdated"}]`,
	`[{"id":"10","data":{"idRuolo":"A"},"name":"RoleDefined","NAME":"CreditorEntityUpdated","time":"2026-11-22T00:00:00Z"}]`,
	`[{"id":"11","name":"RoleDefined","actor":"x","correlationId":"c","time":"2026-11-22T00:00:00Z","data":{},"id":null,"Actor":null,"correlationId":null,"name":null}]`,
}

func TestDecodeCommitAgreesWithEncodingJSON(t *testing.T) {
	for i, s := range commitSamples {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			want, err := decodeCommitV1(events.DefaultCodec, []byte(s))
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeCommit(nil, events.DefaultCodec, []byte(s))
			if err != nil {
				t.Fatal(err)
			}
			assertSameEnvelopes(t, got, want)
		})
	}
}

func assertSameEnvelopes(t *testing.T, got, want []events.Envelope) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d envelopes, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !g.Time.Equal(w.Time) {
			t.Fatalf("event %d: time %v, want %v", i, g.Time, w.Time)
		}
		g.Time = w.Time
		if !sameJSON(g.Data, w.Data) {
			t.Fatalf("event %d: data %s, want %s", i, g.Data, w.Data)
		}
		g.Data, w.Data = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("event %d:\n got %#v\nwant %#v", i, g, w)
		}
	}
}

// sameJSON reports whether a and b hold the same JSON value, numbers
// compared as written: one past float64 (1e400 in a member no event has,
// which both decoders skip) is a value too.
func sameJSON(a, b []byte) bool {
	var va, vb any
	return decodeNumbers(a, &va) == nil && decodeNumbers(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

func decodeNumbers(b []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

func TestDecodeCommitRefusesBadCommits(t *testing.T) {
	for name, s := range map[string]string{
		"empty":            ``,
		"no_events":        `[]`,
		"not_an_array":     `{"id":"1"}`,
		"unknown_event":    `[{"id":"1","name":"Nope","time":"2026-11-22T00:00:00Z","data":{}}]`,
		"no_data":          `[{"id":"1","name":"RoleDefined","time":"2026-11-22T00:00:00Z"}]`,
		"no_name":          `[{"id":"1","time":"2026-11-22T00:00:00Z","data":{}}]`,
		"bad_time":         `[{"id":"1","name":"RoleDefined","time":"yesterday","data":{}}]`,
		"number_as_string": `[{"id":1,"name":"RoleDefined","time":"2026-11-22T00:00:00Z","data":{}}]`,
		"bad_payload":      `[{"id":"1","name":"RoleDefined","time":"2026-11-22T00:00:00Z","data":{"acl":3}}]`,
		"trailing":         `[{"id":"1","name":"RoleDefined","time":"2026-11-22T00:00:00Z","data":{}}] x`,
		"truncated":        `[{"id":"1","name":"RoleDefined","time":"2026-11-22T00:00:00Z","data":{}`,
	} {
		t.Run(name, func(t *testing.T) {
			if envs, err := decodeCommit(nil, events.DefaultCodec, []byte(s)); err == nil {
				t.Fatalf("decoded %d envelopes from %q, want an error", len(envs), s)
			}
		})
	}
}

// FuzzDecodeCommit: decodeCommit never panics, and whatever both it and
// the encoding/json reference decode, they decode alike.
func FuzzDecodeCommit(f *testing.F) {
	for _, s := range commitSamples {
		f.Add([]byte(s))
	}
	// Empty; no event; strings not UTF-8 or with a lone surrogate; numbers
	// past int64 and float64; a payload and an unknown member nested deep.
	const head = `[{"id":"1","name":"PendenzaCreated","time":"2026-11-22T00:00:00Z",`
	for _, s := range []string{``, `[]`, head + "\"actor\":\"\xff\",\"data\":{\"causale\":\"\xfe\"}}]",
		head + `"actor":"\ud800","data":{"causale":"\udc00x"}}]`,
		head + `"data":{"importoCentesimi":99999999999999999999}}]`, head + `"data":{"importoCentesimi":1e400}}]`,
		head + `"data":{"datiAllegati":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}}]`,
		head + `"x":` + strings.Repeat("{\"a\":", 10000) + "1" + strings.Repeat("}", 10000) + `,"data":{}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeCommit(nil, events.DefaultCodec, data)
		if err != nil {
			return
		}
		want, err := decodeCommitV1(events.DefaultCodec, data)
		if err != nil {
			return
		}
		assertSameEnvelopes(t, got, want)
	})
}

// BenchmarkDecodeCommit decodes one single-event commit as Fill writes it,
// with the one-pass decoder and with the encoding/json one it replaced
// (the event is jetstreamtest.Event(42)).
func BenchmarkDecodeCommit(b *testing.B) {
	e := events.PendenzaCreated{IDA2A: "app00042", IDPendenza: "P0000042", IDDominio: "00000000042", IDTipoPendenza: "TARI",
		Causale: "Tassa rifiuti", AmountCents: 12345, Payer: events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H0042",
			Anagrafica: "Mario Rossi"}, NumeroAvviso: "000000000000000042", UUID: fmt.Sprintf("%032x", 42)}
	data, err := events.DefaultCodec.Encode(e)
	if err != nil {
		b.Fatal(err)
	}
	msg := []byte(fmt.Sprintf(`[{"id":"42","name":"%s","time":"2026-11-22T00:00:00Z","data":%s}]`, e.EventName(), data))
	b.Run("one_pass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeCommit(nil, events.DefaultCodec, msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var commit []wireEvent
			if err := json.Unmarshal(msg, &commit); err != nil {
				b.Fatal(err)
			}
			if _, err := events.DefaultCodec.Decode(commit[0].Name, commit[0].Data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
