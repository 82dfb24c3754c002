package events

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Position is a place in the global, totally ordered log. Positions start at
// 1 and grow with each commit; 0 means "before the first event".
type Position uint64

// Version is a stream's version as its backend counts it: the value found in
// Envelope.Version of the stream's last event, passed back to Append as the
// expected version. It only grows; callers compare it for equality and must
// not do arithmetic on it (JetStream's versions are global sequences, not
// counters).
type Version uint64

// Expected is the version a stream must have for an Append to succeed.
type Expected struct {
	noStream bool
	version  Version
}

// ExpectNoStream requires that the stream does not exist yet.
func ExpectNoStream() Expected { return Expected{noStream: true} }

// ExpectVersion requires that the stream's last event has version v.
func ExpectVersion(v Version) Expected {
	if v == 0 {
		return ExpectNoStream()
	}
	return Expected{version: v}
}

// NoStream reports whether the stream must not exist.
func (e Expected) NoStream() bool { return e.noStream || e.version == 0 }

// Version returns the required version (0 when NoStream).
func (e Expected) Version() Version { return e.version }

// Record is one event to append, with the metadata the writer supplies.
type Record struct {
	ID            string // unique event id (UUID); a retried append with the same id is stored once
	Event         Event
	Actor         string // acting principal, "" for the system
	CorrelationID string
	Time          time.Time // zero → the store sets the append time
}

// Envelope is an event as read back from the log.
type Envelope struct {
	ID            string
	Name          string
	Stream        string
	Version       Version  // the stream's version after this event
	Position      Position // global position of the commit holding this event
	Index         int      // place of this event in its commit, from 0
	CommitSize    int      // number of events in the commit (at least 1)
	Time          time.Time
	Actor         string
	CorrelationID string
	Data          []byte // the JSON payload
	Event         Event  // the decoded payload
}

// Handler receives envelopes in log order. Returning an error stops the read
// or the subscription.
type Handler func(ctx context.Context, env Envelope) error

// Appender appends commits to streams.
type Appender interface {
	// Append atomically appends recs (one or more events of the same
	// stream) if the stream is at the expected version, and returns the
	// global position of the commit. A wrong expected version returns an
	// error matching ErrConflict. All events of one Append share the same
	// Position.
	Append(ctx context.Context, stream string, expected Expected, recs ...Record) (Position, error)
}

// CheckAppend is what every Appender requires of Append's arguments, so
// that the backends refuse the same calls: one or more events and a named
// stream. It returns an error matching ErrInvalidAppend.
func CheckAppend(stream string, recs []Record) error {
	switch {
	case len(recs) == 0:
		return fmt.Errorf("%w: no events", ErrInvalidAppend)
	case stream == "":
		return fmt.Errorf("%w: empty stream name", ErrInvalidAppend)
	}
	return nil
}

// Loader loads one stream.
type Loader interface {
	// Load returns every event of one stream in order; an unknown stream
	// returns no events and no error.
	Load(ctx context.Context, stream string) ([]Envelope, error)
}

// Reader reads the whole log.
type Reader interface {
	// Read calls h for every event after position from (exclusive) up to
	// the log's last position at the time of the call, in order. from is
	// 0 or a position the log gave (an Envelope's, an Append's,
	// LastPosition's).
	Read(ctx context.Context, from Position, h Handler) error
	// ReadFrom is Read from position at inclusive: every event of the
	// commit at at, if any, and of the commits after it. at is 0, a
	// position the log gave, or one more than such a position (where the
	// next page of a listing starts). Ask this rather than Read(at-1): a
	// store whose positions are sparse (KurrentDB's byte offsets) has no
	// place at at-1 to read after, and its server refuses it. A store may
	// refuse any other at with ErrInvalidPosition.
	ReadFrom(ctx context.Context, at Position, h Handler) error
}

// RawReader reads the whole log without decoding payloads: each envelope
// holds its stored payload bytes (Data) and no Event. Readers that only
// need the log as stored (verifying it, copying it) use it when the
// backend offers it, and Reader otherwise.
type RawReader interface {
	// ReadRaw is Read with Envelope.Event left nil.
	ReadRaw(ctx context.Context, from Position, h Handler) error
}

// RawSubscriber follows the whole log without decoding payloads (see
// RawReader).
type RawSubscriber interface {
	// SubscribeRaw is Subscribe with Envelope.Event left nil.
	SubscribeRaw(ctx context.Context, from Position, h Handler) error
}

// Subscriber follows the whole log.
type Subscriber interface {
	// Subscribe calls h for every event after from (exclusive), in order,
	// first the existing ones then new ones as they are appended, until ctx
	// is cancelled or h returns an error. It blocks; the returned error is
	// ctx.Err() on cancellation.
	Subscribe(ctx context.Context, from Position, h Handler) error
}

// Positioner tells where the log ends.
type Positioner interface {
	// LastPosition returns the position of the last commit in the log (0 for
	// an empty log).
	LastPosition(ctx context.Context) (Position, error)
}

// BackendNamer names the backend.
type BackendNamer interface {
	// Backend names the backend ("jetstream", "kurrentdb"); consistency
	// tokens carry it.
	Backend() string
}

// StreamStore is what command handlers use: load an aggregate's stream,
// append to it, and see whether the log is empty.
type StreamStore interface {
	Appender
	Loader
	Positioner
}

// LogReader is what readers of the whole log use (the HTTP layer's event
// log and consistency tokens, rebuilds): read it from a position, where it
// ends, and which backend holds it.
type LogReader interface {
	Reader
	Positioner
	BackendNamer
}

// Store is the port every event-log backend implements: every role above,
// and Close. All methods are safe for concurrent use. Implementations must
// pass eventstoretest.Run.
type Store interface {
	Appender
	Loader
	Reader
	Subscriber
	Positioner
	BackendNamer
	// Close releases the store. It does not lose acknowledged appends.
	Close() error
}

// StoreOptions are what every backend's Open takes besides where the log
// is: one struct, so that the defaults live in one place (WithDefaults)
// and cannot drift between backends.
type StoreOptions struct {
	Codec  *Codec       // default DefaultCodec
	Logger *slog.Logger // default slog.Default()
	// ConnectTimeout bounds the first connection or round trip of Open
	// (default 10s).
	ConnectTimeout time.Duration
}

// WithDefaults returns o with each unset option given its default.
func (o StoreOptions) WithDefaults() StoreOptions {
	if o.Codec == nil {
		o.Codec = DefaultCodec
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	return o
}
