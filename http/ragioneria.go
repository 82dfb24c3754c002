package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// registerRagioneria mounts API.md section 8: applications authorized on
// the Ragioneria API, scoped by the idDominio of their grant.
func (s *Server) registerRagioneria(g *echo.Group) {
	g.PUT("/riconciliazioni/:idDominio/:id", s.putRiconciliazione)
	g.GET("/riconciliazioni/:idDominio/:id", s.getRiconciliazione)
	g.GET("/riconciliazioni", s.listRiconciliazioni)
	g.GET("/flussiRendicontazione", s.listFlussi)
	g.GET("/flussiRendicontazione/:idDominio/:idFlusso", s.getFlusso)
	g.GET("/riscossioni", s.listRiscossioni)
	g.GET("/pagamenti", s.ragListPagamenti)
	g.GET("/pagamenti/:id", s.ragGetPagamento)
}

type riconciliazioneBody struct {
	Importo  *Importo `json:"importo"`
	Causale  string   `json:"causale"`
	IDFlusso string   `json:"idFlusso,omitempty"`
}

func (s *Server) putRiconciliazione(c *echo.Context) error {
	dominio, id, err := riconciliazionePath(c)
	if err != nil {
		return err
	}
	if err := operations.AskWriteReconciliation(callerOf(c).principal, dominio, nil); err != nil {
		return err
	}
	var body riconciliazioneBody
	if err := s.decodeJSON(c, &body); err != nil {
		return err
	}
	if body.Importo == nil {
		return syntaxError("importo is required")
	}
	res, err := s.cmds.CreateReconciliation(c.Request().Context(), s.actor(c), commands.CreateReconciliation{
		IDDominio: dominio, ID: id, AmountCents: int64(*body.Importo), Causale: body.Causale, IDFlusso: body.IDFlusso})
	return s.written(c, res, err, func() (any, error) {
		r, ok := s.model.Reconciliation(dominio, id)
		if !ok {
			return nil, errNotFound
		}
		return toRiconciliazione(r), nil
	})
}

// riconciliazionePath reads the {idDominio}/{id} path of a reconciliation.
func riconciliazionePath(c *echo.Context) (dominio, id string, err error) {
	if dominio, err = pathParam(c, "idDominio", commands.ValidDominio); err != nil {
		return "", "", err
	}
	if id, err = pathParam(c, "id", commands.ValidID); err != nil {
		return "", "", err
	}
	return dominio, id, nil
}

func (s *Server) getRiconciliazione(c *echo.Context) error {
	dominio, id, err := riconciliazionePath(c)
	if err != nil {
		return err
	}
	r, err := operations.ReadReconciliation(s.model, callerOf(c).principal, dominio, id, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toRiconciliazione(r))
}

func (s *Server) listRiconciliazioni(c *echo.Context) error {
	p := callerOf(c).principal
	keep, err := s.ragioneriaScope(c)
	if err != nil {
		return err
	}
	items := s.model.Reconciliations(func(r *projections.Reconciliation) bool {
		return keep(r.Event.IDDominio) && domain.CanReadReconciliation(p, r.View()) == nil
	})
	return pageJSON(c, items, toRiconciliazione)
}

// ragioneriaScope returns the filter of entities the caller may read,
// narrowed by the idDominio query parameter.
func (s *Server) ragioneriaScope(c *echo.Context) (func(string) bool, error) {
	p := callerOf(c).principal
	if err := operations.UseRagioneria(p, nil); err != nil {
		return nil, err
	}
	dominio := c.QueryParam("idDominio")
	if err := checkListFilters(dominio, ""); err != nil {
		return nil, err
	}
	return func(id string) bool {
		return (dominio == "" || id == dominio) && domain.CanReadRagioneriaDominio(p, id) == nil
	}, nil
}

func (s *Server) listFlussi(c *echo.Context) error {
	keep, err := s.ragioneriaScope(c)
	if err != nil {
		return err
	}
	items := s.model.SettlementReports(func(r *projections.SettlementReport) bool { return keep(r.Event.IDDominio) })
	return pageJSON(c, items, toFlusso)
}

func (s *Server) getFlusso(c *echo.Context) error {
	dominio, err := pathParam(c, "idDominio", commands.ValidDominio)
	if err != nil {
		return err
	}
	idFlusso, err := pathParam(c, "idFlusso", commands.ValidFlusso)
	if err != nil {
		return err
	}
	r, err := operations.ReadFlusso(s.model, callerOf(c).principal, dominio, idFlusso, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toFlusso(r))
}

func (s *Server) listRiscossioni(c *echo.Context) error {
	keep, err := s.ragioneriaScope(c)
	if err != nil {
		return err
	}
	items := s.model.Receipts(func(r *projections.Receipt) bool { return isCollection(r) && keep(r.Event.IDDominio) })
	return pageJSON(c, items, toRiscossione)
}

func (s *Server) ragListPagamenti(c *echo.Context) error {
	p := callerOf(c).principal
	if err := operations.UseRagioneria(p, nil); err != nil {
		return err
	}
	items := s.model.Payments(func(pay *projections.Payment) bool {
		return domain.CanReadPaymentRagioneria(p, pay.View()) == nil
	})
	return pageJSON(c, items, func(pay *projections.Payment) pagamentoView { return toPagamentoItems(pay, ragioneriaItems(p)) })
}

// ragioneriaItems admits the payment items of the entities in p's
// RAGIONERIA scope.
func ragioneriaItems(p domain.Principal) func(idDominio string) bool {
	return func(idDominio string) bool { return domain.CanReadRagioneriaDominio(p, idDominio) == nil }
}

func (s *Server) ragGetPagamento(c *echo.Context) error {
	id, err := pathParam(c, "id", validPaymentID)
	if err != nil {
		return err
	}
	p := callerOf(c).principal
	pay, err := operations.ReadPaymentRagioneria(s.model, p, id, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toPagamentoItems(pay, ragioneriaItems(p)))
}
