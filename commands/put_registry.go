package commands

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// PutPendenzaType registers or updates a pendenza type
// (PUT /tipiPendenza/{idTipoPendenza}).
type PutPendenzaType struct {
	IDTipoPendenza string
	Descrizione    string
	Enabled        bool
	Spontaneous    bool
	Fields         events.TypeFields // GovPay's fields that bear on no decision
	KeepFields     bool              // keep the stored Fields instead (see PutEntity.KeepFields)
	// Base is the position of the type's state the command was computed
	// from (a console form), 0 for none: see based.
	Base events.Position
}

// PutPendenzaType needs Anagrafica Creditore W from a role whose
// tipiPendenza hold the type (operations.WriteTipoPendenza).
func (h *Handler) PutPendenzaType(ctx context.Context, actor Actor, c PutPendenzaType) (Result, error) {
	if err := checkID("idTipoPendenza", c.IDTipoPendenza); err != nil {
		return Result{}, err
	}
	if err := checkName("descrizione", c.Descrizione); err != nil {
		return Result{}, err
	}
	if err := checkTypeFields(&c.Fields); err != nil {
		return Result{}, err
	}
	if err := operations.WriteTipoPendenza(actor.Principal, c.IDTipoPendenza, nil); err != nil {
		return Result{}, err
	}
	e := events.PendenzaTypeRegistered{IDTipoPendenza: c.IDTipoPendenza, Descrizione: c.Descrizione,
		Enabled: c.Enabled, Spontaneous: c.Spontaneous, TypeFields: c.Fields}
	return h.execute(ctx, actor, events.StreamTipoPendenza+c.IDTipoPendenza, based(c.Base, func(stream []events.Envelope) ([]events.Event, error) {
		if len(stream) == 0 {
			return []events.Event{e}, nil
		}
		cur, ok := lastWhole(stream, func(u events.PendenzaTypeUpdated) events.PendenzaTypeRegistered {
			return events.PendenzaTypeRegistered(u)
		})
		next := e
		if ok && c.KeepFields {
			next.TypeFields = cur.TypeFields
		}
		if ok && reflect.DeepEqual(cur, next) {
			return nil, nil
		}
		return []events.Event{events.PendenzaTypeUpdated(next)}, nil
	}))
}

// PutIntermediary registers or updates an intermediary and its node
// connector (PUT /intermediari/{idIntermediario}).
type PutIntermediary struct {
	IDIntermediario    string
	Denominazione      string
	Enabled            bool
	ConnectorPrincipal string
	ConnectorPassword  *string // nil keeps the current password
	// Base is the position of the intermediary's state the command was
	// computed from (a console form), 0 for none: see based.
	Base events.Position
}

// PutIntermediary needs Anagrafica PagoPA W.
func (h *Handler) PutIntermediary(ctx context.Context, actor Actor, c PutIntermediary) (Result, error) {
	if err := checkID("idIntermediario", c.IDIntermediario); err != nil {
		return Result{}, err
	}
	if err := checkName("denominazione", c.Denominazione); err != nil {
		return Result{}, err
	}
	if err := firstError(
		checkPrincipal("connettoreNodo.principal", c.ConnectorPrincipal),
		checkPasswordPrincipal("connettoreNodo.principal", c.ConnectorPrincipal, c.ConnectorPassword),
		checkPassword("connettoreNodo.password", c.ConnectorPassword),
	); err != nil {
		return Result{}, err
	}
	if err := operations.WriteRegistry(actor.Principal, domain.RegistryIntermediari, nil); err != nil {
		return Result{}, err
	}
	hash, err := h.hashOptional(c.ConnectorPassword)
	if err != nil {
		return Result{}, err
	}
	e := events.IntermediaryRegistered{IDIntermediario: c.IDIntermediario, Denominazione: c.Denominazione,
		Enabled: c.Enabled, ConnectorPrincipal: c.ConnectorPrincipal, ConnectorPasswordHash: hash}
	return h.execute(ctx, actor, events.StreamIntermediario+c.IDIntermediario, based(c.Base, func(stream []events.Envelope) ([]events.Event, error) {
		if len(stream) == 0 {
			return []events.Event{e}, nil
		}
		// The stream's last event without its hash (an update without one
		// keeps the previous): a repeat without a password changes nothing.
		cur, ok := lastWhole(stream, func(u events.IntermediaryUpdated) events.IntermediaryRegistered {
			return events.IntermediaryRegistered(u)
		})
		if ok && hash == "" {
			cur.ConnectorPasswordHash = ""
			if cur == e {
				return nil, nil
			}
		}
		return []events.Event{events.IntermediaryUpdated(e)}, nil
	}))
}

