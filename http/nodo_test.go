package httpapi

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
)

// The node API tests run the real service (harness_test.go) with
// intermediaries whose connectors authenticate with basic credentials or
// with client certificates generated here, signed by the CA the server
// trusts.

const (
	nd         = "/nodo/rs/basic/v1"
	ndSSL      = "/nodo/rs/ssl/v1"
	intB       = "INTB"  // basic connector, serves d1
	intB2      = "INTB2" // basic connector, serves d2
	intOff     = "INTOFF"
	nodeB      = "node-b"
	nodeBPass  = "node-b-secret"
	nodeB2     = "node-b2"
	nodeB2Pass = "node-b2-secret"
)

// nodeSubject is the subject of the node's client certificate; Go prints
// it "CN=node-ssl,O=PagoPA,C=IT".
var nodeSubject = pkix.Name{CommonName: "node-ssl", Organization: []string{"PagoPA"}, Country: []string{"IT"}}

type nodeWorld struct {
	*world
	p1, p2 pendenzaView // a pendenza of d1 (appA) and of d2 (appB)
}

func (w *nodeWorld) putIntermediary(t testing.TB, id, principal, password string, enabled bool) {
	t.Helper()
	conn := map[string]any{"principal": principal}
	if password != "" {
		conn["password"] = password
	}
	w.must(t, "PUT", bo+"/intermediari/"+id, map[string]any{"denominazione": "Intermediario " + id, "abilitato": enabled,
		"connettoreNodo": conn})
}

func (w *nodeWorld) putServedEntity(t testing.TB, idDominio, idIntermediario string) {
	t.Helper()
	w.must(t, "PUT", bo+"/domini/"+idDominio, map[string]any{"ragioneSociale": "Ente " + idDominio, "abilitato": true,
		"idIntermediario": idIntermediario})
}

func newNodeWorld(t *testing.T) *nodeWorld {
	t.Helper()
	w := &nodeWorld{world: newWorld(t)}
	w.putIntermediary(t, intB, nodeB, nodeBPass, true)
	w.putIntermediary(t, intB2, nodeB2, nodeB2Pass, true)
	w.putIntermediary(t, intOff, "node-off", "node-off-secret", false)
	w.putServedEntity(t, d1, intB)
	w.putServedEntity(t, d2, intB2)
	w.p1 = w.createPendenza(t, "appA", "n1", d1, t1, citizen1)
	w.p2 = w.createPendenza(t, "appB", "n2", d2, t1, citizen2)
	return w
}

