package domain

// Pagamento API rules (API.md section 6) for applications (the scope of
// their PAGAMENTO grant, whoever created the pendenza), citizens (what they
// are payer or remitter of) and anonymous callers (notices, spontaneous
// payments and their own session's payments). Every function first denies
// an inactive principal (RuleUnknownPrincipal, RulePrincipalDisabled), and
// an application not authorized on PAGAMENTO (RuleAPIEntry).

// isPayer reports whether the citizen p is the payer id (never for "").
func isPayer(p *Principal, payerID string) bool { return payerID != "" && payerID == p.Name }

// CanReadPendenzaPagamento decides GET /pendenze/{idA2A}/{idPendenza}:
// applications see pendenze in their PAGAMENTO scope (RuleAPIScope),
// citizens those they are payer of (RulePayer), anonymous callers none
// (RuleAnonymous).
func CanReadPendenzaPagamento(p Principal, v PendenzaView) error {
	if err := active(&p); err != nil {
		return err
	}
	switch p.Kind {
	case KindApplication:
		return pendenzaInGrant(&p, APIPagamento, &v)
	case KindCitizen:
		if isPayer(&p, v.PayerID) {
			return nil
		}
		return deny(RulePayer, "a citizen sees only the pendenze it is payer of")
	case KindAnonymous:
		return deny(RuleAnonymous, "anonymous callers cannot read pendenze")
	}
	return deny(RuleAPIEntry, "the caller cannot read pendenze on the PAGAMENTO API")
}

// CanListPendenzePagamento decides whether p may list pendenze at all
// (each listed one is then filtered with CanReadPendenzaPagamento).
func CanListPendenzePagamento(p Principal) error {
	if err := active(&p); err != nil {
		return err
	}
	switch p.Kind {
	case KindApplication:
		_, err := grantScope(&p, APIPagamento)
		return err
	case KindCitizen:
		return nil
	case KindAnonymous:
		return deny(RuleAnonymous, "anonymous callers cannot read pendenze")
	}
	return deny(RuleAPIEntry, "the caller cannot read pendenze on the PAGAMENTO API")
}

// CanPayPendenza decides a payment reference {idA2A, idPendenza}:
// applications in their PAGAMENTO scope, citizens as payer; anonymous
// callers pay only notices and spontaneous payments (RuleAnonymous).
func CanPayPendenza(p Principal, v PendenzaView) error {
	if err := active(&p); err != nil {
		return err
	}
	switch p.Kind {
	case KindApplication:
		return pendenzaInGrant(&p, APIPagamento, &v)
	case KindCitizen:
		if isPayer(&p, v.PayerID) {
			return nil
		}
		return deny(RulePayer, "a citizen pays by id only the pendenze it is payer of")
	case KindAnonymous:
		return deny(RuleAnonymous, "anonymous callers pay only notices and spontaneous payments")
	}
	return deny(RuleAPIEntry, "the caller cannot start payments")
}

// CanPayNotice decides a payment reference {idDominio, numeroAvviso}:
// applications in their PAGAMENTO scope, citizens and anonymous callers any
// notice (a notice number is the bearer's right to pay it).
func CanPayNotice(p Principal, v PendenzaView) error {
	if err := active(&p); err != nil {
		return err
	}
	switch p.Kind {
	case KindApplication:
		return pendenzaInGrant(&p, APIPagamento, &v)
	case KindCitizen, KindAnonymous:
		return nil
	}
	return deny(RuleAPIEntry, "the caller cannot pay notices")
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
		return deny(RuleSpontaneous, "idTipoPendenza %s does not allow spontaneous payments", t.IDTipoPendenza)
	}
	return nil
}

// CanAskSpontaneous decides whether p may name idDominio × idTipo in a
// spontaneous payment at all, before the type is looked up (403 before
// 422): applications need the pair in their PAGAMENTO scope; citizens and
// anonymous callers may name any pair.
func CanAskSpontaneous(p Principal, idDominio, idTipo string) error {
	if err := active(&p); err != nil {
		return err
	}
	switch p.Kind {
	case KindApplication:
		return inGrant(&p, APIPagamento, idDominio, idTipo)
	case KindCitizen, KindAnonymous:
		return nil
	}
	return deny(RuleAPIEntry, "the caller cannot start payments")
}

// CanReadPayment decides GET /pagamenti/{id} on the Pagamento API:
// applications read the payments they started (RulePaymentOwner), citizens
// those where they are payer of an item or the remitter (RulePayer),
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
		return deny(RulePaymentOwner, "an application reads only the payments it started")
	case KindCitizen:
		if isPayer(&p, v.RemitterID) {
			return nil
		}
		for i := range v.Items {
			if isPayer(&p, v.Items[i].PayerID) {
				return nil
			}
		}
		return deny(RulePayer, "a citizen reads only payments it is payer or remitter of")
	case KindAnonymous:
		if v.CallerKind == KindAnonymous && p.SessionHash != "" && ctEqual(v.SessionHash, p.SessionHash) {
			return nil
		}
		return deny(RuleSession, "an anonymous caller reads only its own session's payments")
	}
	return deny(RuleAPIEntry, "the caller cannot read payments")
}

// CanReadNotice decides GET /avvisi/{idDominio}/{numeroAvviso}:
// applications in their PAGAMENTO scope, citizens and anonymous callers any
// notice (the public API's protection, section 7, is checked by HTTP).
func CanReadNotice(p Principal, v PendenzaView) error {
	if err := active(&p); err != nil {
		return err
	}
	switch p.Kind {
	case KindApplication:
		return pendenzaInGrant(&p, APIPagamento, &v)
	case KindCitizen, KindAnonymous:
		return nil
	}
	return deny(RuleAPIEntry, "the caller cannot read notices")
}

// CanAskNotice decides whether p may ask about notices of idDominio before
// the notice is looked up (403 before 404): an application needs idDominio
// in its PAGAMENTO scope; citizens and anonymous callers may ask.
func CanAskNotice(p Principal, idDominio string) error {
	if err := active(&p); err != nil {
		return err
	}
	switch p.Kind {
	case KindApplication:
		g, err := grantScope(&p, APIPagamento)
		if err != nil {
			return err
		}
		if !g.Domini.Contains(idDominio) {
			return deny(RuleAPIScope, "idDominio %s is not in the application's PAGAMENTO scope", idDominio)
		}
		return nil
	case KindCitizen, KindAnonymous:
		return nil
	}
	return deny(RuleAPIEntry, "the caller cannot read notices")
}

// CanReadProfile decides GET /profilo on the Pagamento API: every active
// caller that may enter the API.
func CanReadProfile(p Principal) error { return CanEnterAPI(p, APIPagamento) }
