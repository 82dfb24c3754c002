package logtree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"

	"github.com/payauthz/payauthz/events"
)

const (
	blockLevel = 8
	blockSize  = 1 << blockLevel
	// keepRecent is how many of the newest leaf hashes a Tree keeps beyond
	// the current block: the roots at sizes that recent are computed
	// without reading the log (a checkpoint's size is normally a few
	// events behind the checkpoint itself).
	keepRecent = 4096
)

// ErrLogChanged reports that the leaves read again from the log no longer
// hash to what the tree saw when they were appended: the log was changed
// under a running tree.
var ErrLogChanged = errors.New("the log changed since the tree was built")

// locator is where a leaf is in the log: its commit's position and its
// index in the commit.
type locator struct {
	pos   events.Position
	index int
}

var factory = &compact.RangeFactory{Hash: hasher.HashChildren}

// Tree is the Merkle tree of a log, appended to in log order. It is safe for
// concurrent use: one appender, any number of readers (proofs and roots
// read under a read lock, and may read old leaves again from the store).
type Tree struct {
	store events.Store // where old blocks are read again; nil: proofs only over recent leaves

	mu          sync.RWMutex // guards every field below
	rng         *compact.Range
	blocks      [][]byte  // hash of every complete block of blockSize leaves
	starts      []locator // where each block (the last maybe partial) starts in the log
	recent      [][]byte  // leaf hashes of leaves [recentBegin, size)
	recentBegin uint64
	// pinned keeps the leaf hashes of a few blocks the recent ones no
	// longer hold (block index → its hashes so far): see Pin.
	pinned map[uint64][][]byte
	last   events.Position
	lh     leafHasher
}

// Pin keeps, from now on, the leaf hashes of the blocks around size (the
// last leaf of a tree of that size and the leaf after it), and forgets
// those kept for any earlier size: proofs from a checkpoint of that size
// then need no read of the log. Verify pins each checkpoint that verified,
// since the next one's consistency proof starts there. size must be among
// the recent leaves; otherwise nothing is kept.
func (t *Tree) Pin(size uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pinned = map[uint64][][]byte{}
	for _, b := range []uint64{(max(size, 1) - 1) / blockSize, size / blockSize} {
		begin := b * blockSize
		if begin < t.recentBegin || begin > t.rng.End() {
			continue
		}
		end := min(begin+blockSize, t.rng.End())
		t.pinned[b] = append([][]byte(nil), t.recent[begin-t.recentBegin:end-t.recentBegin]...)
	}
}

// NewTree returns an empty tree whose old leaves are read again from store
// when a proof or a past root needs them.
func NewTree(store events.Store) *Tree {
	return &Tree{store: store, rng: factory.NewEmptyRange(0)}
}

// Size returns the number of leaves.
func (t *Tree) Size() uint64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.rng.End()
}

// LastPosition returns the log position of the last leaf (0 when empty).
func (t *Tree) LastPosition() events.Position {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.last
}

// Append adds env as the next leaf and returns its leaf hash.
func (t *Tree) Append(env events.Envelope) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.lh.hash(env)
	t.appendLocked(h, locator{pos: env.Position, index: env.Index})
	return h
}

func (t *Tree) visit(id compact.NodeID, hash []byte) {
	if id.Level == blockLevel {
		t.blocks = append(t.blocks, hash)
	}
}

func (t *Tree) appendLocked(h []byte, loc locator) {
	size := t.rng.End()
	if size%blockSize == 0 {
		t.starts = append(t.starts, loc)
	}
	_ = t.rng.Append(h, t.visit) // appending one leaf to a range from 0 cannot fail
	t.recent = append(t.recent, h)
	if hs, ok := t.pinned[size/blockSize]; ok && uint64(len(hs)) == size%blockSize {
		t.pinned[size/blockSize] = append(hs, h)
	}
	t.last = loc.pos
	// Drop the oldest recent hashes, keeping the current block and
	// keepRecent more, in one copy every keepRecent leaves.
	if len(t.recent) > 2*keepRecent+blockSize {
		size++
		keepFrom := (size - keepRecent) &^ (blockSize - 1)
		drop := keepFrom - t.recentBegin
		t.recent = append([][]byte(nil), t.recent[drop:]...)
		t.recentBegin = keepFrom
	}
}

