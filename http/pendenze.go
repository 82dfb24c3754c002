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
// API: its filters (pendenzeQuery, the payer's under the API's name for
// it), then what the list operation answers with them (its gate, its
// index, its read decision on each pendenza).
func (s *Server) listPendenze(c *echo.Context, list func(operations.PendenzeLists, domain.Principal, func(domain.PendenzaView) bool, operations.Recorder) ([]projections.Pendenza, error), payerParam string) error {
	q, err := parsePendenzeQuery(c, payerParam)
	if err != nil {
		return err
	}
	var keep func(domain.PendenzaView) bool
	if q.dominio != "" || q.payer != "" {
		keep = q.keeps
	}
	items, err := list(s.model, callerOf(c).principal, keep, nil)
	if err != nil {
		return err
	}
	return pageJSON(c, filterStato(items, q.stato), s.pendenza)
}

// pendenzeQuery is what a list of pendenze is narrowed by, on every API:
// idDominio and stato, checked (checkListFilters), and the payer's fiscal
// code under the API's name for it (GovPay's idDebitore on the Backoffice
// and Pendenze APIs, idPagatore on the Pagamento API), compared as payers'
// are, without case (domain.NormalFiscalCode); a value that is no fiscal
// code matches nothing, as in GovPay.
type pendenzeQuery struct{ dominio, stato, payer string }

func parsePendenzeQuery(c *echo.Context, payerParam string) (pendenzeQuery, error) {
	q := pendenzeQuery{dominio: c.QueryParam("idDominio"), stato: c.QueryParam("stato"),
		payer: domain.NormalFiscalCode(c.QueryParam(payerParam))}
	return q, checkListFilters(q.dominio, q.stato)
}

// keeps reports whether v passes the idDominio and payer filters (stato
// is the stored pendenza's: filterStato).
func (q pendenzeQuery) keeps(v domain.PendenzaView) bool {
	return (q.dominio == "" || v.IDDominio == q.dominio) && (q.payer == "" || v.PayerID == q.payer)
}
