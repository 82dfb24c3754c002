package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// Operations of the Pagamento API (API.md section 6). The public API's
// protection (section 7) is gathered by HTTP and passed in as guard.

// Pendenze finds stored pendenze by id.
type Pendenze interface {
	Pendenza(idA2A, idPendenza string) (projections.Pendenza, bool)
}

// Notices finds stored pendenze by notice number.
type Notices interface {
	PendenzaByNotice(idDominio, numeroAvviso string) (projections.Pendenza, bool)
}

// Payments finds stored payments.
type Payments interface {
	Payment(id string) (*projections.Payment, bool)
}

// PaymentLists lists stored payments by the caller that may own them.
type PaymentLists interface {
	PaymentsOf(p domain.Principal, keep func(*projections.Payment) bool) []*projections.Payment
}

// ListPaymentsPagamento is the gate of GET /pagamenti: whoever may enter
// the Pagamento API lists; each listed payment is then kept by
// domain.CanReadPayment (PaymentsPagamento).
func ListPaymentsPagamento(p domain.Principal, rec Recorder) error {
	return check(rec, "CanListPaymentsPagamento", domain.CanListPaymentsPagamento(p))
}

// PaymentsPagamento is GET /pagamenti on the Pagamento API: the gate, then
// the payments p may own (PaymentsOf: never a scan of every payment), each
// kept by domain.CanReadPayment.
func PaymentsPagamento(m PaymentLists, p domain.Principal, rec Recorder) ([]*projections.Payment, error) {
	if err := ListPaymentsPagamento(p, rec); err != nil {
		return nil, err
	}
	return m.PaymentsOf(p, func(pay *projections.Payment) bool { return domain.CanReadPayment(p, pay.View()) == nil }), nil
}

// PaymentItemPagamento is which items of the payment pay, read by p on
// the Pagamento API, p is shown (by their index in its event's items):
// those domain.CanSeePaymentItem shows it.
func PaymentItemPagamento(p domain.Principal, pay *projections.Payment) func(i int) bool {
	v := pay.View()
	return func(i int) bool { return domain.CanSeePaymentItem(p, v, i) }
}

// PaymentRemitterPagamento is whether p, reading the payment pay on the
// Pagamento API, is shown its soggettoVersante: domain.CanSeeRemitter.
func PaymentRemitterPagamento(p domain.Principal, pay *projections.Payment) bool {
	return domain.CanSeeRemitter(p, pay.View())
}

// ReadPendenzaPagamento is GET /pendenze/{idA2A}/{idPendenza}.
func ReadPendenzaPagamento(m Pendenze, p domain.Principal, idA2A, idPendenza string, rec Recorder) (projections.Pendenza, error) {
	pd, err := find(rec, check(rec, "CanAskPendenzaPagamento", domain.CanAskPendenzaPagamento(p)),
		func() (projections.Pendenza, bool) { return m.Pendenza(idA2A, idPendenza) },
		func() error { return domain.CanLearnMissingPendenzaPagamento(p, domain.CanReadPendenzaPagamento) })
	return decided(rec, "CanReadPendenzaPagamento", domain.CanReadPendenzaPagamento, p, pd, err)
}

// ListPendenzePagamento is the gate of GET /pendenze: each listed pendenza
// is then kept by domain.CanReadPendenzaPagamento (PendenzePagamento).
func ListPendenzePagamento(p domain.Principal, rec Recorder) error {
	return check(rec, "CanListPendenzePagamento", domain.CanListPendenzePagamento(p))
}

// PendenzePagamento is GET /pendenze on the Pagamento API: the gate, then
// the pendenze domain.CanReadPendenzaPagamento admits, from those a citizen
// pays (its payer index: never a scan) or, for an application, every
// pendenza (the list's filters then narrow them: HTTP's pendenzeFilters).
func PendenzePagamento(m PendenzeLists, p domain.Principal, rec Recorder) ([]projections.Pendenza, error) {
	if err := ListPendenzePagamento(p, rec); err != nil {
		return nil, err
	}
	var f projections.PendenzeFilter
	if p.Kind == domain.KindCitizen {
		f.Payer = p.Name
	}
	return listPendenze(m, p, f, domain.CanReadPendenzaPagamento), nil
}

// PayablePendenze finds the pendenze payment references name by id, and
// the registry their entity, type and unit must be enabled in.
type PayablePendenze interface {
	Pendenze
	Registry
}

// PayableNotices is PayablePendenze for references by notice.
type PayableNotices interface {
	Notices
	Registry
}

// PayPendenza authorizes a payment reference {idA2A, idPendenza}; the
// pendenza must then be payable.
func PayPendenza(m PayablePendenze, p domain.Principal, idA2A, idPendenza string, rec Recorder) (projections.Pendenza, error) {
	pd, err := find(rec, nil, func() (projections.Pendenza, bool) { return m.Pendenza(idA2A, idPendenza) },
		func() error { return domain.CanLearnMissingPendenzaPagamento(p, domain.CanPayPendenza) })
	pd, err = decided(rec, "CanPayPendenza", domain.CanPayPendenza, p, pd, err)
	return payable(m, rec, pd, err)
}

// PayNotice authorizes a payment reference {idDominio, numeroAvviso}; the
// notice's pendenza must then be payable.
func PayNotice(m PayableNotices, p domain.Principal, idDominio, numeroAvviso string, rec Recorder) (projections.Pendenza, error) {
	pd, err := notice(m, p, idDominio, numeroAvviso, nil, rec)
	pd, err = decided(rec, "CanPayNotice", domain.CanPayNotice, p, pd, err)
	return payable(m, rec, pd, err)
}

