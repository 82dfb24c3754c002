package commands

import (
	"context"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// RecordReceipt records a node receipt (POST /ricevute on the node API).
// The HTTP layer has already admitted the caller as the intermediary's node
// connector for an entity it serves.
type RecordReceipt struct {
	IDIntermediario string
	IDDominio       string
	NumeroAvviso    string
	IDRicevuta      string
	AmountCents     int64
	Esito           string // ESEGUITO or NON_ESEGUITO
	DataPagamento   string // RFC 3339 date-time or YYYY-MM-DD
}

// RecordReceipt is idempotent: the same idRicevuta with the same content
// changes nothing; with different content it is a conflict, even once its
// pendenza has moved and its notice is no longer at idDominio. A notice
// unknown at idDominio is not found for a receipt not yet recorded.
func (h *Handler) RecordReceipt(ctx context.Context, actor Actor, c RecordReceipt) (Result, error) {
	if err := CheckDominio("idDominio", c.IDDominio); err != nil {
		return Result{}, err
	}
	if !ValidAvviso(c.NumeroAvviso) {
		return Result{}, invalid("numeroAvviso", "must be 18 digits")
	}
	if err := checkID("idRicevuta", c.IDRicevuta); err != nil {
		return Result{}, err
	}
	if c.Esito != events.EsitoEseguito && c.Esito != events.EsitoNonEseguito {
		return Result{}, invalid("esito", `must be "ESEGUITO" or "NON_ESEGUITO"`)
	}
	if !validDate(c.DataPagamento) {
		return Result{}, invalid("dataPagamento", "must be an RFC 3339 date-time or a YYYY-MM-DD date")
	}
	if c.AmountCents <= 0 {
		return Result{}, unprocessable("importo must be greater than zero")
	}
	e := events.ReceiptRecorded{IDRicevuta: c.IDRicevuta, IDIntermediario: c.IDIntermediario, IDDominio: c.IDDominio,
		NumeroAvviso: c.NumeroAvviso, AmountCents: c.AmountCents, Esito: c.Esito, DataPagamento: c.DataPagamento}
	pd, found := h.model.PendenzaByNotice(c.IDDominio, c.NumeroAvviso)
	if found {
		e.IDA2A, e.IDPendenza, e.IDUnitaOperativa = pd.IDA2A, pd.IDPendenza, pd.IDUnitaOperativa
		if pay, ok := h.model.PaymentCovering(pd); ok {
			e.PaymentID = pay.Event.ID
		}
	}
	once := recordOnce(e, sameReceipt, "idRicevuta "+c.IDRicevuta)
	return h.execute(ctx, actor, events.StreamRicevuta+c.IDDominio+"/"+c.IDRicevuta, func(stream []events.Envelope) ([]events.Event, error) {
		// A repeat is decided on the receipt recorded, wherever its
		// pendenza (and so its notice number) has moved since.
		if len(stream) == 0 && !found {
			return nil, fmt.Errorf("avviso %s/%s: %w", c.IDDominio, c.NumeroAvviso, ErrNotFound)
		}
		return once(stream)
	})
}

// sameReceipt compares what the node sent (not what was derived from the
// read model at the time).
func sameReceipt(a, b events.ReceiptRecorded) bool {
	return a.IDRicevuta == b.IDRicevuta && a.IDIntermediario == b.IDIntermediario && a.IDDominio == b.IDDominio &&
		a.NumeroAvviso == b.NumeroAvviso && a.AmountCents == b.AmountCents && a.Esito == b.Esito &&
		a.DataPagamento == b.DataPagamento
}

func validDate(s string) bool {
	_, ok := domain.ParseRecordedDate(s)
	return ok
}

// RecordSettlementReport records a settlement report (POST
// /flussiRendicontazione on the node API).
type RecordSettlementReport struct {
	IDIntermediario string
	IDFlusso        string
	IDDominio       string
	DataFlusso      string
	TotalCents      int64
	Items           []events.SettlementItem
}

// ValidFlusso reports whether s is an idFlusso: 1 to 70 letters, digits,
// '_', '.' or '-' (pagoPA's flow ids, e.g. "2026-01-03ABI12345-S001"), but
// not "." or "..", so that every recorded report is addressable in a path
// (ValidPathToken).
func ValidFlusso(s string) bool { return ValidPathToken(s, 70) }

// checkFlussoRef validates the optional idFlusso by which a reconciliation
// or an incasso names a settlement report.
func checkFlussoRef(s string) error {
	if s != "" && !ValidFlusso(s) {
		return invalidAs(InvalidFlusso, "idFlusso", "is not a settlement report id ([A-Za-z0-9_.-]{1,70}, not . or ..)")
	}
	return nil
}

// Settlement outcome codes of pagoPA.
var settlementEsiti = map[int]bool{0: true, 3: true, 4: true, 8: true, 9: true}

// MaxSettlementLines is the most lines one settlement report holds.
const MaxSettlementLines = 10_000

// CheckSettlementLines is the 400 of a settlement report of n lines, nil
// when n is 1 to MaxSettlementLines; the HTTP layer answers it as soon as
// a body holds one line too many.
func CheckSettlementLines(n int) error {
	if n == 0 || n > MaxSettlementLines {
		return invalid("rendicontazioni", "must hold 1 to %d lines", MaxSettlementLines)
	}
	return nil
}

// RecordSettlementReport is idempotent on idFlusso like RecordReceipt.
func (h *Handler) RecordSettlementReport(ctx context.Context, actor Actor, c RecordSettlementReport) (Result, error) {
	if err := CheckDominio("idDominio", c.IDDominio); err != nil {
		return Result{}, err
	}
	if !ValidFlusso(c.IDFlusso) {
		return Result{}, invalid("idFlusso", "must be 1 to 70 letters, digits, '_', '.' or '-', and not . or ..")
	}
	if !validDate(c.DataFlusso) {
		return Result{}, invalid("dataFlusso", "must be an RFC 3339 date-time or a YYYY-MM-DD date")
	}
	if err := CheckSettlementLines(len(c.Items)); err != nil {
		return Result{}, err
	}
	var sum int64
	for i, it := range c.Items {
		if !ValidAvviso(it.NumeroAvviso) {
			return Result{}, invalid(fmt.Sprintf("rendicontazioni[%d].numeroAvviso", i), "must be 18 digits")
		}
		if !settlementEsiti[it.Esito] {
			return Result{}, invalid(fmt.Sprintf("rendicontazioni[%d].esito", i), "must be 0, 3, 4, 8 or 9")
		}
		if it.AmountCents <= 0 {
			return Result{}, unprocessable("rendicontazioni[%d].importo must be greater than zero", i)
		}
		sum += it.AmountCents
	}
	if c.TotalCents != sum {
		return Result{}, unprocessable("importoTotale does not equal the sum of the lines")
	}
	e := events.SettlementReportRecorded{IDFlusso: c.IDFlusso, IDDominio: c.IDDominio, IDIntermediario: c.IDIntermediario,
		DataFlusso: c.DataFlusso, TotalCents: c.TotalCents, Items: c.Items}
	return h.execute(ctx, actor, events.StreamFlusso+c.IDDominio+"/"+c.IDFlusso, recordOnce(e, sameReport, "idFlusso "+c.IDFlusso))
}

// sameReport compares what the node sent, its sender included, as
// sameReceipt does.
func sameReport(a, b events.SettlementReportRecorded) bool {
	if a.IDFlusso != b.IDFlusso || a.IDIntermediario != b.IDIntermediario || a.IDDominio != b.IDDominio || a.DataFlusso != b.DataFlusso ||
		a.TotalCents != b.TotalCents || len(a.Items) != len(b.Items) {
		return false
	}
	for i := range a.Items {
		if a.Items[i] != b.Items[i] {
			return false
		}
	}
	return true
}
