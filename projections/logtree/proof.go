package logtree

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/transparency-dev/merkle/proof"
	"golang.org/x/mod/sumdb/note"
)

// Proof kinds.
const (
	KindInclusion   = "inclusion"
	KindConsistency = "consistency"
)

// ErrBadProof reports a proof file that is not one, or does not prove
// what it says.
var ErrBadProof = errors.New("proof does not verify")

// maxProofBytes bounds a proof file: two checkpoints, 64 hashes and one
// event.
const maxProofBytes = 4 << 20

// Proof is a proof file: an inclusion proof of one event against a signed
// checkpoint, or a consistency proof between two signed checkpoints. It
// holds everything an outsider needs besides the verifier key.
type Proof struct {
	Kind string `json:"kind"`
	// Inclusion: the leaf, its index, its hash, the proof and the
	// checkpoint (a signed note) it is included in.
	LeafIndex  uint64   `json:"leafIndex,omitempty"`
	Event      *Leaf    `json:"event,omitempty"` // nil when the payload may not be shown; LeafHash then stands alone
	LeafHash   []byte   `json:"leafHash,omitempty"`
	Checkpoint string   `json:"checkpoint,omitempty"`
	Hashes     [][]byte `json:"proof"`
	// Consistency: the older and the newer checkpoint.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// Checked is what a verified proof proves.
type Checked struct {
	Kind       string
	LeafIndex  uint64
	Event      *Leaf
	Checkpoint Signed // inclusion: the checkpoint; consistency: the newer one
	Old        Signed // consistency: the older checkpoint
}

// ParseProof decodes a proof file strictly. It never panics.
func ParseProof(b []byte) (Proof, error) {
	var p Proof
	if len(b) > maxProofBytes {
		return p, fmt.Errorf("%w: file larger than %d bytes", ErrBadProof, maxProofBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("%w: %v", ErrBadProof, err)
	}
	if dec.More() {
		return p, fmt.Errorf("%w: trailing data after the proof", ErrBadProof)
	}
	if len(p.Hashes) > 128 {
		return p, fmt.Errorf("%w: %d hashes", ErrBadProof, len(p.Hashes))
	}
	for _, h := range p.Hashes {
		if len(h) != 32 {
			return p, fmt.Errorf("%w: a hash of %d bytes", ErrBadProof, len(h))
		}
	}
	return p, nil
}

// Check verifies the proof file b with the known verifier keys alone.
func Check(b []byte, known note.Verifiers) (Checked, error) {
	p, err := ParseProof(b)
	if err != nil {
		return Checked{}, err
	}
	switch p.Kind {
	case KindInclusion:
		cp, err := OpenCheckpoint(p.Checkpoint, known)
		if err != nil {
			return Checked{}, fmt.Errorf("checkpoint: %w", err)
		}
		leafHash := p.LeafHash
		if p.Event != nil {
			h := p.Event.Hash()
			if leafHash != nil && !bytes.Equal(h, leafHash) {
				return Checked{}, fmt.Errorf("%w: the event does not hash to the leaf hash", ErrBadProof)
			}
			leafHash = h
		}
		if len(leafHash) != 32 {
			return Checked{}, fmt.Errorf("%w: no event and no 32-byte leaf hash", ErrBadProof)
		}
		if err := proof.VerifyInclusion(hasher, p.LeafIndex, cp.Size, leafHash, p.Hashes, cp.Root); err != nil {
			return Checked{}, fmt.Errorf("%w: event %d is not in the tree of checkpoint %d: %v", ErrBadProof, p.LeafIndex, cp.Size, err)
		}
		return Checked{Kind: p.Kind, LeafIndex: p.LeafIndex, Event: p.Event, Checkpoint: cp}, nil
	case KindConsistency:
		oldCP, err := OpenCheckpoint(p.Old, known)
		if err != nil {
			return Checked{}, fmt.Errorf("old checkpoint: %w", err)
		}
		newCP, err := OpenCheckpoint(p.New, known)
		if err != nil {
			return Checked{}, fmt.Errorf("new checkpoint: %w", err)
		}
		if oldCP.Size > newCP.Size {
			return Checked{}, fmt.Errorf("%w: the old checkpoint (%d) is larger than the new (%d)", ErrBadProof, oldCP.Size, newCP.Size)
		}
		if err := proof.VerifyConsistency(hasher, oldCP.Size, newCP.Size, p.Hashes, oldCP.Root, newCP.Root); err != nil {
			return Checked{}, fmt.Errorf("%w: the tree of %d events is not a prefix of that of %d: %v", ErrBadProof, oldCP.Size, newCP.Size, err)
		}
		return Checked{Kind: p.Kind, Checkpoint: newCP, Old: oldCP}, nil
	}
	return Checked{}, fmt.Errorf("%w: kind %q, want inclusion or consistency", ErrBadProof, p.Kind)
}

// ProveInclusion returns the inclusion proof of leaf index against the
// signed checkpoint cp (whose size must be within the tree). withEvent
// puts the event itself in the proof; without it only its leaf hash.
func (t *Tree) ProveInclusion(ctx context.Context, index uint64, cp Signed, withEvent bool) (Proof, error) {
	if index >= cp.Size {
		return Proof{}, fmt.Errorf("event %d is not covered by the checkpoint of %d events", index, cp.Size)
	}
	hashes, err := t.InclusionProof(ctx, index, cp.Size)
	if err != nil {
		return Proof{}, err
	}
	leaf, err := t.Leaf(ctx, index)
	if err != nil {
		return Proof{}, err
	}
	p := Proof{Kind: KindInclusion, LeafIndex: index, LeafHash: leaf.Hash(), Checkpoint: cp.Note, Hashes: nonNil(hashes)}
	if withEvent {
		p.Event = &leaf
	}
	return p, nil
}

// ProveConsistency returns the consistency proof between two checkpoints.
func (t *Tree) ProveConsistency(ctx context.Context, oldCP, newCP Signed) (Proof, error) {
	if oldCP.Size > newCP.Size {
		oldCP, newCP = newCP, oldCP
	}
	hashes, err := t.ConsistencyProof(ctx, oldCP.Size, newCP.Size)
	if err != nil {
		return Proof{}, err
	}
	return Proof{Kind: KindConsistency, Old: oldCP.Note, New: newCP.Note, Hashes: nonNil(hashes)}, nil
}

func nonNil(h [][]byte) [][]byte {
	if h == nil {
		return [][]byte{}
	}
	return h
}
