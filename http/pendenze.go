package httpapi

import (
	"net/http"
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
	return c.JSON(http.StatusOK, s.pendenza(pd))
}

func (s *Server) listOwnPendenze(c *echo.Context) error {
	return s.listPendenze(c, operations.OwnPendenze, debitoreFilters)
}

// listPendenze answers a list of pendenze on the Pendenze or Pagamento
// API: what the list operation answers (its gate, its index, its read
// decision on each pendenza), then its filters (pendenzeQuery, as the
// API's list takes them), so that a caller the gate denies is 403 whatever
// its filters.
func (s *Server) listPendenze(c *echo.Context, list func(operations.PendenzeLists, domain.Principal, func(domain.PendenzaView) bool, operations.Recorder) ([]projections.Pendenza, error), f pendenzeFilters) error {
	items, err := list(s.model, callerOf(c).principal, nil, nil)
	if err != nil {
		return err
	}
	q, err := parsePendenzeQuery(c, f)
	if err != nil {
		return err
	}
	if q.dominio != "" || q.payer != "" {
		items = admitted(items, func(p projections.Pendenza) bool { return q.keeps(p.View()) })
	}
	return pageJSON(c, q.narrow(items), s.pendenza)
}

// pendenzeFilters are the filters an API's list of pendenze takes, as
// GovPay's list of that API has them: idDominio and stato on every API,
// the payer's fiscal code under the API's name for it, and the window of
// creation dataDa and dataA where GovPay's list has it (the Backoffice and
// Pendenze APIs; the Pagamento API's has none). The handlers and the
// OpenAPI document both read them from here.
type pendenzeFilters struct {
	payer  string // the payer's fiscal code
	window bool   // dataDa and dataA
}

var (
	// debitoreFilters are the Backoffice's and the Pendenze API's.
	debitoreFilters = pendenzeFilters{payer: "idDebitore", window: true}
	// pagatoreFilters are the Pagamento API's.
	pagatoreFilters = pendenzeFilters{payer: "idPagatore"}
)

// query are the filters' query parameters, for the document.
func (f pendenzeFilters) query() []string {
	q := []string{"idDominio", "stato", f.payer}
	if f.window {
		q = append(q, "dataDa", "dataA")
	}
	return q
}

// pendenzeQuery is what a list of pendenze is narrowed by (pendenzeFilters):
// idDominio and stato, checked (checkListFilters); the payer's fiscal
// code, compared as payers' are, without case (domain.NormalFiscalCode),
// where a value that is no fiscal code matches nothing, as in GovPay; and
// when the pendenze were created (projections.Pendenza's Created, the
// time the log recorded), from and until, both kept, as GovPay's dataDa
// and dataA bound its pendenze' creation (the zero time: no bound).
type pendenzeQuery struct {
	dominio, stato, payer string
	from, until           time.Time
}

func parsePendenzeQuery(c *echo.Context, f pendenzeFilters) (pendenzeQuery, error) {
	q := pendenzeQuery{dominio: c.QueryParam("idDominio"), stato: c.QueryParam("stato"),
		payer: domain.NormalFiscalCode(c.QueryParam(f.payer))}
	err := checkListFilters(q.dominio, q.stato)
	if err == nil && f.window {
		q.from, err = windowBound(c, "dataDa", false)
	}
	if err == nil && f.window {
		q.until, err = windowBound(c, "dataA", true)
	}
	return q, err
}

// windowBound reads the bound param of a window of time as GovPay's lists
// take one (domain.ParseWindowBound): a date-time, RFC 3339 or without a
// zone (Rome's clock), is that instant; a date is its first instant in
// Rome, or its last for the window's end, so that the window keeps that
// whole day. Absent is no bound, the zero time; anything else is 400.
func windowBound(c *echo.Context, param string, end bool) (time.Time, error) {
	v := c.QueryParam(param)
	if v == "" {
		return time.Time{}, nil
	}
	t, ok := domain.ParseWindowBound(v, end)
	if !ok {
		return time.Time{}, syntaxError(param + " must be a date-time (RFC 3339; without a zone, Europe/Rome) or a date")
	}
	return t, nil
}

// keeps reports whether v passes the idDominio and payer filters (the
// others are the stored pendenza's: narrow).
func (q pendenzeQuery) keeps(v domain.PendenzaView) bool {
	return (q.dominio == "" || v.IDDominio == q.dominio) && (q.payer == "" || v.PayerID == q.payer)
}

// narrow keeps the items in the state and the window of creation asked.
func (q pendenzeQuery) narrow(items []projections.Pendenza) []projections.Pendenza {
	if q.stato == "" && q.from.IsZero() && q.until.IsZero() {
		return items
	}
	out := items[:0]
	for _, p := range items {
		if (q.stato == "" || p.Stato == q.stato) && (q.from.IsZero() || !p.Created.Before(q.from)) &&
			(q.until.IsZero() || !p.Created.After(q.until)) {
			out = append(out, p)
		}
	}
	return out
}
