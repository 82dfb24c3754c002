package domain

// IUVOfNotice is the IUV (identificativo univoco di versamento) a pagoPA
// notice number carries: the 18 digits are the aux digit then, for aux
// digit 0, a two-digit application code and a 15-digit IUV, and for aux
// digits 1, 2 and 3 a 17-digit IUV (for 3, segregation code included).
// Anything but 18 digits has no IUV ("").
func IUVOfNotice(numeroAvviso string) string {
	if len(numeroAvviso) != 18 {
		return ""
	}
	for i := 0; i < len(numeroAvviso); i++ {
		if numeroAvviso[i] < '0' || numeroAvviso[i] > '9' {
			return ""
		}
	}
	switch numeroAvviso[0] {
	case '0':
		return numeroAvviso[3:]
	case '1', '2', '3':
		return numeroAvviso[1:]
	}
	return ""
}
