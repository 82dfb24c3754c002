package commands

// The identifier formats as regular expressions, for API descriptions
// (the OpenAPI document): the same expressions the Valid* functions use.
var (
	PatternDominio = reDominio.String()
	// PatternID is ValidID: 1 to 35 characters of ValidToken's alphabet
	// but "." and "..", spelled out by length (one character not a dot,
	// two not both dots, or three to 35 of any).
	PatternID = `^([A-Za-z0-9_-]|[A-Za-z0-9_.-][A-Za-z0-9_-]|[A-Za-z0-9_-]\.|[A-Za-z0-9_.-]{3,35})$`
	// PatternPrincipal is what checkPrincipal reads of a principal's
	// characters: no control character (its length, at most
	// MaxPrincipalLength bytes, a pattern cannot count).
	PatternPrincipal = rePrincipal.String()
	PatternAvviso    = reAvviso.String()
	PatternFlusso    = `^[A-Za-z0-9_.-]{1,70}$` // ValidFlusso
)
