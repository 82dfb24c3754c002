package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// pathSegment puts a fuzzed id in a path as a client would: bytes a
// request line cannot hold raw (controls, space, '#', '?', non-ASCII) and
// '/' (an id is one segment) are percent-encoded, while '%' stays as
// given, so that an id may carry its own escapes (%2F among them).
func pathSegment(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c <= ' ' || c >= 0x7f || c == '#' || c == '?' || c == '/' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// backofficeWrites are the registry PUTs of the Backoffice (API.md section
// 4) fuzzed as the administrator, the fuzzed id going where {} is; keep
// names the ids never written, so that the administrator keeps its rights
// (its operator and its role).
var backofficeWrites = []struct {
	path, keep string
}{
	{bo + "/domini/{}", ""},
	{bo + "/domini/" + d1 + "/unitaOperative/{}", ""},
	{bo + "/tipiPendenza/{}", ""},
	{bo + "/intermediari/{}", ""},
	{bo + "/ruoli/{}", "amministratore"},
	{bo + "/operatori/{}", adminUser},
	{bo + "/applicazioni/{}", ""},
}

// secrets are the members a PUT takes and no GET answers.
var writeOnlyMembers = []string{"password", "apiKey"}

// checkReadBack fails t unless the resource at path, read as opts say
// after the write r, is the one r answered and holds the top-level values
// sent: each scalar member of the body that the resource also answers is
// equal, and each list of strings holds the same strings (a list is a
// set: its order and repeats are not kept).
func checkReadBack(t *testing.T, w *world, what, path string, sent []byte, r *response, opts ...reqOpt) {
	t.Helper()
	if tok := r.Header.Get(ConsistencyHeader); tok != "" {
		opts = append(opts, withToken(tok))
	}
	rr := w.do(t, "GET", path, nil, opts...)
	if rr.Status != http.StatusOK {
		t.Fatalf("%s: %d %s, then GET: %d %s", what, r.Status, r.Body, rr.Status, rr.Body)
	}
	var answered, read, body map[string]any
	if err := json.Unmarshal(r.Body, &answered); err != nil {
		t.Fatalf("%s: %d with a body that is no object: %v: %s", what, r.Status, err, r.Body)
	}
	if err := json.Unmarshal(rr.Body, &read); err != nil {
		t.Fatalf("%s: GET answered no object: %v: %s", what, err, rr.Body)
	}
	if a, b := canonical(answered), canonical(read); !bytes.Equal(a, b) {
		t.Fatalf("%s: the write answered %s, GET reads %s", what, a, b)
	}
	if err := json.Unmarshal(sent, &body); err != nil {
		t.Fatalf("%s: accepted a body that is no JSON object: %v", what, err)
	}
	for k, v := range body {
		got, ok := read[k]
		if !ok || slices.Contains(writeOnlyMembers, k) {
			continue
		}
		switch v := v.(type) {
		case string, bool, float64:
			if got != v {
				t.Fatalf("%s: %s sent %#v, GET reads %#v", what, k, v, got)
			}
		case []any:
			if want, ok := stringSet(v); ok {
				if have, ok := stringSet(got); !ok || !slices.Equal(want, have) {
					t.Fatalf("%s: %s sent %v, GET reads %v", what, k, v, got)
				}
			}
		}
	}
}

// canonical is v encoded with its members sorted (encoding/json sorts a
// map's keys), so that two answers compare as JSON values.
func canonical(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// stringSet is the sorted distinct strings of a JSON list, false when it
// holds anything else.
func stringSet(v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	var out []string
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// requestPath is the path with each {} filled, in turn, by ids, and
// false when no client would send it (a request line that does not
// parse).
func requestPath(pattern string, ids ...string) (string, bool) {
	path := pattern
	for _, id := range ids {
		path = strings.Replace(path, "{}", pathSegment(id), 1)
	}
	u, err := url.ParseRequestURI("http://h" + path)
	return path, err == nil && u.RawQuery == "" && u.Fragment == ""
}

// FuzzBackofficeWrites sends arbitrary bodies and path ids to the
// Backoffice's registry PUTs (entities, their units, types, intermediaries,
// roles, operators, applications) as the administrator: bad input must be
// one of the contract's refusals (a FaultBean of API.md section 2, never a
// 5xx) that writes nothing to the log, and what is accepted is written and
// read back by GET as the write answered it, with the values sent.
// Run: go test ./http -run '^$' -fuzz FuzzBackofficeWrites -fuzztime 1m -parallel 1
func FuzzBackofficeWrites(f *testing.F) {
	w := newWorld(f)
	valid := []struct{ id, body string }{
		{"77777777777", `{"ragioneSociale":"Ente fuzz","abilitato":true}`},
		{"UFZ", `{"ragioneSociale":"Ufficio fuzz","abilitato":true,"indirizzo":"Via Roma","civico":"1","cap":"00100","localita":"Roma","provincia":"RM","nazione":"IT","email":"u@x.it"}`},
		{"TFZ", `{"descrizione":"Tipo fuzz","abilitato":true,"pagamentoSpontaneo":false,"tipo":"dovuto"}`},
		{"12345678901", `{"denominazione":"Intermediario fuzz","abilitato":true,"connettoreNodo":{"principal":"nodo-fz","password":"password-123"}}`},
		{"rfz", `{"acl":[{"servizio":"Pendenze","autorizzazioni":["R","W"]}],"domini":["` + d1 + `",{"idDominio":"` + d2 + `","unitaOperative":["U1"]}],"tipiPendenza":["*"]}`},
		{"opFZ", `{"ragioneSociale":"Operatore fuzz","password":"password-123","abilitato":true,"ruoli":["opD1","readOnly"]}`},
		{"appFZ", `{"principal":"appFZ","abilitato":true,"ruoli":[],"apiPagamenti":true,"apiPendenze":false,"apiRagioneria":true,"domini":["` + d1 + `"],"tipiPendenza":["*"]}`},
	}
	edges := []string{
		`{`, `null`, ``, `[]`, `{}`, `{"x":1}`, `{"abilitato":true,"abilitato":false}`, `{"abilitato":null}`,
		`{"ragioneSociale":"` + strings.Repeat("è", 5000) + `","abilitato":true}`,
		"{\"ragioneSociale\":\"\xff\",\"abilitato\":true}", `{"descrizione":"\ud800","abilitato":true,"pagamentoSpontaneo":true}`,
		`{"denominazione":"I","abilitato":true,"principalPagoPa":"a","connettoreNodo":{"principal":"b"}}`,
		`{"acl":[{"servizio":"Nope","autorizzazioni":["X"]}],"domini":[],"tipiPendenza":[]}`,
		`{"principal":"admin","abilitato":true,"ruoli":[]}`, `{"ragioneSociale":"x","abilitato":true,"password":"short"}`,
		`{"ragioneSociale":"x","abilitato":true} {}`, `{"Abilitato":true,"ragioneSociale":"x"}`,
	}
	ids := []string{"a b", "a/b", "a%2Fb", "a%20b", "%", "%zz", "..", ".", "", strings.Repeat("x", 300), "è", "\xff", "admin", "Amministratore"}
	for i, v := range valid {
		f.Add(uint8(i), v.id, v.body)
		for _, e := range edges {
			f.Add(uint8(i), v.id, e)
		}
		for _, id := range ids {
			f.Add(uint8(i), id, v.body)
		}
	}
	f.Fuzz(func(t *testing.T, target uint8, id, body string) {
		tg := backofficeWrites[int(target)%len(backofficeWrites)]
		path, ok := requestPath(tg.path, id)
		if !ok {
			t.Skip("not a request line a client sends")
		}
		if u, _ := url.Parse(path); tg.keep != "" && strings.Contains(strings.ToLower(u.Path), tg.keep) {
			t.Skip("the administrator's own entry")
		}
		what := fmt.Sprintf("PUT %s %q", path, body)
		r, ok, _ := fuzzWrite(t, w, what, "PUT", path, body, asAdmin(), withHeader("Connection", "close"))
		if ok {
			checkReadBack(t, w, what, path, []byte(body), r, asAdmin())
		}
	})
}

// ragioneriaCallers are the applications the Ragioneria PUT is fuzzed as:
// two granted d1 (one may see the other's reconciliation refused) and one
// granted d2.
var ragioneriaCallers = []string{"appA", "appC", "appB"}

// FuzzRagioneriaWrites sends arbitrary bodies, entity ids and ids to PUT
// /riconciliazioni/{idDominio}/{id} of the Ragioneria API (section 8) as
// an application: bad input must be one of the contract's refusals that
// writes nothing, and a reconciliation accepted is read back by its
// creator as the write answered it, with the values sent.
// Run: go test ./http -run '^$' -fuzz FuzzRagioneriaWrites -fuzztime 1m -parallel 1
func FuzzRagioneriaWrites(f *testing.F) {
	w := newWorld(f)
	valid := []string{
		`{"importo":10.5,"causale":"Bonifico","idFlusso":"2026-01-03ABI-F1"}`,
		`{"importo":1,"causale":"SCT","idFlussoRendicontazione":"F2","iuv":"01000000000000001","sct":"SCT1","contoAccredito":"IT60X0542811101000000123456","dataValuta":"2026-01-02","dataContabile":"2026-01-03T10:00:00+01:00"}`,
		`{"importo":0.01,"causale":"x","idFlusso":"","idFlussoRendicontazione":"F3"}`,
	}
	edges := []string{
		`{`, `null`, ``, `[]`, `{}`, `{"importo":1,"importo":2}`, `{"importo":null,"causale":"x"}`, `{"importo":"1","causale":"x"}`,
		`{"importo":-1,"causale":"x"}`, `{"importo":0,"causale":"x"}`, `{"importo":1e400,"causale":"x"}`, `{"importo":0.001,"causale":"x"}`,
		`{"importo":92233720368547758.07,"causale":"x"}`, `{"importo":1,"causale":"x","x":1}`,
		`{"importo":1,"causale":"` + strings.Repeat("è", 5000) + `"}`, "{\"importo\":1,\"causale\":\"\xff\"}",
		`{"importo":1,"causale":"\ud800"}`, `{"importo":1,"idFlusso":"A","idFlussoRendicontazione":"B"}`,
		`{"importo":1,"iuv":"` + strings.Repeat("1", 36) + `"}`, `{"importo":1,"dataValuta":"2026-02-30"}`,
		`{"importo":1,"dataContabile":"2026-01-03T25:00:00Z"}`, `{"importo":1,"sct":null}`,
	}
	ids := [][2]string{{d1, "R1"}, {d2, "R2"}, {d1, "a b"}, {d1, "a/b"}, {d1, "a%2Fb"}, {"%", "%zz"}, {d1, ".."}, {"", ""},
		{strings.Repeat("9", 300), strings.Repeat("x", 300)}, {d1, "è"}, {"\xff", "R1"}, {"7777777777", "R1"}}
	for i := range ragioneriaCallers {
		for j, v := range valid {
			f.Add(uint8(i), []string{d1, d2}[i/2], fmt.Sprintf("R%d-%d", i, j), v)
		}
		for _, id := range ids {
			f.Add(uint8(i), id[0], id[1], valid[0])
		}
		for _, e := range edges {
			f.Add(uint8(i), d1, "R3", e)
		}
	}
	f.Fuzz(func(t *testing.T, caller uint8, dominio, id, body string) {
		app := ragioneriaCallers[int(caller)%len(ragioneriaCallers)]
		path, ok := requestPath("/ragioneria/rs/basic/v3/riconciliazioni/{}/{}", dominio, id)
		if !ok {
			t.Skip("not a request line a client sends")
		}
		what := fmt.Sprintf("PUT %s as %s %q", path, app, body)
		r, ok, _ := fuzzWrite(t, w, what, "PUT", path, body, as(app), withHeader("Connection", "close"))
		if !ok {
			return
		}
		// The report is answered under both its names (section 8).
		var sent map[string]any
		if err := json.Unmarshal([]byte(body), &sent); err == nil {
			for _, names := range [][2]string{{"idFlusso", "idFlussoRendicontazione"}, {"idFlussoRendicontazione", "idFlusso"}} {
				if v := sent[names[0]]; v == nil || v == "" {
					sent[names[0]] = sent[names[1]]
				}
			}
		}
		checkReadBack(t, w, what, path, canonical(sent), r, as(app))
	})
}
