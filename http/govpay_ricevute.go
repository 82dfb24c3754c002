package httpapi

import (
	"regexp"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// Receipts as resources (GovPay's ricevute) and collections by id
// (riscossioni/{idDominio}/{iuv}/{iur}/{indice}), on the Ragioneria API
// and the Backoffice.

// ricevutaResource is GovPay's Ricevuta, for the fields a receipt here
// holds: the entity as an object, the IUV of the notice paid, the receipt
// id, when it was recorded, the outcome; then the amount, the payment date
// and what we add (the notice, the pendenza, the payment).
type ricevutaResource struct {
	Dominio       dominioRef `json:"dominio"`
	IUV           string     `json:"iuv"`
	IDRicevuta    string     `json:"idRicevuta"`
	Data          time.Time  `json:"data"`
	Esito         string     `json:"esito"`
	Importo       Importo    `json:"importo"`
	DataPagamento string     `json:"dataPagamento"`
	NumeroAvviso  string     `json:"numeroAvviso"`
	IDA2A         string     `json:"idA2A,omitempty"`
	IDPendenza    string     `json:"idPendenza,omitempty"`
	IDPagamento   string     `json:"idPagamento,omitempty"`
}

func (s *Server) ricevutaResource(r *projections.Receipt) ricevutaResource {
	e := r.Event
	return ricevutaResource{Dominio: s.dominioOf(e.IDDominio), IUV: domain.IUVOfNotice(e.NumeroAvviso), IDRicevuta: e.IDRicevuta,
		Data: r.Time.UTC(), Esito: e.Esito, Importo: Importo(e.AmountCents), DataPagamento: e.DataPagamento,
		NumeroAvviso: e.NumeroAvviso, IDA2A: e.IDA2A, IDPendenza: e.IDPendenza, IDPagamento: e.PaymentID}
}

var (
	pIUV        = param{"iuv", commands.ValidID}
	pIDRicevuta = param{"idRicevuta", commands.ValidID}
	pIUR        = param{"iur", commands.ValidID}
	pIndice     = param{"indice", reIndice.MatchString}
)

// reIndice is a collection's index: 1 to 9999, no leading zero.
var reIndice = regexp.MustCompile(`^[1-9][0-9]{0,3}$`)

// receiptKey reads idDominio, iuv and the receipt id named id.
func receiptKey(c *echo.Context, id param) (operations.ReceiptKey, error) {
	var k operations.ReceiptKey
	var err error
	if k.IDDominio, k.IUV, err = pathPair(c, pIDDominio, pIUV); err != nil {
		return k, err
	}
	k.IDRicevuta, err = pathParam(c, id.name, id.valid)
	return k, err
}

// getRicevuta answers GET /ricevute/{idDominio}/{iuv}/{idRicevuta} with
// the API's operation.
func (s *Server) getRicevuta(op func(operations.Receipts, domain.Principal, operations.ReceiptKey, operations.Recorder) (*projections.Receipt, error)) echo.HandlerFunc {
	return func(c *echo.Context) error {
		k, err := receiptKey(c, pIDRicevuta)
		if err != nil {
			return err
		}
		r, err := op(s.model, callerOf(c).principal, k, nil)
		return reply(c, r, err, s.ricevutaResource)
	}
}

// listRicevute answers GET /ricevute: every receipt (whatever its
// outcome) of the entities the API's gate admits that the list's other
// filters (fs, nil for none) keep.
func (s *Server) listRicevute(gate listOf, fs queryFilters[*projections.Receipt]) echo.HandlerFunc {
	return func(c *echo.Context) error {
		sc, err := entityScope(c, gate)
		if err != nil {
			return err
		}
		return filteredPage(c, s.model.Receipts(func(r *projections.Receipt) bool { return sc.AdmitsReceipt(r) }), fs, s.ricevutaResource)
	}
}

// getRiscossione answers GET /riscossioni/{idDominio}/{iuv}/{iur}/{indice}
// with the API's operation, the collection rendered as the API has it.
func (s *Server) getRiscossione(op func(operations.Receipts, domain.Principal, operations.CollectionKey, operations.Recorder) (*projections.Receipt, error),
	view func(*projections.Receipt) riscossioneView) echo.HandlerFunc {
	return func(c *echo.Context) error {
		rk, err := receiptKey(c, pIUR)
		if err != nil {
			return err
		}
		indice, err := pathParam(c, pIndice.name, pIndice.valid)
		if err != nil {
			return err
		}
		k := operations.CollectionKey{ReceiptKey: rk}
		k.Indice, _ = strconv.Atoi(indice) // pIndice checked it
		r, err := op(s.model, callerOf(c).principal, k, nil)
		return reply(c, r, err, view)
	}
}
