package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/term"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections/logtree"
)

// The verifiable log's tools: verify the whole log against its signed
// checkpoints, prove one event's inclusion or two checkpoints'
// consistency, and check such a proof with the verifier key alone.

// errLogRewritten is returned (exit status 1) when the log does not match
// what was signed.
var errLogRewritten = errors.New("the event log does not match its signed checkpoints")

// errNothingVerified is returned (exit status 1) when the log holds events
// and no checkpoint: whether its signing was never on or its checkpoints
// were removed, nothing is verified, and a check that reports success
// there would pass a log stripped of what would prove it rewritten.
var errNothingVerified = errors.New("nothing is verified: the log holds events and no checkpoint")

func logAuditCmds(ac *auditConfig) []*cobra.Command {
	return []*cobra.Command{verifyCmd(ac), proveCmd(ac), checkProofCmd(), whatCanCmd(ac)}
}

// verifierKeys parses the --verifier-key values; none, or one that is not
// a verifier key, is a usage error.
func verifierKeys(keys []string) (note.Verifiers, error) {
	if len(keys) == 0 {
		return nil, usageErrorf("--verifier-key is required: the key the service prints at start and serves at " +
			"GET /log/verifier-key (repeat it for each replica's key)")
	}
	v, err := logtree.Verifiers(keys...)
	if err != nil {
		return nil, usageErrorf("%w", err)
	}
	return v, nil
}

func verifyCmd(ac *auditConfig) *cobra.Command {
	var keys []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify --verifier-key KEY",
		Short: "Recompute the log's Merkle tree and check every signed checkpoint against it",
		Long: `Reads the whole log (read-only), recomputes its Merkle tree (RFC 6962), and checks every checkpoint
event: its signature with the given verifier keys, that its root is the root of the log's first events at its
size, and that it extends the previous checkpoint. Exits with status 1 and names where the log first differs
from what was signed when anything does not match, and with status 1 when the log holds events and no
checkpoint (nothing is verified).`,
		Args: cobra.NoArgs,
		RunE: withEnv(func(cmd *cobra.Command, _ []string) error {
			known, err := verifierKeys(keys)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			store, err := ac.open(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			progress, finish := terminalProgress(ctx, cmd.ErrOrStderr(), store)
			start := time.Now()
			rep, _, err := logtree.Verify(ctx, store, known, progress)
			finish()
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				printReport(cmd.OutOrStdout(), rep, time.Since(start))
			}
			if !rep.OK() {
				return errLogRewritten
			}
			if len(rep.Checkpoints) == 0 && rep.Events > 0 {
				return errNothingVerified
			}
			return nil
		}),
	}
	cmd.Flags().StringArrayVar(&keys, "verifier-key", nil, "verifier key of a signer (repeatable)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// terminalProgress draws a progress bar while reading, on a terminal only.
func terminalProgress(ctx context.Context, w io.Writer, store events.Store) (func(events.Envelope), func()) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	last, err := store.LastPosition(ctx)
	if err != nil {
		return nil, func() {}
	}
	bar := newProgress(w, uint64(last))
	return bar.update, bar.finish
}

func printReport(w io.Writer, rep *logtree.Report, took time.Duration) {
	fmt.Fprintf(w, "log: %d events up to position %d, root %s\n", rep.Events, rep.LastPosition, base64.StdEncoding.EncodeToString(rep.Root))
	fmt.Fprintf(w, "read and hashed in %s (%.0f events/s)\n", took.Round(time.Millisecond), float64(rep.Events)/took.Seconds())
	ok := 0
	for _, c := range rep.Checkpoints {
		if c.Verdict == logtree.VerdictOK {
			ok++
			continue
		}
		fmt.Fprintf(w, "checkpoint at position %d (signer %s, %d events): %s: %s\n", c.Position, c.Signer, c.Size, c.Verdict, c.Detail)
	}
	fmt.Fprintf(w, "checkpoints: %d, %d verified\n", len(rep.Checkpoints), ok)
	if d := rep.Divergence; d != nil {
		fmt.Fprintf(w, "FAILED: the log was changed after it was signed. The first %d events match the signed checkpoints; "+
			"the first event that differs from what was signed is at position %d (event %d of the log)", d.FromLeaf, d.FromPosition, d.FromLeaf)
		if d.ToLeaf > d.FromLeaf+1 {
			fmt.Fprintf(w, " or after it, at the latest at position %d (event %d)", d.ToPosition, d.ToLeaf-1)
		}
		fmt.Fprintf(w, "; the checkpoint at position %d does not match.\n", d.CheckpointPosition)
		return
	}
	if !rep.OK() {
		fmt.Fprintln(w, "FAILED: some checkpoints could not be verified (see above).")
		return
	}
	if len(rep.Checkpoints) == 0 {
		if rep.Events > 0 {
			fmt.Fprintln(w, "FAILED: the log holds no checkpoint: nothing is verified (its signing was never on, or its checkpoints were removed).")
		} else {
			fmt.Fprintln(w, "the log is empty: nothing to verify.")
		}
		return
	}
	fmt.Fprintf(w, "OK: the first %d events are exactly the events that were signed", rep.Verified)
	if n := rep.Events - rep.Verified; n > 0 {
		fmt.Fprintf(w, "; the last %d (the latest checkpoint itself, and what came after it) are covered by no checkpoint yet", n)
	}
	fmt.Fprintln(w, ".")
}

