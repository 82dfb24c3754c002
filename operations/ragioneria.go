package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// Operations of the Ragioneria API (API.md section 8).

// Reconciliations finds stored reconciliations.
type Reconciliations interface {
	Reconciliation(idDominio, id string) (*projections.Reconciliation, bool)
}

// SettlementReports finds stored settlement reports.
type SettlementReports interface {
	SettlementReport(idDominio, idFlusso string) (*projections.SettlementReport, bool)
}

// AskWriteReconciliation is the gate of PUT
// /riconciliazioni/{idDominio}/{id}, decided before the body is read.
func AskWriteReconciliation(p domain.Principal, idDominio string, rec Recorder) error {
	return check(rec, "CanAskWriteReconciliation", domain.CanAskWriteReconciliation(p, idDominio))
}

// WriteReconciliation decides PUT /riconciliazioni/{idDominio}/{id} given
// the reconciliation already stored under that id (nil when none), then
// an unknown or disabled entity is 422: the command decides with the
// stream it loaded, Explain with the read model.
func WriteReconciliation(m Registry, p domain.Principal, idDominio string, existing *domain.ReconciliationView, rec Recorder) error {
	if err := AskWriteReconciliation(p, idDominio, rec); err != nil {
		return err
	}
	if err := check(rec, "CanWriteReconciliation", domain.CanWriteReconciliation(p, idDominio, existing)); err != nil {
		return err
	}
	return CheckEntity(m, idDominio, rec)
}

// ReadReconciliation is GET /riconciliazioni/{idDominio}/{id}.
func ReadReconciliation(m Reconciliations, p domain.Principal, idDominio, id string, rec Recorder) (*projections.Reconciliation, error) {
	r, err := find(rec, ReadRagioneriaDominio(p, idDominio, rec),
		func() (*projections.Reconciliation, bool) { return m.Reconciliation(idDominio, id) }, nil)
	return decided(rec, "CanReadReconciliation", domain.CanReadReconciliation, p, r, err)
}

// ReadRagioneriaDominio decides reads of what belongs to idDominio
// (settlement reports, collections).
func ReadRagioneriaDominio(p domain.Principal, idDominio string, rec Recorder) error {
	return check(rec, "CanReadRagioneriaDominio", domain.CanReadRagioneriaDominio(p, idDominio))
}

// ReadFlusso is GET /flussiRendicontazione/{idDominio}/{idFlusso}.
func ReadFlusso(m SettlementReports, p domain.Principal, idDominio, idFlusso string, rec Recorder) (*projections.SettlementReport, error) {
	return find(rec, ReadRagioneriaDominio(p, idDominio, rec),
		func() (*projections.SettlementReport, bool) { return m.SettlementReport(idDominio, idFlusso) }, nil)
}

// UseRagioneria is the gate of the Ragioneria lists; each listed item is
// then kept by its own decision.
func UseRagioneria(p domain.Principal, rec Recorder) error {
	return check(rec, "CanUseRagioneria", domain.CanUseRagioneria(p))
}

// ListPaymentsRagioneria is GET /pagamenti on the Ragioneria API: the
// gate, then the payments domain.CanReadPaymentRagioneria keeps (those
// touching the grant's scope).
func ListPaymentsRagioneria(all func(keep func(*projections.Payment) bool) []*projections.Payment, p domain.Principal, rec Recorder) ([]*projections.Payment, error) {
	if err := UseRagioneria(p, rec); err != nil {
		return nil, err
	}
	return all(func(pay *projections.Payment) bool { return domain.CanReadPaymentRagioneria(p, pay.View()) == nil }), nil
}

// RagioneriaPaymentItem admits the items of a payment read on the
// Ragioneria API that p's grant reaches (domain.CanReadRagioneriaPlace:
// the item's entity whole, or its unit); the payment's other items are not
// shown.
func RagioneriaPaymentItem(p domain.Principal) func(domain.Place) bool {
	return EntityScope{p: p, ragioneria: true}.AdmitsPlace
}

// ReadPaymentRagioneria is GET /pagamenti/{id} on the Ragioneria API.
func ReadPaymentRagioneria(m Payments, p domain.Principal, id string, rec Recorder) (*projections.Payment, error) {
	pay, err := find(rec, UseRagioneria(p, rec), func() (*projections.Payment, bool) { return m.Payment(id) }, nil)
	return decided(rec, "CanReadPaymentRagioneria", domain.CanReadPaymentRagioneria, p, pay, err)
}
