package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// EntityScope is what a list of things that belong to an entity
// (reconciliations, settlement reports, collections) may show: the
// entities of the caller's RAGIONERIA grant on the Ragioneria API, or of a
// role giving Rendicontazioni e Incassi R on the Backoffice, narrowed to
// one entity when the list asks for one.
type EntityScope struct {
	p          domain.Principal
	ragioneria bool
	service    domain.Service // on the Backoffice: the service whose R the entity needs
	only       string         // "" for every entity
}

// BackofficeList is the gate of a Backoffice list of svc's records
// (svc's R); the list then shows what the scope admits: the entities
// (Admits), pendenze (AdmitsPlace) and payments (AdmitsPayment) in the
// scope of a role giving that right. A caller with the right on nothing
// gets an empty page, not a 403.
func BackofficeList(p domain.Principal, svc domain.Service, rec Recorder) (EntityScope, error) {
	return EntityScope{p: p, service: svc}, UseService(p, svc, domain.RightRead, rec)
}

// DominiList is the gate of the Backoffice's GET /domini (Anagrafica
// Creditore R on the entities listed).
func DominiList(p domain.Principal, rec Recorder) (EntityScope, error) {
	return BackofficeList(p, domain.ServiceAnagraficaCreditore, rec)
}

// ListDomini is GET /domini of the Backoffice: DominiList's gate, then
// the entities all returns that its scope admits.
func ListDomini(all func() []events.CreditorEntityRegistered, p domain.Principal, rec Recorder) ([]events.CreditorEntityRegistered, error) {
	scope, err := DominiList(p, rec)
	if err != nil {
		return nil, err
	}
	return admitted(scope, all(), func(e events.CreditorEntityRegistered) string { return e.IDDominio }), nil
}

// KnownDomini reports whether p may see entity idDominio named (its
// ragioneSociale, say in a picker): GET /domini lists it to p (DominiList's
// scope), or its profile names it (ProfiloDomini).
func KnownDomini(p domain.Principal) func(idDominio string) bool {
	listed, err := DominiList(p, nil)
	return known(err == nil, listed.Admits, ProfiloDomini(p))
}

// KnownTipi reports whether p may see pendenza type idTipo named: GET
// /tipiPendenza lists it to p, or its profile names it (ProfiloTipi).
func KnownTipi(p domain.Principal) func(idTipo string) bool {
	listed, err := TipiPendenzaList(p, nil)
	return known(err == nil, listed.Admits, ProfiloTipi(p))
}

// known admits an id a list shows (when its gate passed) or a profile
// names.
func known(gatePassed bool, listed, profiled func(string) bool) func(string) bool {
	return func(id string) bool { return gatePassed && listed(id) || profiled(id) }
}

// admitted returns, in order, the items of all whose key the scope of a
// list's gate admits (nil when none): the rows the list shows.
func admitted[T any](scope interface{ Admits(string) bool }, all []T, key func(T) string) []T {
	var keep []T
	for _, x := range all {
		if scope.Admits(key(x)) {
			keep = append(keep, x)
		}
	}
	return keep
}

// RagioneriaList is the gate of the Ragioneria API's lists by entity
// (only: the idDominio filter, "" for none).
func RagioneriaList(p domain.Principal, only string, rec Recorder) (EntityScope, error) {
	return EntityScope{p: p, ragioneria: true, only: only}, UseRagioneria(p, rec)
}

// RendicontazioniList is the gate of the Backoffice's lists of
// reconciliations, settlement reports and collections.
func RendicontazioniList(p domain.Principal, only string, rec Recorder) (EntityScope, error) {
	s, err := BackofficeList(p, domain.ServiceRendicontazioniIncassi, rec)
	s.only = only
	return s, err
}

// PendenzeList is the gate of the Backoffice's list of pendenze (Pendenze
// R); the list then shows each pendenza AdmitsPendenza keeps.
func PendenzeList(p domain.Principal, rec Recorder) (EntityScope, error) {
	return BackofficeList(p, domain.ServicePendenze, rec)
}

// RicevuteList is the gate of the Backoffice's list of receipts: they are
// payments' evidence, so Pagamenti R, each receipt then kept by the
// entity (EntityScope.Admits).
func RicevuteList(p domain.Principal, only string, rec Recorder) (EntityScope, error) {
	s, err := BackofficeList(p, domain.ServicePagamenti, rec)
	s.only = only
	return s, err
}

// Admits reports whether the list shows what belongs to idDominio.
func (e EntityScope) Admits(idDominio string) bool {
	return e.decides(idDominio, domain.CanReadRagioneriaDominio, domain.CanOnDominio)
}