func TestNodoBasicMatrix(t *testing.T) {
	t.Parallel()
	w := newNodeWorld(t)
	avviso := func(interm, dominio, numero string) string {
		return nd + "/intermediari/" + interm + "/avvisi/" + dominio + "/" + numero
	}
	node := asBasic(nodeB, nodeBPass)
	cases := []struct {
		name   string
		path   string
		opts   []reqOpt
		status int
		codice string
		detail string // a substring of dettaglio, for 403
	}{
		{"connector_right_password", avviso(intB, d1, w.p1.NumeroAvviso), []reqOpt{node}, 200, "", ""},
		{"connector_wrong_password", avviso(intB, d1, w.p1.NumeroAvviso), []reqOpt{asBasic(nodeB, "wrong-secret")}, 401, "401000", ""},
		{"unknown_user", avviso(intB, d1, w.p1.NumeroAvviso), []reqOpt{asBasic("nobody", nodeBPass)}, 401, "401000", ""},
		{"no_credentials", avviso(intB, d1, w.p1.NumeroAvviso), nil, 401, "401000", ""},
		{"authorization_given_twice", avviso(intB, d1, w.p1.NumeroAvviso),
			[]reqOpt{node, alsoHeader("Authorization", basicHeader(nodeB2, nodeB2Pass))}, 401, "401000", ""},
		{"other_intermediarys_connector", avviso(intB, d1, w.p1.NumeroAvviso), []reqOpt{asBasic(nodeB2, nodeB2Pass)}, 403, "403000", "node connector"},
		{"other_intermediarys_connector_wrong_password", avviso(intB, d1, w.p1.NumeroAvviso), []reqOpt{asBasic(nodeB2, "wrong-secret")}, 401, "401000", ""},
		{"registered_application", avviso(intB, d1, w.p1.NumeroAvviso), []reqOpt{as("appA")}, 403, "403000", "node connector"},
		{"administrator", avviso(intB, d1, w.p1.NumeroAvviso), []reqOpt{asAdmin()}, 403, "403000", "node connector"},
		{"entity_of_other_intermediary", avviso(intB, d2, w.p2.NumeroAvviso), []reqOpt{node}, 403, "403000", "not served"},
		{"unknown_entity", avviso(intB, dNone, w.p1.NumeroAvviso), []reqOpt{node}, 403, "403000", "not served"},
		{"other_connector_own_entity", avviso(intB2, d2, w.p2.NumeroAvviso), []reqOpt{asBasic(nodeB2, nodeB2Pass)}, 200, "", ""},
		{"other_connector_on_my_entity", avviso(intB2, d1, w.p1.NumeroAvviso), []reqOpt{asBasic(nodeB2, nodeB2Pass)}, 403, "403000", "not served"},
		{"unknown_intermediary", avviso("NOPE", d1, w.p1.NumeroAvviso), []reqOpt{node}, 403, "403000", "node connector"},
		{"disabled_intermediary", avviso(intOff, d1, w.p1.NumeroAvviso), []reqOpt{asBasic("node-off", "node-off-secret")}, 403, "403000", "disabled"},
		{"unknown_notice_of_served_entity", avviso(intB, d1, "000000000000000000"), []reqOpt{node}, 404, "404000", ""},
		{"bad_intermediary_id", avviso("a%20b", d1, w.p1.NumeroAvviso), []reqOpt{node}, 400, "SINTASSI", ""},
		{"bad_notice_number", avviso(intB, d1, "12"), []reqOpt{node}, 400, "SINTASSI", ""},
		{"spid_mount_refused", "/nodo/rs/spid/v1/intermediari/" + intB + "/avvisi/" + d1 + "/" + w.p1.NumeroAvviso, []reqOpt{asSPID(citizen1)}, 403, "403", ""},
		{"public_mount_refused", "/nodo/rs/public/v1/intermediari/" + intB + "/avvisi/" + d1 + "/" + w.p1.NumeroAvviso, nil, 403, "403", ""},
		{"ssl_mount_over_plain_http", ndSSL + "/intermediari/" + intB + "/avvisi/" + d1 + "/" + w.p1.NumeroAvviso, []reqOpt{node}, 401, "401000", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := w.do(t, "GET", tc.path, nil, tc.opts...)
			r.expect(t, tc.status, tc.codice)
			if tc.detail != "" && !strings.Contains(r.fault(t).Dettaglio, tc.detail) {
				t.Fatalf("dettaglio %q does not say %q", r.fault(t).Dettaglio, tc.detail)
			}
			if tc.status == 200 {
				var v avvisoView
				r.decode(t, &v)
				if v.NumeroAvviso == "" || v.Importo != 12345 || v.Stato != "NON_ESEGUITA" {
					t.Fatalf("notice = %+v", v)
				}
				if strings.Contains(string(r.Body), "UUID") {
					t.Fatalf("the node sees the UUID: %s", r.Body)
				}
			}
		})
	}
}

// TestNodoSSLDNMatrix registers one intermediary per form of the
// connector principal and calls each with the same client certificate.
func TestNodoSSLDNMatrix(t *testing.T) {
	t.Parallel()
	w := &nodeWorld{world: newWorld(t)}
	cert := w.ca.ClientCert(t, nodeSubject)
	runConnectorDNCases(t, w, cert, []connectorDNCase{
		{"same_go_form", "CN=node-ssl,O=PagoPA,C=IT", true},
		{"same_rfc4514_spaces", "CN=node-ssl, O=PagoPA, C=IT", true},
		{"reversed", "C=IT, O=PagoPA, CN=node-ssl", true},
		{"openssl_form", "/C=IT/O=PagoPA/CN=node-ssl", true},
		{"attribute_type_lower_case", "cn=node-ssl, o=PagoPA, c=IT", true},
		{"hex_escaped_and_padded", "CN= node\\2Dssl ,O=PagoPA,C=IT", true},
		{"bad_escape_never_matches", "CN=node\\-ssl,O=PagoPA,C=IT", false},
		{"extra_rdn", "CN=node-ssl, OU=Nodo, O=PagoPA, C=IT", false},
		{"missing_rdn", "CN=node-ssl, C=IT", false},
		{"different_value", "CN=node-ssl2, O=PagoPA, C=IT", false},
		{"value_case_differs", "CN=NODE-SSL, O=PagoPA, C=IT", false},
		{"shuffled_not_reversed", "O=PagoPA, CN=node-ssl, C=IT", false},
		{"openssl_extra_rdn", "/C=IT/O=PagoPA/OU=Nodo/CN=node-ssl", false},
	})

	// The certificate side: the connector "CN=node-ssl,O=PagoPA,C=IT"
	// (case 0) called with other certificates.
	pd, _ := w.model.Pendenza("appB", "dnSSL0")
	path := ndSSL + "/intermediari/SSL0/avvisi/40000000000/" + pd.NumeroAvviso
	extraOU := nodeSubject
	extraOU.OrganizationalUnit = []string{"Nodo"}
	lowerCN := nodeSubject
	lowerCN.CommonName = "Node-SSL"
	trailingTab := nodeSubject
	trailingTab.CommonName = "node-ssl\t"
	withSerial := nodeSubject
	withSerial.ExtraNames = []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 5}, Value: "1"}}
	certCases := []struct {
		name   string
		opts   []reqOpt
		status int
		codice string
	}{
		{"same_subject", []reqOpt{asCert(cert)}, 200, ""},
		{"subject_with_extra_rdn", []reqOpt{asCert(w.ca.ClientCert(t, extraOU))}, 403, "403000"},
		{"subject_with_extra_attribute", []reqOpt{asCert(w.ca.ClientCert(t, withSerial))}, 403, "403000"},
		{"subject_value_case_differs", []reqOpt{asCert(w.ca.ClientCert(t, lowerCN))}, 403, "403000"},
		{"subject_value_with_a_trailing_tab", []reqOpt{asCert(w.ca.ClientCert(t, trailingTab))}, 403, "403000"},
		{"untrusted_ca", []reqOpt{asCert(w.otherCA.ClientCert(t, nodeSubject))}, 401, "401000"},
		{"no_certificate", []reqOpt{viaTLS()}, 401, "401000"},
		{"basic_credentials_on_ssl_mount", []reqOpt{viaTLS(), asBasic("CN=node-ssl,O=PagoPA,C=IT", "whatever-1")}, 401, "401000"},
		{"certificate_on_basic_mount", nil, 401, "401000"},
	}
	for _, tc := range certCases {
		t.Run("cert_"+tc.name, func(t *testing.T) {
			p := path
			opts := tc.opts
			if tc.name == "certificate_on_basic_mount" {
				p = strings.Replace(path, ndSSL, nd, 1)
				opts = []reqOpt{asCert(cert)}
			}
			w.do(t, "GET", p, nil, opts...).expect(t, tc.status, tc.codice)
		})
	}
}