// loadTree reads the whole log into a tree and returns it with the
// checkpoints found in it (as they claim to be: a proof is checked with
// the verifier key, not here).
func loadTree(ctx context.Context, store events.Store) (*logtree.Tree, []logtree.Found, error) {
	tree := logtree.NewTree(store)
	var found []logtree.Found
	err := store.Read(ctx, 0, func(_ context.Context, env events.Envelope) error {
		if ev, ok := env.Event.(events.LogCheckpointSigned); ok {
			if sig, err := logtree.ParseNote(ev.Note); err == nil {
				found = append(found, logtree.Found{Position: env.Position, LeafIndex: tree.Size(), Signed: sig})
			}
		}
		tree.Append(env)
		return nil
	})
	return tree, found, err
}

// pickCheckpoint is the checkpoint whose event is at pos, or the latest.
func pickCheckpoint(found []logtree.Found, pos uint64) (logtree.Found, error) {
	if len(found) == 0 {
		return logtree.Found{}, errors.New("the log holds no checkpoint yet")
	}
	if pos == 0 {
		return found[len(found)-1], nil
	}
	for _, f := range found {
		if uint64(f.Position) == pos {
			return f, nil
		}
	}
	return logtree.Found{}, fmt.Errorf("no checkpoint at position %d", pos)
}

