package commands

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// PutPendenza creates or updates a pendenza on the Pendenze API
// (PUT /pendenze/{idA2A}/{idPendenza}).
type PutPendenza struct {
	IDA2A          string // from the path: must be the caller's own
	IDPendenza     string
	IDDominio      string
	IDTipoPendenza string
	Causale        string
	AmountCents    int64
	Payer          events.Subject
	NumeroAvviso   string                 // optional: assigned when absent on creation
	IDUnita        string                 // optional: the entity's operational unit
	Details        events.PendenzaDetails // GovPay's fields that bear on no decision

	// authorize, when set, decides instead of the Pendenze API's rules
	// (CreatePendenzaPagamento); sessionHash is then the creating
	// anonymous session's.
	authorize   func(existing *domain.PendenzaView, at domain.Place) error
	sessionHash string
}

// PutPendenza authorizes with the caller's PENDENZE grant (creation) or
// ownership (update), then checks the entity and type exist and are
// enabled, then the amounts (checkAmounts). The notice number and UUID
// are fixed at creation.
func (h *Handler) PutPendenza(ctx context.Context, actor Actor, c PutPendenza) (Result, error) {
	if err := validatePendenza(&c); err != nil {
		return Result{}, err
	}
	holder := pendenzaHolder(c.IDA2A, c.IDPendenza)
	// The notice claims this call made (every attempt's), the one a
	// creation reuses when it retries, the one a move leaves, and the
	// notice of the pendenza its last decision wrote (or found unchanged).
	var claims []string
	var created, moved, written string
	res, err := h.execute(ctx, actor, events.StreamPendenza+c.IDA2A+"/"+c.IDPendenza, func(stream []events.Envelope) ([]events.Event, error) {
		cur := latest(stream, func(e events.PendenzaUpdated) events.PendenzaCreated { return events.PendenzaCreated(e) })
		var existing *domain.PendenzaView
		if pd, ok := storedPendenza(stream); ok {
			if h.paid(c.IDA2A, c.IDPendenza) {
				pd.Stato = projections.StatoEseguita
			}
			v := pd.View()
			existing = &v
		}
		at := domain.Place{IDDominio: c.IDDominio, IDUnita: c.IDUnita, IDTipoPendenza: c.IDTipoPendenza}
		authorize := c.authorize
		if authorize == nil {
			authorize = func(existing *domain.PendenzaView, at domain.Place) error {
				return operations.PutPendenza(h.model, actor.Principal, existing, c.IDA2A, at, nil)
			}
		}
		if err := authorize(existing, at); err != nil {
			return nil, err
		}
		if err := checkAmounts(c.AmountCents, &c.Details); err != nil {
			return nil, err
		}
		e := events.PendenzaCreated{IDA2A: c.IDA2A, IDPendenza: c.IDPendenza, IDDominio: c.IDDominio,
			IDTipoPendenza: c.IDTipoPendenza, Causale: c.Causale, AmountCents: c.AmountCents, Payer: c.Payer,
			NumeroAvviso: c.NumeroAvviso, IDUnitaOperativa: c.IDUnita, SessionHash: c.sessionHash, PendenzaDetails: c.Details}
		if cur == nil {
			avviso := created // a retry after a conflict keeps the number it claimed
			if avviso == "" || !strings.HasPrefix(avviso, c.IDDominio+"/") {
				id, err := h.noticeNumber(ctx, actor, c.IDDominio, c.NumeroAvviso, holder)
				if err != nil {
					return nil, err
				}
				created, avviso = c.IDDominio+"/"+id, c.IDDominio+"/"+id
				claims = append(claims, created)
			}
			e.NumeroAvviso = strings.TrimPrefix(avviso, c.IDDominio+"/")
			e.UUID = randomHex(16)
			written = avviso
			return []events.Event{e}, nil
		}
		if c.NumeroAvviso != "" && c.NumeroAvviso != cur.NumeroAvviso {
			// Well-formed, refused by what the pendenza holds: 422, as
			// GovPay's VER_024.
			return nil, unprocessable("numeroAvviso cannot change once assigned (it is %s)", cur.NumeroAvviso)
		}
		if cur.IDDominio != c.IDDominio {
			if h.model.NoticeInUse(c.IDDominio, cur.NumeroAvviso) {
				return nil, &NoticeInUseError{IDDominio: c.IDDominio, NumeroAvviso: cur.NumeroAvviso}
			}
			id := c.IDDominio + "/" + cur.NumeroAvviso
			fresh, err := h.claim(ctx, actor, claimAvviso, id, holder)
			if errors.Is(err, errTaken) {
				return nil, &NoticeInUseError{IDDominio: c.IDDominio, NumeroAvviso: cur.NumeroAvviso}
			}
			if err != nil {
				return nil, err
			}
			if fresh {
				claims = append(claims, id)
			}
			moved = cur.IDDominio + "/" + cur.NumeroAvviso
		}
		e.NumeroAvviso, e.UUID = cur.NumeroAvviso, cur.UUID
		written = c.IDDominio + "/" + cur.NumeroAvviso
		if reflect.DeepEqual(e, *cur) {
			return nil, nil
		}
		return []events.Event{events.PendenzaUpdated(e)}, nil
	})
	if err != nil && !errors.Is(err, errUnconfirmed) {
		written = "" // nothing was written: every claim is nobody's
	}
	if err == nil && moved != "" && res.Changed {
		h.release(ctx, actor, claimAvviso, moved, holder)
	}
	// A number this call claimed that the pendenza written does not hold
	// is nobody's: a creation that lost to a concurrent one re-decided as
	// an update of the pendenza the other created (or a move), with that
	// one's notice, or the call failed. An append the store did not
	// answer (errUnconfirmed) may have written the last decision: its
	// number stays claimed.
	for _, id := range claims {
		if id != written {
			h.release(ctx, actor, claimAvviso, id, holder)
		}
	}
	return res, err
}

