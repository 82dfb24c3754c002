package commands

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/payauthz/payauthz/domain"
)

// Identifier formats of the contract (API.md section 5).
var (
	reDominio = regexp.MustCompile(`^[0-9]{11}$`)
	reAvviso  = regexp.MustCompile(`^[0-9]{18}$`)
	// rePrincipal refuses control characters: unicode.IsControl's, the
	// C0 and C1 codes and DEL.
	rePrincipal = regexp.MustCompile(`^[^\x00-\x1f\x7f-\x9f]*$`)
)

// ValidDominio reports whether s is an idDominio (11 digits).
func ValidDominio(s string) bool { return reDominio.MatchString(s) }

// ValidID reports whether s is an idTipoPendenza, idA2A, idPendenza,
// idRuolo or idIntermediario. "." and ".." are never ids: they are path
// segments.
func ValidID(s string) bool { return ValidPathToken(s, 35) }

// ValidPathToken reports whether s is an id the service puts in a path:
// ValidToken, but never "." or "..", which a client or proxy resolves as
// dot segments before the request arrives, so that what is stored under
// such an id could never be asked for.
func ValidPathToken(s string, max int) bool { return s != "." && s != ".." && ValidToken(s, max) }

// ValidToken reports whether s is 1 to max characters of [A-Za-z0-9_.-]:
// the alphabet of every id the service puts in a path or a log line.
func ValidToken(s string, max int) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '.' || ch == '-') {
			return false
		}
	}
	return true
}

// ValidAvviso reports whether s is a numeroAvviso (18 digits).
func ValidAvviso(s string) bool { return reAvviso.MatchString(s) }

// CheckDominio validates the idDominio in field: the contract's 400 for
// anything but 11 digits.
func CheckDominio(field, s string) error {
	if !ValidDominio(s) {
		return invalidAs(InvalidDominio, field, "must be 11 digits")
	}
	return nil
}

func checkID(field, s string) error {
	if !ValidID(s) {
		return invalidAs(InvalidID, field, "must match [A-Za-z0-9_.-]{1,35} and not be . or ..")
	}
	return nil
}

// Field limits (README, "Limits"): beyond them a command is 400 before any
// event is written.
const (
	// MaxNameLength bounds descriptive names (ragioneSociale, descrizione,
	// denominazione) and the registry's other free texts (an entity's
	// address and contacts, autStampaPosteItaliane, regExpIuv), in
	// characters (longerThan), as GovPay counts its limits (its schemas'
	// maxLength, its database's VARCHAR columns).
	MaxNameLength = 255
	// MaxPrincipalLength bounds a principal (an application's, an
	// operator's or a node connector's), in bytes.
	MaxPrincipalLength = 512
	// MaxListEntries bounds every list of ids in a command: domini,
	// tipiPendenza, ruoli, an acl entry's autorizzazioni.
	MaxListEntries = 10_000
	// MaxPasswordLength bounds a password, in bytes, so that hashing it
	// costs what hashing any password costs.
	MaxPasswordLength = 1024
)

// CheckAdmin checks the first-start administrator's principal and
// password (a password "" is not checked: one to be generated) by the
// rules every operator's PUT follows, so that serve refuses before it
// writes anything an administrator that could never log in.
func CheckAdmin(principal, password string) error {
	// The administrator always has a password (given or generated): it
	// logs in with basic.
	err := firstError(checkPrincipal("admin principal", principal), checkPasswordPrincipal("admin principal", principal, &password))
	if password == "" {
		return err
	}
	return firstError(err, checkPassword("admin password", &password))
}

func checkPassword(field string, p *string) error {
	if p != nil && utf8.RuneCountInString(*p) < domain.MinPasswordLength {
		return invalidAs(InvalidPasswordShort, field, "must be at least %d characters", domain.MinPasswordLength)
	}
	if p != nil && len(*p) > MaxPasswordLength {
		return invalidAs(InvalidPasswordLong, field, "must be at most %d bytes", MaxPasswordLength)
	}
	return nil
}

// longerThan reports whether the text s holds more than max characters:
// GovPay's maxLength counts characters, so "è" is one, though UTF-8
// spends two bytes on it.
func longerThan(s string, max int) bool { return len(s) > max && utf8.RuneCountInString(s) > max }

// checkName validates a required descriptive name: 1 to MaxNameLength
// characters.
func checkName(field, s string) error {
	if s == "" || longerThan(s, MaxNameLength) {
		return invalidAs(InvalidRequiredChars, field, "is required (at most %d characters)", MaxNameLength)
	}
	return nil
}

// checkPrincipal validates a principal: 1 to MaxPrincipalLength bytes of
// valid UTF-8 without control characters (it is written into logs and
// compared byte for byte with what a Basic header or a certificate
// carries).
func checkPrincipal(field, s string) error {
	if s == "" || len(s) > MaxPrincipalLength {
		return invalidAs(InvalidRequiredBytes, field, "is required (at most %d bytes)", MaxPrincipalLength)
	}
	if !utf8.ValidString(s) {
		return invalidAs(InvalidUTF8, field, "must be valid UTF-8")
	}
	if hasControl(s) {
		return invalidAs(InvalidControl, field, "must not contain control characters")
	}
	return nil
}

