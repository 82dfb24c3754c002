package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// Operations of the node API (API.md section 9): only the exact principal
// of the named intermediary's node connector, for an entity that
// intermediary serves.

// NodeCredentials are what a node caller presented: basic username and
// password, or the verified certificate's subject DN (ssl).
type NodeCredentials struct {
	Auth     domain.AuthType
	User     string
	Password string
	DN       string
	// Gate bounds and throttles password verifications; From is the
	// client address it keys on. A nil Gate admits every verification.
	Gate projections.Gate
	From string
}

// NodeReader finds intermediaries and entities and verifies connector
// credentials.
type NodeReader interface {
	Intermediary(id string) (*projections.Intermediary, bool)
	VerifyConnectorPasswordGated(gate projections.Gate, from string, in *projections.Intermediary, password string) (bool, error)
	KnownNodeCredentialsGated(gate projections.Gate, from, user, password string) (bool, error)
	EntityView(idDominio string) (domain.EntityView, bool)
}

// NodeGate is what admitting a node caller established: the intermediary
// named in the path and the caller's facts.
type NodeGate struct {
	ID     string // idIntermediario from the path
	interm *domain.IntermediaryView
	caller domain.NodeCaller
}

// AdmitNode authenticates the node caller against the intermediary id and
// checks that it is that intermediary's connector, before any entity is
// considered.
//
// Basic credentials are authenticated first (API.md section 1: a wrong
// password or an unknown user is ErrUnauthenticated): when the user is
// this intermediary's connector principal, the password must verify
// against the connector's hash; any other user must be the credentials of
// some registered party (another intermediary's connector, an application
// or an operator), which then fails the connector rule with 403. An ssl
// caller is authenticated by its verified certificate and matched by
// canonical DN.
func AdmitNode(m NodeReader, cred NodeCredentials, id string, rec Recorder) (NodeGate, error) {
	g := NodeGate{ID: id, caller: domain.NodeCaller{Auth: cred.Auth}}
	in, found := m.Intermediary(id)
	if found {
		v := in.View()
		g.interm = &v
	}
	switch cred.Auth {
	case domain.AuthBasic:
		g.caller.Username = cred.User
		if found && in.Event.ConnectorPrincipal != "" && domain.ConstantTimeEqual(cred.User, in.Event.ConnectorPrincipal) {
			ok, err := m.VerifyConnectorPasswordGated(cred.Gate, cred.From, in, cred.Password)
			if !ok {
				return NodeGate{}, check(rec, "connector-password", unauthenticated(err))
			}
			g.caller.PasswordOK = true
		} else if ok, err := m.KnownNodeCredentialsGated(cred.Gate, cred.From, cred.User, cred.Password); !ok {
			return NodeGate{}, check(rec, "known-credentials", unauthenticated(err))
		}
	case domain.AuthSSL:
		g.caller.DN = cred.DN
	}
	if err := check(rec, "CanActAsNode", domain.CanActAsNode(g.caller, g.interm, nil, false)); err != nil {
		return NodeGate{}, err
	}
	return g, nil
}

// ServesEntity decides whether the admitted connector may act for
// idDominio: the entity must be registered and served by the intermediary
// (403 otherwise, also for an unknown entity, so that a connector learns
// nothing about entities it does not serve).
func (g NodeGate) ServesEntity(m NodeReader, idDominio string, rec Recorder) error {
	var ev *domain.EntityView
	if v, ok := m.EntityView(idDominio); ok {
		ev = &v
	}
	return check(rec, "CanActAsNode", domain.CanActAsNode(g.caller, g.interm, ev, true))
}

// VerifyNotice is GET /avvisi/{idDominio}/{numeroAvviso} of the node API
// for the admitted connector: a served entity, then the notice (a
// connector may learn that a notice of its entity is missing), then its
// entity, type and unit enabled (422 otherwise, as paying it on the
// Pagamento API: a PSP verifies a notice before it takes the payment, and
// a disabled place takes none, whatever the notice's state). At an
// enabled place its state is the node's to read: a paid or cancelled
// notice verifies, with that state.
func (g NodeGate) VerifyNotice(m interface {
	NodeReader
	Notices
	Registry
}, idDominio, numeroAvviso string, rec Recorder) (projections.Pendenza, error) {
	pd, err := find(rec, g.ServesEntity(m, idDominio, rec),
		func() (projections.Pendenza, bool) { return m.PendenzaByNotice(idDominio, numeroAvviso) }, nil)
	if err != nil {
		return pd, err
	}
	return pd, enabledPlace(m, rec, pd)
}

// unauthenticated is the answer to credentials that did not verify: the
// gate's refusal when it refused the verification, else
// ErrUnauthenticated.
func unauthenticated(gateErr error) error {
	if gateErr != nil {
		return gateErr
	}
	return ErrUnauthenticated
}
