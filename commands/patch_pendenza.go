package commands

import (
	"context"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// PatchPendenza sets the state of a stored pendenza (GovPay's PATCH
// /pendenze/{idA2A}/{idPendenza} of /stato): ANNULLATA cancels it,
// NON_ESEGUITA reopens it.
type PatchPendenza struct {
	API              domain.API // APIPendenze (the creator) or APIBackoffice (an operator)
	IDA2A            string
	IDPendenza       string
	Stato            string // ANNULLATA or NON_ESEGUITA
	DescrizioneStato string // optional, at most 255 characters
}

// PatchPendenza authorizes with the operation of c.API
// (operations.PatchOwnPendenza, operations.PatchPendenzaBackoffice), then
// decides the change with domain.ChangeStato: a repeat changes nothing (a
// paid pendenza is 422 by the operation).
func (h *Handler) PatchPendenza(ctx context.Context, actor Actor, c PatchPendenza) (Result, error) {
	to, err := validatePatchPendenza(c)
	if err != nil {
		return Result{}, err
	}
	authorize := func() (domain.PendenzaView, error) {
		if c.API == domain.APIBackoffice {
			return operations.PatchPendenzaBackoffice(h.model, actor.Principal, c.IDA2A, c.IDPendenza, nil)
		}
		return operations.PatchOwnPendenza(h.model, actor.Principal, c.IDA2A, c.IDPendenza, nil)
	}
	if _, err := authorize(); err != nil { // before the stream is loaded: 403 before 404
		return Result{}, err
	}
	return h.execute(ctx, actor, events.StreamPendenza+c.IDA2A+"/"+c.IDPendenza, func(stream []events.Envelope) ([]events.Event, error) {
		v, err := authorize() // again on a retry: the read model may have moved
		if err != nil {
			return nil, err
		}
		cur := latest(stream, func(e events.PendenzaUpdated) events.PendenzaCreated { return events.PendenzaCreated(e) })
		if cur == nil {
			return nil, ErrNotFound
		}
		// The stream holds the states set by callers; payment, recorded
		// on the receipt's stream, authorize refused above.
		from := domain.StatoNonEseguita
		for _, env := range stream {
			if e, ok := env.Event.(events.PendenzaStatusChanged); ok {
				from, _ = domain.ParseSettableStato(e.Stato)
			}
		}
		changed, err := domain.ChangeStato(from, to)
		if err != nil {
			return nil, unprocessable("%v", err)
		}
		if !changed {
			return nil, nil
		}
		return []events.Event{events.PendenzaStatusChanged{IDA2A: c.IDA2A, IDPendenza: c.IDPendenza,
			IDDominio: v.IDDominio, IDUnitaOperativa: v.IDUnita, IDTipoPendenza: v.IDTipoPendenza, Stato: to.String(),
			DescrizioneStato: c.DescrizioneStato}}, nil
	})
}

func validatePatchPendenza(c PatchPendenza) (domain.PendenzaStato, error) {
	if err := firstError(
		checkID("idA2A", c.IDA2A),
		checkID("idPendenza", c.IDPendenza),
	); err != nil {
		return domain.PendenzaStato{}, err
	}
	if len(c.DescrizioneStato) > 255 {
		return domain.PendenzaStato{}, invalid("descrizioneStato", "is at most 255 characters")
	}
	to, err := domain.ParseSettableStato(c.Stato)
	if err != nil {
		return to, invalid("stato", "%v", err)
	}
	return to, nil
}