// checkPasswordPrincipal refuses a password for a principal holding ':':
// HTTP basic (RFC 7617) ends the username at its first colon, so that
// password could never be presented with it. Without a password such a
// principal is accepted: a certificate subject (ssl) may hold ':', and so
// may an X-APP-ID (apikey). What the log holds is not checked again, so a
// principal with ':' and a password written before this refusal still
// folds and may be written without a new password.
func checkPasswordPrincipal(field, principal string, password *string) error {
	if password != nil && strings.Contains(principal, ":") {
		return invalidAs(InvalidPasswordColon, field, "must not contain ':' when it has a password: HTTP basic ends the username at its first colon, "+
			"so the password could never be used (authenticate it with a certificate or an API key instead, or choose a name without ':')")
	}
	return nil
}

// hasControl reports whether s holds a control character: one of
// unicode.IsControl's (the C0 and C1 codes and DEL), which rePrincipal
// refuses.
func hasControl(s string) bool { return !rePrincipal.MatchString(s) }

// ValidPrincipal reports whether s is a principal as checkPrincipal
// reads one (an operator's in a path, /operatori/{principal}).
func ValidPrincipal(s string) bool { return checkPrincipal("principal", s) == nil }

// CheckListLength is the 400 of a list of n ids in field, nil when n is
// at most MaxListEntries: the bound of every such list a command takes,
// which the HTTP layer answers as soon as a body's list holds one entry
// too many.
func CheckListLength(field string, n int) error {
	if n > MaxListEntries {
		return invalidAs(InvalidListLength, field, "must hold at most %d entries", MaxListEntries)
	}
	return nil
}

// checkScopeList validates a scope list: ["*"] or ids of the given format.
func checkScopeList(field string, list []string, valid func(string) bool) error {
	if err := CheckListLength(field, len(list)); err != nil {
		return err
	}
	for _, id := range list {
		if id == domain.Wildcard {
			if len(list) != 1 {
				return invalidAs(InvalidWildcard, field, `"*" must be alone`)
			}
			continue
		}
		if !valid(id) {
			return invalidAs(InvalidBadID, field, "bad id %q", id)
		}
	}
	return nil
}

// MaxDominiEntries bounds a domini list as GovPay's bodies hold it, one
// entry per entity named whole (an idDominio) or limited to some units
// ({idDominio, unitaOperative}): MaxListEntries of each form.
const MaxDominiEntries = 2 * MaxListEntries

// CheckDominiEntries is the 400 of a domini list of n entries, nil when n
// is at most MaxDominiEntries; checkEntities asks it first, of the
// entities named whole and those limited (each then bounded apart), and
// the HTTP layer answers it as soon as a body's list holds one entry too
// many (there an entity limited in several entries counts once for each).
func CheckDominiEntries(n int) error {
	if n > MaxDominiEntries {
		return invalidAs(InvalidListLength, "domini", "must hold at most %d entries, idDominio and {idDominio, unitaOperative} together", MaxDominiEntries)
	}
	return nil
}

// checkEntities validates an entity scope: domini (see checkScopeList)
// and the units of entities covered only in some of them (unitaOperative:
// idDominio → unit ids). It returns the stored form: entities covered
// whole, sorted ("*" alone for all), and the sorted units of the others
// (an entity also named whole, or with no unit, is covered whole).
func checkEntities(domini []string, units map[string][]string) ([]string, map[string][]string, error) {
	if err := firstError(
		CheckDominiEntries(len(domini)+len(units)),
		checkScopeList("domini", domini, ValidDominio),
		CheckListLength("unitaOperative", len(units)),
	); err != nil {
		return nil, nil, err
	}
	for d, us := range units {
		if !ValidDominio(d) {
			return nil, nil, invalidAs(InvalidBadID, "domini.idDominio", "bad id %q", d)
		}
		if err := CheckListLength("domini.unitaOperative", len(us)); err != nil {
			return nil, nil, err
		}
		for _, u := range us {
			if !ValidID(u) {
				return nil, nil, invalidAs(InvalidBadID, "domini.unitaOperative", "bad id %q", u)
			}
		}
	}
	s := domain.EntitiesOf(domini, units)
	return s.Scope.List(), s.Units(), nil
}

// hashCredentials hashes an operator's or application's optional password
// and API key (argon2id each; "" for one not given, which keeps it).
func (h *Handler) hashCredentials(password, apiKey *string) (hash, keyHash string, err error) {
	if hash, err = h.hashOptional(password); err != nil {
		return "", "", err
	}
	if keyHash, err = h.hashOptional(apiKey); err != nil {
		return "", "", err
	}
	return hash, keyHash, nil
}

// hashOptional hashes p when set, in a slot of the hash budget (see
// SetHashBudget); "" means keep the current hash.
func (h *Handler) hashOptional(p *string) (string, error) {
	if p == nil {
		return "", nil
	}
	if b := h.hashes.Load(); b != nil {
		release, err := (*b).AdmitHash()
		if err != nil {
			return "", err
		}
		defer release()
	}
	return domain.HashPassword(*p)
}

// firstError returns the first non-nil of errs: the checks of a command's
// input, all pure, in the order their errors are reported.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