// CreatePendenzaPagamento creates a pendenza on the Pagamento API (POST
// /pendenze/{idDominio}/{idTipoPendenza}): a citizen's (its own payer), an
// anonymous caller's (kept with its session's hash) or an application's in
// its PAGAMENTO scope, of a type that allows it
// (operations.CreatePendenzaPagamento). Its creator is the reserved
// domain.PortalIDA2A and its id is new; it gets a notice number and a UUID
// as every pendenza does. It returns the new idPendenza.
type CreatePendenzaPagamento struct {
	IDDominio      string
	IDTipoPendenza string
	IDUnita        string
	Causale        string
	AmountCents    int64
	Payer          events.Subject
}

func (h *Handler) CreatePendenzaPagamento(ctx context.Context, actor Actor, c CreatePendenzaPagamento) (Result, string, error) {
	p := actor.Principal
	put := PutPendenza{IDA2A: domain.PortalIDA2A, IDPendenza: randomHex(16), IDDominio: c.IDDominio, IDTipoPendenza: c.IDTipoPendenza,
		Causale: c.Causale, AmountCents: c.AmountCents, Payer: c.Payer, IDUnita: c.IDUnita}
	if p.Kind == domain.KindAnonymous {
		put.sessionHash = p.SessionHash
	}
	put.authorize = func(existing *domain.PendenzaView, at domain.Place) error {
		if existing != nil {
			return fmt.Errorf("%w: pendenza %s/%s exists", ErrConflict, put.IDA2A, put.IDPendenza)
		}
		payer := domain.NormalFiscalCode(c.Payer.Identificativo)
		return operations.CreatePendenzaPagamento(h.model, p, at, payer, nil)
	}
	res, err := h.PutPendenza(ctx, actor, put)
	return res, put.IDPendenza, err
}

