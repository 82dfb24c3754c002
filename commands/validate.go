package commands

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/payauthz/payauthz/domain"
)

// Identifier formats of the contract (API.md section 5).
var (
	reDominio    = regexp.MustCompile(`^[0-9]{11}$`)
	reID         = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,35}$`)
	reAvviso     = regexp.MustCompile(`^[0-9]{18}$`)
	reFiscalCode = regexp.MustCompile(`^[A-Z0-9]{11,16}$`)
)

// ValidDominio reports whether s is an idDominio (11 digits).
func ValidDominio(s string) bool { return reDominio.MatchString(s) }

// ValidID reports whether s is an idTipoPendenza, idA2A, idPendenza,
// idRuolo or idIntermediario.
func ValidID(s string) bool { return reID.MatchString(s) }

// ValidAvviso reports whether s is a numeroAvviso (18 digits).
func ValidAvviso(s string) bool { return reAvviso.MatchString(s) }

// ValidFiscalCode reports whether s, upper-cased, is a fiscal code.
func ValidFiscalCode(s string) bool { return reFiscalCode.MatchString(strings.ToUpper(s)) }

func checkDominio(field, s string) error {
	if !ValidDominio(s) {
		return invalid(field, "must be 11 digits")
	}
	return nil
}

func checkID(field, s string) error {
	if !ValidID(s) {
		return invalid(field, "must match [A-Za-z0-9_.-]{1,35}")
	}
	return nil
}

func checkPassword(field string, p *string) error {
	if p != nil && utf8.RuneCountInString(*p) < domain.MinPasswordLength {
		return invalid(field, "must be at least %d characters", domain.MinPasswordLength)
	}
	return nil
}

// checkScopeList validates a scope list: ["*"] or ids of the given format.
func checkScopeList(field string, list []string, valid func(string) bool) error {
	for _, id := range list {
		if id == domain.Wildcard {
			if len(list) != 1 {
				return invalid(field, `"*" must be alone`)
			}
			continue
		}
		if !valid(id) {
			return invalid(field, "bad id %q", id)
		}
	}
	return nil
}

// hashOptional hashes p when set; "" means keep the current hash.
// hashCredentials hashes an operator's or application's optional password
// and API key (argon2id each; "" for one not given, which keeps it).
func hashCredentials(password, apiKey *string) (hash, keyHash string, err error) {
	if hash, err = hashOptional(password); err != nil {
		return "", "", err
	}
	if keyHash, err = hashOptional(apiKey); err != nil {
		return "", "", err
	}
	return hash, keyHash, nil
}

func hashOptional(p *string) (string, error) {
	if p == nil {
		return "", nil
	}
	return domain.HashPassword(*p)
}
