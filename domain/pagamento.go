package domain

// Pagamento API rules (API.md section 6) for applications (the scope of
// their PAGAMENTO grant, whoever created the pendenza), citizens (what they
// are payer or remitter of) and anonymous callers (notices, spontaneous
// payments and their own session's payments). Every function first denies
// an inactive principal (RuleUnknownPrincipal, RulePrincipalDisabled), and
// an application not authorized on PAGAMENTO (RuleAPIEntry).

// isPayer reports whether the citizen p is the payer id (never for "").
func isPayer(p *Principal, payerID string) bool { return payerID != "" && payerID == p.Name }

// kindRule is what one Pagamento API rule answers each kind of caller, as
// data; the application's check, which differs per rule, is passed to
// decide. The messages are those of the denials.
type kindRule struct {
	citizenPayer bool    // citizens must be payer (RulePayer); else any citizen may
	citizen      message // the RulePayer denial, when citizenPayer
	anonymous    message // the RuleAnonymous denial; none lets anonymous callers through
	entry        message // the RuleAPIEntry denial for any other kind of caller
}

// message is a denial's message without arguments and its code.
type message struct{ code, detail string }

// The messages more than one rule denies with.
var (
	anonymousRead = message{DenyAnonymousRead, "anonymous callers cannot read pendenze"}
	readPendenze  = message{DenyReadPendenze, "the caller cannot read pendenze on the PAGAMENTO API"}
	startPayment  = message{DenyStartPayment, "the caller cannot start payments"}
)

// The Pagamento API rules that differ only in what they answer whom.
var (
	readPendenzaPagamento = kindRule{citizenPayer: true,
		citizen: message{DenyCitizenNotPayer, "a citizen sees only the pendenze it is payer of"},
		// Not reached: CanReadPendenzaPagamento decides anonymous callers
		// by their session. Kept so that the rule fails closed.
		anonymous: anonymousRead,
		entry:     readPendenze}
	listPendenzePagamento = kindRule{anonymous: anonymousRead, entry: readPendenze}
	payPendenza           = kindRule{citizenPayer: true,
		citizen:   message{DenyCitizenPays, "a citizen pays by id only the pendenze it is payer of"},
		anonymous: message{DenyAnonymousPays, "anonymous callers pay only notices and spontaneous payments"},
		entry:     startPayment}
	payNotice      = kindRule{entry: message{DenyPayNotice, "the caller cannot pay notices"}}
	askSpontaneous = kindRule{entry: startPayment}
	// createPendenza is POST /pendenze/{idDominio}/{idTipoPendenza}.
	createPendenza = kindRule{citizenPayer: true,
		citizen: message{DenyCitizenCreates, "a citizen creates pendenze only with itself as payer"},
		entry:   message{DenyCreatePendenze, "the caller cannot create pendenze on the PAGAMENTO API"}}
	readNotice = kindRule{entry: message{DenyReadNotice, "the caller cannot read notices"}}
)

// DenyStartingPayments is the denial of a caller whose kind starts no
// payment (RuleAPIEntry): the one commands answers for a kind the
// Pagamento rules do not know, behind the operation's gate.
func DenyStartingPayments() error {
	return deny(RuleAPIEntry, startPayment.code, startPayment.detail)
}

// decide denies an inactive p, then asks app for an application, and
// answers citizens (payer payerID) and anonymous callers as r says.
func (r *kindRule) decide(p *Principal, payerID string, app func() error) error {
	if err := active(p); err != nil {
		return err
	}
	switch p.Kind {
	case KindApplication:
		return app()
	case KindCitizen:
		if !r.citizenPayer || isPayer(p, payerID) {
			return nil
		}
		return deny(RulePayer, r.citizen.code, r.citizen.detail)
	case KindAnonymous:
		if r.anonymous == (message{}) {
			return nil
		}
		return deny(RuleAnonymous, r.anonymous.code, r.anonymous.detail)
	}
	return deny(RuleAPIEntry, r.entry.code, r.entry.detail)
}

// CanReadPendenzaPagamento decides GET /pendenze/{idA2A}/{idPendenza}:
// applications see pendenze in their PAGAMENTO scope (RuleAPIScope),
// citizens those they are payer of (RulePayer), anonymous callers only
// those their own session created (RuleSession, compared in constant
// time). Every other pendenza is denied to an anonymous caller alike,
// another session's, one no session created and (through
// CanLearnMissingPendenzaPagamento) a missing one: the detail never tells
// it which of them an id is.
func CanReadPendenzaPagamento(p Principal, v PendenzaView) error {
	if p.Kind == KindAnonymous {
		if err := active(&p); err != nil {
			return err
		}
		if inSession(&p, v.SessionHash) {
			return nil
		}
		return deny(RuleSession, DenySessionPendenza, "an anonymous caller reads only the pendenze its own session created")
	}
	return readPendenzaPagamento.decide(&p, v.PayerID, func() error { return pendenzaInGrant(&p, APIPagamento, &v) })
}

