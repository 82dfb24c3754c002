package domain

// IUVOfNotice is the IUV (identificativo univoco di versamento) a pagoPA
// notice number carries (API.md section 8: the notice number without its
// aux digit; for aux digit 0 also without the application code): the 18
// digits are the aux digit then, for aux digit 0, a two-digit application
// code and a 15-digit IUV, and for any other aux digit (pagoPA's 1, 2 and
// 3, segregation code included for 3, and whatever else an 18-digit
// numeroAvviso the service accepts starts with) a 17-digit IUV. Anything
// but 18 digits has no IUV ("").
func IUVOfNotice(numeroAvviso string) string {
	if len(numeroAvviso) != 18 {
		return ""
	}
	for i := 0; i < len(numeroAvviso); i++ {
		if numeroAvviso[i] < '0' || numeroAvviso[i] > '9' {
			return ""
		}
	}
	if numeroAvviso[0] == '0' {
		return numeroAvviso[3:]
	}
	return numeroAvviso[1:]
}
