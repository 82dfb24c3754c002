package domain

// AnonymousIdentificativo is pagoPA's identificativo for a payer or
// remitter who is not identified. No citizen authenticates under it (it is
// no fiscal code), so a pendenza whose payer it is belongs to no citizen.
const AnonymousIdentificativo = "ANONIMO"

// VociMatchImporto reports whether a pendenza's importo (cents) equals the
// sum of its voci's amounts, as GovPay requires; a pendenza without voci
// has nothing to match. A sum that overflows never matches.
func VociMatchImporto(importo int64, voci []int64) bool {
	if len(voci) == 0 {
		return true
	}
	var sum int64
	for _, v := range voci {
		if v < 0 || sum > (1<<63-1)-v {
			return false
		}
		sum += v
	}
	return sum == importo
}
