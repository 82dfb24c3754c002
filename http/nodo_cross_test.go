package httpapi

import (
	"crypto/x509/pkix"
	"strings"
	"testing"
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