// connectorDNCase is an ssl connector's principal and whether the node's
// certificate is that connector.
type connectorDNCase struct {
	name      string
	principal string
	allowed   bool
}

// runConnectorDNCases registers one intermediary per case (SSL0, SSL1…,
// its connector the case's principal, serving entity 40000000000,
// 40000000001…, where appB creates a pendenza "dnSSL0"…) and verifies that
// pendenza's notice with cert over TLS: 200 when the case is allowed, else
// 403 naming the certificate subject.
func runConnectorDNCases(t *testing.T, w *nodeWorld, cert tls.Certificate, cases []connectorDNCase) {
	t.Helper()
	for i, tc := range cases {
		id := fmt.Sprintf("SSL%d", i)
		dominio := fmt.Sprintf("400000000%02d", i)
		w.putIntermediary(t, id, tc.principal, "", true)
		w.putServedEntity(t, dominio, id)
		w.createPendenza(t, "appB", "dn"+id, dominio, t1, citizen2)
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("SSL%d", i)
			dominio := fmt.Sprintf("400000000%02d", i)
			pd, ok := w.model.Pendenza("appB", "dn"+id)
			if !ok {
				t.Fatal("fixture pendenza missing")
			}
			path := ndSSL + "/intermediari/" + id + "/avvisi/" + dominio + "/" + pd.NumeroAvviso
			r := w.do(t, "GET", path, nil, asCert(cert))
			if tc.allowed {
				r.expect(t, 200, "")
				var v avvisoView
				r.decode(t, &v)
				if v.NumeroAvviso != pd.NumeroAvviso {
					t.Fatalf("notice = %+v", v)
				}
				return
			}
			r.expect(t, 403, "403000")
			if !strings.Contains(r.fault(t).Dettaglio, "certificate subject") {
				t.Fatalf("dettaglio = %q", r.fault(t).Dettaglio)
			}
		})
	}
}

