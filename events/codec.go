package events

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Event is a fact in the log. EventName is explicit and stable: it is what
// the log stores, so renaming a Go type never orphans old events.
type Event interface {
	EventName() string
}

// Codec encodes events to JSON and decodes them by name. The zero value is
// not usable; use NewCodec or DefaultCodec. Safe for concurrent use after
// registration.
type Codec struct {
	mu       sync.RWMutex
	decoders map[string]func([]byte) (Event, error)
}

// NewCodec returns an empty codec.
func NewCodec() *Codec { return &Codec{decoders: map[string]func([]byte) (Event, error){}} }

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
	c.decoders[name] = func(data []byte) (Event, error) {
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
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
	c.mu.RLock()
	dec, ok := c.decoders[name]
	c.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownEvent, name)
	}
	e, err := dec(data)
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

// DefaultCodec holds the whole catalogue of payauthz events.
var DefaultCodec = func() *Codec {
	c := NewCodec()
	registerCatalogue(c)
	return c
}()
