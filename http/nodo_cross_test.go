package httpapi

import (
	"crypto/x509/pkix"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNodoOtherIntermediarysConnector checks API.md section 9 for both
// auth types: the valid credentials of intermediary B's connector on
// intermediary A's path authenticate (they are B's) but are not A's
// connector, so the answer is 403 with the connector rule in the body; A's
// own connector is allowed; a wrong password is 401.
func TestNodoOtherIntermediarysConnector(t *testing.T) {
	t.Parallel()
	w := newNodeWorld(t)
	subjectA := pkix.Name{CommonName: "node-a-ssl", Organization: []string{"PagoPA"}, Country: []string{"IT"}}
	subjectB := pkix.Name{CommonName: "node-b-ssl", Organization: []string{"PagoPA"}, Country: []string{"IT"}}
	w.putIntermediary(t, "INTSA", "CN=node-a-ssl,O=PagoPA,C=IT", "", true)
	w.putIntermediary(t, "INTSB", "CN=node-b-ssl,O=PagoPA,C=IT", "", true)
	const dA, dB = "50000000001", "50000000002"
	w.putServedEntity(t, dA, "INTSA")
	w.putServedEntity(t, dB, "INTSB")
	pA := w.createPendenza(t, "appB", "crossA", dA, t1, citizen2)
	certA, certB := w.ca.ClientCert(t, subjectA), w.ca.ClientCert(t, subjectB)

	basicOnA := nd + "/intermediari/" + intB + "/avvisi/" + d1 + "/" + w.p1.NumeroAvviso
	sslOnA := ndSSL + "/intermediari/INTSA/avvisi/" + dA + "/" + pA.NumeroAvviso
	cases := []struct {
		name   string
		path   string
		opts   []reqOpt
		status int
		detail string
	}{
		{"basic_own_connector", basicOnA, []reqOpt{asBasic(nodeB, nodeBPass)}, 200, ""},
		{"basic_other_intermediarys_connector", basicOnA, []reqOpt{asBasic(nodeB2, nodeB2Pass)}, 403, "not those of this intermediary's node connector"},
		{"basic_own_connector_wrong_password", basicOnA, []reqOpt{asBasic(nodeB, "wrong-secret")}, 401, ""},
		{"basic_other_connector_wrong_password", basicOnA, []reqOpt{asBasic(nodeB2, "wrong-secret")}, 401, ""},
		{"ssl_own_connector", sslOnA, []reqOpt{asCert(certA)}, 200, ""},
		{"ssl_other_intermediarys_connector", sslOnA, []reqOpt{asCert(certB)}, 403, "not the principal of this intermediary's node connector"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := w.do(t, "GET", tc.path, nil, tc.opts...)
			switch tc.status {
			case 200:
				r.expect(t, 200, "")
			case 401:
				r.expect(t, 401, "401000")
			default:
				r.expect(t, 403, "403000")
				if fb := r.fault(t); !strings.Contains(fb.Dettaglio, tc.detail) {
					t.Fatalf("dettaglio = %q, want it to contain %q", fb.Dettaglio, tc.detail)
				}
			}
		})
	}
}

// TestNodoConnectorPasswordStaysWithItsPrincipal: an update of an
// intermediary without a password keeps the stored one only for the same
// connector principal; under a new principal (a basic connector moved to a
// certificate) the old password opens nothing.
func TestNodoConnectorPasswordStaysWithItsPrincipal(t *testing.T) {
	t.Parallel()
	w := &nodeWorld{world: newWorld(t)}
	w.putIntermediary(t, intB, nodeB, nodeBPass, true)
	w.putServedEntity(t, d1, intB)
	p := w.createPendenza(t, "appA", "pc1", d1, t1, citizen1)
	path := nd + "/intermediari/" + intB + "/avvisi/" + d1 + "/" + p.NumeroAvviso
	w.do(t, "GET", path, nil, asBasic(nodeB, nodeBPass)).expect(t, 200, "")

	const dn = "CN=node-ssl, O=PagoPA, C=IT"
	w.putIntermediary(t, intB, dn, "", true) // a certificate connector now, no password given
	w.do(t, "GET", path, nil, asBasic(nodeB, nodeBPass)).expect(t, 401, "401000")
	w.do(t, "GET", path, nil, asBasic(dn, nodeBPass)).expect(t, 401, "401000")

	w.putIntermediary(t, intB, nodeB, "node-b-new-password", true) // basic again, with a new password
	w.putIntermediary(t, intB, nodeB, "", true)                    // same principal, no password: kept
	w.do(t, "GET", path, nil, asBasic(nodeB, "node-b-new-password")).expect(t, 200, "")
	w.do(t, "GET", path, nil, asBasic(nodeB, nodeBPass)).expect(t, 401, "401000")
}