// inSession reports whether sessionHash is the anonymous p's own,
// non-empty session, compared in constant time.
func inSession(p *Principal, sessionHash string) bool {
	return p.SessionHash != "" && ctEqual(sessionHash, p.SessionHash)
}

// CanCreatePendenzaPagamento decides POST /pendenze/{idDominio}/
// {idTipoPendenza} on the Pagamento API, a pendenza at the place at of the
// registered, enabled type t with payer payerID: an application needs the
// place in its PAGAMENTO scope (RuleAPIScope), a citizen must be the payer
// (RulePayer), an anonymous caller may (the pendenza is its session's);
// then for everyone the type must allow spontaneous payments
// (RuleSpontaneous).
func CanCreatePendenzaPagamento(p Principal, at Place, t TypeView, payerID string) error {
	if err := CanAskCreatePendenzaPagamento(p, at, payerID); err != nil {
		return err
	}
	if !t.Spontaneous {
		return deny(RuleSpontaneous, DenyPayerCreated, "idTipoPendenza %s does not allow pendenze created by the payer", t.IDTipoPendenza)
	}
	return nil
}

// CanAskCreatePendenzaPagamento is CanCreatePendenzaPagamento's caller
// rule, decided before the entity, type and unit are looked up (403 before
// 422): an application needs the place in its PAGAMENTO scope, a citizen
// must be the payer, an anonymous caller may.
func CanAskCreatePendenzaPagamento(p Principal, at Place, payerID string) error {
	return createPendenza.decide(&p, payerID, func() error {
		return inGrant(&p, APIPagamento, at.IDDominio, at.IDUnita, at.IDTipoPendenza)
	})
}

// CanAskPendenzaPagamento is the gate of GET /pendenze/{idA2A}/{idPendenza}
// before the lookup: CanListPendenzePagamento's, but an anonymous caller
// may ask (the stored pendenza's session decides).
func CanAskPendenzaPagamento(p Principal) error {
	if p.Kind == KindAnonymous {
		return nil
	}
	return CanListPendenzePagamento(p)
}

// CanListPendenzePagamento decides whether p may list pendenze at all
// (each listed one is then filtered with CanReadPendenzaPagamento).
func CanListPendenzePagamento(p Principal) error {
	return listPendenzePagamento.decide(&p, "", func() error {
		_, err := grantScope(&p, APIPagamento)
		return err
	})
}

// CanPayPendenza decides a payment reference {idA2A, idPendenza}:
// applications in their PAGAMENTO scope, citizens as payer; anonymous
// callers pay only notices and spontaneous payments (RuleAnonymous).
func CanPayPendenza(p Principal, v PendenzaView) error {
	return payPendenza.decide(&p, v.PayerID, func() error { return pendenzaInGrant(&p, APIPagamento, &v) })
}

// CanPayNotice decides a payment reference {idDominio, numeroAvviso}:
// applications in their PAGAMENTO scope, citizens and anonymous callers any
// notice (a notice number is the bearer's right to pay it).
func CanPayNotice(p Principal, v PendenzaView) error {
	return payNotice.decide(&p, "", func() error { return pendenzaInGrant(&p, APIPagamento, &v) })
}

// CanPaySpontaneous decides a spontaneous payment of type t at idDominio:
// an application needs the pair in its PAGAMENTO scope (RuleAPIScope,
// checked first), and for everyone the type must be marked
// pagamentoSpontaneo (RuleSpontaneous). Citizens and anonymous callers may
// pay any such type at any entity. Whether the entity and the type are
// registered and enabled is not asked here: an unknown or disabled one is
// semantically invalid (422), answered before this decision by
// operations.PaySpontaneous, so t is always a registered, enabled type.
func CanPaySpontaneous(p Principal, idDominio string, t TypeView) error {
	if err := CanAskSpontaneous(p, idDominio, t.IDTipoPendenza); err != nil {
		return err
	}
	if !t.Spontaneous {
		return deny(RuleSpontaneous, DenyNotSpontaneous, "idTipoPendenza %s does not allow spontaneous payments", t.IDTipoPendenza)
	}
	return nil
}

// CanAskSpontaneous decides whether p may name idDominio × idTipo in a
// spontaneous payment at all, before the type is looked up (403 before
// 422): applications need the pair in their PAGAMENTO scope; citizens and
// anonymous callers may name any pair.
func CanAskSpontaneous(p Principal, idDominio, idTipo string) error {
	return askSpontaneous.decide(&p, "", func() error { return inGrant(&p, APIPagamento, idDominio, "", idTipo) })
}

