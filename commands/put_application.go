package commands

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// GrantInput is an application's authorization on one API with its scope.
type GrantInput struct {
	API            string // PAGAMENTO, PENDENZE or RAGIONERIA
	Domini         []string
	UnitaOperative map[string][]string // idDominio → units, for entities covered only in some
	TipiPendenza   []string
}

// PutApplication registers or updates an application and its API grants
// (PUT /applicazioni/{idA2A}). Grants lists every API the application is
// authorized on after the command; an API not listed is revoked.
type PutApplication struct {
	IDA2A     string
	Principal string
	Credentials
	Grants     []GrantInput
	Fields     events.ApplicationFields // GovPay's fields that bear on no decision
	KeepFields bool                     // keep the stored Fields instead (see PutEntity.KeepFields)
	// Base is the position of the application's state the command was
	// computed from (a PATCH, a console form), 0 for none: see based.
	Base events.Position
}

// applicationState is the folded application stream.
type applicationState struct {
	exists    bool
	principal string
	enabled   bool
	roles     []string
	personal  events.PersonalRole
	fields    events.ApplicationFields
	role      *domain.Role // the personal role parsed, nil for none
	grants    map[string]events.ApplicationAPIAuthorized
}

func foldApplication(stream []events.Envelope) applicationState {
	s := applicationState{grants: map[string]events.ApplicationAPIAuthorized{}}
	for _, env := range stream {
		switch e := env.Event.(type) {
		case events.ApplicationRegistered:
			s.registered(e)
		case events.ApplicationUpdated:
			s.registered(events.ApplicationRegistered(e))
		case events.ApplicationAPIAuthorized:
			s.grants[e.API] = e
		case events.ApplicationAPIRevoked:
			delete(s.grants, e.API)
		}
	}
	return s
}

func (s *applicationState) registered(e events.ApplicationRegistered) {
	s.exists, s.principal, s.enabled, s.roles = true, e.Principal, e.Enabled, e.Roles
	s.personal, s.role = storedPersonal(e.PersonalRole)
	s.fields = e.ApplicationFields
}

// PutApplication needs Anagrafica Applicazioni W; the roles it assigns and
// the API scopes it grants must be within what the actor holds.
func (h *Handler) PutApplication(ctx context.Context, actor Actor, c PutApplication) (Result, error) {
	grants, err := h.validateApplication(c)
	if err != nil {
		return Result{}, err
	}
	personalRole, err := c.check()
	if err != nil {
		return Result{}, err
	}
	if err := checkApplicationFields(&c.Fields); err != nil {
		return Result{}, err
	}
	if err := operations.WriteApplicazione(actor.Principal, c.IDA2A, nil); err != nil {
		return Result{}, err
	}
	if err := h.mayRegister(c.Roles, c.Principal, domain.KindApplication, c.IDA2A); err != nil {
		return Result{}, err
	}
	// The largest commit this command can write, checked before the
	// principal is claimed: a refused write leaves no claim behind.
	largest := []events.Event{events.ApplicationRegistered{IDA2A: c.IDA2A, Principal: c.Principal,
		PasswordHash: domain.DummyHash(), APIKeyHash: dummyIf(c.APIKey), Enabled: c.Enabled, Roles: nonNil(c.Roles),
		PersonalRole: c.Personal, ApplicationFields: c.Fields}}
	for _, g := range grants {
		largest = append(largest, g)
	}
	if err := checkCommitSize(largest...); err != nil {
		return Result{}, err
	}
	return h.register(ctx, actor, c.Principal, domain.KindApplication, c.IDA2A, c.Password, c.APIKey,
		func(hash, keyHash string) (Result, string, error) {
			return h.putApplication(ctx, actor, c, personalRole, grants, hash, keyHash)
		})
}

