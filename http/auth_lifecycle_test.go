package httpapi

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payauthz/payauthz/http/pkitest"
)

// TestAuthLifecycleNextRequestAtTheWriter: each change of a principal
// that narrows who it is or what it may do acts on the very next request
// at the replica that wrote it, with no reset: the principal's own
// password change (PATCH /profilo), a role taken away, a role's last
// right taken away, a rename (the old name, and the new one without a
// password), the API key replaced. Each is seen allowed first, so that the
// credential is cached when the change comes.
func TestAuthLifecycleNextRequestAtTheWriter(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	t.Run("own_password_change", func(t *testing.T) {
		w.putOperator(t, "opSelf", pw, true, "readOnly")
		w.must(t, "GET", bo+"/profilo", nil, as("opSelf"))
		w.must(t, "PATCH", bo+"/profilo", []map[string]any{{"op": "REPLACE", "path": "/password", "value": "self-changed-1"}}, as("opSelf"))
		w.do(t, "GET", bo+"/profilo", nil, as("opSelf")).expect(t, 401, "401000")
		w.must(t, "GET", bo+"/profilo", nil, asBasic("opSelf", "self-changed-1"))
	})
	t.Run("role_removed", func(t *testing.T) {
		w.putOperator(t, "opRole", pw, true, "readOnly")
		w.must(t, "GET", bo+"/domini", nil, as("opRole"))
		w.must(t, "PUT", bo+"/operatori/opRole", map[string]any{"ragioneSociale": "x", "abilitato": true, "ruoli": []string{}})
		w.do(t, "GET", bo+"/domini", nil, as("opRole")).expect(t, 403, "403000")
	})
	t.Run("role_emptied", func(t *testing.T) {
		w.putRole(t, "rTmp", acl{aclOf("Anagrafica Creditore", "R")}, []string{"*"}, []string{"*"})
		w.putOperator(t, "opTmp", pw, true, "rTmp")
		w.must(t, "GET", bo+"/domini", nil, as("opTmp"))
		w.putRole(t, "rTmp", acl{}, []string{"*"}, []string{"*"})
		w.do(t, "GET", bo+"/domini", nil, as("opTmp")).expect(t, 403, "403000")
	})
	t.Run("renamed", func(t *testing.T) {
		w.putApp(t, "appRen", "appRen", pw, true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
		w.must(t, "GET", pe+"/pendenze", nil, as("appRen"))
		w.must(t, "PUT", bo+"/applicazioni/appRen", map[string]any{"principal": "appRen2", "abilitato": true, "ruoli": []string{},
			"autorizzazioniApi": []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})}})
		w.do(t, "GET", pe+"/pendenze", nil, as("appRen")).expect(t, 401, "401000")
		w.do(t, "GET", pe+"/pendenze", nil, as("appRen2")).expect(t, 401, "401000")
	})
	t.Run("certificate_principal_on_an_open_connection", func(t *testing.T) {
		// One client, so one kept-alive TLS connection whose certificate
		// was verified once: what the subject names is read each request.
		conn := asCert(w.ca.ClientCert(t, sslSubject))
		const path = "/pendenze/rs/ssl/v2/pendenze"
		put := func(principal string, enabled bool, grants ...map[string]any) {
			if grants == nil {
				grants = []map[string]any{}
			}
			w.must(t, "PUT", bo+"/applicazioni/appSSL", map[string]any{"principal": principal, "abilitato": enabled,
				"ruoli": []string{}, "autorizzazioniApi": grants})
		}
		grant := apiGrant("PENDENZE", []string{d1}, []string{"*"})
		w.must(t, "GET", path, nil, conn)
		put("CN=app-ssl, O=Ente, C=IT", false, grant)
		w.do(t, "GET", path, nil, conn).expect(t, 403, "403000")
		put("CN=app-ssl, O=Ente, C=IT", true)
		w.do(t, "GET", path, nil, conn).expect(t, 403, "403000")
		put("CN=app-ssl-2, O=Ente, C=IT", true, grant)
		w.do(t, "GET", path, nil, conn).expect(t, 401, "401000")
		put("CN=app-ssl, O=Ente, C=IT", true, grant)
		w.must(t, "GET", path, nil, conn)
	})
	t.Run("api_key_replaced", func(t *testing.T) {
		const pek = "/pendenze/rs/apikey/v2"
		key := func(k string) {
			w.must(t, "PUT", bo+"/applicazioni/appKey", map[string]any{"principal": "appKey", "apiKey": k, "abilitato": true,
				"ruoli": []string{}, "autorizzazioniApi": []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})}})
		}
		key("app-key-first-0123")
		w.must(t, "GET", pek+"/pendenze", nil, asAPIKey("appKey", "app-key-first-0123"))
		key("app-key-second-0123")
		w.do(t, "GET", pek+"/pendenze", nil, asAPIKey("appKey", "app-key-first-0123")).expect(t, 401, "401000")
		w.must(t, "GET", pek+"/pendenze", nil, asAPIKey("appKey", "app-key-second-0123"))
	})
}

