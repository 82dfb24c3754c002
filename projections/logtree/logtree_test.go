package logtree_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections/logtree"
	"github.com/payauthz/payauthz/projections/logtree/logtreetest"
)

func openStore(t testing.TB) *jetstream.Store {
	t.Helper()
	return jetstreamtest.Open(t)
}

func newKey(t testing.TB, name string) (note.Signer, string) {
	t.Helper()
	signer, vkey, _ := newKeyFile(t, name)
	return signer, vkey
}

// newKeyFile generates a key file and returns its signer, verifier key
// and content.
func newKeyFile(t testing.TB, name string) (note.Signer, string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log-signing.key")
	signer, vkey, err := logtree.LoadOrCreateKey(path, name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v", fi.Mode().Perm())
	}
	if des, _ := os.ReadDir(filepath.Dir(path)); len(des) != 1 {
		t.Fatalf("key dir holds %d files, want only the key (no temporary file left)", len(des))
	}
	again, vkey2, err := logtree.LoadOrCreateKey(path, "ignored")
	if err != nil || vkey2 != vkey || again.Name() != name {
		t.Fatalf("reloading the key: %v %q", err, vkey2)
	}
	return signer, vkey, strings.TrimSpace(string(b))
}

func verifiers(t *testing.T, keys ...string) note.Verifiers {
	t.Helper()
	v, err := logtree.Verifiers(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func entity(i int) events.Event {
	return events.CreditorEntityRegistered{IDDominio: fmt.Sprintf("%011d", i), RagioneSociale: fmt.Sprintf("Comune %d", i), Enabled: true}
}

// signedLog is a log of n entity registrations, each followed by a
// checkpoint of the service's Log: content event i is leaf 2i, and the
// checkpoint after it (leaf 2i+1) covers the 2i+1 leaves before it.
type signedLog struct {
	store   *jetstream.Store
	log     *logtree.Log
	vkey    string
	skey    string
	content []events.Position // position of content event i
}

func newSignedLog(t *testing.T, n int) *signedLog {
	t.Helper()
	ctx := context.Background()
	store := openStore(t)
	signer, vkey, skey := newKeyFile(t, "payauthz-test")
	l, err := logtree.NewLog(store, signer, vkey, nil)
	if err != nil {
		t.Fatal(err)
	}
	fctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = l.Follow(fctx) }()
	t.Cleanup(func() { stop(); <-done })
	sl := &signedLog{store: store, log: l, vkey: vkey, skey: skey}
	for i := range n {
		pos, err := store.Append(ctx, fmt.Sprintf("dominio-%d", i), events.ExpectNoStream(), events.Record{Event: entity(i)})
		if err != nil {
			t.Fatal(err)
		}
		sl.content = append(sl.content, pos)
		if err := l.WaitFor(ctx, pos); err != nil {
			t.Fatal(err)
		}
		if _, signed, err := l.Checkpoint(ctx); err != nil || !signed {
			t.Fatalf("checkpoint %d: signed %v, %v", i, signed, err)
		}
	}
	last, _ := store.LastPosition(ctx)
	if err := l.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	return sl
}

// copyLog writes every commit of src into a fresh store, as a restored
// or rewritten backup would be: edit may change the commits first.
func copyLog(t *testing.T, src events.Store, edit func([][]events.Envelope) [][]events.Envelope) *jetstream.Store {
	t.Helper()
	commits := logtreetest.Commits(t, src)
	if edit != nil {
		commits = edit(commits)
	}
	dst := openStore(t)
	logtreetest.Copy(t, commits, dst)
	return dst
}

func verify(t *testing.T, s events.Store, keys ...string) *logtree.Report {
	t.Helper()
	rep, _, err := logtree.Verify(context.Background(), s, verifiers(t, keys...), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestVerify_untouched_log_and_faithful_copy_verify(t *testing.T) {
	sl := newSignedLog(t, 6)
	for name, s := range map[string]events.Store{"original": sl.store, "copy": copyLog(t, sl.store, nil)} {
		rep := verify(t, s, sl.vkey)
		if !rep.OK() || rep.Divergence != nil {
			t.Fatalf("%s: not OK: %+v", name, rep)
		}
		if len(rep.Checkpoints) != 6 || rep.Events != 12 || rep.Verified != 11 {
			t.Fatalf("%s: checkpoints %d events %d verified %d", name, len(rep.Checkpoints), rep.Events, rep.Verified)
		}
		_, root := sl.log.Tree().Root()
		if !bytes.Equal(rep.Root, root) {
			t.Fatalf("%s: recomputed root differs from the service's", name)
		}
	}
}

func TestVerify_detects_a_rewritten_log_at_the_right_position(t *testing.T) {
	sl := newSignedLog(t, 6)
	const j = 3 // the content event tampered with: leaf 6
	cases := []struct {
		name string
		edit func([][]events.Envelope) [][]events.Envelope
	}{
		{"altered", func(c [][]events.Envelope) [][]events.Envelope {
			e := c[2*j][0].Event.(events.CreditorEntityRegistered)
			e.RagioneSociale = "Comune rinominato"
			c[2*j][0].Event = e
			return c
		}},
		{"removed", func(c [][]events.Envelope) [][]events.Envelope {
			return append(c[:2*j:2*j], c[2*j+1:]...)
		}},
		{"reordered", func(c [][]events.Envelope) [][]events.Envelope {
			c[2*j], c[2*j+2] = c[2*j+2], c[2*j]
			return c
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := verify(t, copyLog(t, sl.store, tc.edit), sl.vkey)
			if rep.OK() || rep.Divergence == nil {
				t.Fatalf("tampering not detected: %+v", rep)
			}
			d := rep.Divergence
			if d.FromLeaf != 2*j || uint64(sl.content[j]) != d.FromPosition {
				t.Fatalf("divergence %+v, want leaf %d at position %d", d, 2*j, sl.content[j])
			}
			if rep.Verified != 2*j-1 {
				t.Fatalf("verified %d, want %d", rep.Verified, 2*j-1)
			}
			for i, c := range rep.Checkpoints[:j] {
				if c.Verdict != logtree.VerdictOK {
					t.Fatalf("checkpoint %d before the change: %+v", i, c)
				}
			}
		})
	}
}

func TestVerify_reports_bad_signatures_and_unknown_keys(t *testing.T) {
	sl := newSignedLog(t, 3)
	_, otherKey := newKey(t, "payauthz-test") // same name, another key
	rep := verify(t, sl.store, otherKey)
	if rep.OK() {
		t.Fatal("checkpoints of an unknown key verified")
	}
	for _, c := range rep.Checkpoints {
		if c.Verdict != logtree.VerdictUnknownKey {
			t.Fatalf("verdict %+v, want unknown-key", c)
		}
	}
	forged := copyLog(t, sl.store, func(c [][]events.Envelope) [][]events.Envelope {
		ev := c[3][0].Event.(events.LogCheckpointSigned)
		ev.Note = strings.Replace(ev.Note, "\n3\n", "\n2\n", 1) // the size, under the old signature
		c[3][0].Event = ev
		return c
	})
	rep = verify(t, forged, sl.vkey)
	if rep.OK() || rep.Checkpoints[1].Verdict != logtree.VerdictBadSignature {
		t.Fatalf("forged checkpoint: %+v", rep.Checkpoints)
	}
	// The changed checkpoint event is itself a leaf: the next checkpoint
	// no longer matches, and the divergence is placed on it.
	if rep.Checkpoints[0].Verdict != logtree.VerdictOK || rep.Checkpoints[2].Verdict != logtree.VerdictMismatch {
		t.Fatalf("the other checkpoints: %+v", rep.Checkpoints)
	}
	if d := rep.Divergence; d == nil || d.FromLeaf > 3 || d.ToLeaf <= 3 {
		t.Fatalf("divergence %+v, want a span holding the forged checkpoint's leaf 3", d)
	}
}

func TestLog_replaying_a_rewritten_log_refuses_to_sign(t *testing.T) {
	sl := newSignedLog(t, 4)
	tampered := copyLog(t, sl.store, func(c [][]events.Envelope) [][]events.Envelope {
		e := c[2][0].Event.(events.CreditorEntityRegistered)
		e.Enabled = false
		c[2][0].Event = e
		return c
	})
	ctx := context.Background()
	_, err := tampered.Append(ctx, "dominio-new", events.ExpectNoStream(), events.Record{Event: entity(99)})
	if err != nil {
		t.Fatal(err)
	}
	// The same key (the service's data dir restored with the log).
	signer, vkey, err := logtree.ParseSigningKey(sl.skey)
	if err != nil {
		t.Fatal(err)
	}
	l, err := logtree.NewLog(tampered, signer, vkey, nil)
	if err != nil {
		t.Fatal(err)
	}
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = l.Follow(fctx) }()
	last, _ := tampered.LastPosition(ctx)
	if err := l.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(l.Diverged(), logtree.ErrDiverged) {
		t.Fatalf("diverged = %v", l.Diverged())
	}
	// Its checkpoints are listed; verified only those the log still
	// matches: the first covers leaf 0 alone, every later one the changed
	// leaf 2.
	var verified []bool
	for _, f := range l.Checkpoints() {
		verified = append(verified, f.Verified)
	}
	if fmt.Sprint(verified) != "[true false false false]" {
		t.Fatalf("checkpoints verified %v, want [true false false false]", verified)
	}
	if _, signed, err := l.Checkpoint(ctx); signed || !errors.Is(err, logtree.ErrDiverged) {
		t.Fatalf("checkpoint over a rewritten log: signed %v, %v", signed, err)
	}
	// The untouched log, replayed by a new Log, signs.
	l2, _ := logtree.NewLog(sl.store, signer, vkey, nil)
	go func() { _ = l2.Follow(fctx) }()
	_, err = sl.store.Append(ctx, "dominio-new", events.ExpectNoStream(), events.Record{Event: entity(99)})
	if err != nil {
		t.Fatal(err)
	}
	last, _ = sl.store.LastPosition(ctx)
	if err := l2.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	if _, signed, err := l2.Checkpoint(ctx); !signed || err != nil {
		t.Fatalf("checkpoint over the untouched log: signed %v, %v", signed, err)
	}
}

func TestProofs_verify_and_fail_when_tampered(t *testing.T) {
	sl := newSignedLog(t, 5)
	ctx := context.Background()
	known := verifiers(t, sl.vkey)
	cps := sl.log.Checkpoints()
	latest := cps[len(cps)-1]
	tree := sl.log.Tree()
	for idx := uint64(0); idx < latest.Size; idx++ {
		p, err := tree.ProveInclusion(ctx, idx, latest.Signed, true)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p)
		got, err := logtree.Check(b, known)
		if err != nil {
			t.Fatalf("leaf %d: %v", idx, err)
		}
		if got.LeafIndex != idx || got.Checkpoint.Size != latest.Size {
			t.Fatalf("leaf %d: checked %+v", idx, got)
		}
	}
	p, err := tree.ProveInclusion(ctx, 4, latest.Signed, true)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := tree.ProveConsistency(ctx, cps[1].Signed, latest.Signed)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(cons)
	if _, err := logtree.Check(b, known); err != nil {
		t.Fatalf("consistency: %v", err)
	}
	_, otherKey := newKey(t, "payauthz-other")
	tampered := map[string]func() logtree.Proof{
		"event_payload": func() logtree.Proof {
			q := p
			ev := *p.Event
			ev.Data = bytes.Replace(ev.Data, []byte("Comune"), []byte("Comuna"), 1)
			q.Event = &ev
			return q
		},
		"event_payload_and_leaf_hash": func() logtree.Proof {
			q := p
			ev := *p.Event
			ev.Data = bytes.Replace(ev.Data, []byte("Comune"), []byte("Comuna"), 1)
			q.Event, q.LeafHash = &ev, ev.Hash()
			return q
		},
		"leaf_index": func() logtree.Proof { q := p; q.LeafIndex = 2; return q },
		"proof_hash": func() logtree.Proof {
			q := p
			q.Hashes = append([][]byte(nil), p.Hashes...)
			h := append([]byte(nil), q.Hashes[0]...)
			h[0] ^= 1
			q.Hashes[0] = h
			return q
		},
		"checkpoint_size": func() logtree.Proof {
			q := p
			q.Checkpoint = strings.Replace(p.Checkpoint, fmt.Sprintf("\n%d\n", latest.Size), fmt.Sprintf("\n%d\n", latest.Size+1), 1)
			return q
		},
		"consistency_hash": func() logtree.Proof {
			q := cons
			q.Hashes = append([][]byte(nil), cons.Hashes...)
			h := append([]byte(nil), q.Hashes[len(q.Hashes)-1]...)
			h[31] ^= 1
			q.Hashes[len(q.Hashes)-1] = h
			return q
		},
		"consistency_swapped": func() logtree.Proof { q := cons; q.Old, q.New = cons.New, cons.Old; return q },
	}
	for name, f := range tampered {
		t.Run(name, func(t *testing.T) {
			b, _ := json.Marshal(f())
			if _, err := logtree.Check(b, known); err == nil {
				t.Fatal("a tampered proof verified")
			}
		})
	}
	b, _ = json.Marshal(p)
	if _, err := logtree.Check(b, verifiers(t, otherKey)); err == nil {
		t.Fatal("a proof verified with another signer's key")
	}
}

// TestLog_fed_by_a_later_subscription_builds_the_same_tree: the service
// feeds the tree from the projections' subscription, which starts where a
// snapshot left off; CatchUp reads what came before (while envelopes are
// already fed), and the tree ends equal to the one Verify builds from the
// whole log, every event once.
func TestLog_fed_by_a_later_subscription_builds_the_same_tree(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if err := jetstreamtest.FillFrom(ctx, s, 0, 60); err != nil {
		t.Fatal(err)
	}
	signer, vkey := newKey(t, "payauthz-feed")
	l, err := logtree.NewLog(s, signer, vkey, nil)
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	subDone := make(chan struct{})
	go func() { // the projections, started from a snapshot at position 40
		defer close(subDone)
		_ = s.Subscribe(sctx, 40, func(_ context.Context, env events.Envelope) error { l.Feed(env); return nil })
	}()
	if err := jetstreamtest.FillFrom(ctx, s, 60, 20); err != nil {
		t.Fatal(err)
	}
	if err := l.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if err := jetstreamtest.FillFrom(ctx, s, 80, 20); err != nil {
		t.Fatal(err)
	}
	last, _ := s.LastPosition(ctx)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := l.WaitFor(wctx, last); err != nil {
		t.Fatal(err)
	}
	known, _ := logtree.Verifiers(vkey)
	rep, _, err := logtree.Verify(ctx, s, known, nil)
	if err != nil {
		t.Fatal(err)
	}
	size, root := l.Tree().Root()
	if size != rep.Events || !bytes.Equal(root, rep.Root) {
		t.Fatalf("fed tree: %d leaves %x; the log: %d leaves %x", size, root, rep.Events, rep.Root)
	}
	if _, ok, err := l.Checkpoint(ctx); !ok || err != nil {
		t.Fatalf("checkpoint after catching up: %v %v", ok, err)
	}
	stop()
	<-subDone
}

// TestProveEvent: an event asked by its commit's position and its index
// is proved against a checkpoint that covers it; an index beyond its
// commit names no event, near (another commit's leaf) or far (beyond the
// log), and neither does a position with no commit; an event after the
// checkpoint is not covered.
func TestProveEvent(t *testing.T) {
	sl := newSignedLog(t, 3) // content event i is leaf 2i
	ctx := context.Background()
	cps := sl.log.Checkpoints()
	first, latest := cps[0].Signed, cps[len(cps)-1].Signed // first covers leaf 0 alone
	tree := sl.log.Tree()
	p, err := tree.ProveEvent(ctx, sl.content[1], 0, latest)
	if err != nil {
		t.Fatal(err)
	}
	if p.Event == nil || p.Event.Position != uint64(sl.content[1]) || p.LeafIndex != 2 {
		t.Fatalf("proof of content event 1: leaf %d, event %+v", p.LeafIndex, p.Event)
	}
	b, _ := json.Marshal(p)
	if _, err := logtree.Check(b, verifiers(t, sl.vkey)); err != nil {
		t.Fatalf("the proof does not check: %v", err)
	}
	for _, c := range []struct {
		name  string
		pos   events.Position
		index uint64
		cp    logtree.Signed
		want  error
	}{
		{"index_into_the_next_commit", sl.content[0], 1, latest, logtree.ErrNoSuchEvent},
		{"index_into_the_next_commit_after_the_checkpoint", sl.content[1], 1, first, logtree.ErrNoSuchEvent},
		{"index_beyond_the_log", sl.content[0], 1000, first, logtree.ErrNoSuchEvent},
		{"no_commit_there", 999_999, 0, latest, logtree.ErrNoSuchEvent},
		{"after_the_checkpoint", sl.content[2], 0, first, logtree.ErrNotCovered},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := tree.ProveEvent(ctx, c.pos, c.index, c.cp); !errors.Is(err, c.want) {
				t.Fatalf("ProveEvent(%d, %d) = %v, want %v", c.pos, c.index, err, c.want)
			}
		})
	}
}

