package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// Incassi (collections credited to an entity's account) on the
// Backoffice: Rendicontazioni e Incassi, on the entity.

// IncassiStore finds stored incassi.
type IncassiStore interface {
	Incasso(idDominio, idIncasso string) (*projections.Incasso, bool)
}

// ReadIncasso is GET /incassi/{idDominio}/{idIncasso}: Rendicontazioni e
// Incassi R on idDominio first (403 whether or not it exists), then the
// incasso (404 to a caller who may read the entity), as the list keeps
// each row (RendicontazioniList).
func ReadIncasso(m IncassiStore, p domain.Principal, idDominio, idIncasso string, rec Recorder) (*projections.Incasso, error) {
	return ReadRendicontazione(p, idDominio, func() (*projections.Incasso, bool) { return m.Incasso(idDominio, idIncasso) }, rec)
}

// AskWriteIncasso is the gate of POST /incassi/{idDominio}, decided
// before the body is read: Rendicontazioni e Incassi W on idDominio.
func AskWriteIncasso(p domain.Principal, idDominio string, rec Recorder) error {
	return OnDominio(p, domain.ServiceRendicontazioniIncassi, domain.RightWrite, idDominio, rec)
}

// WriteIncasso decides POST /incassi/{idDominio}: the gate, then an
// unknown or disabled entity is 422.
func WriteIncasso(m Registry, p domain.Principal, idDominio string, rec Recorder) error {
	if err := AskWriteIncasso(p, idDominio, rec); err != nil {
		return err
	}
	return CheckEntity(m, idDominio, rec)
}
