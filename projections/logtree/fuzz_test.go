package logtree_test

import (
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/payauthz/payauthz/projections/logtree"
)

func fuzzKey(f *testing.F) (note.Signer, note.Verifiers) {
	s, vkey := newKey(f, "payauthz-test")
	v, err := logtree.Verifiers(vkey)
	if err != nil {
		f.Fatal(err)
	}
	return s, v
}

// FuzzCheckpoint: parsing and opening a checkpoint never panics, and what
// parses prints back to itself.
func FuzzCheckpoint(f *testing.F) {
	signer, known := fuzzKey(f)
	cp := logtree.Checkpoint{Size: 12, Root: make([]byte, 32)}
	msg, _ := logtree.SignCheckpoint(cp, signer)
	f.Add(cp.Text())
	f.Add(msg)
	f.Add("payauthz event log v1\n01\nAAAA\ntime x\n")
	f.Add("")
	// A size past uint64, signed sizes, CRLF lines, a time with an offset
	// or a trailing zero, an origin that is not UTF-8.
	f.Add("payauthz event log v1\n18446744073709551616\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\ntime 2026-01-01T00:00:00Z\n")
	f.Add("payauthz event log v1\n+1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\ntime 2026-01-01T00:00:00Z\n")
	f.Add("payauthz event log v1\r\n-1\r\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\ntime 2026-01-01T00:00:00Z\r\n")
	f.Add("payauthz event log v1\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\ntime 2026-01-01T01:00:00+01:00\n")
	f.Add("payauthz event log v1\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\ntime 2026-01-01T00:00:00.50Z\n")
	f.Add("payauthz event log v1\xff\n1\nAAAA\ntime 2026-01-01T00:00:00Z\n")
	f.Fuzz(func(t *testing.T, s string) {
		if c, err := logtree.ParseCheckpoint(s); err == nil && c.Text() != s {
			t.Fatalf("%q parsed, prints %q", s, c.Text())
		}
		if c, err := logtree.OpenCheckpoint(s, known); err == nil && c.Signer != "payauthz-test" {
			t.Fatalf("opened with signer %q", c.Signer)
		}
		_ = logtree.SignerName(s)
	})
}

// FuzzCheckProof: a proof file never panics the checker, and only the
// genuine seeds verify.
func FuzzCheckProof(f *testing.F) {
	signer, known := fuzzKey(f)
	leaf := logtree.Leaf{Position: 1, Stream: "dominio-1", ID: "x", Name: "CreditorEntityRegistered", Data: []byte(`{}`)}
	root := leaf.Hash()
	msg, _ := logtree.SignCheckpoint(logtree.Checkpoint{Size: 1, Root: root}, signer)
	good, _ := json.Marshal(logtree.Proof{Kind: logtree.KindInclusion, Event: &leaf, Checkpoint: msg, Hashes: [][]byte{}})
	cons, _ := json.Marshal(logtree.Proof{Kind: logtree.KindConsistency, Old: msg, New: msg, Hashes: [][]byte{}})
	if _, err := logtree.Check(good, known); err != nil {
		f.Fatal(err)
	}
	if _, err := logtree.Check(cons, known); err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(cons)
	f.Add([]byte(`{"kind":"inclusion","leafIndex":18446744073709551615,"proof":[]}`))
	f.Add([]byte(`{}`))
	// null, trailing data, a member given twice, empty checkpoints, a hash
	// of the wrong size, a name that is not UTF-8, deep nesting.
	f.Add([]byte(`null`))
	f.Add(append(append([]byte(nil), good...), " {}"...))
	f.Add([]byte(`{"kind":"inclusion","kind":"consistency","old":"","new":"","proof":[]}`))
	f.Add([]byte(`{"kind":"inclusion","leafHash":"AAAA","checkpoint":"","proof":[""]}`))
	f.Add([]byte("{\"kind\":\"\xff\"}"))
	f.Add([]byte(`{"event":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := logtree.Check(b, known)
		if err != nil {
			return
		}
		if c.Checkpoint.Signer != "payauthz-test" {
			t.Fatalf("verified with signer %q", c.Checkpoint.Signer)
		}
		if c.Kind == logtree.KindInclusion && c.LeafIndex >= c.Checkpoint.Size {
			t.Fatalf("leaf %d outside a tree of %d", c.LeafIndex, c.Checkpoint.Size)
		}
	})
}