// CanReadPayment decides GET /pagamenti/{id} on the Pagamento API:
// applications read the payments they started (RulePaymentOwner), citizens
// those where they are payer of an item or the remitter (isRemitter: never
// of an anonymous payment) (RulePayer; which items they are shown is
// CanSeePaymentItem's, whether the remitter CanSeeRemitter's),
// anonymous callers those started in their own, non-empty session, compared
// in constant time (RuleSession).
func CanReadPayment(p Principal, v PaymentView) error {
	if err := active(&p); err != nil {
		return err
	}
	switch p.Kind {
	case KindApplication:
		if _, err := grantScope(&p, APIPagamento); err != nil {
			return err
		}
		if v.CallerKind == KindApplication && v.CallerID == p.IDA2A {
			return nil
		}
		return deny(RulePaymentOwner, DenyPaymentOwner, "an application reads only the payments it started")
	case KindCitizen:
		if isRemitter(&p, &v) {
			return nil
		}
		for i := range v.Items {
			if isPayer(&p, v.Items[i].PayerID) {
				return nil
			}
		}
		return deny(RulePayer, DenyPaymentPayer, "a citizen reads only payments it is payer or remitter of")
	case KindAnonymous:
		if v.CallerKind == KindAnonymous && inSession(&p, v.SessionHash) {
			return nil
		}
		return deny(RuleSession, DenySessionPayment, "an anonymous caller reads only its own session's payments")
	}
	return deny(RuleAPIEntry, DenyReadPayments, "the caller cannot read payments")
}

// CanSeePaymentItem reports whether p, which may read the payment v
// (CanReadPayment), is shown its item i (an index in v.Items): the
// application or session that started it and its remitter every item, a
// citizen that is only payer the items it is payer of (the others are
// other payers' pendenze, which paying with them does not make its own;
// GovPay shows a payment to its remitter alone); no other caller is shown
// any.
func CanSeePaymentItem(p Principal, v PaymentView, i int) bool {
	switch p.Kind {
	case KindApplication, KindAnonymous:
		return true
	case KindCitizen:
		return isRemitter(&p, &v) || (i < len(v.Items) && isPayer(&p, v.Items[i].PayerID))
	}
	return false
}

// CanSeeRemitter reports whether p, which may read the payment v on the
// Pagamento API (CanReadPayment), is shown its remitter (soggettoVersante:
// a fiscal code, a name, an email): the application or session that
// started it (what it gave) and the citizen that is its remitter
// (isRemitter); not a citizen that reads it only as payer of some of its
// items, which is told those items are paid, not who paid them, another
// person's data it has no need of; no other caller. A Backoffice operator
// or Ragioneria reader, whose scope over the payment's items its own API
// decides, is not asked: the remitter paid those entities.
func CanSeeRemitter(p Principal, v PaymentView) bool {
	switch p.Kind {
	case KindApplication, KindAnonymous:
		return true
	case KindCitizen:
		return isRemitter(&p, &v)
	}
	return false
}

// isRemitter reports whether the citizen p is the remitter of v: its
// soggettoVersante, unless an anonymous caller started it. What an
// anonymous caller gives as soggettoVersante is its own say (GovPay
// stores an anonymous payment's remitter as ANONIMO): it makes no citizen
// the remitter, else anyone could show a citizen a payment, every item of
// it included, that the citizen never made.
func isRemitter(p *Principal, v *PaymentView) bool {
	return v.CallerKind != KindAnonymous && isPayer(p, v.RemitterID)
}

// CanListPaymentsPagamento decides GET /pagamenti on the Pagamento API at
// all: every active caller that may enter the API lists (each listed
// payment is then kept by CanReadPayment).
func CanListPaymentsPagamento(p Principal) error { return CanEnterAPI(p, APIPagamento) }

// CanReadNotice decides GET /avvisi/{idDominio}/{numeroAvviso}:
// applications in their PAGAMENTO scope, citizens and anonymous callers any
// notice (the public API's protection, section 7, is checked by HTTP).
func CanReadNotice(p Principal, v PendenzaView) error {
	return readNotice.decide(&p, "", func() error { return pendenzaInGrant(&p, APIPagamento, &v) })
}

// CanAskNotice decides whether p may ask about notices of idDominio before
// the notice is looked up (403 before 404): an application needs idDominio
// in its PAGAMENTO scope; citizens and anonymous callers may ask.
func CanAskNotice(p Principal, idDominio string) error {
	return readNotice.decide(&p, "", func() error { return reachedIn(&p, APIPagamento, idDominio, EntityScope.Reaches) })
}

// CanSeeUnitPagamento decides whether GET /domini/{idDominio}/unitaOperative
// on the Pagamento API lists unit idUnita of idDominio to p: an
// application when its PAGAMENTO scope holds the entity whole or that
// unit (RuleAPIScope otherwise); citizens and anonymous callers every
// unit (of an entity they may ask about, CanAskNotice).
func CanSeeUnitPagamento(p Principal, idDominio, idUnita string) error {
	return readNotice.decide(&p, "", func() error { return reachedAt(&p, APIPagamento, idDominio, idUnita) })
}

// CanReadProfile decides GET /profilo on the Pagamento API: every active
// caller that may enter the API.
func CanReadProfile(p Principal) error { return CanEnterAPI(p, APIPagamento) }