// TestNodoCertificateConnectorNameIsThrottledLikeAnUnknownName: over basic,
// the name of a connector without a password (a certificate's DN) costs
// what a wrong password costs and is throttled the same way: no status
// tells it from an unknown name. Each name is answered 401 until its
// burst of failures is spent, then 429; the bucket refills one failure
// every 5 s, so a slow run (argon2id under the race detector) may see one
// more 401 for each 5 s it took, never fewer than the burst.
func TestNodoCertificateConnectorNameIsThrottledLikeAnUnknownName(t *testing.T) {
	t.Parallel()
	w := &nodeWorld{world: newWorld(t, withLoginThrottle())}
	w.putIntermediary(t, "SSLONLY", "CN=node-ssl, O=PagoPA, C=IT", "", true)
	w.putIntermediary(t, intB, nodeB, nodeBPass, true)
	w.putServedEntity(t, d1, intB)
	path := nd + "/intermediari/" + intB + "/avvisi/" + d1 + "/000000000000000000"
	for _, user := range []string{"nobody-at-all", "CN=node-ssl, O=PagoPA, C=IT"} {
		start := time.Now()
		failed := 0
		for {
			r := w.do(t, "GET", path, nil, asBasic(user, "wrong-password"))
			if r.Status == http.StatusTooManyRequests {
				break
			}
			r.expect(t, http.StatusUnauthorized, "401000")
			if failed++; failed > 4*DefaultFailedLoginsPerPrincipal {
				t.Fatalf("%q: %d wrong passwords, never throttled", user, failed)
			}
		}
		refills := int(time.Since(start) / (5 * time.Second))
		if failed < DefaultFailedLoginsPerPrincipal || failed > DefaultFailedLoginsPerPrincipal+refills {
			t.Fatalf("%q: %d wrong passwords answered 401 before the first 429, want the burst %d (and at most %d more in %v)",
				user, failed, DefaultFailedLoginsPerPrincipal, refills, time.Since(start).Round(time.Millisecond))
		}
	}
}

// TestNodoOutsidersLearnNothingOfIntermediaries: a caller that is not an
// intermediary's connector (another connector, a registered application,
// a certificate of no connector) gets the same answer for a registered, a
// disabled and an unknown intermediary, so the node API tells no one which
// intermediaries exist or are enabled; only a disabled intermediary's own
// connector learns that it is disabled.
func TestNodoOutsidersLearnNothingOfIntermediaries(t *testing.T) {
	t.Parallel()
	w := newNodeWorld(t)
	w.putIntermediary(t, "INTSOFF", "CN=node-off-ssl,O=PagoPA,C=IT", "", false)
	outsider := w.ca.ClientCert(t, pkix.Name{CommonName: "nobody-ssl", Organization: []string{"PagoPA"}, Country: []string{"IT"}})
	callers := []struct {
		name  string
		mount string
		opts  []reqOpt
	}{
		{"other_intermediarys_connector", nd, []reqOpt{asBasic(nodeB2, nodeB2Pass)}},
		{"registered_application", nd, []reqOpt{as("appA")}},
		{"certificate_of_no_connector", ndSSL, []reqOpt{asCert(outsider)}},
	}
	for _, cl := range callers {
		t.Run(cl.name, func(t *testing.T) {
			var first FaultBean
			for i, interm := range []string{intB, intOff, "INTSOFF", "NOPE"} {
				r := w.do(t, "GET", cl.mount+"/intermediari/"+interm+"/avvisi/"+d1+"/"+w.p1.NumeroAvviso, nil, cl.opts...)
				r.expect(t, 403, "403000")
				fb := r.fault(t)
				if i == 0 {
					first = fb
					continue
				}
				if fb != first {
					t.Fatalf("intermediary %s answered %+v, %s answered %+v", interm, fb, intB, first)
				}
			}
		})
	}
	r := w.do(t, "GET", nd+"/intermediari/"+intOff+"/avvisi/"+d1+"/"+w.p1.NumeroAvviso, nil, asBasic("node-off", "node-off-secret"))
	r.expect(t, 403, "403000")
	if fb := r.fault(t); !strings.Contains(fb.Dettaglio, "disabled") {
		t.Fatalf("the disabled intermediary's connector is told %q", fb.Dettaglio)
	}
}