// TestNodoSSLConnectorWithOrganizationIdentifier: a node certificate of
// the kind eIDAS QWACs are, its subject holding organizationIdentifier
// (2.5.4.97) and emailAddress, attribute types Go has no name for, is the
// connector registered as openssl x509 -subject prints it, in OpenSSL's
// slashed form, in RFC 4514 with the OIDs and plain values, and as Go
// prints it (the OIDs with "#" and the DER in hex, what such a connector
// had to be registered as before): API.md section 9. Another
// organizationIdentifier, a missing one, another order or E for
// emailAddress is not.
func TestNodoSSLConnectorWithOrganizationIdentifier(t *testing.T) {
	t.Parallel()
	w := &nodeWorld{world: newWorld(t)}
	var (
		oidOrgID = asn1.ObjectIdentifier{2, 5, 4, 97}
		oidEmail = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
	)
	cert := w.ca.ClientCert(t, pkix.Name{ExtraNames: []pkix.AttributeTypeAndValue{
		subjectAttr(oidC, "IT"), subjectAttr(oidO, "PagoPA S.p.A."), subjectAttr(oidOrgID, "VATIT-15376371009"),
		subjectAttr(oidEmail, "nodo@pagopa.it"), subjectAttr(oidCN, "nodo"),
	}})
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	var issued pkix.RDNSequence
	if _, err := asn1.Unmarshal(leaf.RawSubject, &issued); err != nil {
		t.Fatal(err)
	}
	goForm := issued.String()
	if !strings.Contains(goForm, "2.5.4.97=#") {
		t.Fatalf("Go prints the subject %q, not with the #hex form", goForm)
	}
	runConnectorDNCases(t, w, cert, []connectorDNCase{
		{"openssl_subject", "C = IT, O = PagoPA S.p.A., organizationIdentifier = VATIT-15376371009, emailAddress = nodo@pagopa.it, CN = nodo", true},
		{"openssl_slashes", "/C=IT/O=PagoPA S.p.A./organizationIdentifier=VATIT-15376371009/emailAddress=nodo@pagopa.it/CN=nodo", true},
		{"rfc4514_oids_plain_values", "CN=nodo, 1.2.840.113549.1.9.1=nodo@pagopa.it, 2.5.4.97=VATIT-15376371009, O=PagoPA S.p.A., C=IT", true},
		{"go_form_hex", goForm, true},
		{"other_organization_identifier", "C = IT, O = PagoPA S.p.A., organizationIdentifier = VATIT-15376371008, emailAddress = nodo@pagopa.it, CN = nodo", false},
		{"other_organization_identifier_oid", "CN=nodo, 1.2.840.113549.1.9.1=nodo@pagopa.it, 2.5.4.97=VATIT-15376371008, O=PagoPA S.p.A., C=IT", false},
		{"no_organization_identifier", "C = IT, O = PagoPA S.p.A., emailAddress = nodo@pagopa.it, CN = nodo", false},
		{"shuffled", "C = IT, organizationIdentifier = VATIT-15376371009, O = PagoPA S.p.A., emailAddress = nodo@pagopa.it, CN = nodo", false},
		{"e_is_not_email_address", "C = IT, O = PagoPA S.p.A., organizationIdentifier = VATIT-15376371009, E = nodo@pagopa.it, CN = nodo", false},
	})
}

func ricevuta(p pendenzaView, id string, importo float64, esito string) map[string]any {
	return map[string]any{"idDominio": p.IDDominio, "numeroAvviso": p.NumeroAvviso, "idRicevuta": id,
		"importo": importo, "esito": esito, "dataPagamento": "2026-01-02T10:00:00Z"}
}

func flusso(id, dominio string, total float64, lines ...map[string]any) map[string]any {
	if lines == nil {
		lines = []map[string]any{}
	}
	return map[string]any{"idFlusso": id, "idDominio": dominio, "dataFlusso": "2026-01-03", "importoTotale": total,
		"rendicontazioni": lines}
}

func line(numero string, importo float64, esito int) map[string]any {
	return map[string]any{"numeroAvviso": numero, "importo": importo, "esito": esito}
}

// TestNodoWrites runs the receipt and settlement report tests on one
// world (they use distinct pendenze and ids), to keep the package fast.
func TestNodoWrites(t *testing.T) {
	t.Parallel()
	w := newNodeWorld(t)
	t.Run("ricevute", func(t *testing.T) { testNodoRicevute(t, w) })
	t.Run("payment_of_two_notices", func(t *testing.T) { testNodoPaymentOfTwoNotices(t, w) })
	t.Run("flussi", func(t *testing.T) { testNodoFlussi(t, w) })
	t.Run("repeats", func(t *testing.T) { testNodoRepeats(t, w) })
}

