package main

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/http/pkitest"
)

// pki is a CA generated for one test, writing PEM files into dir.
type pki struct {
	dir string
	ca  *pkitest.CA
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir(), ca: pkitest.NewCA(t, "payauthz test CA")}
	pkitest.Write(t, p.dir, "ca", p.ca.DER, p.ca.Key)
	return p
}

// issue writes name.pem and name.key: tmpl signed by the CA.
func (p *pki) issue(t *testing.T, name string, tmpl *x509.Certificate) {
	t.Helper()
	key, der := p.ca.Sign(t, tmpl)
	pkitest.Write(t, p.dir, name, der, key)
}

func (p *pki) file(name string) string { return filepath.Join(p.dir, name) }

// client issues a client certificate for subject and returns its files.
func (p *pki) client(t *testing.T, name string, subject pkix.Name) (certFile, keyFile string) {
	t.Helper()
	p.issue(t, name, pkitest.Client(subject))
	return p.file(name + ".pem"), p.file(name + ".key")
}

// authConfigYAML registers a writer and a reader of the entities'
// registry for each of ssl (certificate subject) and spid (fiscal code).
const authConfigYAML = `ruoli:
  - idRuolo: Scrittore
    acl: [{servizio: Anagrafica Creditore, autorizzazioni: [R, W]}]
    domini: ["*"]
    tipiPendenza: ["*"]
  - idRuolo: Lettore
    acl: [{servizio: Anagrafica Creditore, autorizzazioni: [R]}]
    domini: ["*"]
    tipiPendenza: ["*"]
operatori:
  - {principal: "CN=writer-op,O=Ente,C=IT", ragioneSociale: Writer, abilitato: true, ruoli: [Scrittore]}
  - {principal: "CN=reader-op,O=Ente,C=IT", ragioneSociale: Reader, abilitato: true, ruoli: [Lettore]}
  - {principal: RSSMRA80A01H501U, ragioneSociale: Mario Rossi, abilitato: true, ruoli: [Scrittore]}
  - {principal: VRDGPP80A01H501U, ragioneSociale: Giuseppe Verdi, abilitato: true, ruoli: [Lettore]}
`

