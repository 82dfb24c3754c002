package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

type pendenzaBody struct {
	IDTipoPendenza   string    `json:"idTipoPendenza"`
	IDDominio        string    `json:"idDominio"`
	Causale          string    `json:"causale"`
	Importo          *Importo  `json:"importo"`
	SoggettoPagatore *soggetto `json:"soggettoPagatore"`
	NumeroAvviso     string    `json:"numeroAvviso,omitempty"`
	// IDUnitaOperativa is the entity's operational unit the pendenza
	// belongs to: a scope dimension (a grant limited to units covers only
	// their pendenze).
	IDUnitaOperativa string `json:"idUnitaOperativa,omitempty"`
	govpayPendenza          // GovPay's fields that bear on no decision
}

func (s *Server) putPendenza(c *echo.Context) error {
	// The caller writes only under its own idA2A.
	var body pendenzaBody
	idA2A, idPendenza, err := s.gatedBody(c, pIDA2A, pIDPendenza, operations.WritePendenzaUnder, &body)
	if err != nil {
		return err
	}
	if body.Importo == nil || body.SoggettoPagatore == nil {
		return syntaxError("importo and soggettoPagatore are required")
	}
	details, err := body.details()
	if err != nil {
		return err
	}
	res, err := s.cmds.PutPendenza(c.Request().Context(), s.actor(c), commands.PutPendenza{IDA2A: idA2A,
		IDPendenza: idPendenza, IDDominio: body.IDDominio, IDTipoPendenza: body.IDTipoPendenza, Causale: body.Causale,
		AmountCents: int64(*body.Importo), Payer: body.SoggettoPagatore.event(), NumeroAvviso: body.NumeroAvviso,
		IDUnita: body.IDUnitaOperativa, Details: details})
	return s.written(c, res, err, stored(s.model.Pendenza, idA2A, idPendenza, s.pendenza))
}

func (s *Server) getOwnPendenza(c *echo.Context) error {
	idA2A, idPendenza, err := pathPair(c, pIDA2A, pIDPendenza)
	if err != nil {
		return err
	}
	if _, err := operations.ReadOwnPendenza(s.model, callerOf(c).principal, idA2A, idPendenza, nil); err != nil {
		return err
	}
	return s.pendenzaJSON(c, idA2A, idPendenza)
}

// pendenzaJSON answers the stored pendenza (a read already decided).
func (s *Server) pendenzaJSON(c *echo.Context, idA2A, idPendenza string) error {
	pd, ok := s.model.Pendenza(idA2A, idPendenza)
	if !ok {
		return errNotFound
	}
	return c.JSON(http.StatusOK, s.pendenza(pd))
}

func (s *Server) listOwnPendenze(c *echo.Context) error {
	return s.listPendenze(c, operations.OwnPendenze, "idDebitore")
}

// listPendenze answers a list of pendenze on the Pendenze or Pagamento
// API: the idDominio and stato filters, checked, and the payer's filter
// under the API's name for it (payerParam, "" for none: GovPay's
// idDebitore on the Pendenze API, a fiscal code compared as payers' are,
// without case), then what the list operation answers with them (its
// gate, its index, its read decision on each pendenza).
func (s *Server) listPendenze(c *echo.Context, list func(operations.PendenzeLists, domain.Principal, func(domain.PendenzaView) bool, operations.Recorder) ([]projections.Pendenza, error), payerParam string) error {
	dominio, stato := c.QueryParam("idDominio"), c.QueryParam("stato")
	if err := checkListFilters(dominio, stato); err != nil {
		return err
	}
	var payer string
	if payerParam != "" {
		payer = domain.NormalFiscalCode(c.QueryParam(payerParam))
	}
	var keep func(domain.PendenzaView) bool
	if dominio != "" || payer != "" {
		keep = func(v domain.PendenzaView) bool {
			return (dominio == "" || v.IDDominio == dominio) && (payer == "" || v.PayerID == payer)
		}
	}
	items, err := list(s.model, callerOf(c).principal, keep, nil)
	if err != nil {
		return err
	}
	return pageJSON(c, filterStato(items, stato), s.pendenza)
}
