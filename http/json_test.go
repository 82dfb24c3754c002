package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	stdjson "encoding/json"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/labstack/echo/v5"
)

// decodeForTest runs the shared request decoder on body.
func decodeForTest(body []byte, v any) error {
	s := &Server{cfg: Config{MaxBodyBytes: 4096}}
	req := httptest.NewRequest(http.MethodPut, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return s.decodeJSON(echo.New().NewContext(req, httptest.NewRecorder()), v)
}

func TestDecodeJSONStrict(t *testing.T) {
	for _, c := range []struct {
		name   string
		body   string
		ok     bool
		detail string // a part of the 400's dettaglio
	}{
		{"valid", `{"ragioneSociale":"Ente","abilitato":true}`, true, ""},
		{"valid_with_whitespace", " \n{\"ragioneSociale\":\"Ente\"}\n ", true, ""},
		{"key_case_differs", `{"RAGIONESOCIALE":"Ente"}`, false, "unknown field"},
		{"duplicate_key", `{"abilitato":false,"abilitato":true}`, false, "duplicate"},
		{"duplicate_key_case_differs", `{"abilitato":false,"ABILITATO":true}`, false, "unknown field"},
		{"unknown_field", `{"ragioneSociale":"Ente","colore":"blu"}`, false, `unknown field "colore"`},
		{"invalid_utf8", "{\"ragioneSociale\":\"E\xffnte\"}", false, "UTF-8"},
		{"wrong_type", `{"abilitato":"yes"}`, false, "abilitato"},
		{"trailing_data", `{"abilitato":true} {}`, false, "malformed"},
		{"empty", ``, false, "empty"},
		{"truncated", `{"abilitato":`, false, "malformed"},
		{"not_an_object", `[]`, false, ""},
		{"brackets_in_a_string", `{"ragioneSociale":"` + strings.Repeat("[{", 1500) + `"}`, true, ""},
		{"brackets_after_an_escaped_quote", `{"ragioneSociale":"\\\"` + strings.Repeat("[", 1500) + `"}`, true, ""},
		{"nested_past_the_bound", `{"ragioneSociale":` + strings.Repeat("[", maxBodyDepth) + strings.Repeat("]", maxBodyDepth) + `}`, false, "deeper than 1000"},
		{"too_large", `{"ragioneSociale":"` + strings.Repeat("x", 5000) + `"}`, false, ""},
		{"too_large_not_json", strings.Repeat("a", 5000), false, ""},                  // was 400 "malformed JSON at offset 0"
		{"too_large_bad_member", `{"colore":` + strings.Repeat(" ", 5000), false, ""}, // was 400 "unknown field"
	} {
		t.Run(c.name, func(t *testing.T) {
			var v dominioBody
			err := decodeForTest([]byte(c.body), &v)
			if c.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %+v", v)
			}
			status, fb := fault(err)
			if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d %+v", status, fb)
			}
			if strings.HasPrefix(c.name, "too_large") && status != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d %+v, want 413: a body over the limit is refused whatever it holds", status, fb)
			}
			if !strings.Contains(fb.Dettaglio, c.detail) {
				t.Errorf("dettaglio %q lacks %q", fb.Dettaglio, c.detail)
			}
		})
	}
}

// TestStrictJSONOverHTTP: a lenient decoder would store abilitato=true
// from {"abilitato":false,"ABILITATO":true}; the service refuses it and
// writes nothing.
func TestStrictJSONOverHTTP(t *testing.T) {
	h := newHarness(t)
	for _, body := range []string{`{"ragioneSociale":"Ente","abilitato":false,"ABILITATO":true}`,
		`{"ragioneSociale":"Ente","abilitato":false,"abilitato":true}`, `{"ragioneSociale":"Ente","DESCRIZIONE":"x","abilitato":true}`,
		"{\"ragioneSociale\":\"E\xffnte\",\"abilitato\":true}"} {
		h.do(t, "PUT", bo+"/domini/12345678901", body, asAdmin()).expect(t, 400, "SINTASSI")
	}
	h.do(t, "GET", bo+"/domini/12345678901", nil, asAdmin()).expect(t, 404, "404000")
}

