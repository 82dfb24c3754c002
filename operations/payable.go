package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// What a caller may pay on the Pagamento API (GET /domini and GET
// /domini/{idDominio}/tipiPendenza, .../unitaOperative): the entities whose
// notices it may ask about, the types it may pay spontaneously there and
// the units in its reach, each kept by the rule its payment is decided by.

// PayableScope keeps the entities and types a Pagamento caller may pay.
type PayableScope struct {
	p domain.Principal
}

// PayableDomini is the gate of GET /domini on the Pagamento API: whoever
// may enter it.
func PayableDomini(p domain.Principal, rec Recorder) (PayableScope, error) {
	return PayableScope{p: p}, check(rec, "CanReadProfile", domain.CanReadProfile(p))
}

// AdmitsDominio reports whether the list shows the entity e: enabled, and
// its notices are the caller's to ask about (domain.CanAskNotice).
func (s PayableScope) AdmitsDominio(e domain.EntityView) bool {
	return e.Enabled && domain.CanAskNotice(s.p, e.IDDominio) == nil
}

// PayableTipi is GET /domini/{idDominio}/tipiPendenza on the Pagamento
// API: the entity must be the caller's to ask about (403 before 404),
// then registered and enabled (else 404).
func PayableTipi(m Registry, p domain.Principal, idDominio string, rec Recorder) (PayableScope, error) {
	if err := check(rec, "CanAskNotice", domain.CanAskNotice(p, idDominio)); err != nil {
		return PayableScope{}, err
	}
	if e, ok := m.EntityView(idDominio); !ok || !e.Enabled {
		return PayableScope{}, missing(rec, nil)
	}
	return PayableScope{p: p}, nil
}

// AdmitsUnit reports whether the list of idDominio's units shows u:
// enabled, and in the caller's reach (domain.CanSeeUnitPagamento).
func (s PayableScope) AdmitsUnit(idDominio string, u events.UnitRegistered) bool {
	return u.Enabled && domain.CanSeeUnitPagamento(s.p, idDominio, u.IDUnita) == nil
}

// AdmitsTipo reports whether the list of idDominio shows the type t:
// enabled, and the caller may pay it spontaneously there
// (domain.CanPaySpontaneous).
func (s PayableScope) AdmitsTipo(idDominio string, t domain.TypeView) bool {
	return t.Enabled && domain.CanPaySpontaneous(s.p, idDominio, t) == nil
}
