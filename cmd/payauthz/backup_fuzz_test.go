package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupCommitsRefuseACommitPastTheFile: a commitSize the file cannot
// hold is a commit cut short, whatever its size: one near the largest int
// overflowed the bound check and restore panicked making its records.
func TestBackupCommitsRefuseACommitPastTheFile(t *testing.T) {
	ok := backupEvent{ID: "a", Name: "IdentifierClaimed", Stream: "s", Position: 1, CommitSize: 1, Data: json.RawMessage(`{}`)}
	for _, size := range []int{2, math.MaxInt, math.MaxInt - 1} {
		next := ok
		next.ID, next.Position, next.CommitSize = "b", 2, size
		if _, err := backupCommits([]backupEvent{ok, next}); err == nil || !strings.Contains(err.Error(), "cut short") {
			t.Errorf("commitSize %d: %v, want the commit cut short", size, err)
		}
	}
}

// FuzzReadBackup reads arbitrary backups whose checksum is right (the
// checksum tells damage, not intent: anyone who edits a file can write
// it again) as restore does before it writes anything (readBackup,
// backupCommits): a file is refused with an error or read, never a panic;
// a file read holds the events its trailer counts, and its commits hold
// every event once, in order, at growing positions, each decoded.
// Run: go test ./cmd/payauthz -run '^$' -fuzz FuzzReadBackup -fuzztime 1m -parallel 1
func FuzzReadBackup(f *testing.F) {
	ev := func(id string, pos uint64, index, size int) string {
		b, _ := json.Marshal(backupEvent{ID: id, Name: "IdentifierClaimed", Stream: "s", Version: pos, Position: pos,
			Index: index, CommitSize: size, Data: json.RawMessage(`{"tipo":"k","id":"v","titolare":"o"}`)})
		return string(b) + "\n"
	}
	for _, s := range []struct {
		body   string
		events uint16
	}{
		{ev("a", 1, 0, 1) + ev("b", 2, 0, 2) + ev("c", 2, 1, 2), 3}, {ev("a", 1, 0, 1), 1}, {"", 0}, {"{}\n", 1},
		{ev("a", 1, 0, 1) + ev("b", 2, 0, 9223372036854775807), 2}, {ev("a", 2, 0, 1) + ev("b", 1, 0, 1), 2},
		{ev("a", 1, 0, -1), 1}, {ev("a", 1, 1, 1), 1}, {ev("a", 1, 0, 2) + ev("b", 1, 1, 3), 2}, {"[]\n", 1}, {"null\n", 1},
		{`{"name":"Nonesiste","data":{}}` + "\n", 1}, {`{"name":"IdentifierClaimed","data":null,"commitSize":1}` + "\n", 1},
	} {
		f.Add([]byte(s.body), s.events)
	}
	header, _ := json.Marshal(backupHeader{Format: backupFormat, Backend: "jetstream", Position: 2})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte, n uint16) {
		content := append(append(append([]byte{}, header...), '\n'), body...)
		if len(body) > 0 && body[len(body)-1] != '\n' {
			content = append(content, '\n')
		}
		sum := sha256.Sum256(content)
		trailer, _ := json.Marshal(backupTrailer{Events: uint64(n), SHA256: hex.EncodeToString(sum[:])})
		file := filepath.Join(dir, "backup")
		if err := os.WriteFile(file, append(append(content, trailer...), '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
		_, evs, err := readBackup(file)
		if err != nil {
			return
		}
		if len(evs) != int(n) {
			t.Fatalf("%q: read %d events, the trailer says %d", body, len(evs), n)
		}
		commits, err := backupCommits(evs)
		if err != nil {
			return
		}
		held := 0
		for i, c := range commits {
			if i > 0 && c.position <= commits[i-1].position {
				t.Fatalf("%q: commit at %d after the one at %d", body, c.position, commits[i-1].position)
			}
			for j, r := range c.recs {
				e := evs[held+j]
				if r.ID != e.ID || e.Position != c.position || c.decoded[j] == nil {
					t.Fatalf("%q: commit %d holds %+v in place %d, the file %+v", body, i, r, j, e)
				}
			}
			held += len(c.recs)
		}
		if held != len(evs) {
			t.Fatalf("%q: commits hold %d of %d events", body, held, len(evs))
		}
	})
}
