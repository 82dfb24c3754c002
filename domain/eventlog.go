package domain

import "github.com/payauthz/payauthz/events"

// Event-log and audit scoping (API.md section 4, Giornale degli Eventi):
// who may read which events of the log, and which auditors' questions.

// Place is where an event or a resource lies for scoping: its creditor
// entity, the entity's operational unit ("" for none: then only a scope
// over the whole entity reaches it) and, for pendenze and payments, the
// pendenza type ("" where types do not apply).
type Place struct {
	IDDominio      string
	IDUnita        string
	IDTipoPendenza string
}

// CanReadWholeLog decides whether p sees every event of the log, registry
// events included: a role giving Giornale degli Eventi R over every entity
// and every type.
func CanReadWholeLog(p Principal) error {
	return CanLearnMissingInRoles(p, ServiceGiornaleEventi, RightRead)
}

// CanReadEvent decides whether p, which does not see the whole log, sees
// an event at places: every place in the scope of a role giving Giornale
// degli Eventi R (by entity and unit, and by type where one applies). An
// event with no place (the registries of types, intermediaries, roles,
// principals and settings) is denied. Every denial is the same, naming
// no place: an event's places are other callers' data, and a missing
// event is denied alike (CanLearnMissingEvent).
func CanReadEvent(p Principal, places []Place) error {
	if err := HasServiceRight(p, ServiceGiornaleEventi, RightRead); err != nil {
		return err
	}
	if len(places) == 0 {
		return denyRight(detailEventScope, ServiceGiornaleEventi, RightRead)
	}
	for i := range places {
		if !roleCovers(&p, ServiceGiornaleEventi, RightRead, &places[i]) {
			return denyRight(detailEventScope, ServiceGiornaleEventi, RightRead)
		}
	}
	return nil
}

// CanLearnMissingEvent decides whether p learns that an event id is
// missing: a missing event could lie anywhere, so only a caller that sees
// the whole log does (CanReadWholeLog); any other gets CanReadEvent's
// denial of an event outside its scope, so that a 403 never tells a
// missing event from another's.
func CanLearnMissingEvent(p Principal) error {
	if CanReadWholeLog(p) != nil {
		return CanReadEvent(p, nil)
	}
	return nil
}

// EventVisible decides whether p, admitted to the event log (Giornale
// degli Eventi R), sees e: any event when it sees the whole log (seeAll,
// CanReadWholeLog), else by CanReadEvent at e's places (PlacesOf). It
// does not allocate for an event of up to four places.
func EventVisible(p Principal, seeAll bool, e events.Event) bool {
	if seeAll {
		return true
	}
	var buf [4]Place
	return CanReadEvent(p, PlacesOf(e, buf[:0])) == nil
}

// PlacesOf appends to out the places e concerns, each where a read of the
// resource it makes decides that resource lies (a receipt at its
// ReceiptPlace, a payment at every item's place); none for the registries
// of types, intermediaries, roles, principals and settings.
func PlacesOf(e events.Event, out []Place) []Place {
	switch t := e.(type) {
	case events.CreditorEntityRegistered:
		return append(out, Place{IDDominio: t.IDDominio})
	case events.CreditorEntityUpdated:
		return append(out, Place{IDDominio: t.IDDominio})
	case events.UnitRegistered:
		return append(out, Place{IDDominio: t.IDDominio, IDUnita: t.IDUnita})
	case events.UnitUpdated:
		return append(out, Place{IDDominio: t.IDDominio, IDUnita: t.IDUnita})
	case events.PendenzaCreated:
		return append(out, Place{IDDominio: t.IDDominio, IDUnita: t.IDUnitaOperativa, IDTipoPendenza: t.IDTipoPendenza})
	case events.PendenzaUpdated:
		return append(out, Place{IDDominio: t.IDDominio, IDUnita: t.IDUnitaOperativa, IDTipoPendenza: t.IDTipoPendenza})
	case events.PendenzaStatusChanged:
		return append(out, Place{IDDominio: t.IDDominio, IDUnita: t.IDUnitaOperativa, IDTipoPendenza: t.IDTipoPendenza})
	case events.ReceiptRecorded:
		return append(out, ReceiptPlace(&t))
	case events.SettlementReportRecorded:
		return append(out, Place{IDDominio: t.IDDominio})
	case events.ReconciliationCreated:
		return append(out, Place{IDDominio: t.IDDominio})
	case events.IncassoRecorded:
		return append(out, Place{IDDominio: t.IDDominio})
	case events.PaymentStarted:
		for _, it := range t.Items {
			out = append(out, Place{IDDominio: it.IDDominio, IDUnita: it.IDUnitaOperativa, IDTipoPendenza: it.IDTipoPendenza})
		}
	}
	return out
}

// ReceiptPlace is where a receipt (or collection) lies: its entity and the
// unit of the pendenza it pays. Its event in the log lies there too
// (PlacesOf).
func ReceiptPlace(e *events.ReceiptRecorded) Place {
	return Place{IDDominio: e.IDDominio, IDUnita: e.IDUnitaOperativa}
}

// CanAudit decides whether auditor p may ask about a resource lying at
// places (at the asked position): each place scoped as the event log
// scopes its events (CanReadEvent: by entity and unit, and by type where
// one applies), so an auditor asks about what it could read in the log;
// a resource that lies nowhere (a registry, a pendenza or payment that
// does not exist) needs the whole log (CanReadWholeLog), and any other
// auditor is denied it as a resource outside its scope
// (CanLearnMissingEvent), so that a denial never tells a missing resource
// from another entity's.
func CanAudit(p Principal, places []Place) error {
	if len(places) == 0 {
		return CanLearnMissingEvent(p)
	}
	return CanReadEvent(p, places)
}
