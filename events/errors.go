package events

import "errors"

var (
	// ErrConflict is returned by Store.Append when the stream's version is
	// not the expected one. Every backend maps its own conflict error to it.
	ErrConflict = errors.New("events: wrong expected stream version")
	// ErrUnknownEvent is returned by the codec for an event name that is not
	// registered.
	ErrUnknownEvent = errors.New("events: unknown event name")
	// ErrDecode is returned by the codec for a payload that does not decode.
	ErrDecode = errors.New("events: bad event payload")
	// ErrUnavailable is returned when the store cannot be reached.
	ErrUnavailable = errors.New("events: store unavailable")
	// ErrAccessDenied is returned by a read or subscription the store's
	// server refused for good: the account's credentials are not (or no
	// longer) accepted, or it lacks (or lost) the right to read the log.
	// Retrying cannot cure it, so a subscription ends with it rather than
	// retry; the projections stop on it (projections.ErrStopped).
	ErrAccessDenied = errors.New("events: the store refused access to the log")
	// ErrInvalidPosition is returned by a read from a position where the
	// log has no place to start: a store whose positions are sparse
	// (KurrentDB's byte offsets) refuses a position it did not give.
	ErrInvalidPosition = errors.New("events: not a position of the log")
	// ErrClosed is returned by a Store after Close.
	ErrClosed = errors.New("events: store closed")
	// ErrTooLarge is returned by Store.Append for a commit larger than the
	// backend accepts in one message; nothing is written.
	ErrTooLarge = errors.New("events: commit too large for the store")
	// ErrReadOnly is returned by Append on a store opened read-only.
	ErrReadOnly = errors.New("events: store opened read-only")
	// ErrInvalidAppend is returned by Append called with no events or no
	// stream name (see CheckAppend); nothing is written.
	ErrInvalidAppend = errors.New("events: invalid append")
)
