package commands

// The identifier formats as regular expressions, for API descriptions
// (the OpenAPI document): the same expressions the Valid* functions use.
var (
	PatternDominio = reDominio.String()
	PatternID      = reID.String()
	PatternAvviso  = reAvviso.String()
	PatternFlusso  = `^[A-Za-z0-9_.-]{1,70}$` // ValidFlusso
)
