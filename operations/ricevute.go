package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// Receipts (GovPay's ricevute) and collections (riscossioni: the receipts
// with esito ESEGUITO) read by id, on the Ragioneria API (the entities of
// the RAGIONERIA grant) and the Backoffice (a role's scope). The entity is
// decided before the lookup (403 before 404); a caller who may read the
// entity learns that the receipt is missing.

// Receipts finds stored receipts.
type Receipts interface {
	Receipt(idDominio, idRicevuta string) (*projections.Receipt, bool)
}

// ReceiptKey names a receipt as GovPay's paths do: the entity, the IUV
// (domain.IUVOfNotice of the notice it pays) and the receipt id.
type ReceiptKey struct {
	IDDominio, IUV, IDRicevuta string
}

// CollectionKey names a collection as GovPay's paths do: a receipt and
// the index of the collected item (1: a receipt here pays one notice).
type CollectionKey struct {
	ReceiptKey
	Indice int
}

// lookup finds the receipt named by k: stored under its entity and id,
// and paying a notice whose IUV is k.IUV.
func (k ReceiptKey) lookup(m Receipts) func() (*projections.Receipt, bool) {
	return func() (*projections.Receipt, bool) {
		r, ok := m.Receipt(k.IDDominio, k.IDRicevuta)
		if !ok || domain.IUVOfNotice(r.Event.NumeroAvviso) != k.IUV {
			return nil, false
		}
		return r, true
	}
}

// lookup finds the collection named by k: a receipt with esito ESEGUITO,
// item 1.
func (k CollectionKey) lookup(m Receipts) func() (*projections.Receipt, bool) {
	return func() (*projections.Receipt, bool) {
		r, ok := k.ReceiptKey.lookup(m)()
		if !ok || k.Indice != 1 || r.Event.Esito != events.EsitoEseguito {
			return nil, false
		}
		return r, true
	}
}

// ReadRicevutaRagioneria is GET /ricevute/{idDominio}/{iuv}/{idRicevuta}
// on the Ragioneria API.
func ReadRicevutaRagioneria(m Receipts, p domain.Principal, k ReceiptKey, rec Recorder) (*projections.Receipt, error) {
	return find(rec, ReadRagioneriaDominio(p, k.IDDominio, rec), k.lookup(m), nil)
}

// ReadRicevutaBackoffice is GET /ricevute/{idDominio}/{iuv}/{idRicevuta}
// on the Backoffice: Pagamenti R on idDominio.
func ReadRicevutaBackoffice(m Receipts, p domain.Principal, k ReceiptKey, rec Recorder) (*projections.Receipt, error) {
	return find(rec, OnDominio(p, domain.ServicePagamenti, domain.RightRead, k.IDDominio, rec), k.lookup(m), nil)
}

// ReadRiscossioneRagioneria is GET
// /riscossioni/{idDominio}/{iuv}/{iur}/{indice} on the Ragioneria API.
func ReadRiscossioneRagioneria(m Receipts, p domain.Principal, k CollectionKey, rec Recorder) (*projections.Receipt, error) {
	return find(rec, ReadRagioneriaDominio(p, k.IDDominio, rec), k.lookup(m), nil)
}

// ReadRiscossioneBackoffice is GET
// /riscossioni/{idDominio}/{iuv}/{iur}/{indice} on the Backoffice:
// Rendicontazioni e Incassi R on idDominio, as the list of collections.
func ReadRiscossioneBackoffice(m Receipts, p domain.Principal, k CollectionKey, rec Recorder) (*projections.Receipt, error) {
	return ReadRendicontazione(p, k.IDDominio, k.lookup(m), rec)
}
