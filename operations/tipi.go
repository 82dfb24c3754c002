package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// OnTipoPendenza is a Backoffice operation on the pendenza type idTipo
// (the type itself): the service right from a role whose tipiPendenza hold
// idTipo.
func OnTipoPendenza(p domain.Principal, s domain.Service, r domain.Right, idTipo string, rec Recorder) error {
	needs(rec, s, r)
	placed(rec, domain.Place{IDTipoPendenza: idTipo})
	return check(rec, "CanOnTipoPendenza", domain.CanOnTipoPendenza(p, s, r, idTipo))
}

// PendenzaTypes finds pendenza types.
type PendenzaTypes interface {
	PendenzaType(idTipoPendenza string) (events.PendenzaTypeRegistered, bool)
}

// ReadTipoPendenza is GET /tipiPendenza/{idTipoPendenza}: Anagrafica
// Creditore R from a role whose tipiPendenza hold the type, whether or not
// it exists (403 before 404).
func ReadTipoPendenza(m PendenzaTypes, p domain.Principal, idTipo string, rec Recorder) (events.PendenzaTypeRegistered, error) {
	return find(rec, OnTipoPendenza(p, domain.ServiceAnagraficaCreditore, domain.RightRead, idTipo, rec),
		func() (events.PendenzaTypeRegistered, bool) { return m.PendenzaType(idTipo) }, nil)
}

// WriteTipoPendenza is PUT /tipiPendenza/{idTipoPendenza}: Anagrafica
// Creditore W from a role whose tipiPendenza hold the type, to create it
// as to change or disable it.
func WriteTipoPendenza(p domain.Principal, idTipo string, rec Recorder) error {
	return OnTipoPendenza(p, domain.ServiceAnagraficaCreditore, domain.RightWrite, idTipo, rec)
}

// TipiPendenzaList is the gate of GET /tipiPendenza (Anagrafica Creditore
// R); the list then shows each type Admits keeps.
func TipiPendenzaList(p domain.Principal, rec Recorder) (TypeScope, error) {
	return TypeScope{p: p}, UseService(p, domain.ServiceAnagraficaCreditore, domain.RightRead, rec)
}

// ListTipiPendenza is GET /tipiPendenza of the Backoffice:
// TipiPendenzaList's gate, then the types all returns that its scope
// admits.
func ListTipiPendenza(all func() []events.PendenzaTypeRegistered, p domain.Principal, rec Recorder) ([]events.PendenzaTypeRegistered, error) {
	scope, err := TipiPendenzaList(p, rec)
	if err != nil {
		return nil, err
	}
	return admitted(scope, all(), func(t events.PendenzaTypeRegistered) string { return t.IDTipoPendenza }), nil
}

// TypeScope is what a list of pendenza types may show: the types in the
// scope of a role giving Anagrafica Creditore R.
type TypeScope struct {
	p domain.Principal
}

// Admits reports whether the list shows the type idTipo.
func (t TypeScope) Admits(idTipo string) bool {
	return domain.CanOnTipoPendenza(t.p, domain.ServiceAnagraficaCreditore, domain.RightRead, idTipo) == nil
}
