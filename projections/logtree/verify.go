package logtree

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/transparency-dev/merkle/proof"
	"golang.org/x/mod/sumdb/note"

	"github.com/payauthz/payauthz/events"
)

// Checkpoint verdicts in a Report.
const (
	VerdictOK           = "ok"
	VerdictBadSignature = "bad-signature" // signed by a known key, but the signature does not verify
	VerdictUnknownKey   = "unknown-key"   // no verifier key given for its signer, or one of its name that is another key
	VerdictMalformed    = "malformed"     // not a checkpoint event or note
	VerdictBeyond       = "beyond"        // covers more events than precede it
	VerdictMismatch     = "root-mismatch" // the log's tree at its size has another root
	VerdictInconsistent = "inconsistent"  // its tree is not an extension of the previous checkpoint's
)

// CheckpointResult is one checkpoint event found in the log.
type CheckpointResult struct {
	Position  uint64 `json:"position"`  // of the checkpoint event
	LeafIndex uint64 `json:"leafIndex"` // of the checkpoint event
	Signer    string `json:"signer"`
	Size      uint64 `json:"size"`
	Verdict   string `json:"verdict"`
	Detail    string `json:"detail,omitempty"`
}

// Divergence is where the log first differs from what was signed: every
// leaf before FromLeaf is covered by a checkpoint that verified, and the
// checkpoint at CheckpointPosition, covering ToLeaf leaves, does not match.
// The first changed, removed or inserted event is one of leaves
// [FromLeaf, ToLeaf) (checkpoint events whose signature verified are
// skipped at its start: their content is signed); FromPosition and ToPosition are their log positions
// (the first and last of that span in the log as it is now).
type Divergence struct {
	FromLeaf           uint64 `json:"fromLeaf"`
	ToLeaf             uint64 `json:"toLeaf"`
	FromPosition       uint64 `json:"fromPosition"`
	ToPosition         uint64 `json:"toPosition"`
	CheckpointPosition uint64 `json:"checkpointPosition"`
}

// Report is the result of Verify.
type Report struct {
	Events       uint64             `json:"events"`
	LastPosition uint64             `json:"lastPosition"`
	Root         []byte             `json:"root"`
	Checkpoints  []CheckpointResult `json:"checkpoints"`
	// Verified is the largest size covered by a checkpoint that verified
	// before any divergence; the events after it are not covered yet.
	Verified   uint64      `json:"verified"`
	Divergence *Divergence `json:"divergence,omitempty"`
}

// OK reports whether every checkpoint verified and the log matches them.
func (r *Report) OK() bool {
	if r.Divergence != nil {
		return false
	}
	for _, c := range r.Checkpoints {
		if c.Verdict != VerdictOK {
			return false
		}
	}
	return true
}