// payable passes an authorized pendenza that may be paid: open
// (domain.PayableStato), at a registered, enabled entity, of such a type
// and, when it names one, in such a unit; otherwise 422, as for a
// spontaneous payment (PaySpontaneous).
func payable(m Registry, rec Recorder, pd projections.Pendenza, err error) (projections.Pendenza, error) {
	if err != nil {
		return pd, err
	}
	if err := inState(rec, "PayableStato", domain.PayableStato, pd.View(), "be paid"); err != nil {
		return pd, err
	}
	return pd, enabledPlace(m, rec, pd)
}

// enabledPlace answers 422 when the entity, the type or the unit of pd is
// not registered or is disabled: no new payment is taken there.
func enabledPlace(m Registry, rec Recorder, pd projections.Pendenza) error {
	if _, err := CheckEntityAndType(m, pd.IDDominio, pd.IDTipoPendenza, rec); err != nil {
		return err
	}
	return CheckUnit(m, pd.IDDominio, pd.IDUnitaOperativa, rec)
}

// ReadNotice is GET /avvisi/{idDominio}/{numeroAvviso}. guard, when not
// nil, is the public API's protection, given the notice's UUID ("" for an
// unknown notice); it runs after the lookup and before existence is told.
func ReadNotice(m Notices, p domain.Principal, idDominio, numeroAvviso string, guard func(uuid string) error, rec Recorder) (projections.Pendenza, error) {
	pd, err := notice(m, p, idDominio, numeroAvviso, guard, rec)
	return decided(rec, "CanReadNotice", domain.CanReadNotice, p, pd, err)
}

// notice is the shared start of the notice operations: the gate on
// idDominio, the lookup, the guard, the missing-resource rule.
func notice(m Notices, p domain.Principal, idDominio, numeroAvviso string, guard func(string) error, rec Recorder) (projections.Pendenza, error) {
	if err := check(rec, "CanAskNotice", domain.CanAskNotice(p, idDominio)); err != nil {
		return projections.Pendenza{}, err
	}
	pd, ok := m.PendenzaByNotice(idDominio, numeroAvviso)
	if guard != nil {
		if err := guard(pd.UUID); err != nil {
			return pd, err
		}
	}
	if !ok {
		return pd, missing(rec, domain.CanLearnMissingNotice(p, idDominio))
	}
	return pd, nil
}

// PaySpontaneous authorizes a spontaneous payment reference {idDominio,
// idTipoPendenza}: the gate on the pair (403 before 422), then an unknown
// or disabled entity or type is 422, then the type must be spontaneous.
func PaySpontaneous(m Registry, p domain.Principal, idDominio, idTipo string, rec Recorder) error {
	if err := check(rec, "CanAskSpontaneous", domain.CanAskSpontaneous(p, idDominio, idTipo)); err != nil {
		return err
	}
	t, err := CheckEntityAndType(m, idDominio, idTipo, rec)
	if err != nil {
		return err
	}
	return check(rec, "CanPaySpontaneous", domain.CanPaySpontaneous(p, idDominio, t))
}

// ReadPaymentPagamento is GET /pagamenti/{id}.
func ReadPaymentPagamento(m Payments, p domain.Principal, id string, rec Recorder) (*projections.Payment, error) {
	pay, err := find(rec, nil, func() (*projections.Payment, bool) { return m.Payment(id) },
		func() error { return domain.CanLearnMissingPaymentPagamento(p) })
	return decided(rec, "CanReadPayment", domain.CanReadPayment, p, pay, err)
}

// ProfiloPagamento is GET /profilo on the Pagamento API.
func ProfiloPagamento(p domain.Principal, rec Recorder) error {
	return check(rec, "CanReadProfile", domain.CanReadProfile(p))
}

// AskCreatePendenzaPagamento is the gate of CreatePendenzaPagamento, on
// the entity the path names, before the body (which may name a unit) is
// read: applications need the entity in their PAGAMENTO scope, whole or in
// some units; citizens and anonymous callers may ask. The type and unit
// are decided after the lookups.
func AskCreatePendenzaPagamento(p domain.Principal, idDominio string, rec Recorder) error {
	return check(rec, "CanAskNotice", domain.CanAskNotice(p, idDominio))
}

// CreatePendenzaPagamento is POST /pendenze/{idDominio}/{idTipoPendenza}
// on the Pagamento API at the place at with payer payerID: its gate
// (AskCreatePendenzaPagamento, which the route also runs before the body
// is read), the caller's rule on the whole place, entity × type (and
// unit), before the lookups (403 before 422, as PaySpontaneous), an
// unknown or disabled entity, type or unit 422, then the type's rule
// (domain.CanCreatePendenzaPagamento).
func CreatePendenzaPagamento(m Registry, p domain.Principal, at domain.Place, payerID string, rec Recorder) error {
	if err := AskCreatePendenzaPagamento(p, at.IDDominio, rec); err != nil {
		return err
	}
	if err := check(rec, "CanAskCreatePendenzaPagamento", domain.CanAskCreatePendenzaPagamento(p, at, payerID)); err != nil {
		return err
	}
	t, err := CheckEntityAndType(m, at.IDDominio, at.IDTipoPendenza, rec)
	if err != nil {
		return err
	}
	if err := CheckUnit(m, at.IDDominio, at.IDUnita, rec); err != nil {
		return err
	}
	return check(rec, "CanCreatePendenzaPagamento", domain.CanCreatePendenzaPagamento(p, at, t, payerID))
}