// Root returns the size and root hash of the whole tree.
func (t *Tree) Root() (uint64, []byte) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.rng.End(), t.rootLocked()
}

func (t *Tree) rootLocked() []byte {
	if t.rng.End() == 0 {
		return hasher.EmptyRoot()
	}
	root, _ := t.rng.GetRootHash(nil) // a range from 0
	return root
}

// RootAt returns the root hash of the tree of the first size leaves.
func (t *Tree) RootAt(ctx context.Context, size uint64) ([]byte, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if size > t.rng.End() {
		return nil, fmt.Errorf("tree size %d is beyond the log's %d events", size, t.rng.End())
	}
	if size == t.rng.End() {
		return t.rootLocked(), nil
	}
	if size == 0 {
		return hasher.EmptyRoot(), nil
	}
	ids := compact.RangeNodes(0, size, nil)
	hashes, err := t.nodeHashes(ctx, ids)
	if err != nil {
		return nil, err
	}
	r, err := factory.NewRange(0, size, hashes)
	if err != nil {
		return nil, err
	}
	return r.GetRootHash(nil)
}

// InclusionProof returns the RFC 6962 inclusion proof of leaf index in the
// tree of the first size leaves.
func (t *Tree) InclusionProof(ctx context.Context, index, size uint64) ([][]byte, error) {
	return t.prove(ctx, size, func() (proof.Nodes, error) { return proof.Inclusion(index, size) })
}

// ConsistencyProof returns the RFC 6962 consistency proof between the
// trees of the first size1 and size2 leaves.
func (t *Tree) ConsistencyProof(ctx context.Context, size1, size2 uint64) ([][]byte, error) {
	return t.prove(ctx, size2, func() (proof.Nodes, error) { return proof.Consistency(size1, size2) })
}

// prove computes the hashes of the nodes a proof in the tree of the first
// size leaves needs.
func (t *Tree) prove(ctx context.Context, size uint64, nodesOf func() (proof.Nodes, error)) ([][]byte, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if size > t.rng.End() {
		return nil, fmt.Errorf("tree size %d is beyond the log's %d events", size, t.rng.End())
	}
	nodes, err := nodesOf()
	if err != nil {
		return nil, err
	}
	hashes, err := t.nodeHashes(ctx, nodes.IDs)
	if err != nil {
		return nil, err
	}
	return nodes.Rehash(hashes, hasher.HashChildren)
}

// nodeHashes returns the hash of each perfect subtree in ids (all within
// the tree). Called with t.mu held.
func (t *Tree) nodeHashes(ctx context.Context, ids []compact.NodeID) ([][]byte, error) {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		begin, end := id.Coverage()
		if end > t.rng.End() {
			return nil, fmt.Errorf("node %+v beyond the tree", id)
		}
		if id.Level >= blockLevel {
			out[i] = merkleOf(t.blocks[begin/blockSize : end/blockSize])
			continue
		}
		leaves, err := t.leafHashes(ctx, begin, end)
		if err != nil {
			return nil, err
		}
		out[i] = merkleOf(leaves)
	}
	return out, nil
}

// merkleOf returns the root of the perfect tree over hashes (a power of two
// of them), without changing hashes.
func merkleOf(hashes [][]byte) []byte {
	if len(hashes) == 1 {
		return hashes[0]
	}
	level := make([][]byte, len(hashes)/2)
	for i := range level {
		level[i] = hasher.HashChildren(hashes[2*i], hashes[2*i+1])
	}
	for len(level) > 1 {
		for i := 0; i < len(level)/2; i++ {
			level[i] = hasher.HashChildren(level[2*i], level[2*i+1])
		}
		level = level[:len(level)/2]
	}
	return level[0]
}

