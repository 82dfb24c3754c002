package domain

import "errors"

// A resource that does not exist has no idDominio or idTipoPendenza to
// check, so "may the caller ask for it?" cannot be answered from the
// resource. API.md section 2 puts authorization before existence: only a
// caller whose scope reaches every place the resource could be in learns
// that it is missing (404); anyone else gets the same 403 as for an
// existing resource outside its scope, so existence never leaks.

// CanLearnMissingInGrant decides whether application p learns that a
// pendenza or notice is missing on api. idDominio is the entity the caller
// named ("" when the path names none): the grant must contain it (or be
// all entities) and reach every pendenza type.
func CanLearnMissingInGrant(p Principal, api API, idDominio string) error {
	g, err := grantScope(&p, api)
	if err != nil {
		return err
	}
	if (idDominio == "" && !g.Domini.IsAll()) || (idDominio != "" && !g.Domini.Contains(idDominio)) || !g.Tipi.IsAll() {
		return denyPendenzaOutsideGrant(api) // as for a stored one outside the scope
	}
	return nil
}

// CanLearnMissingOwnNotice decides whether application p learns that a
// notice at idDominio is missing on the Pendenze API, where it reads only
// the pendenze it created: within its PENDENZE grant over idDominio and
// every type (CanLearnMissingInGrant); elsewhere it gets the denial of a
// notice another application created (CanReadOwnPendenza), so a 403
// never tells a missing notice from another's.
func CanLearnMissingOwnNotice(p Principal, idDominio string) error {
	if CanLearnMissingInGrant(p, APIPendenze, idDominio) != nil {
		return CanReadOwnPendenza(p, PendenzaView{})
	}
	return nil
}

// CanLearnMissingAtPlace is CanLearnMissingInGrant for the Backoffice's
// resources that lie at a place (a pendenza named by id; a receipt or a
// collection of idDominio): one role giving r on s must cover every place
// the resource could lie at: every entity and type when idDominio is "",
// else idDominio whole, which is CanOnPlace of the entity alone. Denied,
// it is CanOnPlace's denial of a stored one outside the scope, rule and
// detail alike, so a 403 never tells a missing resource from another's.
func CanLearnMissingAtPlace(p Principal, s Service, r Right, idDominio string) error {
	if idDominio != "" {
		return CanOnPlace(p, s, r, Place{IDDominio: idDominio})
	}
	return inRoleScope(&p, s, r, coversEverywhere, func() error { return denyRight(detailPendenzaScope, s, r) })
}

// CanLearnMissingInRoles decides whether p may learn of whatever lies
// anywhere (the whole event log): one role of p must give right on s over
// every entity and every type.
func CanLearnMissingInRoles(p Principal, s Service, r Right) error {
	return inRoleScope(&p, s, r, coversEverywhere, func() error { return denyRight(detailMissingScope, s, r) })
}

// coversEverywhere reports whether role's scope is every entity and every
// type: what learning of something that could lie anywhere needs.
func coversEverywhere(role *Role) bool { return role.Domini.IsAll() && role.Tipi.IsAll() }

// ErrNotFound is the answer about a resource that does not exist, given
// once the caller may learn that it is missing (HTTP 404).
var ErrNotFound = errors.New("resource not found")

// Missing is the missing-resource rule (API.md section 2: 403 before 404):
// canLearn is the decision whether the caller may learn that the resource
// is missing; a denial is the answer, else ErrNotFound. Every operation
// answers a missing resource through it.
func Missing(canLearn error) error {
	if canLearn != nil {
		return canLearn
	}
	return ErrNotFound
}

// CanLearnMissingPendenzaPagamento decides whether p learns that a
// pendenza named by id on the Pagamento API is missing: an application
// when its PAGAMENTO grant reaches every entity and type; a citizen or an
// anonymous caller never, and gets decide's denial for a pendenza that is
// not theirs (decide is the operation's decision on an existing pendenza,
// e.g. CanReadPendenzaPagamento or CanPayPendenza).
func CanLearnMissingPendenzaPagamento(p Principal, decide func(Principal, PendenzaView) error) error {
	if p.Kind == KindApplication {
		return CanLearnMissingInGrant(p, APIPagamento, "")
	}
	if err := decide(p, PendenzaView{}); err != nil {
		return err
	}
	return deny(RuleAPIEntry, DenyAskPendenzaByID, "the caller cannot ask about pendenze by id")
}

// CanLearnMissingNotice decides whether p learns that a notice number at
// idDominio is missing: an application within its PAGAMENTO scope over
// every type of idDominio; citizens and anonymous callers always (a notice
// number is what they pay by).
func CanLearnMissingNotice(p Principal, idDominio string) error {
	if p.Kind == KindApplication {
		return CanLearnMissingInGrant(p, APIPagamento, idDominio)
	}
	return nil
}

// CanLearnMissingPaymentPagamento decides whether p learns that a payment
// id is missing on the Pagamento API: an application that may read a
// payment it started (payment ids are unguessable, and it asks about
// those); a citizen or an anonymous caller never, and gets the denial of
// a payment not theirs.
func CanLearnMissingPaymentPagamento(p Principal) error {
	if p.Kind == KindApplication {
		return CanReadPayment(p, PaymentView{CallerKind: KindApplication, CallerID: p.IDA2A})
	}
	if err := CanReadPayment(p, PaymentView{}); err != nil {
		return err
	}
	return deny(RuleAPIEntry, DenyAskPaymentByID, "the caller cannot ask about payments by id")
}
