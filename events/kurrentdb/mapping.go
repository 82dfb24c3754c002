package kurrentdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	kdb "github.com/kurrent-io/KurrentDB-Client-Go/kurrentdb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/payauthz/payauthz/events"
)

// schemes are the connection-string schemes that select this store.
var schemes = []string{"kurrentdb", "kurrentdb+discover", "esdb", "esdb+discover", "kdb", "kdb+discover",
	"kurrent", "kurrent+discover"}

// IsConnectionString reports whether s names this store by its scheme
// (kurrentdb://, esdb://, their +discover forms, and the client's kdb:// and
// kurrent:// aliases). It does not validate the rest; ParseConnectionString
// does.
func IsConnectionString(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	if !ok {
		return false
	}
	scheme = strings.ToLower(scheme)
	for _, sc := range schemes {
		if scheme == sc {
			return true
		}
	}
	return false
}

// ParseConnectionString parses a KurrentDB connection string into the
// client's configuration. Its errors never repeat the string, which may
// hold a password.
func ParseConnectionString(s string) (*kdb.Configuration, error) {
	if !IsConnectionString(s) {
		return nil, errors.New("kurrentdb: not a kurrentdb:// or esdb:// connection string")
	}
	conf, err := kdb.ParseConnectionString(s)
	if err != nil {
		return nil, fmt.Errorf("kurrentdb: connection string: %s", parseProblem(s, err))
	}
	if err := conf.Validate(); err != nil {
		return nil, fmt.Errorf("kurrentdb: connection string: %w", err)
	}
	return conf, nil
}

// Redact returns s with the password of a connection string masked, for
// logs and error messages.
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if start, end, ok := userinfo(s); ok {
			return s[:start] + "xxxxx" + s[end:]
		}
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// userinfo returns where the user information of connection string s
// lies, whether s parses as a URL or not: after "://", up to the last "@".
// ok is false when s holds none.
func userinfo(s string) (start, end int, ok bool) {
	i, at := strings.Index(s, "://"), strings.LastIndex(s, "@")
	if i < 0 || at < i+3 {
		return 0, 0, false
	}
	return i + 3, at, true
}

// parseProblem is the client's complaint about connection string s,
// without its password. The client returns url.Parse's errors as they
// are, and they quote the whole string: such a complaint is told by the
// problem alone, as url.Parse finds it with the user information put
// aside, so that not even the part of a password that breaks the URL's
// syntax is repeated.
func parseProblem(s string, err error) string {
	var uerr *url.Error
	start, end, ok := userinfo(s)
	if !errors.As(err, &uerr) || !ok {
		return redact(s, err.Error())
	}
	if _, err := url.Parse(s[:start] + "user" + s[end:]); errors.As(err, &uerr) {
		return uerr.Err.Error()
	}
	return "the user name or password is not valid in a URL (percent-encode its reserved characters)"
}

// redact removes the password of s from msg.
func redact(s, msg string) string {
	u, err := url.Parse(s)
	if err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}

// streamName is the KurrentDB stream of an aggregate stream.
func streamName(prefix, stream string) string { return prefix + stream }

// aggregateOf is the aggregate stream of a KurrentDB stream, and whether the
// stream belongs to this store.
func aggregateOf(prefix, name string) (string, bool) {
	s, ok := strings.CutPrefix(name, prefix)
	if !ok || s == "" {
		return "", false
	}
	return s, true
}

// isSystem reports a KurrentDB system event: its type or its stream starts
// with "$" (stats, metadata, links, projections' outputs).
func isSystem(eventType, streamID string) bool {
	return strings.HasPrefix(eventType, "$") || strings.HasPrefix(streamID, "$")
}

// expectedState translates the port's expected version into KurrentDB's
// expected stream state.
func expectedState(e events.Expected) kdb.StreamState {
	if e.NoStream() {
		return kdb.NoStream{}
	}
	return kdb.Revision(uint64(e.Version()) - 1)
}

