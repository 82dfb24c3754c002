package httpapi

import (
	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// pgDomini answers GET /domini on the Pagamento API: the entities the
// caller may pay at, as GovPay's Dominio objects.
func (s *Server) pgDomini(c *echo.Context) error {
	scope, err := operations.PayableDomini(callerOf(c).principal, nil)
	if err != nil {
		return err
	}
	keep := admitted(s.model.Entities(), func(e events.CreditorEntityRegistered) bool {
		return scope.AdmitsDominio(projections.EntityViewOf(e))
	})
	return pageJSON(c, keep, func(e events.CreditorEntityRegistered) dominioRef {
		return dominioRef{IDDominio: e.IDDominio, RagioneSociale: e.RagioneSociale}
	})
}

// tipoPagabile is GovPay's TipoPendenza of Pagamento v2: its index
// (idTipoPendenza, descrizione) and the tipo it requires.
type tipoPagabile struct {
	tipoRef
	Tipo string `json:"tipo" enum:"spontaneo,dovuto"` // GovPay's required TipoPendenzaTipologia
}

// pgTipiPendenza answers GET /domini/{idDominio}/tipiPendenza on the
// Pagamento API: the types the caller may pay spontaneously there, each
// spontaneo (tipologia).
func (s *Server) pgTipiPendenza(c *echo.Context) error {
	dominio, scope, err := s.payableAt(c)
	if err != nil {
		return err
	}
	keep := admitted(s.model.PendenzaTypes(), func(t events.PendenzaTypeRegistered) bool {
		return scope.AdmitsTipo(dominio, projections.TypeViewOf(t))
	})
	return pageJSON(c, keep, func(t events.PendenzaTypeRegistered) tipoPagabile {
		return tipoPagabile{tipoRef: tipoRef{IDTipoPendenza: t.IDTipoPendenza, Descrizione: t.Descrizione},
			Tipo: tipologia(t.Spontaneous)}
	})
}

// payableAt reads the idDominio of a Pagamento list of what the caller may
// pay there (types, units) and decides the list's gate
// (operations.PayableTipi).
func (s *Server) payableAt(c *echo.Context) (string, operations.PayableScope, error) {
	dominio, err := pathParam(c, pIDDominio.name, pIDDominio.valid)
	if err != nil {
		return "", operations.PayableScope{}, err
	}
	scope, err := operations.PayableTipi(s.model, callerOf(c).principal, dominio, nil)
	return dominio, scope, err
}
