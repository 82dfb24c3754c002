package operations

import (
	"encoding/json"
	"regexp"
	"strconv"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// EventEntry is one event as the Backoffice's /eventi answers it and the
// audit tool exports it: secrets removed (events.Redact).
type EventEntry struct {
	ID        string          `json:"id"` // EventID: GET /eventi/{id} reads it again
	Posizione uint64          `json:"posizione"`
	Tipo      string          `json:"tipo"`
	Stream    string          `json:"stream"`
	Data      time.Time       `json:"data"`
	Attore    string          `json:"attore"` // always present (API.md section 4): empty for an anonymous caller
	Dati      json.RawMessage `json:"dati"`
}

// NewEventEntry is env's EventEntry.
func NewEventEntry(env events.Envelope) EventEntry {
	return EventEntry{ID: EventID(env.Position, env.Index), Posizione: uint64(env.Position), Tipo: env.Name, Stream: env.Stream, Data: env.Time,
		Attore: env.Actor, Dati: events.Redact(env.Data)}
}

// ReadEventLog is GET /eventi: Giornale degli Eventi R. It returns whether
// the caller sees the whole log; a caller that does not sees each event
// by domain.EventVisible.
func ReadEventLog(p domain.Principal, rec Recorder) (seeAll bool, err error) {
	if err := UseService(p, domain.ServiceGiornaleEventi, domain.RightRead, rec); err != nil {
		return false, err
	}
	return domain.CanReadWholeLog(p) == nil, nil
}

// EventID is the id of the event at index of the commit at position:
// "position" for the first event of a commit, "position.index" for the
// others.
func EventID(position events.Position, index int) string {
	id := strconv.FormatUint(uint64(position), 10)
	if index > 0 {
		id += "." + strconv.Itoa(index)
	}
	return id
}

// MaxEventIndex is the largest index of an event in its commit an
// EventID may name.
const MaxEventIndex = 1 << 20

// reEventID is an EventID's spelling: a position from 1 of at most 20
// digits, then maybe "." and an index of at most 7, neither with a leading
// zero. What it cannot say, ParseEventID checks after it: the position
// within 64 bits, the index at most MaxEventIndex.
var reEventID = regexp.MustCompile(`^([1-9][0-9]{0,19})(?:\.(0|[1-9][0-9]{0,6}))?$`)

// PatternEventID is reEventID, for the OpenAPI document.
var PatternEventID = reEventID.String()

// ParseEventID parses an EventID ("position", "position.index"); ok is
// false for anything else (a position is at least 1, "position.0" is
// "position" spelled out).
func ParseEventID(id string) (position events.Position, index int, ok bool) {
	m := reEventID.FindStringSubmatch(id)
	if m == nil {
		return 0, 0, false
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if m[2] != "" {
		if index, err = strconv.Atoi(m[2]); err != nil || index > MaxEventIndex {
			return 0, 0, false
		}
	}
	return events.Position(n), index, true
}

// ReadEvent is GET /eventi/{id}: Giornale degli Eventi R (ReadEventLog),
// then the event, whose places lookup finds: a caller who sees the whole
// log reads any event and learns that one is missing; any other reads the
// events of places in its roles' scope (domain.CanReadEvent, as the list
// keeps them by domain.EventVisible) and is denied a missing one like one
// outside its scope.
func ReadEvent(p domain.Principal, places func() ([]domain.Place, bool), rec Recorder) error {
	seeAll, err := ReadEventLog(p, rec)
	pl, err := find(rec, err, places, func() error { placed(rec, everywhere); return domain.CanLearnMissingEvent(p) })
	if err == nil && (seeAll || len(pl) == 0) {
		placed(rec, everywhere) // the whole log; a registry event, which only it holds
	}
	if err != nil || seeAll {
		return err
	}
	for _, at := range pl {
		placed(rec, at)
	}
	return check(rec, "CanReadEvent", domain.CanReadEvent(p, pl))
}

// Audit is the gate of the auditors' endpoints (POST
// /autorizzazioni/verifica, GET /autorizzazioni): Giornale degli Eventi R,
// decided before the question is read.
func Audit(p domain.Principal, rec Recorder) error {
	return UseService(p, domain.ServiceGiornaleEventi, domain.RightRead, rec)
}

// AuditWholeLog decides whether auditor p may ask about the whole log
// (what-can of any principal, the verifiable log's checkpoints and proofs):
// Giornale degli Eventi R on every entity and type (domain.CanReadWholeLog:
// a question about the whole log, denied as such).
func AuditWholeLog(p domain.Principal, rec Recorder) error {
	needs(rec, domain.ServiceGiornaleEventi, domain.RightRead)
	placed(rec, everywhere)
	return check(rec, "CanReadWholeLog", domain.CanReadWholeLog(p))
}

// AuditResource decides whether auditor p may ask about a resource lying
// at places (at the asked position): domain.CanAudit.
func AuditResource(p domain.Principal, places []domain.Place, rec Recorder) error {
	return check(rec, "CanAudit", domain.CanAudit(p, places))
}