// versionOf is the port's Version of a commit whose last event has the
// given stream revision.
func versionOf(lastRevision uint64) events.Version { return events.Version(lastRevision + 1) }

// startOf is where a subscription to $all starts to hand out the events
// after p (exclusive): the beginning for 0, never the end.
func startOf(p events.Position) kdb.AllPosition {
	if p == 0 {
		return kdb.Start{}
	}
	return kdb.Position{Commit: uint64(p), Prepare: uint64(p)}
}

// positionOf is the port's Position of a recorded event's $all position,
// and false when the server did not report one (EventStoreDB before 22.6
// does not on stream reads; it sends the maximum value then).
func positionOf(p kdb.Position) (events.Position, bool) {
	if p.Commit == 0 || p.Commit == math.MaxUint64 || p.Commit > math.MaxInt64 {
		return 0, false
	}
	return events.Position(p.Commit), true
}

// idNamespace is the namespace of the name-based UUIDs of ids that are not
// UUIDs themselves.
var idNamespace = uuid.MustParse("6f1f3b0e-6b0a-4c5e-9a52-706179617574")

// eventID is the KurrentDB event id of a record id: the id itself when it
// is a UUID, a name-based (SHA-1) UUID of it otherwise, so a retried append
// with the same id has the same event id; a random one for an empty id.
func eventID(id string) uuid.UUID {
	if id == "" {
		return uuid.New()
	}
	if u, err := uuid.Parse(id); err == nil {
		return u
	}
	return uuid.NewSHA1(idNamespace, []byte(id))
}

// meta is the user metadata payauthz writes on each event: the envelope's
// fields that KurrentDB has no place for, and the event's place in its
// commit.
type meta struct {
	ID            string    `json:"id"`
	Actor         string    `json:"actor,omitempty"`
	CorrelationID string    `json:"correlationId,omitempty"`
	Time          time.Time `json:"time"`
	Commit        string    `json:"commit"` // the id of the commit's first event
	Index         int       `json:"index"`
	Size          int       `json:"size"`
}

// toEventData builds the events of one append.
func toEventData(codec *events.Codec, now time.Time, recs []events.Record) ([]kdb.EventData, error) {
	out := make([]kdb.EventData, len(recs))
	var commit string
	for i, r := range recs {
		data, err := codec.Encode(r.Event)
		if err != nil {
			return nil, fmt.Errorf("kurrentdb: encode: %w", err)
		}
		eid := eventID(r.ID)
		id := r.ID
		if id == "" {
			id = eid.String()
		}
		if i == 0 {
			commit = id
		}
		t := r.Time
		if t.IsZero() {
			t = now
		}
		m, err := json.Marshal(meta{ID: id, Actor: r.Actor, CorrelationID: r.CorrelationID, Time: t.UTC(),
			Commit: commit, Index: i, Size: len(recs)})
		if err != nil {
			return nil, fmt.Errorf("kurrentdb: encode metadata: %w", err)
		}
		out[i] = kdb.EventData{EventID: eid, EventType: r.Event.EventName(), ContentType: kdb.ContentTypeJson,
			Data: data, Metadata: m}
	}
	return out, nil
}

// mapAppendError turns the client's answers to an append into the port's
// errors.
func mapAppendError(stream string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var kerr *kdb.Error
	if errors.As(err, &kerr) {
		switch kerr.Code() {
		case kdb.ErrorCodeWrongExpectedVersion, kdb.ErrorCodeStreamRevisionConflict, kdb.ErrorCodeAppendConsistencyViolation:
			return fmt.Errorf("append %s: %w", stream, events.ErrConflict)
		case kdb.ErrorCodeAppendRecordSizeExceeded, kdb.ErrorCodeAppendTransactionSizeExceeded:
			return fmt.Errorf("append %s: %w: %v", stream, events.ErrTooLarge, err)
		case kdb.ErrorUnavailable, kdb.ErrorCodeConnectionClosed, kdb.ErrorCodeNotLeader, kdb.ErrorCodeDeadlineExceeded,
			kdb.ErrorAborted:
			return fmt.Errorf("append %s: %w: %v", stream, events.ErrUnavailable, err)
		}
	}
	if overAppendSize(err) {
		return fmt.Errorf("append %s: %w: %v", stream, events.ErrTooLarge, err)
	}
	return fmt.Errorf("append %s: %w", stream, err)
}

