package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// PaymentRef is one pendenza a payment covers: exactly one of a pendenza
// ({IDA2A, IDPendenza}), a notice ({IDDominio, NumeroAvviso}) or a
// spontaneous payment ({IDDominio, IDTipoPendenza, AmountCents, Causale,
// Payer}).
type PaymentRef struct {
	IDA2A, IDPendenza string
	IDDominio         string
	NumeroAvviso      string
	IDTipoPendenza    string
	AmountCents       int64
	Causale           string
	Payer             *events.Subject
}

// Kind names the reference's form ("pendenza", "avviso", "spontaneo").
func (r PaymentRef) Kind() string {
	switch {
	case r.IDA2A != "" || r.IDPendenza != "":
		return "pendenza"
	case r.NumeroAvviso != "":
		return "avviso"
	}
	return "spontaneo"
}

// StartPayment starts a payment (POST /pagamenti on the Pagamento API).
type StartPayment struct {
	Refs        []PaymentRef
	Remitter    *events.Subject
	SessionHash string // anonymous callers: SHA-256 of the session id
	// Request is the rest of GovPay's NuovoPagamento: checked, not kept.
	Request PaymentRequest
}

// MaxPaymentRefs is the most pendenze one payment covers.
const MaxPaymentRefs = 5

// CheckPaymentRefs is the 400 of a payment covering n pendenze, nil when
// n is 1 to MaxPaymentRefs; the HTTP layer answers it as soon as a body
// holds one reference too many.
func CheckPaymentRefs(n int) error {
	if n == 0 || n > MaxPaymentRefs {
		return invalid("pendenze", "must hold 1 to %d references", MaxPaymentRefs)
	}
	return nil
}

// StartPayment authorizes every reference for the caller and appends
// PaymentStarted with a random, unguessable id, which it returns. A
// citizen's remitter is forced to the citizen.
func (h *Handler) StartPayment(ctx context.Context, actor Actor, c StartPayment) (string, Result, error) {
	p := actor.Principal
	if err := CheckPaymentRefs(len(c.Refs)); err != nil {
		return "", Result{}, err
	}
	if c.Remitter != nil {
		if err := checkSubject("soggettoVersante", c.Remitter); err != nil {
			return "", Result{}, err
		}
	}
	if err := c.Request.check(); err != nil {
		return "", Result{}, err
	}
	items := make([]events.PaymentItem, 0, len(c.Refs))
	seen := map[string]bool{}
	for i, ref := range c.Refs {
		item, err := h.resolveRef(p, ref, i)
		if err != nil {
			return "", Result{}, err
		}
		if key := item.IDDominio + "/" + item.NumeroAvviso; item.NumeroAvviso != "" {
			if seen[key] {
				return "", Result{}, invalid("pendenze", "the same pendenza is referenced twice")
			}
			seen[key] = true
		}
		items = append(items, item)
	}
	e := events.PaymentStarted{ID: randomHex(16), Remitter: c.Remitter, Items: items}
	switch p.Kind {
	case domain.KindApplication:
		e.CallerKind, e.CallerID = events.CallerApplication, p.IDA2A
	case domain.KindCitizen:
		e.CallerKind, e.CallerID = events.CallerCitizen, p.Name
		e.Remitter = &events.Subject{Tipo: "F", Identificativo: p.Name, Anagrafica: p.Name}
		if c.Remitter != nil && c.Remitter.Anagrafica != "" {
			e.Remitter.Anagrafica, e.Remitter.Email = c.Remitter.Anagrafica, c.Remitter.Email
		}
	case domain.KindAnonymous:
		if c.SessionHash == "" {
			return "", Result{}, invalid("session", "an anonymous payment needs a session")
		}
		e.CallerKind, e.SessionHash = events.CallerAnonymous, c.SessionHash
	default:
		return "", Result{}, domain.DenyStartingPayments()
	}
	res, err := h.execute(ctx, actor, events.StreamPagamento+e.ID, func(stream []events.Envelope) ([]events.Event, error) {
		if len(stream) > 0 {
			return nil, fmt.Errorf("%w: payment id collision", ErrConflict)
		}
		return []events.Event{e}, nil
	})
	return e.ID, res, err
}

// resolveRef validates one reference and authorizes it with the
// operation of its kind, which decides before existence is revealed
// wherever the caller's scope allows it.
func (h *Handler) resolveRef(p domain.Principal, ref PaymentRef, i int) (events.PaymentItem, error) {
	field := fmt.Sprintf("pendenze[%d]", i)
	switch ref.Kind() {
	case "pendenza":
		if err := firstError(
			checkID(field+".idA2A", ref.IDA2A),
			checkID(field+".idPendenza", ref.IDPendenza),
		); err != nil {
			return events.PaymentItem{}, err
		}
		pd, err := operations.PayPendenza(h.model, p, ref.IDA2A, ref.IDPendenza, nil)
		if err != nil {
			return events.PaymentItem{}, refError(err, "pendenza "+ref.IDA2A+"/"+ref.IDPendenza)
		}
		return paymentItem(pd), nil
	case "avviso":
		if err := CheckDominio(field+".idDominio", ref.IDDominio); err != nil {
			return events.PaymentItem{}, err
		}
		if !ValidAvviso(ref.NumeroAvviso) {
			return events.PaymentItem{}, invalid(field+".numeroAvviso", "must be 18 digits")
		}
		pd, err := operations.PayNotice(h.model, p, ref.IDDominio, ref.NumeroAvviso, nil)
		if err != nil {
			return events.PaymentItem{}, refError(err, "avviso "+ref.IDDominio+"/"+ref.NumeroAvviso)
		}
		return paymentItem(pd), nil
	}
	if err := firstError(
		CheckDominio(field+".idDominio", ref.IDDominio),
		checkID(field+".idTipoPendenza", ref.IDTipoPendenza),
	); err != nil {
		return events.PaymentItem{}, err
	}
	if err := checkCausale(field+".causale", ref.Causale); err != nil {
		return events.PaymentItem{}, err
	}
	if ref.Payer == nil {
		return events.PaymentItem{}, invalid(field+".soggettoPagatore", "is required")
	}
	payer := *ref.Payer
	if err := checkSubject(field+".soggettoPagatore", &payer); err != nil {
		return events.PaymentItem{}, err
	}
	if err := operations.PaySpontaneous(h.model, p, ref.IDDominio, ref.IDTipoPendenza, nil); err != nil {
		return events.PaymentItem{}, err
	}
	if ref.AmountCents <= 0 {
		return events.PaymentItem{}, unprocessable("importo must be greater than zero")
	}
	return events.PaymentItem{IDDominio: ref.IDDominio, IDTipoPendenza: ref.IDTipoPendenza, AmountCents: ref.AmountCents,
		Causale: ref.Causale, PayerID: payer.Identificativo}, nil
}

// refError names the reference in a not-found answer.
func refError(err error, what string) error {
	if errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return err
}

// paymentItem is what a payment records of the pendenza it covers.
func paymentItem(pd projections.Pendenza) events.PaymentItem {
	return events.PaymentItem{IDA2A: pd.IDA2A, IDPendenza: pd.IDPendenza, IDDominio: pd.IDDominio,
		IDTipoPendenza: pd.IDTipoPendenza, NumeroAvviso: pd.NumeroAvviso, AmountCents: pd.AmountCents,
		Causale: pd.Causale, PayerID: pd.View().PayerID, IDUnitaOperativa: pd.IDUnitaOperativa}
}
