package commands

import (
	"context"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// PutEntity registers or updates a creditor entity (PUT /domini/{idDominio}).
type PutEntity struct {
	IDDominio       string
	RagioneSociale  string
	IDIntermediario string
	Enabled         bool
}

// PutEntity needs Anagrafica Creditore W with idDominio in scope.
func (h *Handler) PutEntity(ctx context.Context, actor Actor, c PutEntity) (Result, error) {
	if err := checkDominio("idDominio", c.IDDominio); err != nil {
		return Result{}, err
	}
	if c.RagioneSociale == "" {
		return Result{}, invalid("ragioneSociale", "is required")
	}
	if c.IDIntermediario != "" {
		if err := checkID("idIntermediario", c.IDIntermediario); err != nil {
			return Result{}, err
		}
	}
	if err := operations.OnDominio(actor.Principal, domain.ServiceAnagraficaCreditore, domain.RightWrite, c.IDDominio, nil); err != nil {
		return Result{}, err
	}
	if c.IDIntermediario != "" {
		if _, ok := h.model.Intermediary(c.IDIntermediario); !ok {
			return Result{}, unprocessable("idIntermediario %s is not registered", c.IDIntermediario)
		}
	}
	e := events.CreditorEntityRegistered{IDDominio: c.IDDominio, RagioneSociale: c.RagioneSociale,
		IDIntermediario: c.IDIntermediario, Enabled: c.Enabled}
	return h.execute(ctx, actor, events.StreamDominio+c.IDDominio, func(stream []events.Envelope) ([]events.Event, error) {
		if len(stream) == 0 {
			return []events.Event{e}, nil
		}
		if last, ok := stream[len(stream)-1].Event.(events.CreditorEntityUpdated); ok && events.CreditorEntityRegistered(last) == e {
			return nil, nil
		}
		if last, ok := stream[len(stream)-1].Event.(events.CreditorEntityRegistered); ok && last == e {
			return nil, nil
		}
		return []events.Event{events.CreditorEntityUpdated(e)}, nil
	})
}