// intermediateCA issues a CA signed by root, for chains of three.
func intermediateCA(t *testing.T, root *pkitest.CA) *pkitest.CA {
	t.Helper()
	key, der := root.Sign(t, &x509.Certificate{Subject: pkix.Name{CommonName: "intermediate"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature})
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &pkitest.CA{Cert: cert, Key: key, DER: der}
}

// rawSubjectCert issues, by ca, a client certificate whose subject is the
// DER rdns encodes to, as given (multi-valued RDNs, values of any ASN.1
// type).
func rawSubjectCert(t *testing.T, ca *pkitest.CA, rdns pkix.RDNSequence) tls.Certificate {
	t.Helper()
	raw, err := asn1.Marshal(rdns)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := pkitest.Client(pkix.Name{})
	tmpl.RawSubject = raw
	key, der := ca.Sign(t, tmpl)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestSSLCertificatesAsTheContractSays: a client certificate authenticates
// only when it verifies against the client CA, for client
// authentication, now (API.md section 1), and its subject then names a
// registered principal (section 9); any other certificate is 401, never a
// 5xx; a mount that does not take ssl is 403 "403" whatever certificate.
func TestSSLCertificatesAsTheContractSays(t *testing.T) {
	t.Parallel()
	w := newWorld(t) // appSSL is "CN=app-ssl, O=Ente, C=IT", on PENDENZE
	grant := apiGrant("PENDENZE", []string{d1}, []string{"*"})
	w.putApp(t, "appEsc", `CN=a\,b\+c\"d\\e\<f\>g\;h, O=Ente, C=IT`, "", true, grant)
	w.putApp(t, "appHash", `CN=\#lead\ , O=Ente, C=IT`, "", true, grant)
	w.putApp(t, "appMulti", "CN=multi+UID=u1, O=Ente, C=IT", "", true, grant)
	w.putApp(t, "appSlash", "/C=IT/O=Ente/CN=slash", "", true, grant)
	inter := intermediateCA(t, w.ca)
	interKey, interLeaf := inter.Sign(t, pkitest.Client(sslSubject))
	serverOnly := pkitest.Client(sslSubject)
	serverOnly.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	soKey, soDER := w.ca.Sign(t, serverOnly)
	noEKU := pkitest.Client(sslSubject)
	noEKU.ExtKeyUsage = nil
	neKey, neDER := w.ca.Sign(t, noEKU)
	oidUID := asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
	now := time.Now()
	cases := []struct {
		name   string
		cert   tls.Certificate
		path   string
		status int
		codice string
	}{
		{"valid", w.ca.ClientCert(t, sslSubject), "", 200, ""},
		{"expired", w.ca.ClientCertValid(t, sslSubject, now.Add(-48*time.Hour), now.Add(-time.Hour)), "", 401, "401000"},
		{"not_yet_valid", w.ca.ClientCertValid(t, sslSubject, now.Add(time.Hour), now.Add(48*time.Hour)), "", 401, "401000"},
		{"other_ca", w.otherCA.ClientCert(t, sslSubject), "", 401, "401000"},
		{"chain_with_intermediate", tls.Certificate{Certificate: [][]byte{interLeaf, inter.DER}, PrivateKey: interKey}, "", 200, ""},
		{"intermediate_not_sent", tls.Certificate{Certificate: [][]byte{interLeaf}, PrivateKey: interKey}, "", 401, "401000"},
		{"server_auth_only", tls.Certificate{Certificate: [][]byte{soDER}, PrivateKey: soKey}, "", 401, "401000"},
		{"no_extended_key_usage", tls.Certificate{Certificate: [][]byte{neDER}, PrivateKey: neKey}, "", 200, ""},
		{"empty_subject", w.ca.ClientCert(t, pkix.Name{}), "", 401, "401000"},
		{"reversed_order", rawSubjectCert(t, w.ca, pkix.RDNSequence{{subjectAttr(oidCN, "app-ssl")}, {subjectAttr(oidO, "Ente")}, {subjectAttr(oidC, "IT")}}), "", 200, ""},
		{"escaped_specials", rawSubjectCert(t, w.ca, pkix.RDNSequence{{subjectAttr(oidC, "IT")}, {subjectAttr(oidO, "Ente")}, {subjectAttr(oidCN, `a,b+c"d\e<f>g;h`)}}), "", 200, ""},
		{"leading_hash_trailing_space", rawSubjectCert(t, w.ca, pkix.RDNSequence{{subjectAttr(oidC, "IT")}, {subjectAttr(oidO, "Ente")}, {subjectAttr(oidCN, "#lead ")}}), "", 200, ""},
		{"multi_valued_rdn", rawSubjectCert(t, w.ca, pkix.RDNSequence{{subjectAttr(oidC, "IT")}, {subjectAttr(oidO, "Ente")}, {subjectAttr(oidCN, "multi"), subjectAttr(oidUID, "u1")}}), "", 200, ""},
		{"multi_valued_rdn_split", rawSubjectCert(t, w.ca, pkix.RDNSequence{{subjectAttr(oidC, "IT")}, {subjectAttr(oidO, "Ente")}, {subjectAttr(oidCN, "multi")}, {subjectAttr(oidUID, "u1")}}), "", 401, "401000"},
		{"openssl_slash_form_registered", rawSubjectCert(t, w.ca, pkix.RDNSequence{{subjectAttr(oidC, "IT")}, {subjectAttr(oidO, "Ente")}, {subjectAttr(oidCN, "slash")}}), "", 200, ""},
		{"cn_not_a_string", rawSubjectCert(t, w.ca, pkix.RDNSequence{{subjectAttr(oidC, "IT")}, {subjectAttr(oidO, "Ente")}, {{Type: oidCN, Value: 42}}}), "", 401, "401000"},
		{"cn_of_4k", w.ca.ClientCert(t, pkix.Name{CommonName: strings.Repeat("x", 4096)}), "", 401, "401000"},
		{"mount_without_ssl", w.ca.ClientCert(t, sslSubject), "/pagamento/rs/public/v2/profilo", 200, ""},
		{"backoffice_public_mount", w.ca.ClientCert(t, sslSubject), "/backoffice/rs/public/v1/profilo", 403, "403"},
		{"registered_app_not_on_backoffice", w.ca.ClientCert(t, sslSubject), "/backoffice/rs/ssl/v1/profilo", 403, "403000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = "/pendenze/rs/ssl/v2/pendenze"
			}
			w.do(t, "GET", path, nil, asCert(tc.cert)).expect(t, tc.status, tc.codice)
		})
	}
	t.Run("ssl_path_on_plain_listener", func(t *testing.T) {
		w.do(t, "GET", "/pendenze/rs/ssl/v2/pendenze", nil).expect(t, 401, "401000")
	})
}