// putApplication also returns the application's principal before the
// command, as the stream its last decision folded held it (see
// withPrincipal).
func (h *Handler) putApplication(ctx context.Context, actor Actor, c PutApplication, personalRole *domain.Role, grants map[string]events.ApplicationAPIAuthorized, hash, keyHash string) (Result, string, error) {
	var former string
	res, err := h.execute(ctx, actor, events.StreamApplicazione+c.IDA2A, based(c.Base, func(stream []events.Envelope) ([]events.Event, error) {
		cur := foldApplication(stream)
		former = cur.principal // each attempt's: the last one's is what was written over
		personal, role, fields := c.Personal, personalRole, c.Fields
		if cur.exists && c.KeepPersonal {
			personal, role = cur.personal, cur.role
		}
		if cur.exists && c.KeepFields {
			fields = cur.fields
		}
		if err := h.checkRoleDelegation(actor, cur.roles, c.Roles, cur.role, role); err != nil {
			return nil, err
		}
		var out []events.Event
		app := events.ApplicationRegistered{IDA2A: c.IDA2A, Principal: c.Principal, PasswordHash: hash,
			Enabled: c.Enabled, Roles: nonNil(c.Roles), APIKeyHash: keyHash, PersonalRole: personal, ApplicationFields: fields}
		keepConnectors(applicationConnectors(&app.ApplicationFields), applicationConnectors(&cur.fields))
		switch {
		case !cur.exists:
			out = append(out, app)
		case hash != "" || keyHash != "" || cur.principal != c.Principal || cur.enabled != c.Enabled || !slices.Equal(cur.roles, app.Roles) ||
			!samePersonal(cur.personal, personal) || !reflect.DeepEqual(cur.fields, app.ApplicationFields):
			out = append(out, events.ApplicationUpdated(app))
		}
		for _, api := range domain.GrantableAPIs {
			want, wanted := grants[api.String()]
			have, had := cur.grants[api.String()]
			switch {
			case wanted && (!had || !sameGrant(want, have)):
				if err := domain.CanGrantAPI(actor.Principal, grantOf(want)); err != nil {
					return nil, err
				}
				out = append(out, want)
			case !wanted && had:
				if err := domain.CanGrantAPI(actor.Principal, grantOf(have)); err != nil {
					return nil, err
				}
				out = append(out, events.ApplicationAPIRevoked{IDA2A: c.IDA2A, API: api.String()})
			case wanted && had:
				// Kept as is, but whoever manages the application (its
				// password, principal, abilitato) must hold this scope too,
				// or it could take over a more powerful application.
				if err := domain.CanGrantAPI(actor.Principal, grantOf(have)); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	}))
	return res, former, err
}

// MaxAPIGrants is the most grants an application's PUT lists: one per
// API an application can be authorized on, as each may be listed once.
var MaxAPIGrants = len(domain.GrantableAPIs)

// CheckAPIGrants is the 400 of an application's list of n grants
// (autorizzazioniApi), nil when n is at most MaxAPIGrants;
// validateApplication asks it before it looks at any grant, and the HTTP
// layer answers it as soon as a body's list holds one entry too many.
func CheckAPIGrants(n int) error {
	if n > MaxAPIGrants {
		return invalidAs(InvalidListLength, "autorizzazioniApi", "must hold at most %d entries, one per api", MaxAPIGrants)
	}
	return nil
}

func (h *Handler) validateApplication(c PutApplication) (map[string]events.ApplicationAPIAuthorized, error) {
	if err := checkID("idA2A", c.IDA2A); err != nil {
		return nil, err
	}
	if err := firstError(checkPrincipal("principal", c.Principal), checkPasswordPrincipal("principal", c.Principal, c.Password)); err != nil {
		return nil, err
	}
	if err := CheckAPIGrants(len(c.Grants)); err != nil {
		return nil, err
	}
	grants := map[string]events.ApplicationAPIAuthorized{}
	for _, g := range c.Grants {
		api, err := domain.ParseAPI(g.API)
		if err != nil || !api.Grantable() {
			return nil, invalid("autorizzazioniApi.api", "must be PAGAMENTO, PENDENZE or RAGIONERIA")
		}
		if _, dup := grants[api.String()]; dup {
			return nil, invalid("autorizzazioniApi", "api %s listed twice", api)
		}
		domini, units, err := checkEntities(g.Domini, g.UnitaOperative)
		if err != nil {
			return nil, err
		}
		if err := checkScopeList("tipiPendenza", g.TipiPendenza, ValidID); err != nil {
			return nil, err
		}
		grants[api.String()] = events.ApplicationAPIAuthorized{IDA2A: c.IDA2A, API: api.String(),
			Domini: domini, UnitaOperative: units, TipiPendenza: domain.ParseScope(g.TipiPendenza).List()}
	}
	return grants, nil
}

func applicationConnectors(f *events.ApplicationFields) []jsonField {
	return []jsonField{{"servizioIntegrazione", &f.ServizioIntegrazione}}
}

// checkApplicationFields validates GovPay's fields of an application as
// GovPay's schema describes them.
func checkApplicationFields(f *events.ApplicationFields) error {
	if ca := f.CodificaAvvisi; ca != nil {
		if ca.CodificaIuv != "" && !reCodificaIUV.MatchString(ca.CodificaIuv) {
			return invalid("codificaAvvisi.codificaIuv", "must be one to three digits")
		}
		if longerThan(ca.RegExpIuv, MaxNameLength) {
			return invalid("codificaAvvisi.regExpIuv", "at most %d characters", MaxNameLength)
		}
	}
	return checkConnectors(applicationConnectors(f))
}

func grantOf(e events.ApplicationAPIAuthorized) domain.Grant {
	api, _ := domain.ParseAPI(e.API)
	return domain.Grant{API: api, Domini: domain.EntitiesOf(e.Domini, e.UnitaOperative), Tipi: domain.ParseScope(e.TipiPendenza)}
}

func sameGrant(a, b events.ApplicationAPIAuthorized) bool {
	return domain.EntitiesOf(a.Domini, a.UnitaOperative).Equal(domain.EntitiesOf(b.Domini, b.UnitaOperative)) &&
		domain.ParseScope(a.TipiPendenza).Equal(domain.ParseScope(b.TipiPendenza))
}

// mayRegister is what registering an operator or an application asks
// once the operation has decided (the actor's W right, and what the
// operation adds): that the roles exist, that the principal and the
// X-APP-ID id are free for the holder kind/id.
func (h *Handler) mayRegister(roles []string, principal string, kind domain.PrincipalKind, id string) error {
	if err := h.checkRolesExist(roles); err != nil {
		return err
	}
	if err := h.principalFree(principal, kind, id); err != nil {
		return err
	}
	return h.appIDFree(kind, id)
}

// principalFree fails with ErrPrincipalInUse when name belongs to another
// application or to an operator (a principal belongs to one of them only).
func (h *Handler) principalFree(name string, kind domain.PrincipalKind, id string) error {
	if rec, ok := h.model.Lookup(name); ok && !sameHolder(rec.Principal, kind, id) {
		return fmt.Errorf("%w: %s", ErrPrincipalInUse, name)
	}
	// A certificate subject written another way (other spacing, reversed
	// RDNs, OpenSSL form) is the same ssl identity: it must not be taken
	// over by a second principal.
	if rec, ok := h.model.LookupDN(name); ok && !sameHolder(rec.Principal, kind, id) {
		return fmt.Errorf("%w: %s (the same certificate subject as %s)", ErrPrincipalInUse, name, rec.Principal.Name)
	}
	return nil
}

// appIDFree fails with ErrPrincipalInUse when id, the X-APP-ID of a new
// application (its idA2A) or operator (its principal), by kind, names
// another principal already: one X-APP-ID names one principal, or the
// one registered later would take the other's apikey authentication over.
// A holder already registered keeps what it has (see withAppID): an
// application and an operator of one X-APP-ID in a log written before
// this refusal may both still be written.
func (h *Handler) appIDFree(kind domain.PrincipalKind, id string) error {
	if h.registered(kind, id) {
		return nil
	}
	if rec, ok := h.model.LookupAppID(id); ok && !sameHolder(rec.Principal, kind, id) {
		return appIDInUse(kind, id)
	}
	return nil
}

// registered reports whether the read model holds the application idA2A
// id or the operator id, by kind.
func (h *Handler) registered(kind domain.PrincipalKind, id string) bool {
	if kind == domain.KindApplication {
		_, ok := h.model.Application(id)
		return ok
	}
	_, ok := h.model.Operator(id)
	return ok
}

// sameHolder reports whether p is the application idA2A id or the operator
// id of the given kind, that is the one being written.
func sameHolder(p domain.Principal, kind domain.PrincipalKind, id string) bool {
	return p.Kind == kind && ((kind == domain.KindApplication && p.IDA2A == id) || (kind == domain.KindOperator && p.Name == id))
}

// checkRoleIDs validates the role ids of a request (400).
func checkRoleIDs(ids []string) error {
	if err := CheckListLength("ruoli", len(ids)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if err := checkID("ruoli", id); err != nil {
			return err
		}
		if seen[id] {
			return invalidAs(InvalidTwice, "ruoli", "role %s listed twice", id)
		}
		seen[id] = true
	}
	return nil
}

// checkRolesExist answers 422 for a role that is not defined. It runs only
// after the actor's right was checked, so that a caller without it learns
// nothing about which roles exist.
func (h *Handler) checkRolesExist(ids []string) error {
	for _, id := range ids {
		if _, ok := h.model.Role(id); !ok {
			return operations.UnprocessableAs(operations.UnprocessableRoleUndefined, "role %s is not defined", id)
		}
	}
	return nil
}

// checkRoleDelegation lets the actor manage a principal only when it could
// grant every role the principal holds before and after the command: an
// actor allowed to keep a role it does not hold could otherwise take over a
// more powerful principal by changing its password.
func (h *Handler) checkRoleDelegation(actor Actor, held, wanted []string, personal ...*domain.Role) error {
	var roles []domain.Role
	for _, r := range personal {
		if r != nil {
			roles = append(roles, *r)
		}
	}
	seen := map[string]bool{}
	for _, id := range slices.Concat(held, wanted) {
		if seen[id] {
			continue
		}
		seen[id] = true
		r, ok := h.model.Role(id)
		if !ok {
			return operations.UnprocessableAs(operations.UnprocessableRoleUndefined, "role %s is not defined", id)
		}
		roles = append(roles, r.Role)
	}
	return domain.CanAssignRoles(actor.Principal, roles)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
