package projections

import (
	"errors"
	"slices"
	"sync/atomic"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// Intermediary is an intermediary and its node connector. Like principals,
// the record carries the verified-credential cache of its connector
// password and is replaced by every event that touches it.
type Intermediary struct {
	Event    events.IntermediaryRegistered
	Position events.Position
	verified atomic.Pointer[[32]byte]
	dn       domain.DN // the connector principal parsed as a DN (zero if it is not one)
}

// View returns the facts decisions need. It does not allocate.
func (i *Intermediary) View() domain.IntermediaryView {
	return domain.IntermediaryView{IDIntermediario: i.Event.IDIntermediario, Enabled: i.Event.Enabled,
		ConnectorPrincipal: i.Event.ConnectorPrincipal, ConnectorDN: i.dn}
}

type registry struct {
	entities       *table[events.CreditorEntityRegistered] // idDominio → entity
	units          *table[events.UnitRegistered]           // idDominio/idUnita → operational unit
	types          *table[events.PendenzaTypeRegistered]   // idTipoPendenza → type
	intermediaries *table[*Intermediary]                   // idIntermediario → intermediary
	// byConnector indexes intermediaries by their connector principal (as
	// written): principal → idIntermediario list, sorted (so a snapshot's
	// restore, which puts intermediaries in id order, builds the list a
	// replay builds), replaced on every change.
	byConnector *table[[]string]
	protection  atomic.Pointer[events.PublicAPIProtectionConfigured]
}

func newRegistry() *registry {
	return &registry{
		entities:       newTable[events.CreditorEntityRegistered](),
		units:          newTable[events.UnitRegistered](),
		types:          newTable[events.PendenzaTypeRegistered](),
		intermediaries: newTable[*Intermediary](),
		byConnector:    newTable[[]string](),
	}
}

func (r *registry) putEntity(e events.CreditorEntityRegistered) { r.entities.put(e.IDDominio, e) }
func (r *registry) putUnit(e events.UnitRegistered)             { r.units.put(e.IDDominio+"/"+e.IDUnita, e) }
func (r *registry) putType(e events.PendenzaTypeRegistered)     { r.types.put(e.IDTipoPendenza, e) }

func (r *registry) putProtection(e events.PublicAPIProtectionConfigured) { r.protection.Store(&e) }

func (r *registry) putIntermediary(e events.IntermediaryRegistered, pos events.Position) {
	old, existed := r.intermediaries.get(e.IDIntermediario)
	// An update without a password keeps the stored one only for the same
	// connector principal: a password is that principal's, and must not
	// open the node API under the next one (a basic connector moved to a
	// certificate because its password leaked).
	if existed && e.ConnectorPasswordHash == "" && old.Event.ConnectorPrincipal == e.ConnectorPrincipal {
		e.ConnectorPasswordHash = old.Event.ConnectorPasswordHash
	}
	rec := &Intermediary{Event: e, Position: pos}
	if dn, err := domain.ParseDN(e.ConnectorPrincipal); err == nil {
		rec.dn = dn
	}
	r.intermediaries.put(e.IDIntermediario, rec)
	if existed && old.Event.ConnectorPrincipal != e.ConnectorPrincipal {
		r.byConnector.update(old.Event.ConnectorPrincipal, func(ids []string, _ bool) []string {
			return without(ids, e.IDIntermediario)
		})
	}
	if !existed || old.Event.ConnectorPrincipal != e.ConnectorPrincipal {
		r.byConnector.update(e.ConnectorPrincipal, func(ids []string, _ bool) []string {
			at, _ := slices.BinarySearch(ids, e.IDIntermediario)
			return slices.Insert(ids[:len(ids):len(ids)], at, e.IDIntermediario)
		})
	}
}

// Entity returns the creditor entity idDominio.
func (m *ReadModel) Entity(id string) (events.CreditorEntityRegistered, bool) {
	return whole(m, func() (events.CreditorEntityRegistered, bool) { return m.registry.entities.get(id) })
}

// EntityView returns the facts decisions need about idDominio.
func (m *ReadModel) EntityView(id string) (domain.EntityView, bool) {
	e, ok := m.Entity(id)
	return EntityViewOf(e), ok
}

// EntityViewOf is the facts decisions need about the entity e.
func EntityViewOf(e events.CreditorEntityRegistered) domain.EntityView {
	return domain.EntityView{IDDominio: e.IDDominio, IDIntermediario: e.IDIntermediario, Enabled: e.Enabled}
}

// Entities returns every creditor entity, sorted by idDominio.
func (m *ReadModel) Entities() []events.CreditorEntityRegistered {
	return wholeList(m, func() []events.CreditorEntityRegistered {
		return sortedValues(m.registry.entities, func(e events.CreditorEntityRegistered) string { return e.IDDominio })
	})
}

// Unit returns the operational unit idUnita of idDominio.
func (m *ReadModel) Unit(idDominio, idUnita string) (events.UnitRegistered, bool) {
	return whole(m, func() (events.UnitRegistered, bool) { return m.registry.units.get(idDominio + "/" + idUnita) })
}

// Units returns the operational units of idDominio, sorted by idUnita.
func (m *ReadModel) Units(idDominio string) []events.UnitRegistered {
	return wholeList(m, func() []events.UnitRegistered {
		var out []events.UnitRegistered
		for _, u := range sortedValues(m.registry.units, func(u events.UnitRegistered) string { return u.IDDominio + "/" + u.IDUnita }) {
			if u.IDDominio == idDominio {
				out = append(out, u)
			}
		}
		return out
	})
}

// PendenzaType returns the pendenza type id.
func (m *ReadModel) PendenzaType(id string) (events.PendenzaTypeRegistered, bool) {
	return whole(m, func() (events.PendenzaTypeRegistered, bool) { return m.registry.types.get(id) })
}

// TypeView returns the facts decisions need about a pendenza type.
func (m *ReadModel) TypeView(id string) (domain.TypeView, bool) {
	t, ok := m.PendenzaType(id)
	return TypeViewOf(t), ok
}

// TypeViewOf is the facts decisions need about the pendenza type t.
func TypeViewOf(t events.PendenzaTypeRegistered) domain.TypeView {
	return domain.TypeView{IDTipoPendenza: t.IDTipoPendenza, Enabled: t.Enabled, Spontaneous: t.Spontaneous}
}

// PendenzaTypes returns every pendenza type, sorted by id.
func (m *ReadModel) PendenzaTypes() []events.PendenzaTypeRegistered {
	return wholeList(m, func() []events.PendenzaTypeRegistered {
		return sortedValues(m.registry.types, func(t events.PendenzaTypeRegistered) string { return t.IDTipoPendenza })
	})
}

// Intermediary returns the intermediary id.
func (m *ReadModel) Intermediary(id string) (*Intermediary, bool) {
	return whole(m, func() (*Intermediary, bool) { return m.registry.intermediaries.get(id) })
}

// Intermediaries returns every intermediary, sorted by id.
func (m *ReadModel) Intermediaries() []*Intermediary {
	return wholeList(m, func() []*Intermediary {
		return sortedValues(m.registry.intermediaries, func(i *Intermediary) string { return i.Event.IDIntermediario })
	})
}

// VerifyConnectorPassword checks the basic password of an intermediary's
// node connector with no verification gate (see VerifyConnectorPasswordGated).
func (m *ReadModel) VerifyConnectorPassword(in *Intermediary, password string) bool {
	ok, _ := m.VerifyConnectorPasswordGated(nil, "", in, password)
	return ok
}

// VerifyConnectorPasswordGated checks the basic password of an
// intermediary's node connector, with the same cache and gate as
// AuthenticateGated.
func (m *ReadModel) VerifyConnectorPasswordGated(gate Gate, from string, in *Intermediary, password string) (bool, error) {
	if in.Event.ConnectorPasswordHash == "" {
		return false, verifyDummy(gate, from, in.Event.ConnectorPrincipal, true, password)
	}
	return m.verifyCached(&in.verified, in.Event.ConnectorPasswordHash, password, gate, from, in.Event.ConnectorPrincipal)
}

// KnownNodeCredentials is KnownNodeCredentialsGated with no verification gate.
func (m *ReadModel) KnownNodeCredentials(user, password string) bool {
	ok, _ := m.KnownNodeCredentialsGated(nil, "", user, password)
	return ok
}

// KnownNodeCredentialsGated reports whether user and password are the
// credentials of some registered party: the node connector of an
// intermediary (enabled or not) whose connector principal is user, or a
// registered application or operator. The node API uses it to tell a wrong
// password or unknown user (not authenticated) from an authenticated
// caller that is not the connector of the intermediary it names (not
// allowed). Verifications are cached and gated like AuthenticateGated's. A
// verification the gate refuses returns its error.
//
// Every call costs at most one hash verification, whatever user is: an
// unknown user costs one like a wrong password, and so does a connector
// name several intermediaries share (the contract does not forbid it).
// Such a name is verified against one of them, the one with the lowest
// idIntermediario among those with a password: the password of another
// one is not recognised here (401 rather than 403, for a caller this path
// never admits), so that a known name costs what an unknown one costs.
func (m *ReadModel) KnownNodeCredentialsGated(gate Gate, from, user, password string) (bool, error) {
	var connector *Intermediary // the one whose password is verified
	var named bool
	m.read(func() {
		connector, named = nil, false
		ids, _ := m.registry.byConnector.get(user)
		for _, id := range ids {
			in, ok := m.registry.intermediaries.get(id)
			if !ok {
				continue
			}
			named = true
			if in.Event.ConnectorPasswordHash != "" && (connector == nil || id < connector.Event.IDIntermediario) {
				connector = in
			}
		}
	})
	switch {
	case connector != nil:
		return m.verifyCached(&connector.verified, connector.Event.ConnectorPasswordHash, password, gate, from, user)
	case named:
		// Connectors without a password (certificates) only: the name
		// costs what a wrong password costs, and is throttled the same way.
		return false, verifyDummy(gate, from, user, true, password)
	}
	_, err := m.AuthenticateGated(gate, from, user, password)
	if errors.Is(err, ErrUnauthenticated) {
		return false, nil
	}
	return err == nil, err
}

// Protection returns the public API protection setting (disabled when never
// configured).
func (m *ReadModel) Protection() events.PublicAPIProtectionConfigured {
	if p := m.registry.protection.Load(); p != nil {
		return *p
	}
	return events.PublicAPIProtectionConfigured{}
}

// without returns s less every v, in a new slice: readers may hold the old
// one.
func without[T comparable](s []T, v T) []T {
	out := s[:0:0]
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