// TestSPIDIdentityHeaderAsTheContractSays: X-SPID-FISCALNUMBER is believed
// from the trusted proxy's own address only, forwarded headers aside, once,
// and only when it holds a fiscal code (a "TINIT-" prefix stripped).
func TestSPIDIdentityHeaderAsTheContractSays(t *testing.T) {
	t.Parallel()
	w := newWorld(t) // 127.0.0.1/32 is the trusted proxy
	const profilo = "/pagamento/rs/spid/v2/profilo"
	cases := []struct {
		name   string
		opts   []reqOpt
		status int
	}{
		{"plain", opts(asSPID(citizen1)), 200},
		{"tinit_prefix", opts(asSPID("TINIT-" + citizen1)), 200},
		{"lower_case", opts(asSPID("tinit-" + strings.ToLower(citizen1))), 200},
		{"surrounding_space", opts(asSPID("  " + citizen1 + " ")), 200},
		{"tinit_alone", opts(asSPID("TINIT-")), 401},
		{"empty", opts(asSPID("")), 401},
		{"too_long", opts(asSPID(citizen1 + "X")), 401},
		{"too_short", opts(asSPID("RSSMRA80A")), 401},
		{"inner_space", opts(asSPID("RSSMRA80 A01H501U")), 401},
		{"non_ascii_letter", opts(asSPID("RSSMRA80A01H501ſ")), 401},
		{"two_prefixes", opts(asSPID("TINIT-TINIT-" + citizen1)), 401},
		{"twice_the_same", opts(asSPID(citizen1), alsoHeader(spidHeader, citizen1)), 401},
		{"untrusted_address", opts(asSPID(citizen1), fromLocalAddr("127.0.0.2")), 401},
		{"untrusted_address_forwarded_for_trusted", opts(asSPID(citizen1), fromLocalAddr("127.0.0.2"),
			withHeader("X-Forwarded-For", "127.0.0.1"), withHeader("X-Real-IP", "127.0.0.1"), withHeader("Forwarded", "for=127.0.0.1")), 401},
		{"trusted_address_forwarded_for_other", opts(asSPID(citizen1), withHeader("X-Forwarded-For", "203.0.113.9")), 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w.do(t, "GET", profilo, nil, tc.opts...).expect(t, tc.status, codiceOf(tc.status))
		})
	}
	// A registered principal's fiscal code on another API: that principal
	// (opRO is not a fiscal code, so a registered operator is made one).
	w.putOperator(t, citizen2, pw, true, "readOnly")
	w.must(t, "GET", "/backoffice/rs/spid/v1/profilo", nil, asSPID(citizen2))
	w.do(t, "GET", "/backoffice/rs/spid/v1/profilo", nil, asSPID(citizen1)).expect(t, 401, "401000")
}

