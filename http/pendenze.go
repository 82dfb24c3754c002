package httpapi

import (
	"net/http"
	"slices"
	"time"

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
	return c.JSON(http.StatusOK, s.pendenzaDetailPendenze(pd))
}

func (s *Server) listOwnPendenze(c *echo.Context) error {
	return s.listPendenze(c, operations.OwnPendenze, debitoreFilters)
}

// listPendenze answers a list of pendenze on the Pendenze or Pagamento
// API: what the list operation answers (its gate, its index, its read
// decision on each pendenza), then the filters of the API's list (fs), so
// that a caller the gate denies is 403 whatever its filters.
func (s *Server) listPendenze(c *echo.Context, list func(operations.PendenzeLists, domain.Principal, operations.Recorder) ([]projections.Pendenza, error), fs queryFilters[projections.Pendenza]) error {
	items, err := list(s.model, callerOf(c).principal, nil)
	if err != nil {
		return err
	}
	return filteredPage(c, items, fs, s.pendenza)
}

// pendenzeFilters are the filters an API's list of pendenze takes, as
// GovPay's list of that API has them: idDominio and stato on every API,
// the payer's fiscal code under the API's name for it (payer, GovPay's
// filter of lists), and the window of creation dataDa and dataA where
// GovPay's list has it (window: the Backoffice and Pendenze APIs; the
// Pagamento API's has none). stato takes the API's StatoPendenza (stati):
// a value no pendenza here holds lists nothing, one outside them is 400.
// The document gives idDominio and stato by their formats alone, the
// payer and the window (windowFilters) by a description.
func pendenzeFilters(payer, lists string, stati []string, window bool) queryFilters[projections.Pendenza] {
	fs := queryFilters[projections.Pendenza]{
		idFilter("idDominio", commands.PatternDominio, commands.ValidDominio, false, "the pendenze of this entity",
			func(p projections.Pendenza) []string { return []string{p.IDDominio} }).documented(paramSchemas["idDominio"]),
		enumFilter("stato", stati, "the pendenze in this state", func(p projections.Pendenza) string { return p.Stato }).
			documented(paramSchema{enum: stati}),
		fiscalCodeFilter(payer, "the payer's fiscal code, compared without case (GovPay's filter of the "+lists+")",
			func(p projections.Pendenza) []string { return []string{p.View().PayerID} }),
	}
	if !window {
		return fs
	}
	// A pendenza whose creation is unknown (Created zero) is before every
	// dataDa and so within every dataA, as it always was.
	return append(fs, windowFilters("the pendenza's creation (as the log recorded it)",
		func(p projections.Pendenza) (time.Time, bool) { return p.Created, true })...)
}

// GovPay's StatoPendenza, the stato filter of its lists of pendenze: the
// Pagamento API's (v2), and the Pendenze API's (v2) and the Backoffice's
// (v1), which add INCASSATA. A pendenza here is NON_ESEGUITA, ESEGUITA or
// ANNULLATA (domain.PendenzaStati), so the others keep none: a GovPay
// client may send them, and is answered an empty list.
var (
	statiPendenzaPagamento = []string{domain.StatoEseguita.String(), domain.StatoNonEseguita.String(),
		"ESEGUITA_PARZIALE", domain.StatoAnnullata.String(), "SCADUTA", "ANOMALA"}
	statiPendenza = append(slices.Clone(statiPendenzaPagamento), "INCASSATA")
)

var (
	// debitoreFilters are the Backoffice's and the Pendenze API's.
	debitoreFilters = pendenzeFilters("idDebitore", "Backoffice and Pendenze lists", statiPendenza, true)
	// pagatoreFilters are the Pagamento API's.
	pagatoreFilters = pendenzeFilters("idPagatore", "Pagamento list", statiPendenzaPagamento, false)
)