// TestVerify_names_a_key_substitution: a checkpoint signed by another key
// under the name of a key given fails as unknown-key, and its detail says
// that a key of that name was given, not that none was: a key substituted
// under the signer's name is not a verifier key the auditor forgot.
func TestVerify_names_a_key_substitution(t *testing.T) {
	sl := newSignedLog(t, 2)
	impostor, _ := newKey(t, "payauthz-test") // the signer's name, another key
	ctx := context.Background()
	size, root := sl.log.Tree().Root()
	msg, err := logtree.SignCheckpoint(logtree.Checkpoint{Size: size, Root: root, Time: time.Now().UTC()}, impostor)
	if err != nil {
		t.Fatal(err)
	}
	pos, err := sl.store.Append(ctx, events.StreamCheckpoint+"payauthz-test/impostor", events.ExpectNoStream(),
		events.Record{Event: events.LogCheckpointSigned{Signer: "payauthz-test", Size: size, Note: msg}})
	if err != nil {
		t.Fatal(err)
	}
	rep := verify(t, sl.store, sl.vkey)
	if rep.OK() {
		t.Fatal("a checkpoint of a substituted key verified")
	}
	last := rep.Checkpoints[len(rep.Checkpoints)-1]
	if last.Position != uint64(pos) || last.Verdict != logtree.VerdictUnknownKey || last.Signer != "payauthz-test" {
		t.Fatalf("the substituted key's checkpoint: %+v", last)
	}
	if strings.Contains(last.Detail, "no verifier key given") || !strings.Contains(last.Detail, "another key") {
		t.Fatalf("detail %q: want it to say the checkpoint was signed by another key than the one given for its signer", last.Detail)
	}
	// A signer no key was given for is still said to have none.
	_, other := newKey(t, "payauthz-other")
	rep = verify(t, sl.store, other)
	if d := rep.Checkpoints[0].Detail; !strings.Contains(d, "no verifier key given") {
		t.Fatalf("no key for the signer: detail %q", d)
	}
}