// TestBasicHeaderAsTheContractSays: a malformed Authorization header
// authenticates no one (401, never a 5xx), and a name registered as
// another kind of party than the API admits is not let in by it.
func TestBasicHeaderAsTheContractSays(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.must(t, "PUT", bo+"/intermediari/INTX", map[string]any{"denominazione": "X", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "node-x", "password": "node-x-secret-1"}})
	auth := func(v string) reqOpt { return withHeader("Authorization", v) }
	cases := []struct {
		name   string
		path   string
		opts   []reqOpt
		status int
	}{
		{"good", pe + "/pendenze", opts(as("appA")), 200},
		{"scheme_lower_case", pe + "/pendenze", opts(auth("basic " + b64("appA:"+pw))), 200},
		{"password_with_colon_is_the_rest", pe + "/pendenze", opts(auth("Basic " + b64("appA:"+pw+":x"))), 401},
		{"bad_base64", pe + "/pendenze", opts(auth("Basic !!!notbase64")), 401},
		{"url_base64", pe + "/pendenze", opts(auth("Basic " + strings.NewReplacer("+", "-", "/", "_").Replace(b64("appA:"+pw+"??>")))), 401},
		{"no_colon", pe + "/pendenze", opts(auth("Basic " + b64("appA"+pw))), 401},
		{"empty_user", pe + "/pendenze", opts(auth("Basic " + b64(":"+pw))), 401},
		{"empty", pe + "/pendenze", opts(auth("Basic ")), 401},
		{"scheme_alone", pe + "/pendenze", opts(auth("Basic")), 401},
		{"bearer", pe + "/pendenze", opts(auth("Bearer " + b64("appA:"+pw))), 401},
		{"huge", pe + "/pendenze", opts(auth("Basic " + b64("appA:"+strings.Repeat("p", 8000)))), 401},
		{"over_the_header_limit", pe + "/pendenze", opts(auth("Basic " + b64("appA:"+strings.Repeat("p", 40000)))), 431},
		{"twice", pe + "/pendenze", opts(as("appA"), alsoHeader("Authorization", basicHeader("appA", pw))), 401},
		{"nul_in_user", pe + "/pendenze", opts(asBasic("appA\x00", pw)), 401},
		{"operator_on_pendenze", pe + "/pendenze", opts(as("opRO")), 403},
		{"application_without_role_on_backoffice", bo + "/profilo", opts(as("appA")), 403},
		{"connector_on_backoffice", bo + "/profilo", opts(asBasic("node-x", "node-x-secret-1")), 401},
		{"connector_on_pendenze", pe + "/pendenze", opts(asBasic("node-x", "node-x-secret-1")), 401},
		{"operator_on_node", nd + "/intermediari/INTX/avvisi/" + d1 + "/000000000000000001", opts(as("opRO")), 403},
		{"application_on_node", nd + "/intermediari/INTX/avvisi/" + d1 + "/000000000000000001", opts(as("appA")), 403},
		{"connector_wrong_password_on_node", nd + "/intermediari/INTX/avvisi/" + d1 + "/000000000000000001", opts(asBasic("node-x", pw)), 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := w.do(t, "GET", tc.path, nil, tc.opts...)
			if tc.status == http.StatusRequestHeaderFieldsTooLarge {
				if r.Status != tc.status {
					t.Fatalf("status = %d, want %d", r.Status, tc.status)
				}
				return
			}
			r.expect(t, tc.status, codiceOf(tc.status))
		})
	}
}

