package commands

import "strconv"

// The identifier formats as regular expressions, for API descriptions
// (the OpenAPI document): the same expressions the Valid* functions use.
var (
	PatternDominio = reDominio.String()
	// PatternID is ValidID: 1 to 35 characters of ValidToken's alphabet
	// but "." and "..".
	PatternID = pathTokenPattern(35)
	// PatternPrincipal is what checkPrincipal reads of a principal's
	// characters: no control character (its length, at most
	// MaxPrincipalLength bytes, a pattern cannot count).
	PatternPrincipal = rePrincipal.String()
	PatternAvviso    = reAvviso.String()
	PatternFlusso    = pathTokenPattern(70) // ValidFlusso
)

// pathTokenPattern is ValidPathToken(s, max) as a regular expression: 1
// to max characters of ValidToken's alphabet but "." and "..", spelled
// out by length (one character not a dot, two not both dots, or three to
// max of any).
func pathTokenPattern(max int) string {
	return `^([A-Za-z0-9_-]|[A-Za-z0-9_.-][A-Za-z0-9_-]|[A-Za-z0-9_-]\.|[A-Za-z0-9_.-]{3,` + strconv.Itoa(max) + `})$`
}
