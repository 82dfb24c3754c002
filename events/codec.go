package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Event is a fact in the log. EventName is explicit and stable: it is what
// the log stores, so renaming a Go type never orphans old events.
type Event interface {
	EventName() string
}

// Codec encodes events to JSON and decodes them by name. The zero value is
// not usable; use NewCodec or DefaultCodec. Safe for concurrent use after
// registration.
//
// Encoding uses encoding/json, so the bytes in the log are what they have
// always been. Decoding, the cost of every replay, parses each payload
// once with github.com/go-json-experiment/json, set to read whatever
// encoding/json reads (see ReadOptions).
type Codec struct {
	mu       sync.RWMutex
	decoders map[string]decodeFunc
}

type decodeFunc func(dec *jsontext.Decoder) (Event, error)

// NewCodec returns an empty codec.
func NewCodec() *Codec { return &Codec{decoders: map[string]decodeFunc{}} }

// ReadOptions make a jsontext.Decoder and the unmarshalling through it
// accept what encoding/json accepts: member names matched without regard
// to case, a repeated member (the last wins), invalid UTF-8 (replaced).
// Events written before the codec moved to go-json-experiment decode to
// the same values.
var ReadOptions = jsonv2.JoinOptions(jsonv2.MatchCaseInsensitiveNames(true),
	jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// decoderPool recycles decoders (and the buffer they read from) across
// Decode calls.
var decoderPool = sync.Pool{New: func() any { return new(pooledDecoder) }}

type pooledDecoder struct {
	buf bytes.Buffer
	dec jsontext.Decoder
}

// NewDecoder returns a decoder of data set with ReadOptions, and a release
// function to call once the decoder and every value read from it are no
// longer used. The decoder reads data in place, without copying it.
func NewDecoder(data []byte) (*jsontext.Decoder, func()) {
	p := decoderPool.Get().(*pooledDecoder)
	p.buf = *bytes.NewBuffer(data)
	p.dec.Reset(&p.buf, ReadOptions)
	return &p.dec, func() {
		p.buf = bytes.Buffer{}
		p.dec.Reset(&p.buf)
		decoderPool.Put(p)
	}
}

// Register adds T to c under T's EventName. Registering a name twice panics:
// it is a programming error caught at start-up.
func Register[T Event](c *Codec) {
	var zero T
	name := zero.EventName()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.decoders[name]; dup {
		panic("events: duplicate event name " + name)
	}
	c.decoders[name] = func(dec *jsontext.Decoder) (Event, error) {
		var v T
		if err := jsonv2.UnmarshalDecode(dec, &v); err != nil {
			return nil, err
		}
		return v, nil
	}
}

// Encode returns the JSON payload of e.
func (c *Codec) Encode(e Event) ([]byte, error) {
	if e == nil {
		return nil, fmt.Errorf("%w: nil event", ErrDecode)
	}
	c.mu.RLock()
	_, ok := c.decoders[e.EventName()]
	c.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownEvent, e.EventName())
	}
	return json.Marshal(e)
}

// Decode returns the event named name from its JSON payload. An unknown
// name returns ErrUnknownEvent, a bad payload ErrDecode; it never panics.
func (c *Codec) Decode(name string, data []byte) (Event, error) {
	dec, release := NewDecoder(data)
	defer release()
	e, err := c.DecodeFrom(name, dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %s: data after the payload", ErrDecode, name)
	}
	return e, nil
}

// DecodeFrom reads the event named name from the next JSON value of dec
// (a decoder set with ReadOptions, as NewDecoder makes): one pass over the
// payload, where a commit holding it is being parsed. Errors are those of
// Decode.
func (c *Codec) DecodeFrom(name string, dec *jsontext.Decoder) (Event, error) {
	c.mu.RLock()
	decode, ok := c.decoders[name]
	c.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownEvent, name)
	}
	e, err := decode(dec)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDecode, name, err)
	}
	return e, nil
}

// Names returns the registered event names, sorted.
func (c *Codec) Names() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	names := make([]string, 0, len(c.decoders))
	for n := range c.decoders {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Known reports whether name is a registered event name.
func (c *Codec) Known(name string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.decoders[name]
	return ok
}

// DefaultCodec holds the whole catalogue of payauthz events.
var DefaultCodec = func() *Codec {
	c := NewCodec()
	registerCatalogue(c)
	return c
}()