// TestCluster_disable_reaches_b: another replica refuses a principal just
// disabled once it applied the write (B's 403), and the test logs how long
// after the writer's answer that was (the figures, not a bound: timing is
// measured, not asserted).
func TestCluster_disable_reaches_b(t *testing.T) {
	p := newClusterPair(t)
	p.a.putEntity(t, d1)
	grant := apiGrant("PENDENZE", []string{d1}, []string{"*"})
	var lags []time.Duration
	for i := range 20 {
		enabled := i%2 == 1
		w := p.a.must(t, "PUT", bo+"/applicazioni/appLag", map[string]any{"principal": "appLag", "password": pw, "abilitato": enabled,
			"ruoli": []string{}, "autorizzazioniApi": []map[string]any{grant}})
		answered := time.Now()
		waitApplied(t, p.b, positionOf(t, w))
		lags = append(lags, time.Since(answered))
		if enabled {
			p.b.do(t, "GET", pe+"/pendenze", nil, as("appLag")).expect(t, 200, "")
		} else {
			p.b.do(t, "GET", pe+"/pendenze", nil, as("appLag")).expect(t, 403, "403000")
		}
	}
	slices.Sort(lags)
	t.Logf("B applied A's write %v after A answered (median), %v at most", lags[len(lags)/2], lags[len(lags)-1])
}

