package httpapi

import (
	"strings"
	"testing"
)

// TestNodoVerifiesNoNoticeAtADisabledPlace: once its entity, type or unit
// is disabled, a notice is no longer payable (POST /pagamenti answers 422,
// c76a410), and the node's verification, which a PSP asks before it
// takes a payment, answers the same 422 instead of the notice's amount
// and open state. A receipt for a payment already taken is still
// recorded: the money has been collected.
func TestNodoVerifiesNoNoticeAtADisabledPlace(t *testing.T) {
	t.Parallel()
	w := newNodeWorld(t)
	node := asBasic(nodeB, nodeBPass)
	verify := func(p pendenzaView) string {
		return nd + "/intermediari/" + intB + "/avvisi/" + p.IDDominio + "/" + p.NumeroAvviso
	}
	const tLater, uLater = "POI_SPENTO", "UPOI"
	w.must(t, "PUT", bo+"/tipiPendenza/"+tLater, map[string]any{"descrizione": "Tipo poi spento", "abilitato": true, "pagamentoSpontaneo": false})
	w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/"+uLater, map[string]any{"ragioneSociale": "Ufficio poi spento", "abilitato": true})
	ofType := w.createPendenza(t, "appA", "n-type", d1, tLater, citizen1)
	inUnit := pendenzaBodyFor(d1, t1, citizen1)
	inUnit["idUnitaOperativa"] = uLater
	var ofUnit pendenzaView
	w.must(t, "PUT", pe+"/pendenze/appA/n-unit", inUnit, as("appA")).decode(t, &ofUnit)
	for _, p := range []pendenzaView{w.p1, ofType, ofUnit} {
		w.do(t, "GET", verify(p), nil, node).expect(t, 200, "")
	}

	entity := func(enabled bool) {
		w.must(t, "PUT", bo+"/domini/"+d1, map[string]any{"ragioneSociale": "Ente " + d1, "abilitato": enabled, "idIntermediario": intB})
	}
	tipo := func(enabled bool) {
		w.must(t, "PUT", bo+"/tipiPendenza/"+tLater, map[string]any{"descrizione": "Tipo poi spento", "abilitato": enabled, "pagamentoSpontaneo": false})
	}
	unit := func(enabled bool) {
		w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/"+uLater, map[string]any{"ragioneSociale": "Ufficio poi spento", "abilitato": enabled})
	}
	cases := []struct {
		name   string
		set    func(enabled bool)
		p      pendenzaView
		detail string
	}{
		{"entity", entity, w.p1, "idDominio " + d1 + " is disabled"},
		{"type", tipo, ofType, "idTipoPendenza " + tLater + " is disabled"},
		{"unit", unit, ofUnit, "idUnitaOperativa " + uLater + " of idDominio " + d1 + " is disabled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.set(false)
			r := w.do(t, "GET", verify(tc.p), nil, node)
			r.expect(t, 422, "422000")
			if d := r.fault(t).Dettaglio; !strings.Contains(d, tc.detail) {
				t.Fatalf("dettaglio %q does not say %q", d, tc.detail)
			}
			// The node still learns nothing more of a notice that is not
			// there, and a receipt for a payment already taken is recorded.
			w.do(t, "GET", nd+"/intermediari/"+intB+"/avvisi/"+d1+"/000000000000000000", nil, node).expect(t, 404, "404000")
			w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(tc.p, "IUR-"+tc.name, 123.45, "ESEGUITO"), node).expect(t, 201, "")
			// Enabled again, the notice verifies again (paid by the receipt).
			tc.set(true)
			r = w.do(t, "GET", verify(tc.p), nil, node)
			r.expect(t, 200, "")
			var v avvisoView
			r.decode(t, &v)
			if v.Stato != "ESEGUITA" || v.NumeroAvviso != tc.p.NumeroAvviso {
				t.Fatalf("notice = %+v, want the paid notice", v)
			}
		})
	}
}
