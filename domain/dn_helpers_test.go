package domain

import "testing"

// Helpers only the DN tests use.

// mustParseDN parses s; an error ends t.
func mustParseDN(t *testing.T, s string) DN {
	t.Helper()
	d, err := ParseDN(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return d
}

// reversed returns d with its RDNs in the opposite order.
func (d DN) reversed() DN {
	r := DN{rdns: make([][]AVA, len(d.rdns))}
	for i, rdn := range d.rdns {
		r.rdns[len(d.rdns)-1-i] = rdn
	}
	return r
}
