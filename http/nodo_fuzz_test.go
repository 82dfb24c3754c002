package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
)

// nodoWrites are the node API's writes (API.md section 9), each as the
// connector of the intermediary in its path: INTB serves d1, INTB2 d2, so
// a body naming the other's entity is the 403 of an entity not served.
var nodoWrites = []struct {
	path string
	as   reqOpt
}{
	{nd + "/intermediari/" + intB + "/ricevute", asBasic(nodeB, nodeBPass)},
	{nd + "/intermediari/" + intB + "/flussiRendicontazione", asBasic(nodeB, nodeBPass)},
	{nd + "/intermediari/" + intB2 + "/ricevute", asBasic(nodeB2, nodeB2Pass)},
	{nd + "/intermediari/" + intB2 + "/flussiRendicontazione", asBasic(nodeB2, nodeB2Pass)},
}

// ragioneriaOf is the application whose Ragioneria grant reads entity
// idDominio's settlement reports in the node world.
var ragioneriaOf = map[string]string{d1: "appA", d2: "appB"}

// FuzzNodoWrites sends arbitrary bodies to the node API's writes (POST
// /ricevute and POST /flussiRendicontazione), each as its intermediary's
// connector: bad input must be one of the contract's refusals (a FaultBean
// of API.md section 2, never a 5xx) that writes nothing to the log; a 201
// is written and readable (the receipt by the administrator, the report
// by the entity's Ragioneria application) and answers what was sent; a
// 200 is an identical repeat and writes nothing.
// Run: go test ./http -run '^$' -fuzz FuzzNodoWrites -fuzztime 1m -parallel 1
func FuzzNodoWrites(f *testing.F) {
	w := &nodeWorld{world: newWorld(f)}
	w.putIntermediary(f, intB, nodeB, nodeBPass, true)
	w.putIntermediary(f, intB2, nodeB2, nodeB2Pass, true)
	w.putServedEntity(f, d1, intB)
	w.putServedEntity(f, d2, intB2)
	p1 := w.createPendenza(f, "appA", "fz-n1", d1, t1, citizen1)
	p2 := w.createPendenza(f, "appB", "fz-n2", d2, t1, citizen2)
	ric := func(dominio, avviso, id, importo, esito, data string) string {
		return `{"idDominio":"` + dominio + `","numeroAvviso":"` + avviso + `","idRicevuta":"` + id + `","importo":` + importo +
			`,"esito":"` + esito + `","dataPagamento":"` + data + `"}`
	}
	fl := func(id, dominio, data, total string, lines ...string) string {
		return `{"idFlusso":"` + id + `","idDominio":"` + dominio + `","dataFlusso":"` + data + `","importoTotale":` + total +
			`,"rendicontazioni":[` + strings.Join(lines, ",") + `]}`
	}
	ln := func(avviso, importo, esito string) string {
		return `{"numeroAvviso":"` + avviso + `","importo":` + importo + `,"esito":` + esito + `}`
	}
	seeds := []string{
		ric(d1, p1.NumeroAvviso, "R-1", "123.45", "ESEGUITO", "2026-01-02T10:00:00Z"),
		ric(d1, p1.NumeroAvviso, "R-1", "100", "ESEGUITO", "2026-01-02T10:00:00Z"),
		ric(d1, p1.NumeroAvviso, "R-1", "123.45", "NON_ESEGUITO", "2026-01-02T10:00:00Z"),
		ric(d1, p1.NumeroAvviso, "R-2", "0.01", "NON_ESEGUITO", "2026-01-02"),
		ric(d2, p2.NumeroAvviso, "R-1", "123.45", "ESEGUITO", "2026-01-02"),
		ric(d1, "000000000000000001", "R-3", "1", "ESEGUITO", "2026-01-02"),
		ric(d1, p1.NumeroAvviso, "R-4", "-1", "ESEGUITO", "2026-01-02"),
		ric(d1, p1.NumeroAvviso, "R-4", "1e2", "ESEGUITO", "2026-02-30"),
		ric(d1, p1.NumeroAvviso, "..", "999999999999.99", "PAGATO", "yesterday"),
		ric(d1, p1.NumeroAvviso, "R-5", "1", "ESEGUITO", "2026-01-02") + ` `,
		`{"idDominio":"` + d1 + `","idDominio":"` + d2 + `","numeroAvviso":"` + p1.NumeroAvviso + `","idRicevuta":"R-6","importo":1,"esito":"ESEGUITO","dataPagamento":"2026-01-02"}`,
		`{"idDominio":"` + d1 + `","numeroAvviso":"` + p1.NumeroAvviso + `","idRicevuta":"R-7","importo":1,"esito":"ESEGUITO","dataPagamento":"2026-01-02","x":1}`,
		fl("F-1", d1, "2026-01-03", "123.45", ln(p1.NumeroAvviso, "123.45", "0")),
		fl("F-1", d1, "2026-01-03", "100", ln(p1.NumeroAvviso, "100", "0")),
		fl("F-2", d2, "2026-01-03T12:00:00+01:00", "2", ln(p2.NumeroAvviso, "1", "3"), ln(p2.NumeroAvviso, "1", "9")),
		fl("F-3", d1, "2026-01-03", "2", ln(p1.NumeroAvviso, "1", "0"), ln(p1.NumeroAvviso, "1", "0")),
		fl("F-4", d1, "2026-01-03", "1", ln(p1.NumeroAvviso, "1", "5")),
		fl("F-4", d1, "2026-01-03", "1", ln(p1.NumeroAvviso, "1", "0.0")),
		fl("F-4", d1, "2026-01-03", "1", ln(p1.NumeroAvviso, "1", "-0")),
		fl("F-4", d1, "2026-01-03", "0"), fl("F-4", d1, "2026-01-03", "1", `null`), fl("F-4", d1, "2026-01-03", "1", `{}`),
		fl("F-5", d1, "2026-01-03", "1", ln("000000000000000001", "1", "8")),
		fl("F-6", d1, "2026-01-03", "999999999999.99", ln(p1.NumeroAvviso, "999999999999.99", "4")),
		fl("F-7", d1, "2026-01-03", "1", ln(p1.NumeroAvviso, "1", "99999999999999999999")),
		`{"idFlusso":"F-8","idDominio":"` + d1 + `","dataFlusso":"2026-01-03","importoTotale":1,"rendicontazioni":null}`,
		`{}`, `[]`, `null`, ``, `{"idDominio":` + d1 + `}`, "{\"idRicevuta\":\"\xff\"}", `{"idRicevuta":"\ud800"}`,
	}
	for _, s := range seeds {
		for i := range nodoWrites {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, target uint8, body string) {
		tg := nodoWrites[int(target)%len(nodoWrites)]
		what := fmt.Sprintf("POST %s %q", tg.path, body)
		r, accepted, moved := fuzzWrite(t, w.world, what, "POST", tg.path, body, tg.as, withHeader("Connection", "close"))
		if !accepted {
			return
		}
		if r.Status == http.StatusOK && moved {
			t.Fatalf("%s: 200 (a repeat), yet the log moved", what)
		}
		checkNodoAnswer(t, w, what, body, r)
	})
}