// lastWhole is the aggregate as the last event of its stream left it, for
// aggregates whose events each carry the whole of it: a registration R or
// an update U (converted by asR).
func lastWhole[R, U events.Event](stream []events.Envelope, asR func(U) R) (R, bool) {
	if n := len(stream); n > 0 {
		switch e := stream[n-1].Event.(type) {
		case R:
			return e, true
		case U:
			return asR(e), true
		}
	}
	var zero R
	return zero, false
}

// DefineRole defines or replaces a role (PUT /ruoli/{idRuolo}).
type DefineRole struct {
	IDRuolo        string
	ACL            []events.ACLEntry
	Domini         []string
	UnitaOperative map[string][]string // idDominio → units, for entities covered only in some
	TipiPendenza   []string
	// Base is the position of the role's state the definition was computed
	// from (a PATCH, a console form), 0 for none: see based.
	Base events.Position
}

// DefineRole needs Anagrafica Ruoli W, and the role must be within what the
// actor holds (delegation).
func (h *Handler) DefineRole(ctx context.Context, actor Actor, c DefineRole) (Result, error) {
	if err := checkID("idRuolo", c.IDRuolo); err != nil {
		return Result{}, err
	}
	e, role, err := checkRole(c.IDRuolo, c.ACL, c.Domini, c.UnitaOperative, c.TipiPendenza)
	if err != nil {
		return Result{}, err
	}
	if err := operations.WriteRegistry(actor.Principal, domain.RegistryRuoli, nil); err != nil {
		return Result{}, err
	}
	if err := domain.CanGrantRole(actor.Principal, role); err != nil {
		return Result{}, err
	}
	return h.execute(ctx, actor, events.StreamRuolo+c.IDRuolo, based(c.Base, func(stream []events.Envelope) ([]events.Event, error) {
		if n := len(stream); n > 0 {
			last, ok := stream[n-1].Event.(events.RoleDefined)
			if ok && sameRole(last, e) {
				return nil, nil
			}
			// Replacing a role changes the rights of everyone holding it:
			// the actor must be able to grant the old definition too, or a
			// limited actor could shrink (or lock out) a more powerful one.
			if ok {
				old, err := projections.RoleOf(last)
				if err != nil {
					return nil, fmt.Errorf("stored role %s: %w", c.IDRuolo, err)
				}
				if err := domain.CanGrantRole(actor.Principal, old); err != nil {
					return nil, err
				}
			}
		}
		return []events.Event{e}, nil
	}))
}

// MaxACLEntries is the most entries an acl holds: one per servizio, as
// each may be listed once.
var MaxACLEntries = len(domain.Services)

// CheckACLEntries is the 400 of an acl of n entries, nil when n is at
// most MaxACLEntries; checkRole asks it before it looks at any entry, and
// the HTTP layer answers it as soon as a body's acl holds one entry too
// many.
func CheckACLEntries(n int) error {
	if n > MaxACLEntries {
		return invalidAs(InvalidListLength, "acl", "must hold at most %d entries, one per servizio", MaxACLEntries)
	}
	return nil
}

