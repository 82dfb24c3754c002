package domain

import (
	"iter"

	"github.com/payauthz/payauthz/events"
)

// Role is a named set of service rights limited to a scope of creditor
// entities and their units (Domini) and pendenza types (Tipi). A right
// reaches only its own role's scope.
type Role struct {
	ID     string
	ACL    [numServices]Rights // indexed by Service.i
	Domini EntityScope
	Tipi   Scope
}

// PersonalRole is the id of an operator's or application's personal role:
// its own acl over its own domini and tipiPendenza (GovPay's per-user
// scope), held by that principal alone and decided like any role. No named
// role can take this id ('~' is outside the id alphabet).
const PersonalRole = "~personale"

// PortalIDA2A is the creator of the pendenze citizens and anonymous callers
// create on the Pagamento API (POST /pendenze/{idDominio}/{idTipoPendenza}),
// GovPay's portal application: reserved, no application may register it,
// so no one reads them on the Pendenze API.
const PortalIDA2A = "pagopa-portale"

// ParseRole builds a role from its wire form: each service's name with its
// rights ("R", "W"), as acl yields them, the domini scope list with the
// units of entities covered only in some (see EntitiesOf), and the tipi
// scope list (see ParseScope). An unknown service or right is an error.
func ParseRole(id string, acl iter.Seq2[string, []string], domini []string, units map[string][]string, tipi []string) (Role, error) {
	r := Role{ID: id, Domini: EntitiesOf(domini, units), Tipi: ParseScope(tipi)}
	for service, rights := range acl {
		s, err := ParseService(service)
		if err != nil {
			return Role{}, err
		}
		for _, name := range rights {
			right, err := ParseRight(name)
			if err != nil {
				return Role{}, err
			}
			r.ACL[s.i] |= Rights(right)
		}
	}
	return r, nil
}

// Rights returns the role's rights on s.
func (r Role) Rights(s Service) Rights { return r.ACL[s.i] }

// Has reports whether the role gives right on s.
func (r Role) Has(s Service, right Right) bool { return r.ACL[s.i].Has(right) }

// Grant is an application's authorization on one API with its scope.
type Grant struct {
	API    API
	Domini EntityScope
	Tipi   Scope
}

// PrincipalKind tells what kind of caller a principal is.
type PrincipalKind uint8

const (
	KindUnknown     PrincipalKind = iota // zero: never allowed anything
	KindOperator                         // a registered Backoffice operator
	KindApplication                      // a registered application (idA2A)
	KindCitizen                          // an unregistered spid caller on Pagamento
	KindAnonymous                        // a public caller on Pagamento
)

// String is the kind's name in the decision log and on the wire; a caller
// of a payment is named by the word its PaymentStarted.CallerKind carries
// (events' wire values, the one home of that vocabulary).
func (k PrincipalKind) String() string {
	switch k {
	case KindOperator:
		return "OPERATOR"
	case KindApplication:
		return events.CallerApplication
	case KindCitizen:
		return events.CallerCitizen
	case KindAnonymous:
		return events.CallerAnonymous
	}
	return "UNKNOWN"
}

// Principal is an authenticated caller with everything a decision needs.
// It is built by the read model from the log and treated as immutable.
type Principal struct {
	Kind    PrincipalKind
	Name    string // principal: username, canonical DN or upper-cased fiscal code; "" for anonymous
	IDA2A   string // the application's id, for KindApplication
	Enabled bool
	// Password: the principal has a password (an operator may change it,
	// PATCH /profilo); one that authenticates with a client certificate
	// or an API key alone has none.
	Password bool
	Roles    []Role
	// grants holds the application's per-API grants, indexed by API.i;
	// a nil entry means not authorized on that API.
	grants [len(apiNames)]*Grant
	// SessionHash identifies an anonymous caller's session (hex SHA-256).
	SessionHash string
}

// WithGrant returns a copy of p authorized on g.API with g's scope.
func (p Principal) WithGrant(g Grant) Principal {
	gg := g
	p.grants[g.API.i] = &gg
	return p
}

// Grant returns the principal's grant on api, if any.
func (p *Principal) Grant(api API) (Grant, bool) {
	g := p.grants[api.i]
	if g == nil {
		return Grant{}, false
	}
	return *g, true
}

// Grants returns every grant the principal holds, in GrantableAPIs order.
func (p *Principal) Grants() []Grant {
	var out []Grant
	for _, a := range GrantableAPIs {
		if g := p.grants[a.i]; g != nil {
			out = append(out, *g)
		}
	}
	return out
}

// Citizen returns the principal of an unregistered spid caller.
func Citizen(fiscalCode string) Principal {
	return Principal{Kind: KindCitizen, Name: fiscalCode, Enabled: true}
}

// Anonymous returns the principal of a public caller bound to a session.
func Anonymous(sessionHash string) Principal {
	return Principal{Kind: KindAnonymous, Enabled: true, SessionHash: sessionHash}
}
