package httpapi

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"net/http"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
)

// TestSSLPrincipalIsTheSubjectAsIssued: the ssl principal is the
// certificate's subject DN (API.md section 1), compared RDN by RDN in the
// same or reversed order (section 9). It is read from the subject as
// issued, not from Go's parsed pkix.Name, which merges repeated
// attributes, keeps one CN and reorders: two OUs are five RDNs, another
// order or an extra CN is another principal.
func TestSSLPrincipalIsTheSubjectAsIssued(t *testing.T) {
	t.Parallel()
	w := newWorld(t) // appSSL is "CN=app-ssl, O=Ente, C=IT"
	w.putApp(t, "appOU", "C=IT, O=Ente, OU=Uno, OU=Due, CN=app-ou", "", true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	oidOU := asn1.ObjectIdentifier{2, 5, 4, 11}
	runSubjectCases(t, w, []subjectCase{
		{"two_ous_as_registered", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"), subjectAttr(oidOU, "Uno"), subjectAttr(oidOU, "Due"), subjectAttr(oidCN, "app-ou")}, 200},
		{"registered_order", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"), subjectAttr(oidCN, "app-ssl")}, 200},
		{"another_order", []pkix.AttributeTypeAndValue{subjectAttr(oidO, "Ente"), subjectAttr(oidCN, "app-ssl"), subjectAttr(oidC, "IT")}, 401},
		{"an_extra_cn", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"), subjectAttr(oidCN, "intruder"), subjectAttr(oidCN, "app-ssl")}, 401},
		{"two_ous_swapped", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"), subjectAttr(oidOU, "Due"), subjectAttr(oidOU, "Uno"), subjectAttr(oidCN, "app-ou")}, 401},
		// A value is matched as issued: white space around it that a
		// text form would trim is part of it.
		{"cn_with_a_trailing_tab", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"), subjectAttr(oidCN, "app-ssl\t")}, 401},
		{"cn_with_a_leading_line_break", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"), subjectAttr(oidCN, "\napp-ssl")}, 401},
		{"o_with_a_trailing_crlf", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente\r\n"), subjectAttr(oidCN, "app-ssl")}, 401},
	})
}

// The attribute types of the subjects the tests issue.
var (
	oidC  = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidO  = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidCN = asn1.ObjectIdentifier{2, 5, 4, 3}
)

func subjectAttr(t asn1.ObjectIdentifier, v string) pkix.AttributeTypeAndValue {
	return pkix.AttributeTypeAndValue{Type: t, Value: v}
}

// subjectCase is a client certificate's subject and what a request with
// it on the Pendenze API's ssl mount answers.
type subjectCase struct {
	name    string
	subject []pkix.AttributeTypeAndValue // one RDN each, in this order
	status  int
}

func runSubjectCases(t *testing.T, w *world, cases []subjectCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cert := w.ca.ClientCert(t, pkix.Name{ExtraNames: tc.subject})
			w.do(t, "GET", "/pendenze/rs/ssl/v2/pendenze", nil, asCert(cert)).expect(t, tc.status, codiceOf(tc.status))
		})
	}
}

// TestSPIDHeaderWithTwoValuesIsRefused: X-SPID-FISCALNUMBER is believed
// because a trusted proxy sets it (API.md section 1); two values (a proxy
// that appends its own to the client's) are ambiguous: 401, not the first.
func TestSPIDHeaderWithTwoValuesIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t) // 127.0.0.1 is a trusted proxy
	w.do(t, "GET", "/pagamento/rs/spid/v2/profilo", nil, func(r *request) {
		r.header.Add(spidHeader, citizen2) // what the client sent
		r.header.Add(spidHeader, citizen1) // what the proxy appended
	}).expect(t, 401, "401000")
	w.do(t, "GET", "/pagamento/rs/spid/v2/profilo", nil, asSPID(citizen1)).expect(t, 200, "")
}

// TestSSLCertificateExpiringOnAnOpenConnection: a client certificate is
// verified once per TLS connection, but only for as long as it is valid:
// once it expires, a request on the same kept-alive connection is 401
// (API.md section 1: the certificate must verify), as on a new one.
func TestSSLCertificateExpiringOnAnOpenConnection(t *testing.T) {
	t.Parallel()
	w := newWorld(t) // appSSL is "CN=app-ssl, O=Ente, C=IT"
	// Certificate times are whole seconds.
	notAfter := time.Now().Add(2 * time.Second).Truncate(time.Second)
	cert := w.ca.ClientCertValid(t, sslSubject, time.Now().Add(-time.Hour), notAfter)
	conn := asCert(cert) // one client, so one kept-alive connection
	const path = "/pendenze/rs/ssl/v2/pendenze"
	w.do(t, "GET", path, nil, conn).expect(t, http.StatusOK, "")
	time.Sleep(time.Until(notAfter) + 1100*time.Millisecond)
	w.do(t, "GET", path, nil, conn).expect(t, http.StatusUnauthorized, "401000")
	w.do(t, "GET", path, nil, asCert(cert)).expect(t, http.StatusUnauthorized, "401000") // a new connection
}

// TestSSLSubjectWithDomainComponentsAndUID: a certificate subject is
// matched against the RFC 4514 text it is registered as (API.md section
// 9), and RFC 4514 names DC (domainComponent) and UID (userId) as it
// names CN or O: "CN=app-dc,DC=example,DC=com" is the principal of a
// certificate issued with those attributes (a directory's, such as
// Active Directory's, usual subject), not an OID and hex text.
func TestSSLSubjectWithDomainComponentsAndUID(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.putApp(t, "appDC", "CN=app-dc,DC=example,DC=com", "", true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	w.putApp(t, "appUID", "UID=mrossi, O=Ente, C=IT", "", true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	var (
		dc  = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}
		uid = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
	)
	runSubjectCases(t, w, []subjectCase{
		{"domain_components", []pkix.AttributeTypeAndValue{subjectAttr(dc, "com"), subjectAttr(dc, "example"), subjectAttr(oidCN, "app-dc")}, 200},
		{"domain_components_other_value", []pkix.AttributeTypeAndValue{subjectAttr(dc, "org"), subjectAttr(dc, "example"), subjectAttr(oidCN, "app-dc")}, 401},
		{"uid", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"), subjectAttr(uid, "mrossi")}, 200},
		{"uid_is_not_cn", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"), subjectAttr(oidCN, "mrossi")}, 401},
	})
}

// TestSSLSubjectWithOrganizationIdentifier: an application registered
// as openssl x509 -subject prints its certificate's subject, attribute
// types Go has no name for (organizationIdentifier, emailAddress) by
// OpenSSL's names, is the ssl principal of that certificate (API.md
// section 9); another organizationIdentifier is not.
func TestSSLSubjectWithOrganizationIdentifier(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.putApp(t, "appQWAC", "C = IT, O = Ente, organizationIdentifier = VATIT-01234567890, emailAddress = pec@ente.it, CN = app-qwac",
		"", true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	var (
		orgID = asn1.ObjectIdentifier{2, 5, 4, 97}
		email = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
	)
	subject := func(id string) []pkix.AttributeTypeAndValue {
		return []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"), subjectAttr(orgID, id),
			subjectAttr(email, "pec@ente.it"), subjectAttr(oidCN, "app-qwac")}
	}
	runSubjectCases(t, w, []subjectCase{
		{"as_registered", subject("VATIT-01234567890"), 200},
		{"other_organization_identifier", subject("VATIT-01234567891"), 401},
	})
}

// TestSSLSubjectWithABMPStringNUL: a subject value is matched as issued
// and one holding a NUL is no one's (API.md section 9); a BMPString whose
// last character is NUL is such a value, although encoding/asn1 strips that
// terminator: the organizationIdentifier "VATIT-01234567890\x00" is not the
// registered "VATIT-01234567890", nor is a CN "app-qwac\x00" "app-qwac".
func TestSSLSubjectWithABMPStringNUL(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.putApp(t, "appQWAC", "C = IT, O = Ente, organizationIdentifier = VATIT-01234567890, CN = app-qwac",
		"", true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	orgID := asn1.ObjectIdentifier{2, 5, 4, 97}
	bmp := func(oid asn1.ObjectIdentifier, s string) pkix.AttributeTypeAndValue {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r>>8), byte(r))
		}
		return pkix.AttributeTypeAndValue{Type: oid, Value: asn1.RawValue{Tag: asn1.TagBMPString, Bytes: b}}
	}
	runSubjectCases(t, w, []subjectCase{
		{"bmp_as_registered", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"),
			bmp(orgID, "VATIT-01234567890"), subjectAttr(oidCN, "app-qwac")}, 200},
		{"organization_identifier_nul", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"),
			bmp(orgID, "VATIT-01234567890\x00"), subjectAttr(oidCN, "app-qwac")}, 401},
		{"common_name_nul", []pkix.AttributeTypeAndValue{subjectAttr(oidC, "IT"), subjectAttr(oidO, "Ente"),
			subjectAttr(orgID, "VATIT-01234567890"), bmp(oidCN, "app-qwac\x00")}, 401},
	})
}

// TestSPIDHeaderCountsOnlyOnTheSPIDMount: X-SPID-FISCALNUMBER names a
// caller only on a spid mount (API.md section 1). Sent by the trusted
// proxy's address to the public mount it is ignored (the caller stays
// Anonymous and reads none of that citizen's payments); on a basic or
// apikey mount it authenticates no one (401).
func TestSPIDHeaderCountsOnlyOnTheSPIDMount(t *testing.T) {
	t.Parallel()
	w := newWorld(t) // 127.0.0.1 is a trusted proxy
	p := w.createPendenza(t, "appA", "spid-only", d1, t1, citizen1)
	const spidPg = "/pagamento/rs/spid/v2"
	var paid pagamentoCreated
	w.must(t, "POST", spidPg+"/pagamenti", noticeRef(p), asSPID(citizen1)).decode(t, &paid)
	w.must(t, "GET", spidPg+"/pagamenti/"+paid.ID, nil, asSPID(citizen1))

	profile := func(mount string) profiloView {
		t.Helper()
		var v profiloView
		w.must(t, "GET", mount+"/profilo", nil, asSPID(citizen1)).decode(t, &v)
		return v
	}
	if v := profile(spidPg); v.Tipo != events.CallerCitizen || v.Nome != citizen1 {
		t.Fatalf("spid mount: profilo %+v, want the citizen", v)
	}
	if v := profile(pgPublic); v.Tipo != events.CallerAnonymous || v.Nome != "" {
		t.Fatalf("public mount with the header: profilo %+v, want an anonymous caller", v)
	}
	w.do(t, "GET", pgPublic+"/pagamenti/"+paid.ID, nil, asSPID(citizen1)).expect(t, 403, "403000")
	var page Page[pagamentoView]
	w.must(t, "GET", pgPublic+"/pagamenti", nil, asSPID(citizen1)).decode(t, &page)
	if page.NumRisultati != 0 {
		t.Fatalf("public mount with the header lists %d payments, want none", page.NumRisultati)
	}
	for _, mount := range []string{"/pagamento/rs/basic/v2", "/pagamento/rs/apikey/v2"} {
		w.do(t, "GET", mount+"/profilo", nil, asSPID(citizen1)).expect(t, 401, "401000")
	}
}