// testNodoRepeats pins what docs/API.md section 9 says of repeats and of
// what a report's lines may hold: a repeat differing in any member is 409,
// a refusal writes nothing, an identical repeat is 200 and writes nothing;
// a failed receipt pays nothing; lines are recorded as sent.
func testNodoRepeats(t *testing.T, w *nodeWorld) {
	node := asBasic(nodeB, nodeBPass)
	ric := nd + "/intermediari/" + intB + "/ricevute"
	fl := nd + "/intermediari/" + intB + "/flussiRendicontazione"
	ko := w.createPendenza(t, "appA", "n-rep-ko", d1, t1, citizen1)
	other := w.createPendenza(t, "appA", "n-rep-other", d1, t1, citizen1)
	unchanged := func(t *testing.T, status int, body any) {
		t.Helper()
		before := w.logEnd(t)
		w.do(t, "POST", ric, body, node).expect(t, status, codiceOf(status))
		if after := w.logEnd(t); after != before {
			t.Fatalf("%d moved the log from %d to %d", status, before, after)
		}
	}
	failed := ricevuta(ko, "R-REP-KO", 123.45, "NON_ESEGUITO")
	w.do(t, "POST", ric, failed, node).expect(t, 201, "")
	unchanged(t, 200, failed)
	unchanged(t, 409, withField(failed, "numeroAvviso", other.NumeroAvviso))
	unchanged(t, 409, withField(failed, "dataPagamento", "2026-01-02"))
	unchanged(t, 409, withField(failed, "esito", "ESEGUITO"))
	unchanged(t, 409, withField(failed, "importo", 1))
	dup := `{"idDominio":"` + d1 + `","idDominio":"` + d1 + `","numeroAvviso":"` + other.NumeroAvviso +
		`","idRicevuta":"R-REP-DUP","importo":1,"esito":"ESEGUITO","dataPagamento":"2026-01-02"}`
	unchanged(t, 400, dup)
	var pd pendenzaView
	w.must(t, "GET", "/pendenze/rs/basic/v2/pendenze/appA/n-rep-ko", nil, as("appA")).decode(t, &pd)
	if pd.Stato != "NON_ESEGUITA" {
		t.Fatalf("after a NON_ESEGUITO receipt the pendenza is %q", pd.Stato)
	}
	w.do(t, "GET", rg+"/riscossioni/"+d1+"/"+domain.IUVOfNotice(ko.NumeroAvviso)+"/R-REP-KO/1", nil, as("appA")).
		expect(t, 404, "404000")

	// Lines are recorded as sent: one repeated, one of an unknown notice.
	twice := line(other.NumeroAvviso, 1, 0)
	report := flusso("F-REP", d1, 3, twice, twice, line("000000000000000009", 1, 9))
	w.do(t, "POST", fl, report, node).expect(t, 201, "")
	w.do(t, "POST", fl, report, node).expect(t, 200, "")
	reordered := flusso("F-REP", d1, 3, line("000000000000000009", 1, 9), twice, twice)
	before := w.logEnd(t)
	w.do(t, "POST", fl, reordered, node).expect(t, 409, "409000")
	if after := w.logEnd(t); after != before {
		t.Fatalf("409 moved the log from %d to %d", before, after)
	}
}

func testNodoRicevute(t *testing.T, w *nodeWorld) {
	node := asBasic(nodeB, nodeBPass)
	ric := nd + "/intermediari/" + intB + "/ricevute"

	// Denied callers are refused before the body is looked at.
	w.do(t, "POST", ric, "{not json", asBasic(nodeB2, nodeB2Pass)).expect(t, 403, "403000")
	w.do(t, "POST", ric, "{not json", asBasic(nodeB, "bad-password")).expect(t, 401, "401000")
	w.do(t, "POST", ric, "{not json", node).expect(t, 400, "SINTASSI")

	bad := []struct {
		name   string
		body   any
		status int
	}{
		{"esito_unknown", ricevuta(w.p1, "R-BAD", 123.45, "PAGATO"), 400},
		{"importo_missing", map[string]any{"idDominio": d1, "numeroAvviso": w.p1.NumeroAvviso, "idRicevuta": "R-BAD",
			"esito": "ESEGUITO", "dataPagamento": "2026-01-02"}, 400},
		{"importo_three_decimals", ricevuta(w.p1, "R-BAD", 1.234, "ESEGUITO"), 400},
		{"importo_zero", ricevuta(w.p1, "R-BAD", 0, "ESEGUITO"), 422},
		{"date_bad", map[string]any{"idDominio": d1, "numeroAvviso": w.p1.NumeroAvviso, "idRicevuta": "R-BAD",
			"importo": 1, "esito": "ESEGUITO", "dataPagamento": "yesterday"}, 400},
		{"unknown_field", map[string]any{"idDominio": d1, "numeroAvviso": w.p1.NumeroAvviso, "idRicevuta": "R-BAD",
			"importo": 1, "esito": "ESEGUITO", "dataPagamento": "2026-01-02", "extra": 1}, 400},
		{"bad_id_dominio", map[string]any{"idDominio": "1", "numeroAvviso": w.p1.NumeroAvviso, "idRicevuta": "R-BAD",
			"importo": 1, "esito": "ESEGUITO", "dataPagamento": "2026-01-02"}, 400},
		{"entity_of_other_intermediary", ricevuta(w.p2, "R-BAD", 123.45, "ESEGUITO"), 403},
		{"unknown_notice", map[string]any{"idDominio": d1, "numeroAvviso": "000000000000000001", "idRicevuta": "R-BAD",
			"importo": 1, "esito": "ESEGUITO", "dataPagamento": "2026-01-02"}, 404},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			w.do(t, "POST", ric, tc.body, node).expect(t, tc.status, codiceOf(tc.status))
		})
	}

	// A citizen starts a payment; the receipt completes it.
	var pay pagamentoCreated
	w.must(t, "POST", "/pagamento/rs/spid/v2/pagamenti", map[string]any{"pendenze": []map[string]any{
		{"idA2A": "appA", "idPendenza": "n1"}}}, asSPID(citizen1)).decode(t, &pay)

	r := w.do(t, "POST", ric, ricevuta(w.p1, "R-1", 123.45, "ESEGUITO"), node)
	r.expect(t, 201, "")
	if r.Header.Get(ConsistencyHeader) == "" {
		t.Fatal("no consistency token on a write")
	}
	var got ricevutaView
	r.decode(t, &got)
	if got.IDRicevuta != "R-1" || got.StatoPendenza != "ESEGUITA" || got.Importo != 12345 {
		t.Fatalf("receipt = %+v", got)
	}
	if strings.Contains(string(r.Body), "appA") {
		t.Fatalf("the node sees creditor-internal ids: %s", r.Body)
	}
	// Identical repeat: 200, nothing new; conflicting repeats: 409.
	w.do(t, "POST", ric, ricevuta(w.p1, "R-1", 123.45, "ESEGUITO"), node).expect(t, 200, "")
	w.do(t, "POST", ric, ricevuta(w.p1, "R-1", 100, "ESEGUITO"), node).expect(t, 409, "409000")
	w.do(t, "POST", ric, ricevuta(w.p1, "R-1", 123.45, "NON_ESEGUITO"), node).expect(t, 409, "409000")

	var pd pendenzaView
	w.must(t, "GET", "/pendenze/rs/basic/v2/pendenze/appA/n1", nil, as("appA")).decode(t, &pd)
	if pd.Stato != "ESEGUITA" {
		t.Fatalf("pendenza stato = %q, want ESEGUITA", pd.Stato)
	}
	var pv pagamentoView
	w.must(t, "GET", "/pagamento/rs/spid/v2/pagamenti/"+pay.ID, nil, asSPID(citizen1)).decode(t, &pv)
	if pv.Stato != "ESEGUITO" {
		t.Fatalf("payment stato = %q, want ESEGUITO", pv.Stato)
	}
	var v avvisoView
	w.must(t, "GET", nd+"/intermediari/"+intB+"/avvisi/"+d1+"/"+w.p1.NumeroAvviso, nil, node).decode(t, &v)
	if v.Stato != "ESEGUITA" {
		t.Fatalf("verified notice stato = %q", v.Stato)
	}
	// Paid: it can no longer be paid.
	w.do(t, "POST", "/pagamento/rs/spid/v2/pagamenti", map[string]any{"pendenze": []map[string]any{
		{"idA2A": "appA", "idPendenza": "n1"}}}, asSPID(citizen1)).expect(t, 422, "422000")
}