// TestNodoReceiptCompletesOnlyItsPendenzasPayment: a notice number moves
// with its pendenza to another entity and may then be given to a new
// pendenza at the first one; a receipt for the new pendenza pays it, and
// leaves alone the payment a citizen started for the pendenza that held
// the number before (still unpaid, at an entity another intermediary
// serves): that payment stays IN_CORSO and the collection names no payment.
func TestNodoReceiptCompletesOnlyItsPendenzasPayment(t *testing.T) {
	t.Parallel()
	w := newNodeWorld(t)
	moved := w.createPendenza(t, "appB", "moved", d1, t1, citizen1)
	var pay pagamentoCreated
	w.must(t, "POST", "/pagamento/rs/spid/v2/pagamenti", map[string]any{"pendenze": []map[string]any{
		{"idDominio": d1, "numeroAvviso": moved.NumeroAvviso}}}, asSPID(citizen1)).decode(t, &pay)
	w.must(t, "PUT", "/pendenze/rs/basic/v2/pendenze/appB/moved", pendenzaBodyFor(d2, t1, citizen1), as("appB"))
	reuse := pendenzaBodyFor(d1, t1, citizen2)
	reuse["numeroAvviso"] = moved.NumeroAvviso
	w.must(t, "PUT", "/pendenze/rs/basic/v2/pendenze/appB/reuse", reuse, as("appB"))

	w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(moved, "R-REUSE", 123.45, "ESEGUITO"),
		asBasic(nodeB, nodeBPass)).expect(t, 201, "")

	var pv pagamentoView
	w.must(t, "GET", "/pagamento/rs/spid/v2/pagamenti/"+pay.ID, nil, asSPID(citizen1)).decode(t, &pv)
	if pv.Stato != "IN_CORSO" {
		t.Fatalf("the payment of the moved pendenza is %q after a receipt for another pendenza", pv.Stato)
	}
	var pd pendenzaView
	w.must(t, "GET", "/pendenze/rs/basic/v2/pendenze/appB/reuse", nil, as("appB")).decode(t, &pd)
	if pd.Stato != "ESEGUITA" {
		t.Fatalf("the pendenza the receipt pays is %q", pd.Stato)
	}
	var ri Page[riscossioneView]
	w.must(t, "GET", rg+"/riscossioni", nil, as("appA")).decode(t, &ri)
	if len(ri.Risultati) != 1 || ri.Risultati[0].IDPendenza != "reuse" || ri.Risultati[0].IDPagamento != "" {
		t.Fatalf("riscossioni = %s", mustJSON(t, ri))
	}
}

// TestNodoReceiptRepeatAnswersItsOwnPendenza: the answer to an identical
// repeat of a receipt names the state of the pendenza the receipt was
// recorded for, not of whatever pendenza holds its notice number now. A
// failed receipt leaves its pendenza open; the pendenza then moves to an
// entity another intermediary serves and its number is given to a new
// pendenza at the first entity, which a second receipt pays. The node's
// repeat of the failed receipt is still the first answer (no state: its
// pendenza is no longer at that notice), not the new pendenza's ESEGUITA.
func TestNodoReceiptRepeatAnswersItsOwnPendenza(t *testing.T) {
	t.Parallel()
	w := newNodeWorld(t)
	node := asBasic(nodeB, nodeBPass)
	ric := nd + "/intermediari/" + intB + "/ricevute"
	moved := w.createPendenza(t, "appB", "moved-ko", d1, t1, citizen1)
	failed := ricevuta(moved, "R-KO-MOVED", 123.45, "NON_ESEGUITO")
	var first ricevutaView
	w.do(t, "POST", ric, failed, node).expect(t, 201, "")
	w.do(t, "POST", ric, failed, node).decode(t, &first)
	if first.StatoPendenza != "NON_ESEGUITA" {
		t.Fatalf("the failed receipt's pendenza is %q", first.StatoPendenza)
	}

	w.must(t, "PUT", "/pendenze/rs/basic/v2/pendenze/appB/moved-ko", pendenzaBodyFor(d2, t1, citizen1), as("appB"))
	reuse := pendenzaBodyFor(d1, t1, citizen2)
	reuse["numeroAvviso"] = moved.NumeroAvviso
	w.must(t, "PUT", "/pendenze/rs/basic/v2/pendenze/appB/reuse-ko", reuse, as("appB"))
	w.do(t, "POST", ric, ricevuta(moved, "R-OK-REUSE", 123.45, "ESEGUITO"), node).expect(t, 201, "")

	before := w.logEnd(t)
	r := w.do(t, "POST", ric, failed, node)
	r.expect(t, 200, "")
	var again ricevutaView
	r.decode(t, &again)
	if again.StatoPendenza != "" {
		t.Fatalf("the repeat of the failed receipt answers %s: the state of the pendenza that holds its number now", r.Body)
	}
	if w.logEnd(t) != before {
		t.Fatal("the repeat appended to the log")
	}
}
