package logtree

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"time"

	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/payauthz/payauthz/events"
)

// leafTag starts every leaf's data, so that the encoding can change with a
// new tag without ambiguity.
const leafTag = "payauthz-leaf-v1\n"

// Leaf is an event as stored, the fields a leaf hash covers.
type Leaf struct {
	Position      uint64    `json:"posizione"`
	Index         int       `json:"indice"` // place in its commit
	Stream        string    `json:"stream"`
	ID            string    `json:"id"`
	Name          string    `json:"tipo"`
	Time          time.Time `json:"data"`
	Actor         string    `json:"attore,omitempty"`
	CorrelationID string    `json:"correlationId,omitempty"`
	Data          []byte    `json:"payload"` // the payload bytes as stored (base64 in JSON)
}

// LeafOf returns the leaf of an envelope read from the log.
func LeafOf(env events.Envelope) Leaf {
	return Leaf{Position: uint64(env.Position), Index: env.Index, Stream: env.Stream, ID: env.ID, Name: env.Name,
		Time: env.Time, Actor: env.Actor, CorrelationID: env.CorrelationID, Data: env.Data}
}

// AppendData appends the canonical encoding of l to b: the tag, the
// position (8 bytes, big-endian), the index in the commit (4 bytes), the
// time in Unix nanoseconds (8 bytes), then stream, id, name, actor,
// correlation id and payload, each as a uvarint length and its bytes.
func (l Leaf) AppendData(b []byte) []byte {
	b = append(b, leafTag...)
	b = binary.BigEndian.AppendUint64(b, l.Position)
	b = binary.BigEndian.AppendUint32(b, uint32(l.Index))
	b = binary.BigEndian.AppendUint64(b, uint64(l.Time.UnixNano()))
	for _, f := range [...]string{l.Stream, l.ID, l.Name, l.Actor, l.CorrelationID} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	b = binary.AppendUvarint(b, uint64(len(l.Data)))
	return append(b, l.Data...)
}

// Hash returns the RFC 6962 leaf hash of l.
func (l Leaf) Hash() []byte { return hashLeafData(l.AppendData(nil)) }

var hasher = rfc6962.DefaultHasher

func hashLeafData(data []byte) []byte { return hasher.HashLeaf(data) }

// leafHasher hashes envelopes reusing one buffer. Not safe for
// concurrent use.
type leafHasher struct{ buf []byte }

func (h *leafHasher) hash(env events.Envelope) []byte {
	// RFC 6962's leaf hash, SHA-256(0x00 || data), in one pass over a
	// reused buffer (hasher.HashLeaf allocates a hash state per call).
	h.buf = LeafOf(env).AppendData(append(h.buf[:0], rfc6962.RFC6962LeafHashPrefix))
	sum := sha256.Sum256(h.buf)
	return sum[:]
}

// PayloadHasSecrets reports whether a payload loses fields to
// events.Redact (a password hash, a captcha secret): such an event is
// proved by its leaf hash alone outside the service.
func PayloadHasSecrets(data []byte) bool {
	var a, b any
	if json.Unmarshal(data, &a) != nil || json.Unmarshal(events.Redact(data), &b) != nil {
		return true
	}
	return !reflect.DeepEqual(a, b)
}