// testNodoPaymentOfTwoNotices: a payment of two pendenze completes only
// when both are covered, and a second receipt for the same notice does not
// count twice.
func testNodoPaymentOfTwoNotices(t *testing.T, w *nodeWorld) {
	node := asBasic(nodeB, nodeBPass)
	ric := nd + "/intermediari/" + intB + "/ricevute"
	p4 := w.createPendenza(t, "appA", "n4", d1, t1, citizen1)
	p3 := w.createPendenza(t, "appA", "n3", d1, t1, citizen1)
	var pay pagamentoCreated
	w.must(t, "POST", pg+"/pagamenti", map[string]any{"pendenze": []map[string]any{
		{"idA2A": "appA", "idPendenza": "n4"}, {"idA2A": "appA", "idPendenza": "n3"}}}, as("appA")).decode(t, &pay)
	stato := func() string {
		var pv pagamentoView
		w.must(t, "GET", pg+"/pagamenti/"+pay.ID, nil, as("appA")).decode(t, &pv)
		return pv.Stato
	}
	w.must(t, "POST", ric, ricevuta(p4, "R-A", 123.45, "ESEGUITO"), node)
	w.must(t, "POST", ric, ricevuta(p4, "R-A2", 123.45, "ESEGUITO"), node)
	if s := stato(); s != "IN_CORSO" {
		t.Fatalf("after receipts for one of two notices: stato %q", s)
	}
	w.must(t, "POST", ric, ricevuta(p3, "R-B", 123.45, "NON_ESEGUITO"), node)
	if s := stato(); s != "IN_CORSO" {
		t.Fatalf("after a failed receipt: stato %q", s)
	}
	w.must(t, "POST", ric, ricevuta(p3, "R-C", 123.45, "ESEGUITO"), node)
	if s := stato(); s != "ESEGUITO" {
		t.Fatalf("after receipts for both notices: stato %q", s)
	}
}

