package httpapi

import (
	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// pDataOraFlusso is GovPay's dataOraFlusso: a date-time (with or without a
// zone) or a date.
var pDataOraFlusso = param{"dataOraFlusso", func(s string) bool { _, ok := domain.ParseFlowDate(s); return ok }}

// getFlussoAt answers GET
// /flussiRendicontazione/{idDominio}/{idFlusso}/{dataOraFlusso} with the
// API's operation.
func (s *Server) getFlussoAt(op func(operations.SettlementReports, domain.Principal, operations.FlowKey, operations.Recorder) (*projections.SettlementReport, error)) echo.HandlerFunc {
	return func(c *echo.Context) error {
		var k operations.FlowKey
		var err error
		if k.IDDominio, k.IDFlusso, err = pathPair(c, pIDDominio, pIDFlusso); err != nil {
			return err
		}
		if k.DataOraFlusso, err = pathParam(c, pDataOraFlusso.name, pDataOraFlusso.valid); err != nil {
			return err
		}
		r, err := op(s.model, callerOf(c).principal, k, nil)
		return reply(c, r, err, s.flusso)
	}
}
