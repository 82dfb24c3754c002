package httpapi

import (
	"testing"
)

// The answers' shapes as a client generated from GovPay's published
// specs parses them: a member's type, format and enum values are GovPay's.

// TestGovPayAvvisoStatoIsStatoAvviso: the Pagamento API's notice answers
// GovPay's StatoAvviso (Pagamento v2), whose paid notice is DUPLICATA; a
// pendenza's ESEGUITA is no StatoAvviso. The node API, this service's
// own, keeps the pendenza's state.
func TestGovPayAvvisoStatoIsStatoAvviso(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	open := w.createPendenza(t, "appA", "av-open", d1, t1, citizen1)
	cancelled := w.createPendenza(t, "appA", "av-cancelled", d1, t1, citizen1)
	w.must(t, "PATCH", pe+"/pendenze/appA/av-cancelled", patchStato("ANNULLATA"), as("appA"))
	w.must(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(w.p1, "RIC-AV", 123.45, "ESEGUITO"), asBasic(nodeB, nodeBPass))

	for _, c := range []struct {
		name, numero, pagamento, nodo string
	}{
		{"paid", w.p1.NumeroAvviso, "DUPLICATA", "ESEGUITA"},
		{"open", open.NumeroAvviso, "NON_ESEGUITA", "NON_ESEGUITA"},
		{"cancelled", cancelled.NumeroAvviso, "ANNULLATA", "ANNULLATA"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var pg1, nd1 avvisoView
			w.must(t, "GET", pg+"/avvisi/"+d1+"/"+c.numero, nil, as("appA")).decode(t, &pg1)
			if pg1.Stato != c.pagamento {
				t.Errorf("the Pagamento API's notice says stato %q, GovPay's StatoAvviso %q", pg1.Stato, c.pagamento)
			}
			w.must(t, "GET", nd+"/intermediari/"+intB+"/avvisi/"+d1+"/"+c.numero, nil, asBasic(nodeB, nodeBPass)).decode(t, &nd1)
			if nd1.Stato != c.nodo {
				t.Errorf("the node API's notice says stato %q, want %q", nd1.Stato, c.nodo)
			}
		})
	}
}

// TestGovPayPendenzaTipo: every API's pendenza answers GovPay's required
// tipo (TipoPendenzaTipologia): spontaneo for one its payer created
// through the Pagamento API (GovPay's SPONTANEO), dovuto for one an
// application loaded (GovPay's DOVUTO), in each read and list.
func TestGovPayPendenzaTipo(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "tipo-dovuto", d1, t1, citizen1)
	var spont pendenzaCreata
	w.must(t, "POST", pg+"/pendenze/"+d1+"/"+tSpont, map[string]any{"causale": "Donazione", "importo": 25,
		"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi"}}, as("appA")).decode(t, &spont)

	tipoOf := func(t *testing.T, path string, opt reqOpt) string {
		t.Helper()
		var v struct {
			Tipo *string `json:"tipo"`
		}
		w.must(t, "GET", path, nil, opt).decode(t, &v)
		if v.Tipo == nil {
			t.Fatalf("%s answers no tipo", path)
		}
		return *v.Tipo
	}
	listed := func(t *testing.T, path string, opt reqOpt) map[string]string {
		t.Helper()
		var page Page[struct {
			IDPendenza string  `json:"idPendenza"`
			Tipo       *string `json:"tipo"`
		}]
		w.must(t, "GET", path, nil, opt).decode(t, &page)
		out := map[string]string{}
		for _, r := range page.Risultati {
			if r.Tipo == nil {
				t.Fatalf("%s lists %s without tipo", path, r.IDPendenza)
			}
			out[r.IDPendenza] = *r.Tipo
		}
		return out
	}
	for _, c := range []struct {
		name, path string
		opt        reqOpt
		want       string
	}{
		{"backoffice_dovuto", bo + "/pendenze/appA/tipo-dovuto", asAdmin(), "dovuto"},
		{"backoffice_spontaneo", bo + "/pendenze/" + spont.IDA2A + "/" + spont.IDPendenza, asAdmin(), "spontaneo"},
		{"pendenze_dovuto", pe + "/pendenze/appA/tipo-dovuto", as("appA"), "dovuto"},
		{"pagamento_dovuto", pg + "/pendenze/appA/tipo-dovuto", as("appA"), "dovuto"},
		{"pagamento_spontaneo", pg + "/pendenze/" + spont.IDA2A + "/" + spont.IDPendenza, as("appA"), "spontaneo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := tipoOf(t, c.path, c.opt); got != c.want {
				t.Fatalf("%s: tipo %q, want %q", c.path, got, c.want)
			}
		})
	}
	for _, c := range []struct {
		name, path string
		opt        reqOpt
	}{
		{"backoffice_list", bo + "/pendenze", asAdmin()},
		{"pagamento_list", pg + "/pendenze", as("appA")},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := listed(t, c.path, c.opt)
			if got["tipo-dovuto"] != "dovuto" || got[spont.IDPendenza] != "spontaneo" {
				t.Fatalf("%s lists tipo %v", c.path, got)
			}
		})
	}
}