func testNodoFlussi(t *testing.T, w *nodeWorld) {
	node := asBasic(nodeB, nodeBPass)
	fl := nd + "/intermediari/" + intB + "/flussiRendicontazione"
	good := flusso("2026-01-03ABI00001-S001", d1, 123.45, line(w.p1.NumeroAvviso, 123.45, 0))
	cases := []struct {
		name   string
		body   any
		opts   []reqOpt
		status int
	}{
		{"other_connector", good, []reqOpt{asBasic(nodeB2, nodeB2Pass)}, 403},
		{"wrong_password", good, []reqOpt{asBasic(nodeB, "wrong-secret")}, 401},
		{"entity_of_other_intermediary", flusso("F-D2", d2, 1, line(w.p2.NumeroAvviso, 1, 0)), []reqOpt{node}, 403},
		{"total_differs", flusso("F-X", d1, 100, line(w.p1.NumeroAvviso, 123.45, 0)), []reqOpt{node}, 422},
		{"esito_unknown", flusso("F-X", d1, 1, line(w.p1.NumeroAvviso, 1, 5)), []reqOpt{node}, 400},
		{"esito_missing", flusso("F-X", d1, 1, map[string]any{"numeroAvviso": w.p1.NumeroAvviso, "importo": 1}), []reqOpt{node}, 400},
		{"no_lines", flusso("F-X", d1, 0), []reqOpt{node}, 400},
		{"importo_totale_missing", withField(good, "importoTotale", nil), []reqOpt{node}, 400},
		{"id_flusso_with_slash", flusso("F/X", d1, 1, line(w.p1.NumeroAvviso, 1, 0)), []reqOpt{node}, 400},
		// A dot segment: a client resolves it, the report could never be asked for.
		{"id_flusso_dot", flusso(".", d1, 1, line(w.p1.NumeroAvviso, 1, 0)), []reqOpt{node}, 400},
		{"id_flusso_dot_dot", flusso("..", d1, 1, line(w.p1.NumeroAvviso, 1, 0)), []reqOpt{node}, 400},
		{"created", good, []reqOpt{node}, 201},
		{"identical_repeat", good, []reqOpt{node}, 200},
		{"conflicting_repeat", flusso("2026-01-03ABI00001-S001", d1, 100, line(w.p1.NumeroAvviso, 100, 0)), []reqOpt{node}, 409},
		{"ssl_mount_without_certificate", good, []reqOpt{viaTLS(), node}, 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := fl
			if tc.name == "ssl_mount_without_certificate" {
				p = strings.Replace(fl, nd, ndSSL, 1)
			}
			r := w.do(t, "POST", p, tc.body, tc.opts...)
			r.expect(t, tc.status, codiceOf(tc.status))
			if tc.status == 201 {
				var f flussoView
				r.decode(t, &f)
				if f.IDFlusso != "2026-01-03ABI00001-S001" || f.ImportoTotale != 12345 || len(f.Rendicontazioni) != 1 {
					t.Fatalf("flusso = %+v", f)
				}
			}
		})
	}
}