// TestWrongPasswordsSentAtOnceStayWithinTheBurst: distinct wrong passwords
// for a registered principal, sent at once from one address over real
// HTTP, run argon2id at most the per-(principal, address) burst of times;
// the others are 429 without a hash (or 401 after one), never anything
// else, and the principal's right password from another address works.
// The budget is the largest the service chooses (12), so that the slots
// do not refuse first what the throttle must refuse.
func TestWrongPasswordsSentAtOnceStayWithinTheBurst(t *testing.T) {
	t.Parallel()
	const attempts = 40
	h := newHarness(t, withLoginThrottle(), withPasswordVerifications(12))
	h.putEntity(t, d1)
	h.putApp(t, "victim", "victim", pw, true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	statuses := sendAtOnce(t, h, attempts, func(i int) (string, string) {
		return pe + "/pendenze", basicHeader("victim", fmt.Sprintf("wrong-%03d", i))
	})
	counts := map[int]int{}
	for _, s := range statuses {
		counts[s]++
	}
	if counts[401]+counts[429] != attempts {
		t.Fatalf("answers %v, want 401 or 429 only", counts)
	}
	ran := wrongCredentials(t, h)
	t.Logf("answers %v, argon2id verifications %d", counts, ran)
	if ran > DefaultFailedLoginsPerPrincipal || ran != counts[401] {
		t.Fatalf("%d wrong passwords verified (%d answered 401), want at most %d", ran, counts[401], DefaultFailedLoginsPerPrincipal)
	}
	h.must(t, "GET", pe+"/pendenze", nil, asBasic("victim", pw), fromLocalAddr("127.0.0.4"))
}

// sendAtOnce sends n GET requests to h from one client address
// (127.0.0.3) together, the i-th to the path and with the Authorization
// header request(i) names, over connections opened before the first is
// sent, and returns their statuses.
func sendAtOnce(t *testing.T, h *harness, n int, request func(i int) (path, authorization string)) []int {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.3")}}
	client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: n}, Timeout: 30 * time.Second}
	send := func(path, authorization string) int {
		req, err := http.NewRequest("GET", h.httpURL+path, nil)
		if err != nil {
			t.Error(err)
			return 0
		}
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		return res.StatusCode
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { send("/healthz", "") })
	}
	wg.Wait()
	statuses := make([]int, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			statuses[i] = send(request(i))
		})
	}
	close(start)
	wg.Wait()
	return statuses
}

// wrongCredentials is h's count of the verifications that found a password
// wrong (payauthz_login_failures_total{reason="wrong_credentials"}).
func wrongCredentials(t *testing.T, h *harness) int {
	t.Helper()
	metrics := string(h.do(t, "GET", "/metrics", nil).Body)
	const series = `payauthz_login_failures_total{reason="wrong_credentials"} `
	at := strings.Index(metrics, series)
	if at < 0 {
		t.Fatalf("metrics lack %s", series)
	}
	n, err := strconv.Atoi(strings.Fields(metrics[at+len(series):])[0])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSameCredentialsSentAtOnceShareOneVerification: an integrator's
// client starting many workers at once with one application's credentials
// (a connection pool, a batch) sends the same password on many requests
// before any of them is verified. They share one verification: each is
// answered as that one is (200 for the right password, 401 for a wrong
// one), none is throttled as if each were another guess, and a wrong
// password sent many times at once counts as one failure.
func TestSameCredentialsSentAtOnceShareOneVerification(t *testing.T) {
	t.Parallel()
	const workers = 20
	h := newHarness(t, withLoginThrottle(), withPasswordVerifications(12))
	h.putEntity(t, d1)
	h.putApp(t, "batch", "batch", pw, true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	for _, c := range []struct {
		name     string
		password string
		status   int
		failures int
	}{
		{"right_password", pw, 200, 0},
		{"wrong_password", "not-the-password", 401, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := wrongCredentials(t, h)
			statuses := sendAtOnce(t, h, workers, func(int) (string, string) {
				return pe + "/pendenze", basicHeader("batch", c.password)
			})
			for i, s := range statuses {
				if s != c.status {
					t.Fatalf("request %d of %d sent at once answered %d, want %d (all: %v)", i, workers, s, c.status, statuses)
				}
			}
			if n := wrongCredentials(t, h) - before; n != c.failures {
				t.Fatalf("%d verifications found the password wrong, want %d", n, c.failures)
			}
		})
	}
}
