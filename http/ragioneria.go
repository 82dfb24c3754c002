package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// riconciliazioneBody is the contract's {importo, causale, idFlusso?}
// with what GovPay's NuovaRiconciliazione carries besides: its references
// (iuv; idFlussoRendicontazione, the contract's idFlusso under GovPay's
// name), the bank's (sct, which GovPay requires, contoAccredito) and the
// transfer's dates.
type riconciliazioneBody struct {
	Importo *Importo `json:"importo"`
	Causale string   `json:"causale"`
	riconciliazioneRefs
}

// riconciliazioneRefs are a reconciliation's members besides its amount
// and causale, as written and as answered (riconciliazioneView).
type riconciliazioneRefs struct {
	IDFlusso                string `json:"idFlusso,omitempty"`
	IDFlussoRendicontazione string `json:"idFlussoRendicontazione,omitempty"`
	IUV                     string `json:"iuv,omitempty"`
	SCT                     string `json:"sct,omitempty"`
	ContoAccredito          string `json:"contoAccredito,omitempty"`
	DataValuta              string `json:"dataValuta,omitempty"`
	DataContabile           string `json:"dataContabile,omitempty"`
}

func (b *riconciliazioneBody) required() error { return need("importo", b.Importo) }

// idFlusso is the report the body names, under either name: naming two
// is a 400.
func (b *riconciliazioneBody) idFlusso() (string, error) {
	gp := b.IDFlussoRendicontazione
	switch {
	case gp == "":
		return b.IDFlusso, nil
	case !commands.ValidFlusso(gp):
		return "", syntaxError("idFlussoRendicontazione is not a settlement report id")
	case b.IDFlusso != "" && b.IDFlusso != gp:
		return "", syntaxError("idFlusso and idFlussoRendicontazione name two settlement reports")
	}
	return gp, nil
}

func (s *Server) putRiconciliazione(c *echo.Context) error {
	var body riconciliazioneBody
	dominio, id, err := s.gatedBody(c, pIDDominio, pID, operations.AskWriteReconciliation, &body)
	if err != nil {
		return err
	}
	flusso, err := body.idFlusso()
	if err != nil {
		return err
	}
	res, err := s.cmds.CreateReconciliation(c.Request().Context(), s.actor(c), commands.CreateReconciliation{
		IDDominio: dominio, ID: id, AmountCents: int64(*body.Importo), Causale: body.Causale, IDFlusso: flusso,
		IUV: body.IUV, SCT: body.SCT, ContoAccredito: body.ContoAccredito, DataValuta: body.DataValuta, DataContabile: body.DataContabile})
	return s.written(c, res, err, stored(s.model.Reconciliation, dominio, id, s.riconciliazione))
}

func (s *Server) getRiconciliazione(c *echo.Context) error {
	return read2[operations.Reconciliations](c, s.model, pIDDominio, pID, operations.ReadReconciliation, s.riconciliazione)
}

func (s *Server) listRiconciliazioni(c *echo.Context) error {
	return pageByEntity(c, s.model, operations.RagioneriaList, operations.EntityScope.Reconciliations, riconciliazioniFilters, s.riconciliazione)
}

func (s *Server) listFlussi(c *echo.Context) error {
	return pageByEntity(c, s.model, operations.RagioneriaList, operations.EntityScope.SettlementReports, flussiFilters, s.flusso)
}

func (s *Server) getFlusso(c *echo.Context) error {
	return read2[operations.SettlementReports](c, s.model, pIDDominio, pIDFlusso, operations.ReadFlusso, s.flusso)
}

func (s *Server) listRiscossioni(c *echo.Context) error {
	return pageByEntity(c, s.model, operations.RagioneriaList, operations.EntityScope.Collections, riscossioniFilters, s.riscossione)
}

func (s *Server) ragListPagamenti(c *echo.Context) error {
	p := callerOf(c).principal
	items, err := operations.ListPaymentsRagioneria(s.model.Payments, p, nil)
	if err != nil {
		return err
	}
	keep := operations.RagioneriaPaymentItem(p)
	return pageJSON(c, items, func(pay *projections.Payment) pagamentoView { return s.toPagamentoItems(pay, keep) })
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
	return c.JSON(http.StatusOK, s.toPagamentoItems(pay, operations.RagioneriaPaymentItem(p)))
}
