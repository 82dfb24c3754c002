package projections

import (
	"unsafe"

	"github.com/puzpuzpuz/xsync/v4"
)

// table is a string-keyed concurrent map (xsync.Map): readers take no lock
// and never contend with each other or with the one writer. Values should
// be immutable or copied by value.
type table[V any] struct {
	m *xsync.Map[string, V]
}

func newTable[V any]() *table[V] {
	return &table[V]{m: xsync.NewMap[string, V]()}
}

// reserve grows the map for about n more entries (snapshot loading knows
// the count up front and saves the rehashing). Call it only while no other
// goroutine uses t.
func (t *table[V]) reserve(n int) {
	m := xsync.NewMap[string, V](xsync.WithPresize(n + t.m.Size()))
	t.m.Range(func(k string, v V) bool {
		m.Store(k, v)
		return true
	})
	t.m = m
}

// get returns the value for key. It does not allocate.
func (t *table[V]) get(key string) (V, bool) { return t.m.Load(key) }

// getBytes is get for a key held in a byte slice (built on the caller's
// stack); it does not allocate: the map only hashes and compares the key,
// never keeps it.
func (t *table[V]) getBytes(key []byte) (V, bool) {
	return t.m.Load(unsafe.String(unsafe.SliceData(key), len(key)))
}

func (t *table[V]) put(key string, v V) { t.m.Store(key, v) }

func (t *table[V]) del(key string) { t.m.Delete(key) }

// update replaces the value for key with f(old, ok), atomically for key.
func (t *table[V]) update(key string, f func(old V, ok bool) V) {
	t.m.Compute(key, func(old V, ok bool) (V, xsync.ComputeOp) {
		return f(old, ok), xsync.UpdateOp
	})
}

// modify replaces the value for key, if there is one and f says it
// changed, with f's, atomically for key; a missing key stays missing.
func (t *table[V]) modify(key string, f func(old V) (V, bool)) {
	t.m.Compute(key, func(old V, ok bool) (V, xsync.ComputeOp) {
		if !ok {
			return old, xsync.CancelOp
		}
		v, changed := f(old)
		if !changed {
			return old, xsync.CancelOp
		}
		return v, xsync.UpdateOp
	})
}

// each calls f for every entry until f returns false. Concurrent writes
// may or may not be seen: readers call it inside read, whose retry makes
// the whole list that of one commit.
func (t *table[V]) each(f func(key string, v V) bool) { t.m.Range(f) }

func (t *table[V]) len() int { return t.m.Size() }
