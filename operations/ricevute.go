package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// Receipts (GovPay's ricevute) and collections (riscossioni: the receipts
// with esito ESEGUITO) read by id, on the Ragioneria API (the entities of
// the RAGIONERIA grant) and the Backoffice (a role's scope). The entity is
// decided before the lookup (403 before 404); a caller who may read the
// whole entity learns that the receipt is missing: a missing one could lie
// in any of its units or in none, so a scope over some units gets the 403
// of another unit's receipt (domain.Missing).

// Receipts finds stored receipts.
type Receipts interface {
	Receipt(idDominio, idRicevuta string) (*projections.Receipt, bool)
}

// ReceiptKey names a receipt as GovPay's paths do: the entity, the IUV
// (domain.IUVOfNotice of the notice it pays) and the receipt id.
type ReceiptKey struct {
	IDDominio, IUV, IDRicevuta string
}

// CollectionIndice is the index of the one item a receipt here collects
// (it pays one notice): the indice of every collection.
const CollectionIndice = 1

// CollectionKey names a collection as GovPay's paths do: a receipt and
// the index of the collected item (CollectionIndice).
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
	if k.Indice != CollectionIndice {
		return func() (*projections.Receipt, bool) { return nil, false }
	}
	return collected(k.ReceiptKey.lookup(m))
}

// collected keeps what lookup finds only when it is a collection: a
// receipt with esito ESEGUITO.
func collected(lookup func() (*projections.Receipt, bool)) func() (*projections.Receipt, bool) {
	return func() (*projections.Receipt, bool) {
		r, ok := lookup()
		if !ok || !r.Event.Collected() {
			return nil, false
		}
		return r, true
	}
}

// ReceiptPlace is where the stored receipt (or collection) r lies:
// domain.ReceiptPlace of its event.
func ReceiptPlace(r *projections.Receipt) domain.Place { return domain.ReceiptPlace(&r.Event) }

// ragioneriaReceipt is a Ragioneria read of a receipt or collection: the
// grant reaching the entity before the lookup (403 before 404), a missing
// one learnt only with the whole entity in the grant, then the stored
// one's place (its unit) in the grant.
func ragioneriaReceipt(p domain.Principal, idDominio string, lookup func() (*projections.Receipt, bool), rec Recorder) (*projections.Receipt, error) {
	r, err := find(rec, check(rec, "CanAskRagioneriaDominio", domain.CanAskRagioneriaDominio(p, idDominio)), lookup,
		func() error { return domain.CanReadRagioneriaDominio(p, idDominio) })
	if err != nil {
		return r, err
	}
	return r, check(rec, "CanReadRagioneriaPlace", domain.CanReadRagioneriaPlace(p, ReceiptPlace(r)))
}

// backofficeReceipt is ragioneriaReceipt on the Backoffice: one role
// giving s R reaching the entity, a missing one learnt only from a role
// giving it over the whole entity, then the stored one's place in the
// scope of a role giving it.
func backofficeReceipt(p domain.Principal, s domain.Service, idDominio string, lookup func() (*projections.Receipt, bool), rec Recorder) (*projections.Receipt, error) {
	r, err := find(rec, ReachDominio(p, s, domain.RightRead, idDominio, rec), lookup, func() error {
		placed(rec, domain.Place{IDDominio: idDominio})
		return domain.CanLearnMissingAtPlace(p, s, domain.RightRead, idDominio)
	})
	if err != nil {
		return r, err
	}
	return r, OnPlace(p, s, domain.RightRead, ReceiptPlace(r), rec)
}

// ReadRicevutaRagioneria is GET /ricevute/{idDominio}/{iuv}/{idRicevuta}
// on the Ragioneria API.
func ReadRicevutaRagioneria(m Receipts, p domain.Principal, k ReceiptKey, rec Recorder) (*projections.Receipt, error) {
	return ragioneriaReceipt(p, k.IDDominio, k.lookup(m), rec)
}

// ReadRicevutaBackoffice is GET /ricevute/{idDominio}/{iuv}/{idRicevuta}
// on the Backoffice: Pagamenti R on idDominio (its unit).
func ReadRicevutaBackoffice(m Receipts, p domain.Principal, k ReceiptKey, rec Recorder) (*projections.Receipt, error) {
	return backofficeReceipt(p, domain.ServicePagamenti, k.IDDominio, k.lookup(m), rec)
}

// ReadRiscossioneRagioneria is GET
// /riscossioni/{idDominio}/{iuv}/{iur}/{indice} on the Ragioneria API.
func ReadRiscossioneRagioneria(m Receipts, p domain.Principal, k CollectionKey, rec Recorder) (*projections.Receipt, error) {
	return ragioneriaReceipt(p, k.IDDominio, k.lookup(m), rec)
}

// ReadRiscossioneBackoffice is GET
// /riscossioni/{idDominio}/{iuv}/{iur}/{indice} on the Backoffice:
// Rendicontazioni e Incassi R on idDominio (its unit), as the list of
// collections.
func ReadRiscossioneBackoffice(m Receipts, p domain.Principal, k CollectionKey, rec Recorder) (*projections.Receipt, error) {
	return backofficeReceipt(p, domain.ServiceRendicontazioniIncassi, k.IDDominio, k.lookup(m), rec)
}

// ReadRiscossioneByID is ReadRiscossioneBackoffice without the IUV and
// index of GovPay's paths (the console's collection page): receipt
// idRicevuta of idDominio, when its esito is ESEGUITO.
func ReadRiscossioneByID(m Receipts, p domain.Principal, idDominio, idRicevuta string, rec Recorder) (*projections.Receipt, error) {
	byID := func() (*projections.Receipt, bool) { return m.Receipt(idDominio, idRicevuta) }
	return backofficeReceipt(p, domain.ServiceRendicontazioniIncassi, idDominio, collected(byID), rec)
}
