package projections

import (
	"hash/maphash"
	"sync"
)

const shardCount = 64

// table is a string-keyed map split into shards, each guarded by its own
// RWMutex, so readers of different keys never contend and no reader waits
// on a global lock. Values should be immutable or copied by value.
type table[V any] struct {
	seed   maphash.Seed
	shards [shardCount]shard[V]
}

type shard[V any] struct {
	mu sync.RWMutex
	m  map[string]V
	_  [64 - 32]byte // a cache line each: readers of neighbouring shards do not share one
}

func newTable[V any]() *table[V] {
	t := &table[V]{seed: maphash.MakeSeed()}
	for i := range t.shards {
		t.shards[i].m = make(map[string]V)
	}
	return t
}

// reserve grows every shard's map for about n entries in all (snapshot
// loading knows the count up front and saves the rehashing). Call it only
// while no other goroutine uses t.
func (t *table[V]) reserve(n int) {
	per := n/shardCount + n/(4*shardCount) + 1
	for i := range t.shards {
		s := &t.shards[i]
		m := make(map[string]V, per+len(s.m))
		for k, v := range s.m {
			m[k] = v
		}
		s.m = m
	}
}

func (t *table[V]) shard(key string) *shard[V] {
	return &t.shards[maphash.String(t.seed, key)%shardCount]
}

// get returns the value for key. It does not allocate.
func (t *table[V]) get(key string) (V, bool) {
	s := t.shard(key)
	s.mu.RLock()
	v, ok := s.m[key]
	s.mu.RUnlock()
	return v, ok
}

func (t *table[V]) put(key string, v V) {
	s := t.shard(key)
	s.mu.Lock()
	s.m[key] = v
	s.mu.Unlock()
}

func (t *table[V]) del(key string) {
	s := t.shard(key)
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
}

// update replaces the value for key with f(old, ok) under the shard lock.
func (t *table[V]) update(key string, f func(old V, ok bool) V) {
	s := t.shard(key)
	s.mu.Lock()
	old, ok := s.m[key]
	s.m[key] = f(old, ok)
	s.mu.Unlock()
}

// each calls f for every entry, one shard at a time, until f returns false.
// f must not call back into t.
func (t *table[V]) each(f func(key string, v V) bool) {
	for i := range t.shards {
		s := &t.shards[i]
		s.mu.RLock()
		for k, v := range s.m {
			if !f(k, v) {
				s.mu.RUnlock()
				return
			}
		}
		s.mu.RUnlock()
	}
}

func (t *table[V]) len() int {
	n := 0
	for i := range t.shards {
		s := &t.shards[i]
		s.mu.RLock()
		n += len(s.m)
		s.mu.RUnlock()
	}
	return n
}

// getBytes is get for a key held in a byte slice; it does not allocate.
func (t *table[V]) getBytes(key []byte) (V, bool) {
	s := &t.shards[maphash.Bytes(t.seed, key)%shardCount]
	s.mu.RLock()
	v, ok := s.m[string(key)]
	s.mu.RUnlock()
	return v, ok
}
