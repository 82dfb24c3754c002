package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// contractFaults are the (categoria, codice) pairs API.md section 2 and
// the one error handler (errorHandler) give each status: an answer of
// any other pair, or of a status not here, breaks the contract.
var contractFaults = map[int][][2]string{
	http.StatusBadRequest:                  {{"RICHIESTA", "SINTASSI"}},
	http.StatusUnauthorized:                {{"AUTORIZZAZIONE", "401000"}},
	http.StatusForbidden:                   {{"AUTORIZZAZIONE", "403"}, {"AUTORIZZAZIONE", "403000"}},
	http.StatusNotFound:                    {{"RICHIESTA", "404000"}},
	http.StatusMethodNotAllowed:            {{"RICHIESTA", "405000"}},
	http.StatusConflict:                    {{"RICHIESTA", "409000"}},
	http.StatusRequestEntityTooLarge:       {{"RICHIESTA", "SINTASSI"}},
	http.StatusUnprocessableEntity:         {{"RICHIESTA", "422000"}},
	http.StatusTooManyRequests:             {{"OPERAZIONE", "429000"}},
	http.StatusRequestHeaderFieldsTooLarge: {{"RICHIESTA", "SINTASSI"}},
}

// checkRefusal fails t unless r, a refusal, is one the contract
// documents: a 4xx of contractFaults with its FaultBean, never a 5xx.
func checkRefusal(t *testing.T, what string, r *response) {
	t.Helper()
	pairs, ok := contractFaults[r.Status]
	if !ok {
		t.Fatalf("%s: status %d is no refusal of the contract: %s", what, r.Status, r.Body)
	}
	var fb FaultBean
	if err := json.Unmarshal(r.Body, &fb); err != nil {
		t.Fatalf("%s: %d with a body that is no FaultBean: %v: %s", what, r.Status, err, r.Body)
	}
	if !slices.Contains(pairs, [2]string{fb.Categoria, fb.Codice}) || fb.Descrizione == "" {
		t.Fatalf("%s: %d answered %+v", what, r.Status, fb)
	}
}

// fuzzWrite sends one fuzzed write and checks what the contract promises
// of every write: a refusal is a FaultBean of API.md section 2 and writes
// nothing, an acceptance is 200 or 201, and a 201 writes. It answers the
// response, whether the write was accepted and whether the log moved.
func fuzzWrite(t *testing.T, w *world, what, method, path, body string, opts ...reqOpt) (r *response, accepted, moved bool) {
	t.Helper()
	before := w.logEnd(t)
	r = w.do(t, method, path, body, opts...)
	moved = w.logEnd(t) != before
	if r.Status >= 300 {
		checkRefusal(t, what, r)
		if moved {
			t.Fatalf("%s: refused with %d, yet the log moved", what, r.Status)
		}
		return r, false, false
	}
	if r.Status == http.StatusCreated && !moved {
		t.Fatalf("%s: 201 with nothing written", what)
	}
	if r.Status != http.StatusOK && r.Status != http.StatusCreated {
		t.Fatalf("%s: %d is no answer of a write: %s", what, r.Status, r.Body)
	}
	return r, true, moved
}

// anonymousAddr is a loopback address of its own for each anonymous
// write (127.0.0.0/8 is all loopback): every address has a budget of
// writes (anonymousWriteBurst), and a fuzzer that spent one address's
// would see only 429 past the body's decoding.
var anonymousAddr atomic.Uint32

func nextAnonymousAddr() reqOpt {
	n := anonymousAddr.Add(1)
	return fromLocalAddr(fmt.Sprintf("127.%d.%d.%d", 1+n/62500%250, n/250%250, 1+n%250))
}

// publicWrites are the writes the Pagamento API takes from anyone (the
// public mount: no credentials), and the same bodies from an application
// and on the Pendenze API, whose decoders are the ones the public mount's
// share.
var publicWrites = []struct {
	method, path string
	anonymous    bool
	as           reqOpt
}{
	{"POST", "/pagamento/rs/public/v2/pagamenti", true, nil},
	{"POST", "/pagamento/rs/basic/v2/pagamenti", false, as("appA")},
	{"POST", "/pagamento/rs/public/v2/pendenze/" + d1 + "/" + tSpont, true, nil},
	{"POST", "/pagamento/rs/basic/v2/pendenze/" + d1 + "/" + tSpont, false, as("appA")},
	{"PUT", "/pendenze/rs/basic/v2/pendenze/appA/fz-put", false, as("appA")},
}

