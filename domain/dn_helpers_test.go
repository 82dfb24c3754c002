package domain

// Helpers only the DN tests use.

// reversed returns d with its RDNs in the opposite order.
func (d DN) reversed() DN {
	r := DN{rdns: make([][]AVA, len(d.rdns))}
	for i, rdn := range d.rdns {
		r.rdns[len(d.rdns)-1-i] = rdn
	}
	return r
}
