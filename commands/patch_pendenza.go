package commands

import (
	"context"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
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
	// Base is the position of the pendenza's state the change was asked
	// from (a console form), 0 for none (the API's PATCH): see based.
	Base events.Position
}

// PatchPendenza authorizes with the operation of c.API
// (operations.PatchPendenza: the Pendenze API's or the Backoffice's) on the
// pendenza its stream holds, then decides the change with
// domain.ChangeStato: a repeat changes nothing but a new descrizioneStato
// (a paid pendenza is 422 by the operation). The place the caller's right is decided at, and the one
// PendenzaStatusChanged records, is the stream's: a read model that has
// not yet applied a move would put the pendenza at its former entity.
func (h *Handler) PatchPendenza(ctx context.Context, actor Actor, c PatchPendenza) (Result, error) {
	to, err := validatePatchPendenza(c)
	if err != nil {
		return Result{}, err
	}
	op, ok := operations.PatchPendenza(c.API)
	if !ok {
		return Result{}, fmt.Errorf("the %s API has no PATCH of pendenze", c.API)
	}
	return h.execute(ctx, actor, events.StreamPendenza+c.IDA2A+"/"+c.IDPendenza, based(c.Base, func(stream []events.Envelope) ([]events.Event, error) {
		pd, ok := storedPendenza(stream)
		if ok && h.paid(c.IDA2A, c.IDPendenza) {
			pd.Stato = projections.StatoEseguita
		}
		// The operation decides its gate before it looks the pendenza up:
		// 403 before 404 (domain.Missing).
		v, err := op.Authorize(loaded{pd, ok}, actor.Principal, c.IDA2A, c.IDPendenza, nil)
		if err != nil {
			return nil, err
		}
		from, err := domain.ParsePendenzaStato(pd.Stato)
		if err != nil {
			return nil, fmt.Errorf("pendenza %s/%s: %w", c.IDA2A, c.IDPendenza, err)
		}
		changed, err := domain.ChangeStato(from, to)
		if err != nil {
			return nil, operations.UnprocessableAs(operations.UnprocessableStatoChange, "%v", err)
		}
		// A repeat of the state held writes nothing, unless it carries a
		// descrizioneStato other than the one held: GovPay applies every op
		// of the patch, and a 200 must not answer a description the caller
		// just replaced. Without one the description held is kept.
		if !changed && (c.DescrizioneStato == "" || c.DescrizioneStato == pd.DescrizioneStato) {
			return nil, nil
		}
		return []events.Event{events.PendenzaStatusChanged{IDA2A: c.IDA2A, IDPendenza: c.IDPendenza,
			IDDominio: v.IDDominio, IDUnitaOperativa: v.IDUnita, IDTipoPendenza: v.IDTipoPendenza, Stato: to.String(),
			DescrizioneStato: c.DescrizioneStato}}, nil
	}))
}

// storedPendenza is the pendenza stream holds (false when it holds none),
// as the read model shows it once it has applied stream: its latest
// content, under the anonymous session that created it, in the state
// callers last set. Payment is recorded on the receipt's stream, not on
// this one: the state here is never ESEGUITA (see Handler.paid).
func storedPendenza(stream []events.Envelope) (projections.Pendenza, bool) {
	cur := latest(stream, func(e events.PendenzaUpdated) events.PendenzaCreated { return events.PendenzaCreated(e) })
	if cur == nil {
		return projections.Pendenza{}, false
	}
	pd := projections.Pendenza{IDA2A: cur.IDA2A, IDPendenza: cur.IDPendenza, IDDominio: cur.IDDominio,
		IDTipoPendenza: cur.IDTipoPendenza, Causale: cur.Causale, AmountCents: cur.AmountCents, Payer: cur.Payer,
		NumeroAvviso: cur.NumeroAvviso, UUID: cur.UUID, IDUnitaOperativa: cur.IDUnitaOperativa,
		Stato: projections.StatoNonEseguita}
	if first, ok := stream[0].Event.(events.PendenzaCreated); ok {
		pd.SessionHash = first.SessionHash
	}
	for _, env := range stream {
		if e, ok := env.Event.(events.PendenzaStatusChanged); ok {
			pd.Stato, pd.DescrizioneStato = e.Stato, e.DescrizioneStato
		}
	}
	return pd, true
}

// paid reports whether the read model has applied a receipt that paid the
// pendenza idA2A/idPendenza: a fact of the receipt's stream, outside the
// pendenza's aggregate.
func (h *Handler) paid(idA2A, idPendenza string) bool {
	pd, ok := h.model.Pendenza(idA2A, idPendenza)
	return ok && pd.Stato == projections.StatoEseguita
}

// loaded is the one pendenza a command loaded from its stream, as the
// operations that decide on a stored pendenza look it up (ok false: the
// stream holds none). It answers whatever ids it is asked: the command
// loaded the stream of the ids it passes the operation.
type loaded struct {
	pd projections.Pendenza
	ok bool
}

func (l loaded) Pendenza(string, string) (projections.Pendenza, bool) { return l.pd, l.ok }

func validatePatchPendenza(c PatchPendenza) (domain.PendenzaStato, error) {
	if err := firstError(
		checkID("idA2A", c.IDA2A),
		checkID("idPendenza", c.IDPendenza),
	); err != nil {
		return domain.PendenzaStato{}, err
	}
	if longerThan(c.DescrizioneStato, 255) {
		return domain.PendenzaStato{}, invalidAs(InvalidTooLong, "descrizioneStato", "is at most %d characters", 255)
	}
	to, err := domain.ParseSettableStato(c.Stato)
	if err != nil {
		return to, invalidAs(InvalidStato, "stato", "%v", err)
	}
	return to, nil
}
