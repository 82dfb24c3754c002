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
