package commands

// The identifier formats as regular expressions, for API descriptions
// (the OpenAPI document): the same expressions the Valid* functions use.
var (
	PatternDominio = reDominio.String()
	PatternID      = `^[A-Za-z0-9_.-]{1,35}$` // ValidID (which also refuses "." and "..")
	PatternAvviso  = reAvviso.String()
	PatternFlusso  = `^[A-Za-z0-9_.-]{1,70}$` // ValidFlusso
)