// TestMoneyPath follows one pendenza from creation to the accounting
// office: an application creates it, a citizen pays it over spid, the node
// (client certificate) posts the receipt and the settlement report, and
// the Ragioneria application in scope reads the collection, the report and
// the payment, while one out of scope reads none of them. Backoffice
// operators see them under Rendicontazioni e Incassi R, by scope.
func TestMoneyPath(t *testing.T) {
	t.Parallel()
	w, node, base := sslNodeServingD1(t)

	// 1. the application creates the pendenza.
	p := w.createPendenza(t, "appA", "money-1", d1, t1, citizen1)
	// 2. the citizen pays it.
	var pay pagamentoCreated
	w.must(t, "POST", "/pagamento/rs/spid/v2/pagamenti", map[string]any{"pendenze": []map[string]any{
		{"idDominio": d1, "numeroAvviso": p.NumeroAvviso}}}, asSPID(citizen1)).decode(t, &pay)
	// 3. the node verifies the notice and posts the receipt.
	w.must(t, "GET", base+"/avvisi/"+d1+"/"+p.NumeroAvviso, nil, node)
	w.do(t, "POST", base+"/ricevute", ricevuta(p, "IUR-0001", 123.45, "ESEGUITO"), node).expect(t, 201, "")
	// 4. the settlement report arrives.
	const idFlusso = "2026-01-03ABI00001-S777"
	w.do(t, "POST", base+"/flussiRendicontazione", flusso(idFlusso, d1, 123.45, line(p.NumeroAvviso, 123.45, 0)), node).
		expect(t, 201, "")

	// 5. the Ragioneria application in scope (appC: d1) reads it all.
	var ri Page[riscossioneView]
	w.must(t, "GET", rg+"/riscossioni", nil, as("appC")).decode(t, &ri)
	if len(ri.Risultati) != 1 || ri.Risultati[0].IDRicevuta != "IUR-0001" || ri.Risultati[0].IDPagamento != pay.ID ||
		ri.Risultati[0].Importo != 12345 || ri.Risultati[0].IDPendenza != "money-1" {
		t.Fatalf("riscossioni = %s", mustJSON(t, ri))
	}
	var fl Page[flussoView]
	w.must(t, "GET", rg+"/flussiRendicontazione", nil, as("appC")).decode(t, &fl)
	if len(fl.Risultati) != 1 || fl.Risultati[0].IDFlusso != idFlusso {
		t.Fatalf("flussi = %s", mustJSON(t, fl))
	}
	var f flussoView
	w.must(t, "GET", rg+"/flussiRendicontazione/"+d1+"/"+idFlusso, nil, as("appC")).decode(t, &f)
	if f.ImportoTotale != 12345 || len(f.Rendicontazioni) != 1 || f.Rendicontazioni[0].NumeroAvviso != p.NumeroAvviso {
		t.Fatalf("flusso = %+v", f)
	}
	var pays Page[pagamentoView]
	w.must(t, "GET", rg+"/pagamenti", nil, as("appC")).decode(t, &pays)
	if len(pays.Risultati) != 1 || pays.Risultati[0].ID != pay.ID || pays.Risultati[0].Stato != "ESEGUITO" {
		t.Fatalf("pagamenti = %s", mustJSON(t, pays))
	}
	w.must(t, "GET", rg+"/pagamenti/"+pay.ID, nil, as("appC"))
	w.must(t, "GET", rg+"/riscossioni?idDominio="+d1, nil, as("appC"))

	// 6. an application out of scope (appB: d2) reads none of it.
	for _, path := range []string{rg + "/riscossioni", rg + "/flussiRendicontazione", rg + "/pagamenti"} {
		var page Page[map[string]any]
		w.must(t, "GET", path, nil, as("appB")).decode(t, &page)
		if len(page.Risultati) != 0 || page.NumRisultati != 0 {
			t.Fatalf("%s: out-of-scope application reads %s", path, mustJSON(t, page))
		}
	}
	w.do(t, "GET", rg+"/flussiRendicontazione/"+d1+"/"+idFlusso, nil, as("appB")).expect(t, 403, "403000")
	w.do(t, "GET", rg+"/pagamenti/"+pay.ID, nil, as("appB")).expect(t, 403, "403000")
	w.do(t, "GET", rg+"/riscossioni", nil, as("appNone")).expect(t, 403, "403000")

	// 7. the Backoffice: Rendicontazioni e Incassi R, scoped by entity.
	w.putRole(t, "rendD2", acl{aclOf("Rendicontazioni e Incassi", "R")}, []string{d2}, []string{"*"})
	w.putOperator(t, "opRendD2", pw, true, "rendD2")
	for _, tc := range []struct {
		user string
		want int
	}{{"opD1", 1}, {"opRO", 1}, {"opRendD2", 0}} {
		for _, path := range []string{bo + "/riscossioni", bo + "/flussiRendicontazione"} {
			var page Page[map[string]any]
			w.must(t, "GET", path, nil, as(tc.user)).decode(t, &page)
			if len(page.Risultati) != tc.want {
				t.Fatalf("%s reads %d from %s, want %d", tc.user, len(page.Risultati), path, tc.want)
			}
		}
	}
	w.do(t, "GET", bo+"/riscossioni", nil, as("opNoRole")).expect(t, 403, "403000")
}

// sslNodeServingD1 is a world with intermediary INTSSL, whose node connector
// is the certificate subject nodeSubject, serving d1: the world, the
// node's client certificate and the node API base path of INTSSL.
func sslNodeServingD1(t *testing.T) (*nodeWorld, reqOpt, string) {
	t.Helper()
	w := &nodeWorld{world: newWorld(t)}
	w.putIntermediary(t, "INTSSL", "/C=IT/O=PagoPA/CN=node-ssl", "", true)
	w.putServedEntity(t, d1, "INTSSL")
	return w, asCert(w.ca.ClientCert(t, nodeSubject)), ndSSL + "/intermediari/INTSSL"
}

// TestNodoRepeatFromAnotherIntermediary: an entity moved to another
// intermediary; the new one sends a receipt and a report the old one
// recorded, member for member. A repeat is the same sender's request
// again, so both are 409 and write nothing: the stored record keeps naming
// the intermediary that sent it.
func TestNodoRepeatFromAnotherIntermediary(t *testing.T) {
	t.Parallel()
	w := newNodeWorld(t)
	receipt := ricevuta(w.p1, "R-MOVED", 123.45, "ESEGUITO")
	report := flusso("F-MOVED", d1, 1, line(w.p1.NumeroAvviso, 1, 0))
	w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", receipt, asBasic(nodeB, nodeBPass)).expect(t, 201, "")
	w.do(t, "POST", nd+"/intermediari/"+intB+"/flussiRendicontazione", report, asBasic(nodeB, nodeBPass)).expect(t, 201, "")
	w.putServedEntity(t, d1, intB2)

	newNode := asBasic(nodeB2, nodeB2Pass)
	for path, body := range map[string]any{"ricevute": receipt, "flussiRendicontazione": report} {
		before := w.logEnd(t)
		w.do(t, "POST", nd+"/intermediari/"+intB2+"/"+path, body, newNode).expect(t, 409, "409000")
		if after := w.logEnd(t); after != before {
			t.Fatalf("%s: 409 moved the log from %d to %d", path, before, after)
		}
	}
}