// FuzzDecodeJSON: whatever the body, the decoder answers a value or a
// 400/413, never a panic or another status; what it accepts is valid
// UTF-8 JSON that the standard library reads to the same value; and the
// depth check reads the nesting of any valid JSON as jsontext does.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"ragioneSociale":"Ente","abilitato":true}`, `{"abilitato":false,"ABILITATO":true}`,
		`{"abilitato":false,"abilitato":true}`, "{\"ragioneSociale\":\"\xff\"}", `{"x":1}`, `[]`, `null`, ``, `{`,
		`{"ragioneSociale":"\u00e8\ud800"}`, `{"idIntermediario":null}`, `{"abilitato":true} x`, `{"abilitato":1}`,
		`[[{"a":[]}]]`, `{"a":"[\"{","b":[{}]}`, `["\\",[["]"]]]`, `{"ragioneSociale":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
		// A name spelled with an escape, once and twice; a NUL; free JSON
		// (a raw member) with huge numbers and nested to the bound.
		`{"r\u0061gioneSociale":"Ente"}`, `{"ragioneSociale":"a","r\u0061gioneSociale":"b"}`, `{"\u0041bilitato":true}`,
		`{"ragioneSociale":"\u0000"}`, `{"ragioneSociale":"E","servizioMyPivot":{"n":[1e400,-0,123456789012345678901234567890]}}`,
		`{"ragioneSociale":"E","servizioGovPay":` + strings.Repeat("[", maxBodyDepth-1) + strings.Repeat("]", maxBodyDepth-1) + `}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if depth, ok := jsonDepth(body); ok {
			for _, max := range []int{0, 1, 2, 3, maxBodyDepth} {
				if got := nestsDeeper(body, max); got != (depth > max) {
					t.Fatalf("%q nests %d levels: nestsDeeper(%d) = %v", body, depth, max, got)
				}
			}
		}
		var v dominioBody
		err := decodeForTest(body, &v)
		if err != nil {
			if status, _ := fault(err); status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
				t.Fatalf("%q: status %d", body, status)
			}
			return
		}
		if !utf8.Valid(body) {
			t.Fatalf("accepted invalid UTF-8 %q", body)
		}
		var std dominioBody
		if err := stdjson.Unmarshal(body, &std); err != nil {
			t.Fatalf("accepted %q that encoding/json refuses: %v", body, err)
		}
		a, _ := stdjson.Marshal(v)
		b, _ := stdjson.Marshal(std)
		if !bytes.Equal(a, b) {
			t.Fatalf("%q: strict %s, encoding/json %s", body, a, b)
		}
	})
}

