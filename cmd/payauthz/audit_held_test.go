package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/projections/logtree"
)

// signedDataDir writes a new data dir whose log registers one entity per
// name, each followed by a checkpoint signed with skey, as the service
// (or whoever holds its key) signs them. It returns the data dir and the
// notes of its checkpoints, in log order.
func signedDataDir(t *testing.T, skey string, names []string) (string, []string) {
	t.Helper()
	signer, vkey, err := logtree.ParseSigningKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	var notes []string
	withDataDir(t, data, false, func(s *jetstream.Store) {
		l, err := logtree.NewLog(s, signer, vkey, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); _ = l.Follow(ctx) }()
		defer func() { stop(); <-done }()
		for i, name := range names {
			pos, err := s.Append(ctx, fmt.Sprintf("dominio-%011d", i), events.ExpectNoStream(),
				events.Record{Event: events.CreditorEntityRegistered{IDDominio: fmt.Sprintf("%011d", i), RagioneSociale: name, Enabled: true}})
			if err != nil {
				t.Fatal(err)
			}
			if err := l.WaitFor(ctx, pos); err != nil {
				t.Fatal(err)
			}
			cp, signed, err := l.Checkpoint(ctx)
			if err != nil || !signed {
				t.Fatalf("checkpoint %d: %v %v", i, signed, err)
			}
			notes = append(notes, cp.Note)
		}
	})
	return data, notes
}

// TestAuditHeldCheckpointNoteCatchesAResignedHistory: README tells an
// auditor to keep copies of checkpoint notes outside the service and check
// that new checkpoints are consistent with them, so that a history
// rewritten and signed again by whoever holds the key is caught. audit
// verify cannot catch it (every checkpoint of the re-signed log verifies),
// nor can a proof between two checkpoints of that log: prove
// --consistency-note proves from the note held, and refuses a log that no
// longer matches it; check-proof --consistency-note refuses a proof that
// does not start from the note held.
func TestAuditHeldCheckpointNoteCatchesAResignedHistory(t *testing.T) {
	skey, vkey, err := note.GenerateKey(rand.Reader, "payauthz-demo")
	if err != nil {
		t.Fatal(err)
	}
	honest, notes := signedDataDir(t, skey, []string{"Comune A", "Comune B", "Comune C"})
	resigned, _ := signedDataDir(t, skey, []string{"Comune A", "Comune riscritto", "Comune C"})
	dir := t.TempDir()
	held := filepath.Join(dir, "held.note") // the auditor's copy of the second checkpoint (3 events)
	if err := os.WriteFile(held, []byte(notes[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	// The re-signed log verifies, and so does a proof between two of its
	// own checkpoints (positions 2, 4, 6).
	if out := mustRun(t, "audit", "verify", "--data-dir", resigned, "--verifier-key", vkey); !strings.Contains(out, "OK: the first") {
		t.Fatalf("the re-signed log:\n%s", out)
	}
	ownProof := filepath.Join(dir, "own.proof")
	mustRun(t, "audit", "prove", "--data-dir", resigned, "--consistency", "4", "--out", ownProof)
	mustRun(t, "audit", "check-proof", ownProof, "--verifier-key", vkey)

	// check-proof with the note held: that proof does not start from it.
	out, _, err := run(t, "audit", "check-proof", ownProof, "--verifier-key", vkey, "--consistency-note", held)
	if err == nil || exitCode(err) != exitFailure || !strings.Contains(err.Error(), "another root than the one held") {
		t.Fatalf("check-proof of the re-signed log's own proof from the held note: %v\n%s", err, out)
	}
	// prove from the note held: the re-signed log does not match it.
	refused := filepath.Join(dir, "refused.proof")
	_, _, err = run(t, "audit", "prove", "--data-dir", resigned, "--consistency-note", held, "--out", refused)
	if err == nil || exitCode(err) != exitFailure || !strings.Contains(err.Error(), "the checkpoint does not match the log") {
		t.Fatalf("prove from the held note on the re-signed log: %v", err)
	}
	if _, err := os.Stat(refused); err == nil {
		t.Fatal("prove wrote a proof from a held note the log does not match")
	}

	// The honest log: the proof from the held note to the latest
	// checkpoint holds, and starts from it.
	good := filepath.Join(dir, "good.proof")
	mustRun(t, "audit", "prove", "--data-dir", honest, "--consistency-note", held, "--out", good)
	out = mustRun(t, "audit", "check-proof", good, "--verifier-key", vkey, "--consistency-note", held)
	if !strings.Contains(out, "OK: the log of 3 events") || !strings.Contains(out, "a prefix of the log of 5 events") {
		t.Fatalf("check-proof from the held note:\n%s", out)
	}
	// A proof from another checkpoint than the held one says so, and a
	// held note the keys given do not verify is refused.
	other := filepath.Join(dir, "other.proof")
	mustRun(t, "audit", "prove", "--data-dir", honest, "--consistency", "2", "--out", other)
	if _, _, err := run(t, "audit", "check-proof", other, "--verifier-key", vkey, "--consistency-note", held); err == nil ||
		!strings.Contains(err.Error(), "not from the one held (3 events)") {
		t.Fatalf("a proof from another checkpoint: %v", err)
	}
	_, otherKey, _ := note.GenerateKey(rand.Reader, "payauthz-other")
	if _, _, err := run(t, "audit", "check-proof", good, "--verifier-key", otherKey, "--consistency-note", held); err == nil {
		t.Fatal("a held note of a key not given was accepted")
	}
}