// checkRole validates a role's acl and scope lists (a named role's, or a
// principal's personal role) and returns them in stored form (scopes
// normalised, the acl never nil) with the parsed role.
func checkRole(id string, acl []events.ACLEntry, domini []string, units map[string][]string, tipi []string) (events.RoleDefined, domain.Role, error) {
	if err := CheckACLEntries(len(acl)); err != nil {
		return events.RoleDefined{}, domain.Role{}, err
	}
	seen := map[string]bool{}
	for _, entry := range acl {
		if _, err := domain.ParseService(entry.Service); err != nil {
			return events.RoleDefined{}, domain.Role{}, invalid("acl.servizio", "unknown servizio %q", entry.Service)
		}
		if seen[entry.Service] {
			return events.RoleDefined{}, domain.Role{}, invalid("acl.servizio", "servizio %q listed twice", entry.Service)
		}
		seen[entry.Service] = true
		if len(entry.Rights) == 0 {
			return events.RoleDefined{}, domain.Role{}, invalid("acl.autorizzazioni", "servizio %q has no autorizzazioni", entry.Service)
		}
		if err := CheckListLength("acl.autorizzazioni", len(entry.Rights)); err != nil {
			return events.RoleDefined{}, domain.Role{}, err
		}
		for _, r := range entry.Rights {
			if _, err := domain.ParseRight(r); err != nil {
				return events.RoleDefined{}, domain.Role{}, invalid("acl.autorizzazioni", "must be R or W")
			}
		}
	}
	domini, units, err := checkEntities(domini, units)
	if err != nil {
		return events.RoleDefined{}, domain.Role{}, err
	}
	if err := checkScopeList("tipiPendenza", tipi, ValidID); err != nil {
		return events.RoleDefined{}, domain.Role{}, err
	}
	e := events.RoleDefined{IDRuolo: id, ACL: acl, Domini: domini, UnitaOperative: units, TipiPendenza: domain.ParseScope(tipi).List()}
	if e.ACL == nil {
		e.ACL = []events.ACLEntry{}
	}
	role, err := projections.RoleOf(e)
	if err != nil {
		return events.RoleDefined{}, domain.Role{}, invalid("acl", "%v", err)
	}
	return e, role, nil
}

// checkPersonal validates a personal role and returns it in stored form
// (nothing at all when it gives no right) with its parsed role (nil for
// none).
func checkPersonal(pr events.PersonalRole) (events.PersonalRole, *domain.Role, error) {
	if len(pr.ACL) == 0 {
		return events.PersonalRole{}, nil, nil
	}
	e, role, err := checkRole(domain.PersonalRole, pr.ACL, pr.Domini, pr.UnitaOperative, pr.TipiPendenza)
	if err != nil {
		return events.PersonalRole{}, nil, err
	}
	return events.PersonalRole{ACL: e.ACL, Domini: e.Domini, UnitaOperative: e.UnitaOperative, TipiPendenza: e.TipiPendenza}, &role, nil
}

// storedPersonal is the personal role a registration event holds, parsed
// (nil for none).
func storedPersonal(pr events.PersonalRole) (events.PersonalRole, *domain.Role) {
	pr, role, err := checkPersonal(pr)
	if err != nil {
		return events.PersonalRole{}, nil // the projection refuses such an event: nothing holds it
	}
	return pr, role
}

func samePersonal(a, b events.PersonalRole) bool {
	return slices.EqualFunc(a.ACL, b.ACL, func(x, y events.ACLEntry) bool {
		return x.Service == y.Service && slices.Equal(x.Rights, y.Rights)
	}) && slices.Equal(a.Domini, b.Domini) && sameUnits(a.UnitaOperative, b.UnitaOperative) && slices.Equal(a.TipiPendenza, b.TipiPendenza)
}

// sameUnits reports whether two stored unit lists are equal.
func sameUnits(a, b map[string][]string) bool { return maps.EqualFunc(a, b, slices.Equal) }

func sameRole(a, b events.RoleDefined) bool {
	ra, erra := projections.RoleOf(a)
	rb, errb := projections.RoleOf(b)
	return erra == nil && errb == nil && ra.ACL == rb.ACL && ra.Domini.Equal(rb.Domini) && ra.Tipi.Equal(rb.Tipi)
}

// PutOperator registers or updates an operator (PUT /operatori/{principal}).
type PutOperator struct {
	Principal      string
	RagioneSociale string
	Credentials
	// Base is the position of the operator's state the command was
	// computed from (a PATCH, a console form), 0 for none: see based.
	Base events.Position
}

// Credentials are what a PUT of an operator or of an application sets on
// the principal it registers: its secrets, whether it may authenticate,
// and the roles it holds.
type Credentials struct {
	Password *string // nil keeps the current password
	APIKey   *string // nil keeps the current API key (apikey authentication)
	Enabled  bool
	Roles    []string
	Personal events.PersonalRole
	// KeepPersonal keeps the stored personal role instead (a form that
	// does not show it, as the console's: saving it must not revoke it).
	KeepPersonal bool
}

// check validates the credentials and normalizes the personal role,
// returning it parsed (nil for none).
func (c *Credentials) check() (*domain.Role, error) {
	if err := firstError(
		checkPassword("password", c.Password),
		checkPassword("apiKey", c.APIKey),
		checkRoleIDs(c.Roles),
	); err != nil {
		return nil, err
	}
	personal, role, err := checkPersonal(c.Personal)
	if err != nil {
		return nil, err
	}
	c.Personal = personal
	return role, nil
}