func proveCmd(ac *auditConfig) *cobra.Command {
	var position, checkpoint, consistency uint64
	var index uint32
	var out, heldNote string
	cmd := &cobra.Command{
		Use:   "prove (--position N [--index I] | --consistency OLD | --consistency-note FILE) [--checkpoint POS] [--out FILE]",
		Short: "Write a proof that an event is in a signed checkpoint, or that one checkpoint extends another",
		Long: `--position N proves that the event at log position N (the I-th of its commit) is in the log signed by
the checkpoint at position --checkpoint (default: the latest). --consistency OLD proves that the log signed by
the checkpoint at position OLD is a prefix of the one signed by --checkpoint. --consistency-note FILE does the
same from a checkpoint note kept outside the log (a copy an auditor made earlier), and fails, writing nothing,
when the log no longer matches it: a history rewritten since, even if signed again. The proof file is checked
with ` + "`payauthz audit check-proof FILE --verifier-key KEY`" + `, without the log.`,
		Args: cobra.NoArgs,
		RunE: withEnv(func(cmd *cobra.Command, _ []string) error {
			given := 0
			for _, set := range []bool{position != 0, consistency != 0, heldNote != ""} {
				if set {
					given++
				}
			}
			if given != 1 {
				return usageErrorf("give one of --position, --consistency and --consistency-note")
			}
			var held logtree.Signed
			if heldNote != "" {
				b, err := os.ReadFile(heldNote)
				if err != nil {
					return err
				}
				if held, err = logtree.ParseNote(string(b)); err != nil {
					return fmt.Errorf("--consistency-note %s: %w", heldNote, err)
				}
			}
			ctx := cmd.Context()
			store, err := ac.open(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			tree, found, err := loadTree(ctx, store)
			if err != nil {
				return fmt.Errorf("read the log: %w", err)
			}
			cp, err := pickCheckpoint(found, checkpoint)
			if err != nil {
				return err
			}
			var p logtree.Proof
			if heldNote != "" {
				if p, err = tree.ProveConsistency(ctx, held, cp.Signed); err != nil {
					return fmt.Errorf("the held checkpoint (%d events, signer %s): %w", held.Size, held.Signer, err)
				}
				if held.Size > cp.Size {
					return fmt.Errorf("the held checkpoint covers %d events, more than the checkpoint at position %d (%d): name a later --checkpoint",
						held.Size, cp.Position, cp.Size)
				}
			} else if consistency != 0 {
				old, err := pickCheckpoint(found, consistency)
				if err != nil {
					return err
				}
				if p, err = tree.ProveConsistency(ctx, old.Signed, cp.Signed); err != nil {
					return err
				}
			} else {
				p, err = tree.ProveEvent(ctx, events.Position(position), uint64(index), cp.Signed)
				if errors.Is(err, logtree.ErrNotCovered) {
					return fmt.Errorf("the event at position %d came after the checkpoint at position %d (%d events): name a later --checkpoint",
						position, cp.Position, cp.Size)
				}
				if err != nil {
					return err
				}
			}
			b, err := json.MarshalIndent(p, "", "  ")
			if err != nil {
				return err
			}
			b = append(b, '\n')
			if out == "" {
				_, err = cmd.OutOrStdout().Write(b)
				return err
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote the %s proof against the checkpoint at position %d (%d events, signer %s) to %s\n",
				p.Kind, cp.Position, cp.Size, cp.Signer, out)
			return nil
		}),
	}
	cmd.Flags().Uint64Var(&position, "position", 0, "log position of the event to prove")
	cmd.Flags().Uint32Var(&index, "index", 0, "place of the event in its commit, from 0")
	cmd.Flags().Uint64Var(&consistency, "consistency", 0, "log position of the older checkpoint of a consistency proof")
	cmd.Flags().StringVar(&heldNote, "consistency-note", "", "file of a checkpoint note kept outside the log, the older checkpoint of a consistency proof")
	cmd.Flags().Uint64Var(&checkpoint, "checkpoint", 0, "log position of the checkpoint to prove against (default: the latest)")
	cmd.Flags().StringVar(&out, "out", "", "write the proof to this file (default: standard output)")
	return cmd
}

func checkProofCmd() *cobra.Command {
	var keys []string
	var heldNote string
	cmd := &cobra.Command{
		Use:   "check-proof FILE --verifier-key KEY [--consistency-note NOTE]",
		Short: "Check a proof file with the verifier key alone, without the log",
		Long: `Checks a proof file written by audit prove (or answered by the Backoffice) with the verifier keys alone.
--consistency-note NOTE, a checkpoint note kept outside the log, also requires a consistency proof to start
from that checkpoint: its signature verifies with the keys given, and the proof's older checkpoint has its
size and root. A proof between two checkpoints of a history signed again does not.`,
		Args: cobra.ExactArgs(1),
		RunE: withEnv(func(cmd *cobra.Command, args []string) error {
			known, err := verifierKeys(keys)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			c, err := logtree.Check(b, known)
			if err != nil {
				return fmt.Errorf("the proof does NOT hold: %w", err)
			}
			if heldNote != "" {
				nb, err := os.ReadFile(heldNote)
				if err != nil {
					return err
				}
				held, err := logtree.OpenCheckpoint(string(nb), known)
				if err != nil {
					return fmt.Errorf("the held checkpoint %s does not verify with the keys given: %w", heldNote, err)
				}
				if err := c.StartsFrom(held); err != nil {
					return fmt.Errorf("the proof does NOT hold: %w", err)
				}
			}
			w := cmd.OutOrStdout()
			cp := c.Checkpoint
			switch c.Kind {
			case logtree.KindInclusion:
				what := fmt.Sprintf("event %d of the log", c.LeafIndex)
				if e := c.Event; e != nil {
					what = fmt.Sprintf("the event at position %d (index %d in its commit, event %d of the log): %s on stream %s at %s, id %s, payload %s",
						e.Position, e.Index, c.LeafIndex, e.Name, e.Stream, e.Time.UTC().Format(time.RFC3339Nano), e.ID, e.Data)
				}
				fmt.Fprintf(w, "OK: %s\nis in the log of %d events signed by %s at %s (root %s).\n", what, cp.Size, cp.Signer,
					cp.Time.UTC().Format(time.RFC3339), base64.StdEncoding.EncodeToString(cp.Root))
			case logtree.KindConsistency:
				fmt.Fprintf(w, "OK: the log of %d events signed by %s at %s is a prefix of the log of %d events signed by %s at %s:\n"+
					"nothing signed earlier was changed or removed in between.\n", c.Old.Size, c.Old.Signer, c.Old.Time.UTC().Format(time.RFC3339),
					cp.Size, cp.Signer, cp.Time.UTC().Format(time.RFC3339))
			}
			return nil
		}),
	}
	cmd.Flags().StringArrayVar(&keys, "verifier-key", nil, "verifier key of a signer (repeatable)")
	cmd.Flags().StringVar(&heldNote, "consistency-note", "", "file of a checkpoint note kept outside the log: the consistency proof must start from it")
	return cmd
}
