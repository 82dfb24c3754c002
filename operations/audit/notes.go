package audit

import "fmt"

// Codes of the English texts of an answer (an Explanation's Detail, a
// Step's Detail, an Evidence's Why), for a client that words them itself
// (the console, in Italian), with the Args each carries. The text is made
// once, where its code is recorded, and stays the API's; the Args never
// change it.
const (
	// NoteCheck: a check's error, whose detail the text is. Args: the
	// error (a *domain.ForbiddenError, an *operations.UnprocessableError,
	// or another error).
	NoteCheck        = "check"
	NoteAskedMissing = "asked-missing" // none: allowed to ask; the resource does not exist
	NoteMissing      = "missing"       // none: the resource does not exist
	// NoteUnprocessable: allowed, and answered 422. Args: the
	// *operations.UnprocessableError.
	NoteUnprocessable  = "unprocessable"
	NotePublic         = "public"          // none: a public caller is anonymous
	NoteSPIDRefused    = "spid-refused"    // none: the identity proxy's caller is no fiscal code, refused
	NoteNotFiscalCode  = "not-fiscal-code" // none: the outcome of NoteSPIDRefused
	NoteSPIDCitizen    = "spid-citizen"    // none: an unregistered spid caller on Pagamento is a citizen
	NoteNoSuchName     = "no-such-name"    // none: no registered principal has the name
	NoteNotRegistered  = "not-registered"  // none: the outcome of NoteNoSuchName
	NoteNoPassword     = "no-password"     // none: basic cannot succeed
	NoteNoAPIKey       = "no-api-key"      // none: apikey cannot succeed
	NoteRegistered     = "registered"      // domain.PrincipalKind, enabled (bool), the position (uint64) of its last event
	NoteNotReached     = "not-reached"     // domain.API: the caller did not enter it
	NoteNoRightAsked   = "no-right-asked"  // none: the operation asks a role for no service right, and allowed
	NoteNoRightOther   = "no-right-other"  // none: the same, and another rule decided
	NoteGrantCovers    = "grant-covers"    // domain.API: the grant covers the resource
	NoteGrantNotScope  = "grant-not-scope" // domain.API: the grant covers; the decision did not rest on its scope (ownership, the caller alone)
	NoteGrantMissing   = "grant-missing"   // domain.API: the grant lets the caller ask; the resource does not exist
	NoteGrantUndecided = "grant-undecided" // the error that ended the operation before the grant's scope was decided
	NoteRoleLacks      = "role-lacks"      // domain.Service, domain.Right: the role does not give it
	// NoteRoleUnreached: the role gives the right but does not reach the
	// entity, whole or in a unit. Args: domain.Service, domain.Right,
	// idDominio.
	NoteRoleUnreached = "role-unreached"
	// NoteRoleCovers: the role gives the right and holds the places.
	// Args: domain.Service, domain.Right, the places held ([]domain.Place).
	NoteRoleCovers = "role-covers"
	// NoteRoleOutside: the role gives the right and holds some places but
	// not one. Args: domain.Service, domain.Right, the places held
	// ([]domain.Place), the place it does not hold (domain.Place).
	NoteRoleOutside = "role-outside"
)

// note is one English text of an answer with the code and Args a client
// words it by.
type note struct {
	text, code string
	args       []any
}

// noteOf is the note whose text formats args.
func noteOf(code, format string, args ...any) note {
	return note{text: fmt.Sprintf(format, args...), code: code, args: args}
}