// PutOperator needs Anagrafica Ruoli W; the roles it assigns, its personal
// role included, must be within what the actor holds.
func (h *Handler) PutOperator(ctx context.Context, actor Actor, c PutOperator) (Result, error) {
	if err := firstError(checkPrincipal("principal", c.Principal), checkPasswordPrincipal("principal", c.Principal, c.Password),
		checkName("ragioneSociale", c.RagioneSociale)); err != nil {
		return Result{}, err
	}
	personalRole, err := c.check()
	if err != nil {
		return Result{}, err
	}
	if err := operations.WriteRegistry(actor.Principal, domain.RegistryOperatori, nil); err != nil {
		return Result{}, err
	}
	if err := h.mayRegister(c.Roles, c.Principal, domain.KindOperator, c.Principal); err != nil {
		return Result{}, err
	}
	return h.register(ctx, actor, c.Principal, domain.KindOperator, c.Principal, c.Password, c.APIKey,
		func(hash, keyHash string) (Result, string, error) {
			res, err := h.putOperator(ctx, actor, c, personalRole, hash, keyHash)
			return res, "", err // an operator's principal is its id: it has no former one
		})
}

func (h *Handler) putOperator(ctx context.Context, actor Actor, c PutOperator, personalRole *domain.Role, hash, keyHash string) (Result, error) {
	return h.execute(ctx, actor, events.StreamOperatore+c.Principal, based(c.Base, func(stream []events.Envelope) ([]events.Event, error) {
		cur := latest(stream, func(e events.OperatorUpdated) events.OperatorRegistered { return events.OperatorRegistered(e) })
		var held []string
		var heldPersonal events.PersonalRole
		var heldRole *domain.Role
		personal, role := c.Personal, personalRole
		if cur != nil {
			held = cur.Roles
			heldPersonal, heldRole = storedPersonal(cur.PersonalRole)
			if c.KeepPersonal {
				personal, role = heldPersonal, heldRole
			}
		}
		if err := h.checkRoleDelegation(actor, held, c.Roles, heldRole, role); err != nil {
			return nil, err
		}
		e := events.OperatorRegistered{Principal: c.Principal, RagioneSociale: c.RagioneSociale, PasswordHash: hash,
			Enabled: c.Enabled, Roles: nonNil(c.Roles), APIKeyHash: keyHash, PersonalRole: personal}
		if cur == nil {
			return []events.Event{e}, nil
		}
		if hash == "" && keyHash == "" && cur.RagioneSociale == e.RagioneSociale && cur.Enabled == e.Enabled && slices.Equal(cur.Roles, e.Roles) &&
			samePersonal(heldPersonal, personal) {
			return nil, nil
		}
		return []events.Event{events.OperatorUpdated(e)}, nil
	}))
}

// ChangeOwnPassword is PATCH /profilo's REPLACE of /password: the actor, an
// operator, changes its own password (operations.ChangeOwnPassword decides;
// no Anagrafica right is needed). The operator's stream gets the same
// OperatorUpdated a PUT with a password writes, its other data unchanged.
func (h *Handler) ChangeOwnPassword(ctx context.Context, actor Actor, password string) (Result, error) {
	if err := operations.ChangeOwnPassword(actor.Principal, nil); err != nil {
		return Result{}, err
	}
	if password == "" {
		return Result{}, invalidAs(InvalidRequired, "password", "is required")
	}
	if err := checkPassword("password", &password); err != nil {
		return Result{}, err
	}
	hash, _, err := h.hashCredentials(&password, nil)
	if err != nil {
		return Result{}, err
	}
	principal := actor.Principal.Name
	return h.execute(ctx, actor, events.StreamOperatore+principal, func(stream []events.Envelope) ([]events.Event, error) {
		cur := latest(stream, func(e events.OperatorUpdated) events.OperatorRegistered { return events.OperatorRegistered(e) })
		if cur == nil {
			return nil, fmt.Errorf("%w: operator %s", ErrNotFound, principal)
		}
		e := *cur
		e.PasswordHash, e.APIKeyHash = hash, "" // "" keeps the API key
		return []events.Event{events.OperatorUpdated(e)}, nil
	})
}
