package logtree_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections/logtree"
)

// TestTree_roots_and_proofs_past_the_recent_leaves checks the tree against
// a reference kept with every leaf hash, at sizes and indexes whose leaves
// the tree no longer holds and reads again from the log.
func TestTree_roots_and_proofs_past_the_recent_leaves(t *testing.T) {
	const n = 10_000
	ctx := context.Background()
	store := openStore(t)
	if err := jetstreamtest.Fill(ctx, store, n); err != nil {
		t.Fatal(err)
	}
	tree := logtree.NewTree(store)
	var leaves [][]byte
	err := store.Read(ctx, 0, func(_ context.Context, env events.Envelope) error {
		leaves = append(leaves, tree.Append(env))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := rfc6962.DefaultHasher
	rootAt := func(size uint64) []byte {
		r := (&compact.RangeFactory{Hash: h.HashChildren}).NewEmptyRange(0)
		for _, l := range leaves[:size] {
			_ = r.Append(l, nil)
		}
		root, _ := r.GetRootHash(nil)
		return root
	}
	for _, size := range []uint64{1, 2, 255, 256, 257, 1000, 4097, 5000, 9999, n} {
		got, err := tree.RootAt(ctx, size)
		if err != nil {
			t.Fatalf("root at %d: %v", size, err)
		}
		want := rootAt(size)
		if !bytes.Equal(got, want) {
			t.Fatalf("root at %d differs", size)
		}
		for _, idx := range []uint64{0, size / 3, size - 1} {
			p, err := tree.InclusionProof(ctx, idx, size)
			if err != nil {
				t.Fatal(err)
			}
			if err := proof.VerifyInclusion(h, idx, size, leaves[idx], p, want); err != nil {
				t.Fatalf("inclusion of %d in %d: %v", idx, size, err)
			}
			if err := proof.VerifyInclusion(h, idx, size, leaves[(idx+1)%size], p, want); err == nil && size > 1 {
				t.Fatalf("inclusion of the wrong leaf at %d in %d verified", idx, size)
			}
		}
		c, err := tree.ConsistencyProof(ctx, size/2+1, size)
		if err != nil {
			t.Fatal(err)
		}
		if err := proof.VerifyConsistency(h, size/2+1, size, c, rootAt(size/2+1), want); err != nil {
			t.Fatalf("consistency %d..%d: %v", size/2+1, size, err)
		}
	}
	for _, i := range []uint64{0, 300, 9_999} {
		l, err := tree.Leaf(ctx, i)
		if err != nil || !bytes.Equal(l.Hash(), leaves[i]) {
			t.Fatalf("leaf %d: %v", i, err)
		}
		idx, err := tree.LeafIndexAt(ctx, events.Position(l.Position))
		if err != nil || idx != i {
			t.Fatalf("leaf at position %d: %d, %v (want %d)", l.Position, idx, err, i)
		}
	}
	if _, err := tree.RootAt(ctx, n+1); err == nil {
		t.Fatal("a root beyond the tree")
	}
}