func validatePendenza(c *PutPendenza) error {
	if err := firstError(
		checkID("idA2A", c.IDA2A),
		checkID("idPendenza", c.IDPendenza),
		CheckDominio("idDominio", c.IDDominio),
		checkID("idTipoPendenza", c.IDTipoPendenza),
	); err != nil {
		return err
	}
	if c.IDUnita != "" {
		if err := checkID("idUnitaOperativa", c.IDUnita); err != nil {
			return err
		}
	}
	if err := checkCausale("causale", c.Causale); err != nil {
		return err
	}
	if err := checkSubject("soggettoPagatore", &c.Payer); err != nil {
		return err
	}
	if c.NumeroAvviso != "" && !ValidAvviso(c.NumeroAvviso) {
		return invalid("numeroAvviso", "must be 18 digits")
	}
	return validateDetails(&c.Details)
}

// checkCausale validates a causale: 1 to 140 characters (GovPay's
// NuovaPendenza) of one line of text, without control characters (a
// newline or a tab included): pagoPA carries it in XML, which cannot hold
// most of them, and prints it on one line of the notice and the receipt.
// It is the one causale rule: a pendenza's, a spontaneous payment's, an
// incasso's and a reconciliation's.
func checkCausale(field, s string) error {
	if s == "" || longerThan(s, 140) {
		return invalidAs(InvalidRequiredChars, field, "is required (at most %d characters)", 140)
	}
	if hasControl(s) {
		return invalidAs(InvalidControl, field, "must not contain control characters")
	}
	return nil
}

// MaxAnagraficaLength bounds a payer's or remitter's anagrafica, in
// characters: GovPay's Soggetto (maxLength 70, the VARCHAR(70) of its
// debitore_anagrafica), which pagoPA's receipts carry as they are.
const MaxAnagraficaLength = 70

// checkSubject validates a payer or remitter and upper-cases its fiscal code.
func checkSubject(field string, s *events.Subject) error {
	if s.Tipo != "F" && s.Tipo != "G" {
		return invalid(field+".tipo", `must be "F" or "G"`)
	}
	s.Identificativo = domain.NormalFiscalCode(s.Identificativo)
	if !domain.ValidFiscalCode(s.Identificativo) && s.Identificativo != domain.AnonymousIdentificativo {
		return invalid(field+".identificativo", "is not a fiscal code")
	}
	if s.Anagrafica == "" || longerThan(s.Anagrafica, MaxAnagraficaLength) {
		return invalidAs(InvalidRequiredChars, field+".anagrafica", "is required (at most %d characters)", MaxAnagraficaLength)
	}
	if longerThan(s.Email, 256) || (s.Email != "" && !reEmail.MatchString(s.Email)) {
		return invalid(field+".email", "is not an e-mail address (GovPay's Soggetto pattern, at most 256 characters)")
	}
	return checkAddress(field, s)
}

// noticeNumber returns want when it is free at idDominio (409 when taken),
// else a random free 18-digit number.
// The number is claimed for holder (see claim.go), so two pendenze
// created at once never get the same one.
func (h *Handler) noticeNumber(ctx context.Context, actor Actor, idDominio, want, holder string) (string, error) {
	take := func(avviso string) error {
		if h.model.NoticeInUse(idDominio, avviso) {
			return errTaken
		}
		_, err := h.claim(ctx, actor, claimAvviso, idDominio+"/"+avviso, holder)
		return err
	}
	if want != "" {
		if err := take(want); errors.Is(err, errTaken) {
			return "", &NoticeInUseError{IDDominio: idDominio, NumeroAvviso: want}
		} else if err != nil {
			return "", err
		}
		return want, nil
	}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(17), nil) // "3" + 17 digits: pagoPA aux digit 3
	for range 16 {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return "", err
		}
		avviso := fmt.Sprintf("3%017d", n)
		switch err := take(avviso); {
		case err == nil:
			return avviso, nil
		case errors.Is(err, errTaken):
		default:
			return "", err
		}
	}
	return "", fmt.Errorf("%w: no free notice number", ErrConflict)
}

// randomHex returns n random bytes as lowercase hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // unrecoverable
	}
	return hex.EncodeToString(b)
}
