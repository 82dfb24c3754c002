package commands

import (
	"context"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// AuthorizeAPI authorizes an application on one API with a scope,
// replacing its previous scope on that API (CLI `admin grant`).
type AuthorizeAPI struct {
	IDA2A        string
	API          string
	Domini       []string
	TipiPendenza []string
}

// RevokeAPI removes an application's authorization on one API.
type RevokeAPI struct {
	IDA2A string
	API   string
}

func parseGrantableAPI(s string) (domain.API, error) {
	api, err := domain.ParseAPI(s)
	if err != nil || !api.Grantable() {
		return domain.API{}, invalid("api", "must be PAGAMENTO, PENDENZE or RAGIONERIA")
	}
	return api, nil
}

// AuthorizeAPI needs Anagrafica Applicazioni W covering the scope.
func (h *Handler) AuthorizeAPI(ctx context.Context, actor Actor, c AuthorizeAPI) (Result, error) {
	if err := checkID("idA2A", c.IDA2A); err != nil {
		return Result{}, err
	}
	api, err := parseGrantableAPI(c.API)
	if err != nil {
		return Result{}, err
	}
	if err := checkScopeList("domini", c.Domini, ValidDominio); err != nil {
		return Result{}, err
	}
	if err := checkScopeList("tipiPendenza", c.TipiPendenza, ValidID); err != nil {
		return Result{}, err
	}
	e := events.ApplicationAPIAuthorized{IDA2A: c.IDA2A, API: api.String(),
		Domini: domain.ParseScope(c.Domini).List(), TipiPendenza: domain.ParseScope(c.TipiPendenza).List()}
	if err := domain.CanGrantAPI(actor.Principal, grantOf(e)); err != nil {
		return Result{}, err
	}
	return h.execute(ctx, actor, events.StreamApplicazione+c.IDA2A, func(stream []events.Envelope) ([]events.Event, error) {
		cur := foldApplication(stream)
		if !cur.exists {
			return nil, fmt.Errorf("application %s: %w", c.IDA2A, ErrNotFound)
		}
		if have, ok := cur.grants[api.String()]; ok && sameGrant(have, e) {
			return nil, nil
		}
		return []events.Event{e}, nil
	})
}

// RevokeAPI needs Anagrafica Applicazioni W covering the revoked scope.
func (h *Handler) RevokeAPI(ctx context.Context, actor Actor, c RevokeAPI) (Result, error) {
	if err := checkID("idA2A", c.IDA2A); err != nil {
		return Result{}, err
	}
	api, err := parseGrantableAPI(c.API)
	if err != nil {
		return Result{}, err
	}
	if err := domain.HasServiceRight(actor.Principal, domain.ServiceAnagraficaApplicazioni, domain.RightWrite); err != nil {
		return Result{}, err
	}
	return h.execute(ctx, actor, events.StreamApplicazione+c.IDA2A, func(stream []events.Envelope) ([]events.Event, error) {
		cur := foldApplication(stream)
		if !cur.exists {
			return nil, fmt.Errorf("application %s: %w", c.IDA2A, ErrNotFound)
		}
		have, ok := cur.grants[api.String()]
		if !ok {
			return nil, nil
		}
		if err := domain.CanGrantAPI(actor.Principal, grantOf(have)); err != nil {
			return nil, err
		}
		return []events.Event{events.ApplicationAPIRevoked{IDA2A: c.IDA2A, API: api.String()}}, nil
	})
}