// Reaches reports whether the list may show something of idDominio: the
// entity whole or some of its units (an entity picker offers it).
func (e EntityScope) Reaches(idDominio string) bool {
	return e.decides(idDominio, domain.CanAskRagioneriaDominio, domain.CanReachDominio)
}

// decides is a decision about idDominio within the list's filter: by
// ragioneria's rule on the Ragioneria API, by backoffice's (the list's
// service, R) on the Backoffice.
func (e EntityScope) decides(idDominio string, ragioneria func(domain.Principal, string) error,
	backoffice func(domain.Principal, domain.Service, domain.Right, string) error) bool {
	if e.only != "" && idDominio != e.only {
		return false
	}
	if e.ragioneria {
		return ragioneria(e.p, idDominio) == nil
	}
	return backoffice(e.p, e.service, domain.RightRead, idDominio) == nil
}

// AdmitsReceipt reports whether the list shows receipt (or collection) r:
// its entity whole or the unit of the pendenza it pays in scope.
func (e EntityScope) AdmitsReceipt(r *projections.Receipt) bool {
	return e.AdmitsPlace(ReceiptPlace(r))
}

// AdmitsCollection reports whether the list of collections (riscossioni)
// shows r: a receipt that is a collection, admitted as AdmitsReceipt does.
func (e EntityScope) AdmitsCollection(r *projections.Receipt) bool {
	return r.Event.Collected() && e.AdmitsReceipt(r)
}

// AdmitsPlace reports whether the list shows what is at pl (a pendenza,
// or the receipt of one): its entity whole or its unit in scope.
func (e EntityScope) AdmitsPlace(pl domain.Place) bool {
	if e.only != "" && pl.IDDominio != e.only {
		return false
	}
	if e.ragioneria {
		return domain.CanReadRagioneriaPlace(e.p, pl) == nil
	}
	return domain.CanOnPlace(e.p, e.service, domain.RightRead, pl) == nil
}

// AdmitsPendenza reports whether the list shows the stored pendenza v: a
// role giving the list's right holds its place, as a read of one decides
// (OnPendenza).
func (e EntityScope) AdmitsPendenza(v domain.PendenzaView) bool {
	return e.AdmitsPlace(v.Place())
}

// AdmitsPayment reports whether a Backoffice list shows payment v: a role
// giving the right covers every pendenza it pays.
func (e EntityScope) AdmitsPayment(v domain.PaymentView) bool {
	return domain.CanOnPayment(e.p, e.service, domain.RightRead, v) == nil
}

// AdmitsReconciliation reports whether the list shows reconciliation v:
// on the Ragioneria API its creator's only.
func (e EntityScope) AdmitsReconciliation(v domain.ReconciliationView) bool {
	return e.Admits(v.IDDominio) && (!e.ragioneria || domain.CanReadReconciliation(e.p, v) == nil)
}

// MoneyRecords lists the stored records of the lists by entity, in
// order, each kept by keep.
type MoneyRecords interface {
	Reconciliations(keep func(*projections.Reconciliation) bool) []*projections.Reconciliation
	SettlementReports(keep func(*projections.SettlementReport) bool) []*projections.SettlementReport
	Receipts(keep func(*projections.Receipt) bool) []*projections.Receipt
}

// Reconciliations are the rows of a list of reconciliations (the
// Ragioneria API's, the Backoffice's): each AdmitsReconciliation keeps.
func (e EntityScope) Reconciliations(m MoneyRecords) []*projections.Reconciliation {
	return m.Reconciliations(func(r *projections.Reconciliation) bool { return e.AdmitsReconciliation(r.View()) })
}

// SettlementReports are the rows of a list of settlement reports: each of
// an entity the scope admits.
func (e EntityScope) SettlementReports(m MoneyRecords) []*projections.SettlementReport {
	return m.SettlementReports(func(r *projections.SettlementReport) bool { return e.Admits(r.Event.IDDominio) })
}

// Collections are the rows of a list of collections (riscossioni): each
// receipt AdmitsCollection keeps.
func (e EntityScope) Collections(m MoneyRecords) []*projections.Receipt {
	return m.Receipts(e.AdmitsCollection)
}

// ReadRendicontazione is the Backoffice's read of one reconciliation,
// settlement report or collection of idDominio (the console's detail
// pages): Rendicontazioni e Incassi R on idDominio first (403 whether or
// not it exists, so nothing leaks outside the scope), then find (404: a
// caller whose scope covers idDominio may learn it is missing). It is the
// gate the lists keep each row with (EntityScope.Admits), for one row.
func ReadRendicontazione[T any](p domain.Principal, idDominio string, lookup func() (T, bool), rec Recorder) (T, error) {
	return find(rec, OnDominio(p, domain.ServiceRendicontazioniIncassi, domain.RightRead, idDominio, rec), lookup, nil)
}