// FuzzPublicWrites sends arbitrary bodies to the writes an anonymous
// caller reaches (POST /pagamenti, POST /pendenze/{idDominio}/{idTipo}
// on the public mount) and to the same writes as an application: bad
// input must be one of the contract's refusals (a FaultBean of API.md
// section 2, never a 5xx) that writes nothing to the log, and what is
// accepted is written and readable by the administrator.
// Run: go test ./http -run '^$' -fuzz FuzzPublicWrites -fuzztime 1m -parallel 1
func FuzzPublicWrites(f *testing.F) {
	w := newWorld(f)
	w.createPendenza(f, "appA", "fz-pay", d1, t1, citizen1)
	payer := `"soggettoPagatore":{"tipo":"F","identificativo":"` + citizen2 + `","anagrafica":"L V"}`
	spont := `{"idDominio":"` + d1 + `","idTipoPendenza":"` + tSpont + `","importo":5,"causale":"Dono",` + payer + `}`
	seeds := []string{
		`{"pendenze":[` + spont + `]}`,
		`{"pendenze":[{"idA2A":"appA","idPendenza":"fz-pay"}]}`,
		`{"pendenze":[{"idDominio":"` + d1 + `","numeroAvviso":"301000000000000001"}]}`,
		`{"pendenze":[{"idA2A":"appA","idPendenza":"fz-pay","idDominio":"` + d1 + `"}]}`,
		`{"pendenze":[` + strings.Repeat(spont+",", 30) + spont + `]}`,
		`{"pendenze":[{"idDominio":"` + d1 + `","idTipoPendenza":"` + tSpont + `","importo":-0.01,"causale":"x",` + payer + `}]}`,
		`{"pendenze":[{"idDominio":"` + d1 + `","idTipoPendenza":"` + tSpont + `","importo":1e400,"causale":"x",` + payer + `}]}`,
		`{"pendenze":[],"soggettoVersante":{"tipo":"G","identificativo":"x"}}`,
		`{"pendenze":null}`, `{}`, `[]`, `null`, ``, `{"pendenze":[{}]}`, `{"pendenze":[` + spont + `],"x":1}`,
		`{"causale":"Dono","importo":5,` + payer + `}`, `{"causale":"Dono","importo":"5"}`,
		`{"causale":"` + strings.Repeat("è", 141) + `","importo":0.01,"idUnitaOperativa":"U1",` + payer + `}`,
		`{"idTipoPendenza":"` + t1 + `","idDominio":"` + d1 + `","causale":"c","importo":1,` + payer +
			`,"voci":[{"idVocePendenza":"v","descrizione":"d","codEntrata":"E","importo":1}]}`,
		`{"idTipoPendenza":"` + t1 + `","idDominio":"` + d1 + `","causale":"c","importo":1,` + payer +
			`,"dataScadenza":"2026-02-30","numeroAvviso":"3010000000000000000"}`,
		"{\"causale\":\"\xff\",\"importo\":1}", `{"causale":"\ud800","importo":1}`,
	}
	for _, s := range seeds {
		for i := range publicWrites {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, target uint8, body string) {
		tg := publicWrites[int(target)%len(publicWrites)]
		opts := []reqOpt{withHeader("Connection", "close")}
		if tg.anonymous {
			opts = append(opts, nextAnonymousAddr())
		} else {
			opts = append(opts, tg.as)
		}
		what := fmt.Sprintf("%s %s %q", tg.method, tg.path, body)
		r, accepted, _ := fuzzWrite(t, w, what, tg.method, tg.path, body, opts...)
		if !accepted {
			return
		}
		// What was accepted is there for the administrator to read.
		var got struct {
			ID, IDA2A, IDPendenza string
		}
		if err := json.Unmarshal(r.Body, &got); err != nil {
			t.Fatalf("%s: %d %s: %v", what, r.Status, r.Body, err)
		}
		read := bo + "/pendenze/" + url.PathEscape(got.IDA2A) + "/" + url.PathEscape(got.IDPendenza)
		if got.ID != "" {
			read = bo + "/pagamenti/" + url.PathEscape(got.ID)
		} else if tg.method == "PUT" {
			read = bo + "/pendenze/appA/fz-put"
		}
		read1 := []reqOpt{asAdmin()}
		if tok := r.Header.Get(ConsistencyHeader); tok != "" {
			read1 = append(read1, withToken(tok))
		}
		if rr := w.do(t, "GET", read, nil, read1...); rr.Status != http.StatusOK {
			t.Fatalf("%s: %d %s, then GET %s: %d %s", what, r.Status, r.Body, read, rr.Status, rr.Body)
		}
	})
}

