package operations

import (
	"cmp"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// Operations of the Backoffice API (API.md section 4). Every read and
// write needs a service right (R or W) from one role; reads and writes of
// something that lies in an entity (and a type) need it from a role whose
// scope holds that place. Writes then decide delegation in the command,
// from what the body grants.

// UseService is a Backoffice operation on something without a place: a
// registry (types, intermediaries, roles, operators, applications), the
// settings, a list (each item then kept by its own decision).
func UseService(p domain.Principal, s domain.Service, r domain.Right, rec Recorder) error {
	needs(rec, s, r)
	return check(rec, "HasServiceRight", domain.HasServiceRight(p, s, r))
}

// OnDominio is a Backoffice operation on idDominio (the entity itself, or
// what belongs to it).
func OnDominio(p domain.Principal, s domain.Service, r domain.Right, idDominio string, rec Recorder) error {
	needs(rec, s, r)
	placed(rec, domain.Place{IDDominio: idDominio})
	return check(rec, "CanOnDominio", domain.CanOnDominio(p, s, r, idDominio))
}

// ReachDominio is the gate of a Backoffice read of what may lie in one of
// idDominio's units (receipts, collections, a page of its pendenze): a
// role giving s r reaches the entity, whole or in some of its units.
func ReachDominio(p domain.Principal, s domain.Service, r domain.Right, idDominio string, rec Recorder) error {
	needs(rec, s, r)
	reached(rec, idDominio)
	return check(rec, "CanReachDominio", domain.CanReachDominio(p, s, r, idDominio))
}

// OnPlace is a Backoffice operation on what lies at a place (entity,
// unit, type): a pendenza, or an entity × type a caller names.
func OnPlace(p domain.Principal, s domain.Service, r domain.Right, at domain.Place, rec Recorder) error {
	needs(rec, s, r)
	placed(rec, at)
	return check(rec, "CanOnPlace", domain.CanOnPlace(p, s, r, at))
}

// OnPendenza is a Backoffice operation on the stored pendenza idA2A /
// idPendenza (GET /pendenze/{idA2A}/{idPendenza} with Pendenze R).
func OnPendenza(m Pendenze, p domain.Principal, s domain.Service, r domain.Right, idA2A, idPendenza string, rec Recorder) (projections.Pendenza, error) {
	pd, err := find(rec, UseService(p, s, r, rec),
		func() (projections.Pendenza, bool) { return m.Pendenza(idA2A, idPendenza) },
		func() error { placed(rec, everywhere); return domain.CanLearnMissingAtPlace(p, s, r, "") })
	if err != nil {
		return pd, err
	}
	return pd, OnPlace(p, s, r, pd.View().Place(), rec)
}

// OnPayment is a Backoffice operation on the stored payment id (GET
// /pagamenti/{id} with Pagamenti R). Payment ids are unguessable: a caller
// with the right learns that one is missing.
func OnPayment(m Payments, p domain.Principal, s domain.Service, r domain.Right, id string, rec Recorder) (*projections.Payment, error) {
	pay, err := find(rec, UseService(p, s, r, rec), func() (*projections.Payment, bool) { return m.Payment(id) }, nil)
	if err != nil {
		return nil, err
	}
	v := pay.View()
	if pr, ok := rec.(PlaceRecorder); ok { // Explain's; the live path passes nil
		for i := range v.Items {
			pr.Place(v.Items[i].Place())
		}
	}
	return pay, check(rec, "CanOnPayment", domain.CanOnPayment(p, s, r, v))
}

// ProfiloBackoffice is GET /profilo on the Backoffice API: any role.
func ProfiloBackoffice(p domain.Principal, rec Recorder) error {
	return check(rec, "HasAnyRole", domain.HasAnyRole(p))
}

// Entities finds creditor entities.
type Entities interface {
	Entity(idDominio string) (events.CreditorEntityRegistered, bool)
}

// ReadEntity is GET /domini/{idDominio}: Anagrafica Creditore R on
// idDominio, whether or not the entity exists (403 before 404).
func ReadEntity(m Entities, p domain.Principal, idDominio string, rec Recorder) (events.CreditorEntityRegistered, error) {
	return find(rec, OnDominio(p, domain.ServiceAnagraficaCreditore, domain.RightRead, idDominio, rec),
		func() (events.CreditorEntityRegistered, bool) { return m.Entity(idDominio) }, nil)
}

// Intermediaries finds registered intermediaries.
type Intermediaries interface {
	Intermediary(id string) (*projections.Intermediary, bool)
}

// WriteEntity is PUT /domini/{idDominio}: Anagrafica Creditore W on
// idDominio, then the intermediary the entity names, when it names one,
// must be registered (422).
func WriteEntity(m Intermediaries, p domain.Principal, idDominio, idIntermediario string, rec Recorder) error {
	if err := OnDominio(p, domain.ServiceAnagraficaCreditore, domain.RightWrite, idDominio, rec); err != nil || idIntermediario == "" {
		return err
	}
	if _, ok := m.Intermediary(idIntermediario); !ok {
		return check(rec, "intermediary", UnprocessableAs(UnprocessableIntermediaryUnknown, "idIntermediario %s is not registered", idIntermediario))
	}
	return check(rec, "intermediary", nil)
}

// RegisterCreditorRecord is what WriteEntity and WriteTipoPendenza ask
// before their id is known (a blank form, whose id is still to be typed):
// Anagrafica Creditore W from some role. The write then decides the id.
func RegisterCreditorRecord(p domain.Principal, rec Recorder) error {
	return UseService(p, domain.ServiceAnagraficaCreditore, domain.RightWrite, rec)
}

// ReadRegistry is GET of one entry of the unscoped Backoffice registry reg
// (intermediari, ruoli, operatori, applicazioni): reg's service's R, then
// the entry, found by lookup.
func ReadRegistry[T any](lookup func(string) (T, bool), p domain.Principal, reg domain.Registry, id string, rec Recorder) (T, error) {
	return find(rec, UseService(p, reg.Service(), domain.RightRead, rec), func() (T, bool) { return lookup(id) }, nil)
}

// WriteRegistry is the gate of every write of the unscoped Backoffice
// registry reg (its PUT and PATCH): reg's service's W. What the body
// grants is then decided by delegation, in the command.
func WriteRegistry(p domain.Principal, reg domain.Registry, rec Recorder) error {
	return UseService(p, reg.Service(), domain.RightWrite, rec)
}

// ListPaymentsBackoffice is GET /pagamenti of the Backoffice: Pagamenti
// R, then the payments all returns that a role giving it covers whole
// (EntityScope.AdmitsPayment).
func ListPaymentsBackoffice(all func(keep func(*projections.Payment) bool) []*projections.Payment, p domain.Principal, rec Recorder) ([]*projections.Payment, error) {
	scope, err := BackofficeList(p, domain.ServicePagamenti, rec)
	if err != nil {
		return nil, err
	}
	return all(func(pay *projections.Payment) bool { return scope.AdmitsPayment(pay.View()) }), nil
}

// PatchRegistry is PATCH of one entry of the unscoped Backoffice registry
// reg: WriteRegistry, then the patch (readBody: only a writer's body is
// read), then the entry it applies to, found by lookup as it stands once
// the body is in (403, then 400, then 404). The patched entry is then
// written as its PUT writes it, deciding again.
func PatchRegistry[T any](lookup func(string) (T, bool), p domain.Principal, reg domain.Registry, id string, readBody func() error, rec Recorder) (T, error) {
	var zero T
	if err := WriteRegistry(p, reg, rec); err != nil {
		return zero, err
	}
	if err := readBody(); err != nil {
		return zero, err
	}
	return find(rec, nil, func() (T, bool) { return lookup(id) }, nil)
}

// Principals finds registered principals by name.
type Principals interface {
	Lookup(name string) (*projections.PrincipalRecord, bool)
}

// ReadPrincipal reads a registered principal of either kind by name (the
// console's Manutenzione page): Anagrafica Applicazioni R for an
// application, Anagrafica Ruoli R for an operator, as GET /applicazioni
// and GET /operatori decide. One of the two is needed before the lookup;
// a caller holding only one gets that one's denial for a name of the
// other kind and for a missing name alike, so it never learns which names
// exist; a caller holding both learns that a name is missing (404).
func ReadPrincipal(m Principals, p domain.Principal, name string, rec Recorder) (*projections.PrincipalRecord, error) {
	apps := UseService(p, domain.RegistryApplicazioni.Service(), domain.RightRead, nil)
	ops := UseService(p, domain.RegistryOperatori.Service(), domain.RightRead, nil)
	var neither error // the denial when the caller holds neither right
	if apps != nil && ops != nil {
		neither = apps
	}
	r, err := find(rec, check(rec, "UseService", neither), func() (*projections.PrincipalRecord, bool) { return m.Lookup(name) },
		func() error { return cmp.Or(apps, ops) })
	if err != nil {
		return nil, err
	}
	if r.Principal.Kind == domain.KindApplication {
		needs(rec, domain.RegistryApplicazioni.Service(), domain.RightRead)
		return r, check(rec, "UseService", apps)
	}
	needs(rec, domain.RegistryOperatori.Service(), domain.RightRead)
	return r, check(rec, "UseService", ops)
}

// ListRegistry is GET of the whole unscoped Backoffice registry reg
// (intermediari, ruoli, operatori, applicazioni; the scoped ones are
// ListDomini and ListTipiPendenza): reg's service's R, then every entry all
// returns.
func ListRegistry[T any](all func() []T, p domain.Principal, reg domain.Registry, rec Recorder) ([]T, error) {
	if err := UseService(p, reg.Service(), domain.RightRead, rec); err != nil {
		return nil, err
	}
	return all(), nil
}

// ReadPendenzaBackoffice is GET /pendenze/{idA2A}/{idPendenza} of the
// Backoffice: Pendenze R on the pendenza's entity and type.
func ReadPendenzaBackoffice(m Pendenze, p domain.Principal, idA2A, idPendenza string, rec Recorder) (projections.Pendenza, error) {
	return OnPendenza(m, p, domain.ServicePendenze, domain.RightRead, idA2A, idPendenza, rec)
}

// ReadPaymentBackoffice is GET /pagamenti/{id} of the Backoffice:
// Pagamenti R on the payment.
func ReadPaymentBackoffice(m Payments, p domain.Principal, id string, rec Recorder) (*projections.Payment, error) {
	return OnPayment(m, p, domain.ServicePagamenti, domain.RightRead, id, rec)
}

// WriteApplicazione is PUT /applicazioni/{idA2A} (and a PATCH, written as
// its PUT): WriteRegistry of applicazioni, then idA2A must not be the
// creator reserved to the Pagamento API's pendenze (domain.PortalIDA2A,
// 422).
func WriteApplicazione(p domain.Principal, idA2A string, rec Recorder) error {
	if err := WriteRegistry(p, domain.RegistryApplicazioni, rec); err != nil {
		return err
	}
	var err error
	if idA2A == domain.PortalIDA2A {
		err = Unprocessable("idA2A %s is reserved to the pendenze payers create on the Pagamento API", idA2A)
	}
	return check(rec, "PortalIDA2A", err)
}
