package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// Operational units (unità operative) of a creditor entity, GovPay's
// Anagrafica Creditore: GET /domini/{idDominio}/unitaOperative[/{idUnita}]
// on the Backoffice, and on the Pagamento API the units of an entity the
// caller may pay at.

// Units finds the operational units of creditor entities.
type Units interface {
	Unit(idDominio, idUnita string) (events.UnitRegistered, bool)
}

// ReadUnit is GET /domini/{idDominio}/unitaOperative/{idUnita}: its gate
// AskUnit, whether or not the unit exists (403 before 404), then the unit.
func ReadUnit(m Units, p domain.Principal, idDominio, idUnita string, rec Recorder) (events.UnitRegistered, error) {
	return find(rec, AskUnit(p, idDominio, rec),
		func() (events.UnitRegistered, bool) { return m.Unit(idDominio, idUnita) }, nil)
}

// AskUnit is the gate of GET /domini/{idDominio}/unitaOperative/{idUnita}
// on the Backoffice, decided before the unit is looked up: Anagrafica
// Creditore R on idDominio.
func AskUnit(p domain.Principal, idDominio string, rec Recorder) error {
	return OnDominio(p, domain.ServiceAnagraficaCreditore, domain.RightRead, idDominio, rec)
}

// ListUnits is the gate of GET /domini/{idDominio}/unitaOperative on the
// Backoffice: Anagrafica Creditore R on idDominio.
func ListUnits(p domain.Principal, idDominio string, rec Recorder) error {
	return OnDominio(p, domain.ServiceAnagraficaCreditore, domain.RightRead, idDominio, rec)
}

// WriteUnit is PUT /domini/{idDominio}/unitaOperative/{idUnita}:
// Anagrafica Creditore W on idDominio, then the entity must be registered
// (422; a disabled entity may still be given units).
func WriteUnit(m Entities, p domain.Principal, idDominio string, rec Recorder) error {
	if err := OnDominio(p, domain.ServiceAnagraficaCreditore, domain.RightWrite, idDominio, rec); err != nil {
		return err
	}
	if _, ok := m.Entity(idDominio); !ok {
		return check(rec, "entity", UnprocessableAs(UnprocessableEntityUnknown, "idDominio %s is not registered", idDominio))
	}
	return check(rec, "entity", nil)
}