// readPaths are reads whose path ids and query parameters come from the
// caller: the public mount's (no credentials), then lists and records of
// the other APIs whose ids are dates, notice numbers, IUVs, indexes and
// event ids. Each {} is a path segment the fuzzer fills.
var readPaths = []struct {
	path string
	as   reqOpt
}{
	{"/pagamento/rs/public/v2/avvisi/{}/{}", nil},
	{"/pagamento/rs/public/v2/pendenze/byAvviso/{}/{}", nil},
	{"/pagamento/rs/public/v2/pagamenti/{}", nil},
	{"/pagamento/rs/public/v2/domini/{}/tipiPendenza", nil},
	{"/pagamento/rs/public/v2/pendenze", nil},
	{"/pagamento/rs/basic/v2/pendenze", as("appA")},
	{"/ragioneria/rs/basic/v3/flussiRendicontazione/{}/{}/{}", as("appA")},
	{"/ragioneria/rs/basic/v3/riscossioni", as("appA")},
	{"/ragioneria/rs/basic/v3/ricevute/{}/{}/{}", as("appA")},
	{"/ragioneria/rs/basic/v3/pendenze/byAvviso/{}/{}", as("appA")},
	{bo + "/eventi/{}", asAdmin()},
	{bo + "/eventi", asAdmin()},
	{bo + "/riscossioni/{}/{}/{}/{}", asAdmin()},
	{bo + "/pendenze", asAdmin()},
	{bo + "/giornale/prove/inclusione", asAdmin()},
}

// FuzzReadPaths sends reads whose path segments and query are arbitrary:
// each answer is 200 with a JSON body or one of the contract's refusals
// (API.md section 2: a bad id or parameter is 400 SINTASSI), never a 5xx,
// and a read writes nothing to the log.
// Run: go test ./http -run '^$' -fuzz FuzzReadPaths -fuzztime 1m -parallel 1
func FuzzReadPaths(f *testing.F) {
	w := newWorld(f)
	pd := w.createPendenza(f, "appA", "fz-read", d1, t1, citizen1)
	for _, s := range [][3]string{
		{d1, pd.NumeroAvviso, "UUID=x"}, {d1, "301000000000000001", ""}, {"", "", "pagina=0&risultatiPerPagina=-1"},
		{d1, "2026-02-30T25:00:00", "dataDa=2026-01-01&dataA=2025-12-31"}, {"..", ".", "dataDa=2026-13-01T00:00:00.000+01:00"},
		{"%", "\x00", "stato=ESEGUITO&stato=NON_ESEGUITO"}, {"12345678901", "0", "limite=18446744073709551616&posizione=-1"},
		{"1-2", "999999999999999999999", "pagina=1&pagina=2"}, {"x:1", "\xff", "idDominio=" + d1 + "&idDominio=" + d2},
		{strings.Repeat("9", 300), "a/b", "dataA=2026-03-29&dataDa=2026-03-29"}, {"1", "1", "posizione=1&dimensione=0"},
		{d1, pd.NumeroAvviso, "UUID=" + pd.UUID + "&UUID=" + pd.UUID}, {"2026-01-01T00:00:00Z", "1e3", "%zz=1&a=%"},
	} {
		for i := range readPaths {
			f.Add(uint8(i), s[0], s[1], s[2])
		}
	}
	f.Fuzz(func(t *testing.T, target uint8, a, b, query string) {
		tg := readPaths[int(target)%len(readPaths)]
		segs := []string{a, b, a + b, b + a}
		path := tg.path
		for i := 0; strings.Contains(path, "{}"); i++ {
			path = strings.Replace(path, "{}", url.PathEscape(segs[i]), 1)
		}
		if query != "" {
			path += "?" + query
		}
		if _, err := url.ParseRequestURI("http://h" + path); err != nil || strings.ContainsAny(query, " #\x7f") {
			t.Skip("not a request line a client sends")
		}
		opts := []reqOpt{}
		if tg.as != nil {
			opts = append(opts, tg.as)
		}
		what := "GET " + path
		before := w.logEnd(t)
		r := w.do(t, "GET", path, nil, opts...)
		if after := w.logEnd(t); after != before {
			t.Fatalf("%s: a read moved the log from %d to %d", what, before, after)
		}
		if r.Status != http.StatusOK {
			checkRefusal(t, what, r)
			return
		}
		if !json.Valid(r.Body) {
			t.Fatalf("%s: 200 with a body that is not JSON: %q", what, r.Body)
		}
	})
}
