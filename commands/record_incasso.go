package commands

import (
	"context"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// RecordIncasso records an incasso on the Backoffice (POST
// /incassi/{idDominio}, GovPay's riaccredito): the service assigns its id.
type RecordIncasso struct {
	IDDominio     string
	Causale       string
	AmountCents   int64
	IDFlusso      string // optional: the settlement report it settles
	DataValuta    string // optional dates (RFC 3339 or YYYY-MM-DD)
	DataContabile string
	IBANAccredito string // optional, at most 35 characters
	SCT           string // optional bank reference, at most 35 characters
}

// RecordIncasso authorizes with operations.WriteIncasso, then appends an
// IncassoRecorded under a fresh id, returned with the result.
func (h *Handler) RecordIncasso(ctx context.Context, actor Actor, c RecordIncasso) (Result, string, error) {
	if err := validateIncasso(&c); err != nil {
		return Result{}, "", err
	}
	id := randomHex(16)
	res, err := h.execute(ctx, actor, events.StreamIncasso+c.IDDominio+"/"+id, func(stream []events.Envelope) ([]events.Event, error) {
		if err := operations.WriteIncasso(h.model, actor.Principal, c.IDDominio, nil); err != nil {
			return nil, err
		}
		if len(stream) > 0 { // a random id already used: never in practice
			return nil, ErrConflict
		}
		return []events.Event{events.IncassoRecorded{IDDominio: c.IDDominio, IDIncasso: id, Causale: c.Causale,
			AmountCents: c.AmountCents, IDFlusso: c.IDFlusso, DataValuta: c.DataValuta, DataContabile: c.DataContabile,
			IBANAccredito: c.IBANAccredito, SCT: c.SCT}}, nil
	})
	return res, id, err
}

func validateIncasso(c *RecordIncasso) error {
	if err := CheckDominio("idDominio", c.IDDominio); err != nil {
		return err
	}
	if err := checkCausale("causale", c.Causale); err != nil {
		return err
	}
	if err := checkFlussoRef(c.IDFlusso); err != nil {
		return err
	}
	if err := checkTransfer(c.DataValuta, c.DataContabile, bankRef{"ibanAccredito", c.IBANAccredito}, bankRef{"sct", c.SCT}); err != nil {
		return err
	}
	if c.AmountCents <= 0 {
		return operations.UnprocessableAs(operations.UnprocessableAmount, "importo must be greater than zero")
	}
	return nil
}

// bankRef is an optional reference of a bank transfer (an SCT, an
// account) under its field's name.
type bankRef struct{ field, v string }

// checkTransfer checks what an incasso and a reconciliation say of the
// transfer, each optional: its value and accounting dates (dataValuta,
// dataContabile: RFC 3339 or YYYY-MM-DD) and the bank's references (at
// most 35 characters, GovPay's columns).
func checkTransfer(dataValuta, dataContabile string, refs ...bankRef) error {
	for _, d := range []bankRef{{"dataValuta", dataValuta}, {"dataContabile", dataContabile}} {
		if d.v != "" && !validDate(d.v) {
			return invalidAs(InvalidDate, d.field, "must be an RFC 3339 date-time or a YYYY-MM-DD date")
		}
	}
	for _, f := range refs {
		if longerThan(f.v, 35) {
			return invalidAs(InvalidTooLong, f.field, "must be at most %d characters", 35)
		}
	}
	return nil
}
