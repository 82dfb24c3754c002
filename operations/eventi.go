package operations

import (
	"encoding/json"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// EventEntry is one event as the Backoffice's /eventi answers it and the
// audit tool exports it: secrets removed (events.Redact).
type EventEntry struct {
	Posizione uint64          `json:"posizione"`
	Tipo      string          `json:"tipo"`
	Stream    string          `json:"stream"`
	Data      time.Time       `json:"data"`
	Attore    string          `json:"attore,omitempty"`
	Dati      json.RawMessage `json:"dati"`
}

// NewEventEntry is env's EventEntry.
func NewEventEntry(env events.Envelope) EventEntry {
	return EventEntry{Posizione: uint64(env.Position), Tipo: env.Name, Stream: env.Stream, Data: env.Time,
		Attore: env.Actor, Dati: events.Redact(env.Data)}
}

// ReadEventLog is GET /eventi: Giornale degli Eventi R. It returns whether
// the caller sees the whole log; a caller that does not sees each event
// by EventVisible.
func ReadEventLog(p domain.Principal, rec Recorder) (seeAll bool, err error) {
	if err := UseService(p, domain.ServiceGiornaleEventi, domain.RightRead, rec); err != nil {
		return false, err
	}
	return domain.CanReadWholeLog(p) == nil, nil
}

// EventVisible decides whether p, admitted by ReadEventLog, sees e.
func EventVisible(p domain.Principal, seeAll bool, e events.Event) bool {
	if seeAll {
		return true
	}
	var buf [4]domain.Place
	return domain.CanReadEvent(p, PlacesOf(e, buf[:0])) == nil
}

// PlacesOf appends to out the places e concerns (none for the registries
// of types, intermediaries, roles, principals and settings).
func PlacesOf(e events.Event, out []domain.Place) []domain.Place {
	switch t := e.(type) {
	case events.CreditorEntityRegistered:
		return append(out, domain.Place{IDDominio: t.IDDominio})
	case events.CreditorEntityUpdated:
		return append(out, domain.Place{IDDominio: t.IDDominio})
	case events.PendenzaCreated:
		return append(out, domain.Place{IDDominio: t.IDDominio, IDTipoPendenza: t.IDTipoPendenza})
	case events.PendenzaUpdated:
		return append(out, domain.Place{IDDominio: t.IDDominio, IDTipoPendenza: t.IDTipoPendenza})
	case events.PendenzaStatusChanged:
		return append(out, domain.Place{IDDominio: t.IDDominio, IDTipoPendenza: t.IDTipoPendenza})
	case events.ReceiptRecorded:
		return append(out, domain.Place{IDDominio: t.IDDominio})
	case events.SettlementReportRecorded:
		return append(out, domain.Place{IDDominio: t.IDDominio})
	case events.ReconciliationCreated:
		return append(out, domain.Place{IDDominio: t.IDDominio})
	case events.PaymentStarted:
		for _, it := range t.Items {
			out = append(out, domain.Place{IDDominio: it.IDDominio, IDTipoPendenza: it.IDTipoPendenza})
		}
	}
	return out
}

// Audit is the gate of the auditors' endpoints (POST
// /autorizzazioni/verifica, GET /autorizzazioni): Giornale degli Eventi R,
// decided before the question is read.
func Audit(p domain.Principal, rec Recorder) error {
	return UseService(p, domain.ServiceGiornaleEventi, domain.RightRead, rec)
}

// AuditWholeLog decides whether auditor p may ask about the whole log
// (what-can of any principal, the verifiable log's checkpoints and proofs):
// Giornale degli Eventi R on every entity, domain.CanAudit of no entity.
func AuditWholeLog(p domain.Principal, rec Recorder) error {
	return AuditResource(p, nil, rec)
}

// AuditResource decides whether auditor p may ask about a resource
// touching the entities domini (at the asked position): domain.CanAudit.
func AuditResource(p domain.Principal, domini []string, rec Recorder) error {
	return check(rec, "CanAudit", domain.CanAudit(p, domini))
}