// Verify recomputes the tree of the whole log in store, checks every
// checkpoint event's signature with the known verifiers, that its root is
// the recomputed root at its size, and that it is consistent with the
// previous checkpoint. progress, when not nil, is called with every
// envelope. It returns the tree it built, for proofs. A read error stops
// it; a log that does not match is a Report that is not OK, not an error.
func Verify(ctx context.Context, store events.Store, known note.Verifiers, progress func(events.Envelope)) (*Report, *Tree, error) {
	t := NewTree(store)
	rep := &Report{Checkpoints: []CheckpointResult{}}
	var prev *Signed // the previous checkpoint that verified
	// signedLeaves are the leaf indexes of checkpoint events that verified:
	// what they say is signed, so a divergence is not placed on them.
	signedLeaves := map[uint64]bool{}
	// The log is read (and decoded) on this goroutine while another hashes
	// it into the tree and checks the checkpoints, so the two overlap.
	// Envelopes go over in batches: one channel operation (and at most one
	// wake-up) per batch, not per event.
	const batchSize = 512
	batches := make(chan []events.Envelope, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for batch := range batches {
			for _, env := range batch {
				verifyLeaf(ctx, t, env, known, &prev, rep, signedLeaves)
			}
		}
	}()
	// A leaf hashes the event as stored: a backend that can hand the log
	// over without decoding payloads saves Verify most of its reading.
	read := store.Read
	if raw, ok := store.(events.RawReader); ok {
		read = raw.ReadRaw
	}
	batch := make([]events.Envelope, 0, batchSize)
	err := read(ctx, 0, func(ctx context.Context, env events.Envelope) error {
		if progress != nil {
			progress(env)
		}
		if batch = append(batch, env); len(batch) < batchSize {
			return nil
		}
		select {
		case batches <- batch:
			batch = make([]events.Envelope, 0, batchSize)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	if err == nil && len(batch) > 0 {
		batches <- batch
	}
	close(batches)
	<-done
	if err != nil {
		return nil, nil, fmt.Errorf("read the log: %w", err)
	}
	rep.Events, rep.Root = t.Root()
	rep.LastPosition = uint64(t.LastPosition())
	if d := rep.Divergence; d != nil {
		for d.FromLeaf+1 < d.ToLeaf && signedLeaves[d.FromLeaf] {
			d.FromLeaf++
		}
		if l, err := t.Leaf(ctx, d.FromLeaf); err == nil {
			d.FromPosition = l.Position
		}
		if last := min(d.ToLeaf, rep.Events); last > 0 {
			if l, err := t.Leaf(ctx, last-1); err == nil {
				d.ToPosition = l.Position
			}
		}
	}
	return rep, t, nil
}

// verifyLeaf appends env to t, first checking it when it is a checkpoint
// (against prev, the last checkpoint that verified), into rep.
func verifyLeaf(ctx context.Context, t *Tree, env events.Envelope, known note.Verifiers, prev **Signed, rep *Report, signedLeaves map[uint64]bool) {
	if env.Name == (events.LogCheckpointSigned{}).EventName() {
		res, cp := checkCheckpoint(ctx, t, env, known, *prev)
		rep.Checkpoints = append(rep.Checkpoints, res)
		switch res.Verdict {
		case VerdictOK:
			if rep.Divergence == nil && cp.Size > rep.Verified {
				rep.Verified = cp.Size
			}
			*prev = &cp
			signedLeaves[res.LeafIndex] = true
			t.Pin(cp.Size) // the next checkpoint's consistency proof starts here
		case VerdictMismatch, VerdictInconsistent, VerdictBeyond:
			if rep.Divergence == nil {
				rep.Divergence = &Divergence{FromLeaf: rep.Verified, ToLeaf: cp.Size, CheckpointPosition: uint64(env.Position)}
			}
		}
	}
	t.Append(env)
}

// checkCheckpoint checks the checkpoint event env, found after the leaves
// already in t.
func checkCheckpoint(ctx context.Context, t *Tree, env events.Envelope, known note.Verifiers, prev *Signed) (CheckpointResult, Signed) {
	res := CheckpointResult{Position: uint64(env.Position), LeafIndex: t.Size()}
	var ev events.LogCheckpointSigned
	if err := json.Unmarshal(env.Data, &ev); err != nil {
		res.Verdict, res.Detail = VerdictMalformed, err.Error()
		return res, Signed{}
	}
	res.Signer, res.Size = SignerName(ev.Note), ev.Size
	cp, err := OpenCheckpoint(ev.Note, known)
	var unverified *note.UnverifiedNoteError
	var invalid *note.InvalidSignatureError
	switch {
	case errors.As(err, &unverified) && keyNamed(known, res.Signer):
		res.Verdict, res.Detail = VerdictUnknownKey, fmt.Sprintf("signed under the name %q by another key than the one given for it: "+
			"a substituted key, unless that name also has a key you were not given", res.Signer)
		return res, Signed{}
	case errors.As(err, &unverified):
		res.Verdict, res.Detail = VerdictUnknownKey, fmt.Sprintf("no verifier key given for signer %q", res.Signer)
		return res, Signed{}
	case errors.As(err, &invalid):
		res.Verdict, res.Detail = VerdictBadSignature, fmt.Sprintf("the signature of %q does not verify: the checkpoint was changed or forged", res.Signer)
		return res, Signed{}
	case errors.Is(err, ErrBadCheckpoint):
		res.Verdict, res.Detail = VerdictMalformed, err.Error()
		return res, Signed{}
	case err != nil:
		res.Verdict, res.Detail = VerdictMalformed, err.Error()
		return res, Signed{}
	}
	res.Signer, res.Size = cp.Signer, cp.Size
	if cp.Size > t.Size() {
		res.Verdict = VerdictBeyond
		res.Detail = fmt.Sprintf("covers %d events but only %d precede it", cp.Size, t.Size())
		return res, cp
	}
	root, err := t.RootAt(ctx, cp.Size)
	if err != nil {
		res.Verdict, res.Detail = VerdictMismatch, err.Error()
		return res, cp
	}
	if !bytes.Equal(root, cp.Root) {
		res.Verdict = VerdictMismatch
		res.Detail = fmt.Sprintf("the first %d events of the log do not hash to the signed root", cp.Size)
		return res, cp
	}
	if prev != nil && prev.Size <= cp.Size {
		hashes, err := t.ConsistencyProof(ctx, prev.Size, cp.Size)
		if err == nil {
			err = proof.VerifyConsistency(hasher, prev.Size, cp.Size, hashes, prev.Root, cp.Root)
		}
		if err != nil {
			res.Verdict, res.Detail = VerdictInconsistent, err.Error()
			return res, cp
		}
	}
	res.Verdict = VerdictOK
	return res, cp
}

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

// ErrNotFromHeld is a consistency proof that does not start from the
// checkpoint an auditor kept outside the log.
var ErrNotFromHeld = errors.New("the proof does not start from the checkpoint held")

// StartsFrom reports ErrNotFromHeld (wrapped, saying how) unless c, a
// consistency proof that verified, starts from held, a checkpoint kept
// outside the log: the same size and root. A proof from another root of
// that size links a history signed again, not the one held.
func (c Checked) StartsFrom(held Signed) error {
	switch {
	case c.Kind != KindConsistency:
		return fmt.Errorf("%w: a proof of %s, not of consistency", ErrNotFromHeld, c.Kind)
	case c.Old.Size != held.Size:
		return fmt.Errorf("%w: it starts from the checkpoint of %d events, not from the one held (%d events)", ErrNotFromHeld, c.Old.Size, held.Size)
	case !bytes.Equal(c.Old.Root, held.Root):
		return fmt.Errorf("%w: it starts from a checkpoint of %d events with another root than the one held: "+
			"the log of the held checkpoint is not a prefix of this one (a history signed again)", ErrNotFromHeld, held.Size)
	}
	return nil
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

// ErrNoSuchEvent is an event asked by its commit's position and its index
// in the commit that the log does not hold.
var ErrNoSuchEvent = errors.New("no such event")

// ErrNotCovered is an event that came after the checkpoint its inclusion
// proof was asked against.
var ErrNotCovered = errors.New("the event is not covered by the checkpoint (it came after it)")

// ProveEvent returns the inclusion proof, against cp, of event index of
// the commit at pos, for the Backoffice's proofs and audit prove alike:
// ErrNoSuchEvent (wrapped) when the commit has no such event, however far
// index reaches; ErrNotCovered when the event came after cp. The proof
// holds the event, unless its payload holds a secret: then the leaf hash
// stands alone.
func (t *Tree) ProveEvent(ctx context.Context, pos events.Position, index uint64, cp Signed) (Proof, error) {
	leaf, err := t.LeafIndexAt(ctx, pos)
	if err != nil {
		return Proof{}, err
	}
	leaf += index
	noEvent := fmt.Errorf("%w: the commit at position %d has no event %d", ErrNoSuchEvent, pos, index)
	if leaf >= t.Size() {
		return Proof{}, noEvent
	}
	if leaf >= cp.Size {
		// Not covered, unless another commit's event is there.
		l, err := t.Leaf(ctx, leaf)
		if err != nil {
			return Proof{}, err
		}
		if l.Position != uint64(pos) {
			return Proof{}, noEvent
		}
		return Proof{}, ErrNotCovered
	}
	p, err := t.ProveInclusion(ctx, leaf, cp, true)
	if err != nil {
		return Proof{}, err
	}
	if p.Event.Position != uint64(pos) {
		return Proof{}, noEvent
	}
	if PayloadHasSecrets(p.Event.Data) {
		p.Event = nil
	}
	return p, nil
}

// ErrCheckpointMismatch is a checkpoint that is not one of this log: it
// covers more events than the log holds, or the log's first events at its
// size hash to another root. No proof against it could check.
var ErrCheckpointMismatch = errors.New("the checkpoint does not match the log")

// matches reports ErrCheckpointMismatch (wrapped, saying how) unless cp
// is a checkpoint of t's log.
func (t *Tree) matches(ctx context.Context, cp Checkpoint) error {
	if size := t.Size(); cp.Size > size {
		return fmt.Errorf("%w: it covers %d events, the log holds %d", ErrCheckpointMismatch, cp.Size, size)
	}
	root, err := t.RootAt(ctx, cp.Size)
	if err != nil {
		return err
	}
	if !bytes.Equal(root, cp.Root) {
		return fmt.Errorf("%w: the log's first %d events hash to another root than the signed one", ErrCheckpointMismatch, cp.Size)
	}
	return nil
}

// ProveInclusion returns the inclusion proof of leaf index against the
// signed checkpoint cp: ErrCheckpointMismatch (wrapped) when cp is not a
// checkpoint of this log. withEvent puts the event itself in the proof;
// without it only its leaf hash.
func (t *Tree) ProveInclusion(ctx context.Context, index uint64, cp Signed, withEvent bool) (Proof, error) {
	if err := t.matches(ctx, cp.Checkpoint); err != nil {
		return Proof{}, err
	}
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

// ProveConsistency returns the consistency proof between two checkpoints:
// ErrCheckpointMismatch (wrapped) when either is not a checkpoint of this
// log.
func (t *Tree) ProveConsistency(ctx context.Context, oldCP, newCP Signed) (Proof, error) {
	if oldCP.Size > newCP.Size {
		oldCP, newCP = newCP, oldCP
	}
	for _, cp := range []Checkpoint{oldCP.Checkpoint, newCP.Checkpoint} {
		if err := t.matches(ctx, cp); err != nil {
			return Proof{}, err
		}
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
