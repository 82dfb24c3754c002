package domain

// Helpers the DN tests use; the service itself needs only ParseDN, DNEqual
// and DNKey.

// String returns the canonical RFC 4514 form, RDNs in the order parsed,
// separated by ',' without spaces, each RDN's attributes sorted. ParseDN of
// it gives back an equal DN.
func (d DN) String() string { return d.format(false) }

// reversed returns d with its RDNs in the opposite order.
func (d DN) reversed() DN {
	r := DN{rdns: make([][]AVA, len(d.rdns))}
	for i, rdn := range d.rdns {
		r.rdns[len(d.rdns)-1-i] = rdn
	}
	return r
}

// CanonicalDN parses s and returns its principal key, DNKey: two strings
// have the same CanonicalDN exactly when they are DNEqual.
func CanonicalDN(s string) (string, error) {
	d, err := ParseDN(s)
	if err != nil {
		return "", err
	}
	return DNKey(d), nil
}