// checkNodoAnswer fails t unless the answer r to the accepted node write
// body holds what body sent, and the record is there to read.
func checkNodoAnswer(t *testing.T, w *nodeWorld, what, body string, r *response) {
	t.Helper()
	var sent, got map[string]any
	if err := json.Unmarshal([]byte(body), &sent); err != nil {
		t.Fatalf("%s: accepted a body encoding/json refuses: %v", what, err)
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatalf("%s: %d %s: %v", what, r.Status, r.Body, err)
	}
	dominio, _ := got["idDominio"].(string)
	if dominio != sent["idDominio"] {
		t.Fatalf("%s: answered %s", what, r.Body)
	}
	for _, k := range []string{"idRicevuta", "numeroAvviso", "esito", "importo", "idFlusso", "importoTotale"} {
		if s, ok := sent[k]; ok && fmt.Sprint(s) != fmt.Sprint(got[k]) {
			t.Fatalf("%s: %s sent %v, answered %v", what, k, s, got[k])
		}
	}
	var read string
	var opts []reqOpt
	if tok := r.Header.Get(ConsistencyHeader); tok != "" {
		opts = append(opts, withToken(tok))
	}
	if id, ok := got["idRicevuta"].(string); ok {
		avviso, _ := got["numeroAvviso"].(string)
		read = bo + "/ricevute/" + dominio + "/" + domain.IUVOfNotice(avviso) + "/" + url.PathEscape(id)
		opts = append(opts, asAdmin())
	} else {
		id, _ := got["idFlusso"].(string)
		read = rg + "/flussiRendicontazione/" + dominio + "/" + url.PathEscape(id)
		opts = append(opts, as(ragioneriaOf[dominio]))
	}
	if rr := w.do(t, "GET", read, nil, opts...); rr.Status != http.StatusOK {
		t.Fatalf("%s: %d %s, then GET %s: %d %s", what, r.Status, r.Body, read, rr.Status, rr.Body)
	}
}
