package httpapi

import (
	"bytes"
	"errors"
	"strconv"
)

// Importo is an amount in euro cents that travels as a JSON number with at
// most two decimals ("12.5", "12.50", "12"). Parsing is exact: no float is
// ever involved, so 10.005 is refused rather than rounded.
type Importo int64

var errImporto = errors.New("importo must be a number with at most two decimals")

// maxImportoCents bounds amounts to 999,999,999.99 euro.
const maxImportoCents = 99_999_999_999

// ParseImporto reads a JSON number into cents.
func ParseImporto(b []byte) (Importo, error) {
	s := string(bytes.TrimSpace(b))
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	intPart, frac, hasDot := s, "", false
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			intPart, frac, hasDot = s[:i], s[i+1:], true
			break
		}
	}
	if intPart == "" || len(intPart) > 12 || (hasDot && (frac == "" || len(frac) > 2)) {
		return 0, errImporto
	}
	if len(intPart) > 1 && intPart[0] == '0' {
		return 0, errImporto // JSON forbids leading zeros
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, errImporto
			}
		}
	}
	units, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return 0, errImporto
	}
	for len(frac) < 2 {
		frac += "0"
	}
	cents, _ := strconv.ParseInt(frac, 10, 64)
	total := units*100 + cents
	if total > maxImportoCents {
		return 0, errImporto
	}
	if neg {
		total = -total
	}
	return Importo(total), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (a *Importo) UnmarshalJSON(b []byte) error {
	v, err := ParseImporto(b)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// MarshalJSON writes the amount with two decimals.
func (a Importo) MarshalJSON() ([]byte, error) {
	v := int64(a)
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	frac := strconv.FormatInt(v%100, 10)
	if len(frac) == 1 {
		frac = "0" + frac
	}
	return []byte(sign + strconv.FormatInt(v/100, 10) + "." + frac), nil
}