// leafHashes returns the hashes of leaves [begin, end), all in one block:
// from the recent ones, else read again from the log and checked against
// the block's hash. Called with t.mu held.
func (t *Tree) leafHashes(ctx context.Context, begin, end uint64) ([][]byte, error) {
	if begin >= t.recentBegin {
		return t.recent[begin-t.recentBegin : end-t.recentBegin], nil
	}
	b := begin / blockSize
	blockBegin := b * blockSize
	if hs, ok := t.pinned[b]; ok && uint64(len(hs)) >= end-blockBegin {
		return hs[begin-blockBegin : end-blockBegin], nil
	}
	n := min(uint64(blockSize), t.rng.End()-blockBegin)
	hashes := make([][]byte, 0, n)
	var lh leafHasher
	err := t.readLeaves(ctx, blockBegin, n, func(env events.Envelope) {
		hashes = append(hashes, lh.hash(env))
	})
	if err != nil {
		return nil, err
	}
	if uint64(len(hashes)) != n {
		return nil, fmt.Errorf("%w: block %d has %d of its %d events", ErrLogChanged, b, len(hashes), n)
	}
	if n == blockSize && !bytes.Equal(merkleOf(hashes), t.blocks[b]) {
		return nil, fmt.Errorf("%w: leaves %d to %d", ErrLogChanged, blockBegin, blockBegin+n-1)
	}
	return hashes[begin-blockBegin : end-blockBegin], nil
}

var errEnough = errors.New("enough leaves")

// readLeaves calls f with up to n envelopes from leaf begin on, read from
// the log. Called with t.mu held.
func (t *Tree) readLeaves(ctx context.Context, begin, n uint64, f func(events.Envelope)) error {
	if t.store == nil {
		return errors.New("logtree: the tree has no store to read old leaves from")
	}
	b := begin / blockSize
	skip := begin - b*blockSize
	start := t.starts[b]
	var got uint64
	err := t.store.ReadFrom(ctx, start.pos, func(_ context.Context, env events.Envelope) error {
		if env.Position == start.pos && env.Index < start.index {
			return nil
		}
		if skip > 0 {
			skip--
			return nil
		}
		f(env)
		got++
		if got == n {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return fmt.Errorf("read leaves from %d: %w", begin, err)
	}
	return nil
}

// Leaf returns leaf index as read from the log now.
func (t *Tree) Leaf(ctx context.Context, index uint64) (Leaf, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if index >= t.rng.End() {
		return Leaf{}, fmt.Errorf("leaf %d is beyond the log's %d events", index, t.rng.End())
	}
	var l Leaf
	found := false
	err := t.readLeaves(ctx, index, 1, func(env events.Envelope) { l, found = LeafOf(env), true })
	if err != nil {
		return Leaf{}, err
	}
	if !found {
		return Leaf{}, fmt.Errorf("%w: leaf %d is missing", ErrLogChanged, index)
	}
	return l, nil
}

// LeafIndexAt returns the index of the first leaf at log position pos, by
// reading the commit's block start table and the log; ErrNoSuchEvent
// (wrapped) when no commit is there.
func (t *Tree) LeafIndexAt(ctx context.Context, pos events.Position) (uint64, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if len(t.starts) == 0 || pos > t.last {
		return 0, fmt.Errorf("%w: position %d is not in the tree", ErrNoSuchEvent, pos)
	}
	// The last block starting at or before pos.
	lo, hi := 0, len(t.starts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if st := t.starts[mid]; st.pos < pos || (st.pos == pos && st.index == 0) {
			lo = mid
		} else {
			hi = mid
		}
	}
	if t.starts[lo].pos > pos {
		return 0, fmt.Errorf("%w: position %d is not in the tree", ErrNoSuchEvent, pos)
	}
	begin := uint64(lo) * blockSize
	n := min(uint64(2*blockSize), t.rng.End()-begin)
	idx, state := begin, 0 // state: 0 looking, 1 found, 2 passed
	err := t.readLeaves(ctx, begin, n, func(env events.Envelope) {
		switch {
		case state != 0:
		case env.Position == pos:
			state = 1
		case env.Position > pos:
			state = 2
		default:
			idx++
		}
	})
	if err != nil {
		return 0, err
	}
	if state != 1 {
		return 0, fmt.Errorf("%w: no event at position %d", ErrNoSuchEvent, pos)
	}
	return idx, nil
}
