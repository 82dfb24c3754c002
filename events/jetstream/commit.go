package jetstream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/payauthz/payauthz/events"
)

// decodeCommit appends to into the envelopes of a commit message, the
// JSON array of wireEvent that Append writes. It parses the message in one
// pass: the envelope members token by token and each event's payload
// straight into its Go type, where encoding/json would validate the
// message, copy each payload out and then scan it twice more. Envelope.Data is the payload's bytes inside data (not a copy), so
// it is exactly what was stored. Stream, Version, Position and CommitSize
// are left to the caller. A nil codec leaves every payload undecoded
// (Envelope.Event nil): the raw read of the log.
func decodeCommit(into []events.Envelope, codec *events.Codec, data []byte) ([]events.Envelope, error) {
	dec, release := events.NewDecoder(data)
	defer release()
	if err := expectDelim(dec, '['); err != nil {
		return nil, err
	}
	out, base := into, len(into)
	for dec.PeekKind() != ']' {
		env, err := decodeWireEvent(codec, dec, data)
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", len(out)-base, err)
		}
		env.Index = len(out) - base
		out = append(out, env)
	}
	if err := expectDelim(dec, ']'); err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the commit", events.ErrDecode)
	}
	if len(out) == base {
		return nil, fmt.Errorf("%w: empty commit", events.ErrDecode)
	}
	return out, nil
}

// decodeWireEvent reads one {id, name, actor, correlationId, time, data}
// object. Unknown members are skipped and a repeated member's last value
// counts, as encoding/json did: a payload is of the type of the last name,
// whichever came first.
func decodeWireEvent(codec *events.Codec, dec *jsontext.Decoder, data []byte) (events.Envelope, error) {
	var env events.Envelope
	if err := expectDelim(dec, '{'); err != nil {
		return env, err
	}
	var (
		payload  []byte // the payload when it came before the name
		haveData bool
		err      error
	)
	for dec.PeekKind() != '}' {
		member, err := dec.ReadValue()
		if err != nil {
			return env, fmt.Errorf("%w: %v", events.ErrDecode, err)
		}
		switch memberName(member) {
		case `"id"`:
			env.ID, err = readString(dec, env.ID)
		case `"name"`:
			if env.Name, err = readString(dec, env.Name); err == nil && env.Event != nil {
				// The payload was decoded under an earlier name: decode it
				// again at the end, under the last.
				payload, env.Event = env.Data, nil
			}
		case `"actor"`:
			env.Actor, err = readString(dec, env.Actor)
		case `"correlationId"`:
			env.CorrelationID, err = readString(dec, env.CorrelationID)
		case `"time"`:
			var t string
			if t, err = readString(dec, ""); err == nil {
				if env.Time, err = time.Parse(time.RFC3339Nano, t); err != nil {
					err = fmt.Errorf("%w: time: %v", events.ErrDecode, err)
				}
			}
		case `"data"`:
			haveData = true
			start := dec.InputOffset()
			if codec == nil { // a raw read: the payload as stored
				if _, err = dec.ReadValue(); err != nil {
					err = fmt.Errorf("%w: %v", events.ErrDecode, err)
				}
				env.Data = bytes.TrimLeft(data[start:dec.InputOffset()], " \t\r\n:")
				break
			}
			if env.Name == "" { // not seen yet: keep the bytes, decode at the end
				var v jsontext.Value
				if v, err = dec.ReadValue(); err != nil {
					err = fmt.Errorf("%w: %v", events.ErrDecode, err)
				}
				payload, env.Event = v.Clone(), nil
				break
			}
			payload = nil // an earlier payload is replaced
			if env.Event, err = codec.DecodeFrom(env.Name, dec); err == nil {
				env.Data = bytes.TrimLeft(data[start:dec.InputOffset()], " \t\r\n:")
			}
		default:
			if err = dec.SkipValue(); err != nil {
				err = fmt.Errorf("%w: %v", events.ErrDecode, err)
			}
		}
		if err != nil {
			return env, err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return env, err
	}
	if !haveData || env.Name == "" {
		return env, fmt.Errorf("%w: an event without name or data", events.ErrDecode)
	}
	if payload != nil && codec != nil {
		if env.Event, err = codec.Decode(env.Name, payload); err != nil {
			return env, err
		}
		env.Data = payload
	}
	return env, nil
}

// wireMembers are the members of a wireEvent, quoted as Append writes them.
var wireMembers = []string{`"id"`, `"name"`, `"actor"`, `"correlationId"`, `"time"`, `"data"`}

// memberName returns the member name raw (quoted, as read) as one of
// wireMembers: as written, matched without allocating; otherwise after
// unescaping and without regard to case, as encoding/json matched it.
// Anything else is returned as it is.
func memberName(raw []byte) string {
	for _, m := range wireMembers {
		if string(raw) == m {
			return m
		}
	}
	name, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return ""
	}
	for _, m := range wireMembers {
		if strings.EqualFold(string(name), m[1:len(m)-1]) {
			return m
		}
	}
	return ""
}

// readString reads a string member's value; null leaves cur, the value
// so far, as encoding/json left a string untouched by null.
func readString(dec *jsontext.Decoder, cur string) (string, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return "", fmt.Errorf("%w: %v", events.ErrDecode, err)
	}
	switch tok.Kind() {
	case '"':
		return tok.String(), nil
	case 'n':
		return cur, nil
	}
	return "", fmt.Errorf("%w: %s where a string belongs", events.ErrDecode, tok.Kind())
}

func expectDelim(dec *jsontext.Decoder, delim jsontext.Kind) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return fmt.Errorf("%w: %v", events.ErrDecode, err)
	}
	if tok.Kind() != delim {
		return fmt.Errorf("%w: %s where %s belongs", events.ErrDecode, tok.Kind(), delim)
	}
	return nil
}
