package commands

import (
	"context"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// CreateReconciliation creates a reconciliation on the Ragioneria API
// (PUT /riconciliazioni/{idDominio}/{id}).
type CreateReconciliation struct {
	IDDominio   string
	ID          string
	AmountCents int64
	Causale     string
	IDFlusso    string
	// GovPay's NuovaRiconciliazione besides, each optional: the IUV
	// reconciled, the bank's references (at most 35 characters) and the
	// transfer's dates (RFC 3339 or YYYY-MM-DD).
	IUV            string
	SCT            string
	ContoAccredito string
	DataValuta     string
	DataContabile  string
}

// CreateReconciliation needs idDominio in the caller's RAGIONERIA scope. A
// repeat by its creator with the same content changes nothing (200); with
// other content it is a conflict; another application is refused (403).
func (h *Handler) CreateReconciliation(ctx context.Context, actor Actor, c CreateReconciliation) (Result, error) {
	if err := firstError(
		CheckDominio("idDominio", c.IDDominio),
		checkID("id", c.ID),
	); err != nil {
		return Result{}, err
	}
	if err := checkCausale("causale", c.Causale); err != nil {
		return Result{}, err
	}
	if err := checkFlussoRef(c.IDFlusso); err != nil {
		return Result{}, err
	}
	if c.IUV != "" {
		if err := checkID("iuv", c.IUV); err != nil {
			return Result{}, err
		}
	}
	if err := checkTransfer(c.DataValuta, c.DataContabile, bankRef{"sct", c.SCT}, bankRef{"contoAccredito", c.ContoAccredito}); err != nil {
		return Result{}, err
	}
	p := actor.Principal
	return h.execute(ctx, actor, events.StreamRiconciliazione+c.IDDominio+"/"+c.ID, func(stream []events.Envelope) ([]events.Event, error) {
		var prev *events.ReconciliationCreated
		if len(stream) > 0 {
			if e, ok := stream[0].Event.(events.ReconciliationCreated); ok {
				prev = &e
			}
		}
		var existing *domain.ReconciliationView
		if prev != nil {
			v := (&projections.Reconciliation{Event: *prev}).View() // as the read model shows it
			existing = &v
		}
		if err := operations.WriteReconciliation(h.model, p, c.IDDominio, existing, nil); err != nil {
			return nil, err
		}
		if c.AmountCents <= 0 {
			return nil, unprocessable("importo must be greater than zero")
		}
		e := events.ReconciliationCreated{IDDominio: c.IDDominio, ID: c.ID, IDA2A: p.IDA2A, AmountCents: c.AmountCents,
			Causale: c.Causale, IDFlusso: c.IDFlusso, IUV: c.IUV, SCT: c.SCT, ContoAccredito: c.ContoAccredito,
			DataValuta: c.DataValuta, DataContabile: c.DataContabile}
		if prev == nil {
			return []events.Event{e}, nil
		}
		if *prev == e {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: reconciliation %s exists with different content", ErrConflict, c.ID)
	})
}