// TestDeepBodyNeverReachesTheLog: the log keeps a pendenza's datiAllegati
// two levels deeper than the body held it, and its decoders stop at
// 10,000 levels. A body the request decoder read (at most 10,000 levels)
// but nested past maxBodyDepth is a 400 that writes nothing; before, one
// nested 9,999 levels was appended, the read models could never apply
// that commit, and the write answered 503 (in production the service
// stopped, at every start). A body at the bound is still written.
func TestDeepBodyNeverReachesTheLog(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	path := func(id string) string { return pe + "/pendenze/appA/" + id }
	nested := func(levels int) string { return strings.Repeat("[", levels) + strings.Repeat("]", levels) }
	body := func(datiAllegati string) string {
		return `{"idTipoPendenza":"` + t1 + `","idDominio":"` + d1 + `","causale":"c","importo":1,` +
			`"soggettoPagatore":{"tipo":"F","identificativo":"` + citizen1 + `","anagrafica":"M"},"datiAllegati":` + datiAllegati + `}`
	}
	voce := func(datiAllegati string) string {
		return `{"idTipoPendenza":"` + t1 + `","idDominio":"` + d1 + `","causale":"c","importo":1,` +
			`"soggettoPagatore":{"tipo":"F","identificativo":"` + citizen1 + `","anagrafica":"M"},"voci":[{"idVocePendenza":"v",` +
			`"descrizione":"d","codEntrata":"E","importo":1,"datiAllegati":` + datiAllegati + `}]}`
	}
	for _, c := range []struct {
		name, id, body string
		status         int
		codice         string
	}{
		{"at_the_bound", "deep1", body(nested(maxBodyDepth - 1)), 201, ""},
		{"one_past_the_bound", "deep2", body(nested(maxBodyDepth)), 400, "SINTASSI"},
		{"voce_one_past_the_bound", "deep3", voce(nested(maxBodyDepth - 2)), 400, "SINTASSI"},
		{"deeper_than_the_log_reads", "deep4", body(nested(9998)), 400, "SINTASSI"},
		{"voce_deeper_than_the_log_reads", "deep5", voce(nested(9996)), 400, "SINTASSI"},
		{"past_the_decoders_bound", "deep6", body(nested(20000)), 400, "SINTASSI"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, "PUT", path(c.id), c.body, as("appA")).expect(t, c.status, c.codice)
			if c.status != 201 {
				w.do(t, "GET", path(c.id), nil, as("appA")).expect(t, 404, "404000")
			}
		})
	}
	// The read models still apply what follows.
	w.createPendenza(t, "appA", "after-deep", d1, t1, citizen1)
	w.do(t, "GET", path("after-deep"), nil, as("appA")).expect(t, 200, "")
}

// jsonDepth is how deeply the one JSON value b nests arrays and objects,
// as jsontext reads it (ok false: b is not one valid JSON value).
func jsonDepth(b []byte) (depth int, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		if _, err := dec.ReadToken(); err != nil {
			return depth, errors.Is(err, io.EOF)
		}
		depth = max(depth, dec.StackDepth())
	}
}

// fuzzBound bounds the fuzzed list at three entries.
type fuzzBound struct{}

func (fuzzBound) bound() (int, func(int) error) {
	return 3, func(int) error { return syntaxError("x holds more than 3 entries") }
}

// FuzzBoundedList: whatever the body, a boundedList answers a list of at
// most its bound or a 400, never a panic or another status; a list of at
// most the bound (of strings, as encoding/json reads them) is read as
// encoding/json reads it, and a longer one is the bound's own 400.
func FuzzBoundedList(f *testing.F) {
	for _, s := range []string{`{"x":[]}`, `{"x":null}`, `{"x":["a","b","c"]}`, `{"x":["a","b","c","d"]}`, `{"x":"a"}`,
		`{"x":[1]}`, `{"x":["a",]}`, `{"x":["a"`, `{"x":[` + strings.Repeat(`"",`, 20000) + `""]}`, `{"x":[["a"]]}`, `{"x":{}}`} {
		f.Add([]byte(s))
	}
	type body struct {
		X boundedList[string, fuzzBound] `json:"x"`
	}
	max, tooMany := fuzzBound{}.bound()
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v body
		err := decodeForTest(raw, &v)
		var std struct{ X []string }
		stdErr := stdjson.Unmarshal(raw, &std)
		if err != nil {
			if status, _ := fault(err); status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
				t.Fatalf("%q: status %d", raw, status)
			}
			if stdErr == nil && len(std.X) > max && utf8.Valid(raw) && len(raw) <= 4096 {
				if want := tooMany(max + 1).Error(); err.Error() != want {
					t.Fatalf("%q: %v, want the bound's %q", raw, err, want)
				}
			}
			return
		}
		if len(v.X) > max {
			t.Fatalf("%q: accepted %d entries, the bound is %d", raw, len(v.X), max)
		}
		if stdErr != nil {
			t.Fatalf("accepted %q that encoding/json refuses: %v", raw, stdErr)
		}
		if !slices.Equal([]string(v.X), std.X) {
			t.Fatalf("%q: %q, encoding/json %q", raw, v.X, std.X)
		}
	})
}
