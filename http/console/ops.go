package console

import (
	"context"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// The operations each page runs, one small interface per page. Today they
// are implemented by backoffice, which makes the same decisions as the
// Backoffice API's handlers (reads: the domain function named in each
// method) and issues the same commands (writes: the command decides the
// service right and the delegation itself). When the operations layer
// lands, backoffice's methods become calls to its functions and nothing
// else in the console changes.

type applicazioniOps interface {
	ListApplicazioni(p domain.Principal) ([]*projections.Application, error)
	GetApplicazione(p domain.Principal, id string) (*projections.Application, error)
	PutApplicazione(ctx context.Context, a commands.Actor, in commands.PutApplication) (commands.Result, error)
}

type dominiOps interface {
	ListDomini(p domain.Principal) ([]events.CreditorEntityRegistered, error)
	GetDominio(p domain.Principal, id string) (events.CreditorEntityRegistered, error)
	PutDominio(ctx context.Context, a commands.Actor, in commands.PutEntity) (commands.Result, error)
}

type impostazioniOps interface {
	GetProtezione(p domain.Principal) (events.PublicAPIProtectionConfigured, error)
	PutProtezione(ctx context.Context, a commands.Actor, in commands.ConfigureProtection) (commands.Result, error)
}

type pendenzeOps interface {
	PagePendenze(p domain.Principal, f pendenzeFilter) (pendenzePage, error)
	GetPendenza(p domain.Principal, idA2A, idPendenza string) (projections.Pendenza, error)
}

// backoffice implements the pages' operations as the Backoffice API does.
type backoffice struct {
	model *projections.ReadModel
	cmds  *commands.Handler
}

var (
	_ applicazioniOps = backoffice{}
	_ dominiOps       = backoffice{}
	_ impostazioniOps = backoffice{}
	_ pendenzeOps     = backoffice{}
)

// ListApplicazioni: GET /applicazioni (Anagrafica Applicazioni R).
func (b backoffice) ListApplicazioni(p domain.Principal) ([]*projections.Application, error) {
	if err := domain.HasServiceRight(p, domain.ServiceAnagraficaApplicazioni, domain.RightRead); err != nil {
		return nil, err
	}
	return b.model.Applications(), nil
}

// GetApplicazione: GET /applicazioni/{idA2A} (Anagrafica Applicazioni R, then 404).
func (b backoffice) GetApplicazione(p domain.Principal, id string) (*projections.Application, error) {
	if err := domain.HasServiceRight(p, domain.ServiceAnagraficaApplicazioni, domain.RightRead); err != nil {
		return nil, err
	}
	a, ok := b.model.Application(id)
	if !ok {
		return nil, errNotFound
	}
	return a, nil
}

// PutApplicazione: PUT /applicazioni/{idA2A}.
func (b backoffice) PutApplicazione(ctx context.Context, a commands.Actor, in commands.PutApplication) (commands.Result, error) {
	return b.cmds.PutApplication(ctx, a, in)
}

// ListDomini: GET /domini (Anagrafica Creditore R; only entities in scope).
func (b backoffice) ListDomini(p domain.Principal) ([]events.CreditorEntityRegistered, error) {
	if err := domain.HasServiceRight(p, domain.ServiceAnagraficaCreditore, domain.RightRead); err != nil {
		return nil, err
	}
	var keep []events.CreditorEntityRegistered
	for _, e := range b.model.Entities() {
		if domain.CanOnDominio(p, domain.ServiceAnagraficaCreditore, domain.RightRead, e.IDDominio) == nil {
			keep = append(keep, e)
		}
	}
	return keep, nil
}

// GetDominio: GET /domini/{idDominio} (403 outside the scope, then 404).
func (b backoffice) GetDominio(p domain.Principal, id string) (events.CreditorEntityRegistered, error) {
	if err := domain.CanOnDominio(p, domain.ServiceAnagraficaCreditore, domain.RightRead, id); err != nil {
		return events.CreditorEntityRegistered{}, err
	}
	e, ok := b.model.Entity(id)
	if !ok {
		return e, errNotFound
	}
	return e, nil
}

// PutDominio: PUT /domini/{idDominio}.
func (b backoffice) PutDominio(ctx context.Context, a commands.Actor, in commands.PutEntity) (commands.Result, error) {
	return b.cmds.PutEntity(ctx, a, in)
}

// GetProtezione: GET /configurazioni/hardening (Configurazione e manutenzione R).
func (b backoffice) GetProtezione(p domain.Principal) (events.PublicAPIProtectionConfigured, error) {
	if err := domain.HasServiceRight(p, domain.ServiceConfigurazioneManutenzione, domain.RightRead); err != nil {
		return events.PublicAPIProtectionConfigured{}, err
	}
	return b.model.Protection(), nil
}

// PutProtezione: PUT /configurazioni/hardening.
func (b backoffice) PutProtezione(ctx context.Context, a commands.Actor, in commands.ConfigureProtection) (commands.Result, error) {
	return b.cmds.ConfigureProtection(ctx, a, in)
}

// GetPendenza: GET /pendenze/{idA2A}/{idPendenza} (Pendenze R; a missing
// pendenza is 404 only for a caller who may learn it, else 403).
func (b backoffice) GetPendenza(p domain.Principal, idA2A, idPendenza string) (projections.Pendenza, error) {
	if err := domain.HasServiceRight(p, domain.ServicePendenze, domain.RightRead); err != nil {
		return projections.Pendenza{}, err
	}
	pd, ok := b.model.Pendenza(idA2A, idPendenza)
	if !ok {
		if err := domain.CanLearnMissingInRoles(p, domain.ServicePendenze, domain.RightRead); err != nil {
			return pd, err
		}
		return pd, errNotFound
	}
	if err := domain.CanOnPendenzaScope(p, domain.ServicePendenze, domain.RightRead, pd.IDDominio, pd.IDTipoPendenza); err != nil {
		return projections.Pendenza{}, err
	}
	return pd, nil
}