// overAppendSize reports the server's refusal of an append larger than its
// maximum append size, or holding an event larger than its maximum event
// size. AppendToStream's server answers those with InvalidArgument and a
// message naming the limit ("Maximum Append Size of 1048576 Exceeded.",
// "... exceeds Maximum Append Event Size of ..."); the trailer that tells
// them apart (exception: maximum-append-size-exceeded) does not reach us
// through the client, which reports the answer as ErrorCodeUnknown.
func overAppendSize(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.InvalidArgument && strings.Contains(st.Message(), "Maximum Append")
}

// readFailure is the error of a read that failed with err: the caller's
// own cancellation or deadline when ctx is done (the client reports those
// as gRPC statuses, which would read as an outage), mapReadError's
// otherwise.
func readFailure(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return mapReadError(what, err)
}

// mapReadError turns the client's answers to a read into the port's errors.
func mapReadError(what string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if denied(err) {
		return fmt.Errorf("%s: %w: %v", what, events.ErrAccessDenied, err)
	}
	if invalidPosition(err) {
		return fmt.Errorf("%s: %w: %v", what, events.ErrInvalidPosition, err)
	}
	if permanent(err) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s: %w: %v", what, events.ErrUnavailable, err)
}

// permanent reports an error that retrying cannot cure: the account
// refused (denied), a request the server cannot take (InvalidArgument,
// Unimplemented), or one the client could not parse. Anything else (the
// server out of reach or not ready, a deadline, a timeout, a leader
// change, which the server answers with NotFound) may pass.
func permanent(err error) bool {
	if denied(err) {
		return true
	}
	var kerr *kdb.Error
	if errors.As(err, &kerr) && (kerr.Code() == kdb.ErrorCodeUnsupportedFeature || kerr.Code() == kdb.ErrorCodeParsing) {
		return true
	}
	switch status.Code(err) {
	case codes.InvalidArgument, codes.Unimplemented:
		return true
	}
	return false
}

// invalidPosition reports the server's refusal of a read of $all from a
// position where no record starts ("Trying to read from an invalid
// position.", InvalidArgument).
func invalidPosition(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.InvalidArgument && strings.Contains(strings.ToLower(st.Message()), "invalid position")
}

// denied reports the server's refusal of the account: bad credentials, or
// no right to what was asked. The client reports it with its own codes
// when a call is refused at its start, and passes the bare gRPC status on
// when a subscription the server confirmed is ended with it (rights
// revoked, password changed while it runs).
func denied(err error) bool {
	var kerr *kdb.Error
	if errors.As(err, &kerr) && (kerr.Code() == kdb.ErrorCodeUnauthenticated || kerr.Code() == kdb.ErrorCodeAccessDenied) {
		return true
	}
	switch status.Code(err) {
	case codes.Unauthenticated, codes.PermissionDenied:
		return true
	}
	return false
}

// isEOF reports the end of a read.
func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// notFound reports a read of a stream that does not exist.
func notFound(err error) bool {
	var kerr *kdb.Error
	return errors.As(err, &kerr) && (kerr.Code() == kdb.ErrorCodeResourceNotFound || kerr.Code() == kdb.ErrorCodeStreamDeleted)
}