// TestAdminContextsSSLAndSPID: saved contexts authenticating with a
// client certificate (on a real TLS listener, certificates generated
// here) and with the SPID header of a trusted identity proxy each perform
// an allowed write (exit 0) and are refused one their role does not
// allow (exit 1, the 403 named); a context without a certificate, or a
// certificate of another CA, gets 401. Neither the key nor the fiscal
// code is echoed by context list, and the contexts file holds paths, no
// key material.
func TestAdminContextsSSLAndSPID(t *testing.T) {
	ca := newPKI(t)
	ca.issue(t, "server", pkitest.Server())
	writerCert, writerKey := ca.client(t, "writer", pkix.Name{CommonName: "writer-op", Organization: []string{"Ente"}, Country: []string{"IT"}})
	readerCert, readerKey := ca.client(t, "reader", pkix.Name{CommonName: "reader-op", Organization: []string{"Ente"}, Country: []string{"IT"}})
	other := newPKI(t) // a CA the service does not trust, issuing the writer's subject
	strangerCert, strangerKey := other.client(t, "stranger", pkix.Name{CommonName: "writer-op", Organization: []string{"Ente"}, Country: []string{"IT"}})

	dir := t.TempDir()
	pw := adminPasswordFile(t, dir)
	httpsAddr := freePort(t)
	c := startChild(t, filepath.Join(dir, "data"), freePort(t), "--admin-password-file", pw,
		"--https-addr", httpsAddr, "--tls-cert", ca.file("server.pem"), "--tls-key", ca.file("server.key"),
		"--client-ca", ca.file("ca.pem"), "--spid-trusted-proxies", "127.0.0.1/32")
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	admin := func(args ...string) (string, string, error) {
		t.Helper()
		return run(t, append([]string{"admin", "--config", cfg}, args...)...)
	}
	if _, errOut, err := admin("context", "set", "basic", "--url", c.url+"/backoffice/rs/basic/v1", "--user", "admin", "--password-file", pw); err != nil {
		t.Fatal(err, errOut)
	}
	conf := tempFile(t, "auth.yaml", authConfigYAML)
	if out, errOut, err := admin("apply", "-f", conf); err != nil || !strings.Contains(out, "0 failed") {
		t.Fatalf("apply: %v\n%s%s", err, out, errOut)
	}

	sslURL := "https://" + httpsAddr + "/backoffice/rs/ssl/v1"
	spidURL := c.url + "/backoffice/rs/spid/v1"
	for _, ctx := range [][]string{
		{"ssl-writer", "--url", sslURL, "--cert", writerCert, "--key", writerKey, "--ca", ca.file("ca.pem")},
		{"ssl-reader", "--url", sslURL, "--cert", readerCert, "--key", readerKey, "--ca", ca.file("ca.pem")},
		{"ssl-none", "--url", sslURL, "--ca", ca.file("ca.pem")},
		{"ssl-stranger", "--url", sslURL, "--cert", strangerCert, "--key", strangerKey, "--ca", ca.file("ca.pem")},
		{"spid-writer", "--url", spidURL, "--spid-fiscal-code", "RSSMRA80A01H501U"},
		{"spid-reader", "--url", spidURL, "--spid-fiscal-code", "TINIT-VRDGPP80A01H501U"},
	} {
		if _, errOut, err := admin(append([]string{"context", "set"}, ctx...)...); err != nil {
			t.Fatal(err, errOut)
		}
	}
	list, _, err := admin("context", "list")
	if err != nil || !strings.Contains(list, "ssl "+writerCert) || !strings.Contains(list, "spid") {
		t.Fatalf("context list: %v\n%s", err, list)
	}
	keyPEM, _ := os.ReadFile(writerKey)
	saved, _ := os.ReadFile(cfg)
	for _, secret := range []string{"RSSMRA80A01H501U", "VRDGPP80A01H501U", writerKey, string(keyPEM), "admin-pass-1"} {
		if strings.Contains(list, secret) {
			t.Errorf("context list echoes %q:\n%s", secret, list)
		}
	}
	if strings.Contains(string(saved), "PRIVATE KEY") || strings.Contains(string(saved), "admin-pass-1") {
		t.Errorf("the contexts file holds a secret:\n%s", saved)
	}

	entity := func(t *testing.T, id string) string {
		return tempFile(t, id+".yaml", "domini:\n  - {idDominio: \""+id+"\", ragioneSociale: Comune, abilitato: true}\n")
	}
	for _, tc := range []struct {
		name, writer, reader, id string
		secret                   string
	}{
		{"ssl", "ssl-writer", "ssl-reader", "44444444444", string(keyPEM)},
		{"spid", "spid-writer", "spid-reader", "55555555555", "VRDGPP80A01H501U"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := admin("--context", tc.writer, "apply", "-f", entity(t, tc.id))
			if err != nil || !strings.Contains(out, "applied 1 changes, 0 unchanged, 0 failed") {
				t.Fatalf("allowed write: exit %d %v\n%s%s", exitCode(err), err, out, errOut)
			}
			if code := call(t, "GET", c.url+"/backoffice/rs/basic/v1/domini/"+tc.id, "admin", "admin-pass-1", ""); code != 200 {
				t.Fatalf("the written entity: %d", code)
			}
			// the reader reads it, and may not write
			if out, errOut, err := admin("--context", tc.reader, "get", "domini", tc.id, "-o", "json"); err != nil || !strings.Contains(out, `"Comune"`) {
				t.Fatalf("reader's get: %v\n%s%s", err, out, errOut)
			}
			denied := strings.Replace(tc.id, "4", "6", -1)
			denied = strings.Replace(denied, "5", "7", -1)
			out, errOut, err = admin("--context", tc.reader, "apply", "-f", entity(t, denied))
			if exitCode(err) != exitFailure || !strings.Contains(errOut, "failed: domini[0] domini/"+denied+": PUT /domini/"+denied+": 403") {
				t.Fatalf("denied write: exit %d %v\n%s%s", exitCode(err), err, out, errOut)
			}
			if code := call(t, "GET", c.url+"/backoffice/rs/basic/v1/domini/"+denied, "admin", "admin-pass-1", ""); code != 404 {
				t.Fatalf("the denied entity exists: %d", code)
			}
			if strings.Contains(out+errOut, tc.secret) {
				t.Fatalf("the output echoes the context's secret:\n%s%s", out, errOut)
			}
		})
	}
	t.Run("ssl_without_a_trusted_certificate", func(t *testing.T) {
		for _, name := range []string{"ssl-none", "ssl-stranger"} {
			_, errOut, err := admin("--context", name, "get", "domini", "44444444444")
			if exitCode(err) != exitFailure || !strings.Contains(err.Error(), "GET /domini/44444444444: 401 ") {
				t.Fatalf("%s: exit %d %v\n%s", name, exitCode(err), err, errOut)
			}
		}
	})
}
