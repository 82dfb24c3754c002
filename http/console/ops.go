package console

import (
	"context"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// The operations each page runs, one small interface per page,
// implemented by backoffice with the functions of package operations that
// the Backoffice API's handlers call (reads), and the same commands they
// issue (writes: the command decides the service right and the delegation
// itself, through operations). A list keeps each item by the same decision
// the API's list uses.

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

type profiloOps interface {
	ChangeOwnPassword(ctx context.Context, a commands.Actor, password string) (commands.Result, error)
}

type pendenzeOps interface {
	PagePendenze(p domain.Principal, f pendenzeFilter) (pendenzePage, error)
	GetPendenza(p domain.Principal, idA2A, idPendenza string) (projections.Pendenza, error)
	PatchPendenza(ctx context.Context, a commands.Actor, in commands.PatchPendenza) (commands.Result, error)
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
	_ profiloOps      = backoffice{}
)

// ListApplicazioni: GET /applicazioni (Anagrafica Applicazioni R).
func (b backoffice) ListApplicazioni(p domain.Principal) ([]*projections.Application, error) {
	return operations.ListRegistry(b.model.Applications, p, domain.RegistryApplicazioni, nil)
}

// GetApplicazione: GET /applicazioni/{idA2A} (Anagrafica Applicazioni R, then 404).
func (b backoffice) GetApplicazione(p domain.Principal, id string) (*projections.Application, error) {
	return operations.ReadRegistry(b.model.Application, p, domain.RegistryApplicazioni, id, nil)
}

// PutApplicazione: PUT /applicazioni/{idA2A}.
func (b backoffice) PutApplicazione(ctx context.Context, a commands.Actor, in commands.PutApplication) (commands.Result, error) {
	return b.cmds.PutApplication(ctx, a, in)
}

// ListDomini: GET /domini (Anagrafica Creditore R; only entities in scope).
func (b backoffice) ListDomini(p domain.Principal) ([]events.CreditorEntityRegistered, error) {
	return operations.ListDomini(b.model.Entities, p, nil)
}

// GetDominio: GET /domini/{idDominio} (403 outside the scope, then 404).
func (b backoffice) GetDominio(p domain.Principal, id string) (events.CreditorEntityRegistered, error) {
	return operations.ReadEntity(b.model, p, id, nil)
}

// PutDominio: PUT /domini/{idDominio}.
func (b backoffice) PutDominio(ctx context.Context, a commands.Actor, in commands.PutEntity) (commands.Result, error) {
	return b.cmds.PutEntity(ctx, a, in)
}

// GetProtezione: GET /configurazioni/hardening (Configurazione e manutenzione R).
func (b backoffice) GetProtezione(p domain.Principal) (events.PublicAPIProtectionConfigured, error) {
	if err := operations.ReadConfigurazione(p, nil); err != nil {
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
	return operations.ReadPendenzaBackoffice(b.model, p, idA2A, idPendenza, nil)
}

// PatchPendenza: PATCH /pendenze/{idA2A}/{idPendenza} on the Backoffice
// (the command authorizes it with operations.PatchPendenza's operation of
// in.API).
func (b backoffice) PatchPendenza(ctx context.Context, a commands.Actor, in commands.PatchPendenza) (commands.Result, error) {
	return b.cmds.PatchPendenza(ctx, a, in)
}

// ChangeOwnPassword: PATCH /profilo's REPLACE of /password.
func (b backoffice) ChangeOwnPassword(ctx context.Context, a commands.Actor, password string) (commands.Result, error) {
	return b.cmds.ChangeOwnPassword(ctx, a, password)
}
