package httpapi

import (
	"regexp"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// Business reads of the Backoffice API: each needs its service's R and
// sees only what a role giving that right has in scope.

func (s *Server) boListPendenze(c *echo.Context) error {
	scope, err := operations.PendenzeList(callerOf(c).principal, nil)
	if err != nil {
		return err
	}
	items := s.model.Pendenze(projections.PendenzeFilter{Keep: scope.AdmitsPendenza})
	return filteredPage(c, items, boPendenzeFilters, s.pendenza)
}

func (s *Server) boGetPendenza(c *echo.Context) error {
	return read2[operations.Pendenze](c, s.model, pIDA2A, pIDPendenza, operations.ReadPendenzaBackoffice, s.pendenzaDetailBackoffice)
}

func (s *Server) boListPagamenti(c *echo.Context) error {
	items, err := operations.ListPaymentsBackoffice(s.model.Payments, callerOf(c).principal, nil)
	if err != nil {
		return err
	}
	return filteredPage(c, items, pagamentiFilters, s.toPagamento)
}

func (s *Server) boGetPagamento(c *echo.Context) error {
	return read1[operations.Payments](c, s.model, pPagamento, operations.ReadPaymentBackoffice, s.toPagamento)
}

// rePaymentID: payment ids are 32 lowercase hex characters.
var rePaymentID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func validPaymentID(s string) bool { return rePaymentID.MatchString(s) }

func (s *Server) boListRiconciliazioni(c *echo.Context) error {
	return pageByEntity(c, s.model, operations.RendicontazioniList, operations.EntityScope.Reconciliations, riconciliazioniFilters, s.riconciliazione)
}

func (s *Server) boListFlussi(c *echo.Context) error {
	return pageByEntity(c, s.model, operations.RendicontazioniList, operations.EntityScope.SettlementReports, flussiFilters, s.flusso)
}

func (s *Server) boListRiscossioni(c *echo.Context) error {
	return pageByEntity(c, s.model, operations.RendicontazioniList, operations.EntityScope.Collections, boRiscossioniFilters, s.riscossioneBackoffice)
}