// assembler regroups the events of each commit, as they come in log order
// (from $all or from one stream), and hands out each commit whole with its
// Position, Index and CommitSize. Not safe for concurrent use.
type assembler struct {
	prefix string
	codec  *events.Codec
	// fill returns the n events of stream before revision rev (the start
	// of a commit read from its middle); nil refuses such a commit.
	fill    func(stream string, rev uint64, n int) ([]*kdb.RecordedEvent, error)
	pending []events.Envelope
	commit  string
	revs    uint64 // stream revision of the last pending event
}

// push adds one recorded event; it returns the commit's envelopes when the
// event completes one. An event outside the store (another prefix, a
// system event) returns nothing.
func (a *assembler) push(r *kdb.RecordedEvent) ([]events.Envelope, error) {
	if r == nil || isSystem(r.EventType, r.StreamID) {
		return nil, nil
	}
	stream, ok := aggregateOf(a.prefix, r.StreamID)
	if !ok {
		return nil, nil
	}
	var m meta
	if err := json.Unmarshal(r.UserMetadata, &m); err != nil || m.Size < 1 || m.Index < 0 || m.Index >= m.Size {
		return nil, fmt.Errorf("%w: %s@%d: metadata is not a payauthz commit", events.ErrDecode, r.StreamID, r.EventNumber)
	}
	if m.Index == 0 {
		if len(a.pending) > 0 {
			return nil, fmt.Errorf("%w: %s@%d: commit %s left incomplete", events.ErrDecode, r.StreamID, r.EventNumber, a.commit)
		}
		a.commit = m.Commit
	} else if len(a.pending) == 0 {
		// The read started inside this commit: fetch its beginning.
		if a.fill == nil || r.EventNumber < uint64(m.Index) {
			return nil, fmt.Errorf("%w: %s@%d: commit %s read from its middle", events.ErrDecode, r.StreamID, r.EventNumber, m.Commit)
		}
		head, err := a.fill(r.StreamID, r.EventNumber-uint64(m.Index), m.Index)
		if err != nil {
			return nil, err
		}
		if len(head) != m.Index {
			return nil, fmt.Errorf("%w: %s@%d: commit %s: %d earlier events, want %d", events.ErrDecode, r.StreamID,
				r.EventNumber, m.Commit, len(head), m.Index)
		}
		for _, h := range head {
			if _, err := a.push(h); err != nil {
				return nil, err
			}
		}
		if len(a.pending) != m.Index {
			return nil, fmt.Errorf("%w: %s@%d: commit %s could not be rebuilt", events.ErrDecode, r.StreamID, r.EventNumber, m.Commit)
		}
	}
	if m.Commit != a.commit || m.Index != len(a.pending) || (len(a.pending) > 0 && (a.pending[0].Stream != stream ||
		a.pending[0].CommitSize != m.Size || r.EventNumber != a.revs+1)) {
		return nil, fmt.Errorf("%w: %s@%d: out of place in commit %s", events.ErrDecode, r.StreamID, r.EventNumber, a.commit)
	}
	ev, err := a.codec.Decode(r.EventType, r.Data)
	if err != nil {
		return nil, fmt.Errorf("%s@%d: %w", r.StreamID, r.EventNumber, err)
	}
	a.revs = r.EventNumber
	a.pending = append(a.pending, events.Envelope{ID: m.ID, Name: r.EventType, Stream: stream, Index: m.Index,
		CommitSize: m.Size, Time: m.Time, Actor: m.Actor, CorrelationID: m.CorrelationID, Data: r.Data, Event: ev})
	if m.Index+1 < m.Size {
		return nil, nil
	}
	pos, _ := positionOf(r.Position)
	out := a.pending
	a.pending, a.commit = nil, ""
	v := versionOf(r.EventNumber)
	for i := range out {
		out[i].Position, out[i].Version = pos, v
	}
	return out, nil
}

// reset drops a partly received commit (after a dropped subscription).
func (a *assembler) reset() { a.pending, a.commit = nil, "" }

// incomplete reports a commit begun and not finished.
func (a *assembler) incomplete() bool { return len(a.pending) > 0 }
