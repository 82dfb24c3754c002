package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// FlowKey names a settlement report as GovPay's by-date path does
// (GET /flussiRendicontazione/{idDominio}/{idFlusso}/{dataOraFlusso}).
type FlowKey struct {
	IDDominio, IDFlusso, DataOraFlusso string
}

// lookup finds the report named by k: stored under its entity and id,
// dated DataOraFlusso (domain.SameFlowDate). Under another date it is
// missing, told only to a caller who may read the entity.
func (k FlowKey) lookup(m SettlementReports) func() (*projections.SettlementReport, bool) {
	return func() (*projections.SettlementReport, bool) {
		r, ok := m.SettlementReport(k.IDDominio, k.IDFlusso)
		if !ok || !domain.SameFlowDate(r.Event.DataFlusso, k.DataOraFlusso) {
			return nil, false
		}
		return r, true
	}
}

// ReadFlussoAt is the by-date read of a settlement report on the
// Ragioneria API: the entity in the RAGIONERIA grant, before the lookup.
func ReadFlussoAt(m SettlementReports, p domain.Principal, k FlowKey, rec Recorder) (*projections.SettlementReport, error) {
	return find(rec, ReadRagioneriaDominio(p, k.IDDominio, rec), k.lookup(m), nil)
}

// ReadFlussoAtBackoffice is the by-date read of a settlement report on
// the Backoffice: Rendicontazioni e Incassi R on the entity, as the list.
func ReadFlussoAtBackoffice(m SettlementReports, p domain.Principal, k FlowKey, rec Recorder) (*projections.SettlementReport, error) {
	return ReadRendicontazione(p, k.IDDominio, k.lookup(m), rec)
}
