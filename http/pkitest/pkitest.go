// Package pkitest issues real certificates for tests: a CA and the server
// and client certificates it signs (ECDSA P-256, valid from an hour ago
// for a day), in memory or as PEM files.
package pkitest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

var serial atomic.Int64

// CA is a test certificate authority.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	DER  []byte
}

// NewCA generates a self-signed CA named cn.
func NewCA(tb testing.TB, cn string) *CA {
	tb.Helper()
	key, der := issue(tb, &x509.Certificate{Subject: pkix.Name{CommonName: cn}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, nil, nil)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return &CA{Cert: cert, Key: key, DER: der}
}

// Sign issues tmpl (its serial number set here, and its validity unless
// tmpl sets NotAfter) with a new key and returns the key and the
// certificate's DER.
func (ca *CA) Sign(tb testing.TB, tmpl *x509.Certificate) (*ecdsa.PrivateKey, []byte) {
	tb.Helper()
	return issue(tb, tmpl, ca.Cert, ca.Key)
}

// issue signs tmpl with a new key: by parent and its key, or by itself
// when parent is nil.
func issue(tb testing.TB, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl.SerialNumber = big.NewInt(serial.Add(1))
	if tmpl.NotAfter.IsZero() {
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		tb.Fatal(err)
	}
	return key, der
}

// PEM is the CA's certificate in PEM.
func (ca *CA) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.DER})
}

// Pool is a pool holding the CA alone.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Server is the template of a server certificate for 127.0.0.1.
func Server() *x509.Certificate {
	return &x509.Certificate{Subject: pkix.Name{CommonName: "127.0.0.1"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
}

// Client is the template of a client certificate for subject.
func Client(subject pkix.Name) *x509.Certificate {
	return &x509.Certificate{Subject: subject, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
}

// ClientCert issues a client certificate for subject, ready for a TLS
// client.
func (ca *CA) ClientCert(tb testing.TB, subject pkix.Name) tls.Certificate {
	tb.Helper()
	key, der := ca.Sign(tb, Client(subject))
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// ClientCertValid is ClientCert valid from notBefore to notAfter.
func (ca *CA) ClientCertValid(tb testing.TB, subject pkix.Name, notBefore, notAfter time.Time) tls.Certificate {
	tb.Helper()
	tmpl := Client(subject)
	tmpl.NotBefore, tmpl.NotAfter = notBefore, notAfter
	key, der := ca.Sign(tb, tmpl)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// Write writes der as dir/name.pem and key as dir/name.key (0600) and
// returns their paths.
func Write(tb testing.TB, dir, name string, der []byte, key *ecdsa.PrivateKey) (certFile, keyFile string) {
	tb.Helper()
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".key")
	for file, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "EC PRIVATE KEY", Bytes: kb}} {
		if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return certFile, keyFile
}
