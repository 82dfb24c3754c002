package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	httpapi "github.com/payauthz/payauthz/http"
	"github.com/payauthz/payauthz/projections/logtree/logtreetest"
)

var verifierKeyLine = regexp.MustCompile(`verifier key: (\S+)`)

// putDominio registers the entity id as the bootstrap admin and returns
// the position of that write, read from its consistency token.
func putDominio(t *testing.T, c *child, id string) uint64 {
	t.Helper()
	res := callRes(t, "PUT", c.url+"/backoffice/rs/basic/v1/domini/"+id, "admin", "admin-pass-1", `{"ragioneSociale":"E","abilitato":true}`)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("PUT dominio: %d\n%s", res.StatusCode, c.stderr)
	}
	pos, err := httpapi.ParseToken("jetstream", res.Header.Get(httpapi.ConsistencyHeader))
	if err != nil {
		t.Fatalf("PUT dominio: consistency token %q: %v", res.Header.Get(httpapi.ConsistencyHeader), err)
	}
	return uint64(pos)
}

// signedService runs the service with checkpoints every 50 ms and
// snapshots, registers n entities each followed by a checkpoint, and
// stops it gracefully. It returns the data dir, the verifier key and the
// log position of each entity's registration.
func signedService(t *testing.T, n int) (string, string, []uint64) {
	t.Helper()
	dir := t.TempDir()
	pwFile := adminPasswordFile(t, dir)
	data := filepath.Join(dir, "data")
	c := startChild(t, data, freePort(t), "--admin-password-file", pwFile, "--checkpoint-interval", "50ms",
		"--snapshot-interval", "50ms", "--snapshot-min-events", "1")
	var positions []uint64
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("%011d", i)
		// The write's own position, from its consistency token (the log's
		// last position may already be a checkpoint signed after it).
		pos := putDominio(t, c, id)
		positions = append(positions, pos)
		st := logState(t, c.url)
		deadline := time.Now().Add(10 * time.Second)
		for len(st.Checkpoints) == 0 || st.Checkpoints[len(st.Checkpoints)-1].Size < st.Size-1 || st.Size <= positions[len(positions)-1] {
			if time.Now().After(deadline) {
				t.Fatalf("no checkpoint after dominio %d: %+v", i, st)
			}
			time.Sleep(20 * time.Millisecond)
			st = logState(t, c.url)
		}
	}
	m := verifierKeyLine.FindStringSubmatch(c.stderr.String())
	if m == nil {
		t.Fatalf("no verifier key printed:\n%s", c.stderr)
	}
	key := getText(t, c.url+"/log/verifier-key")
	if strings.TrimSpace(key) != m[1] {
		t.Fatalf("served verifier key %q, printed %q", key, m[1])
	}
	// Over HTTP: a proof any outsider checks with the key alone; only for
	// an auditor.
	proofURL := c.url + fmt.Sprintf("/backoffice/rs/basic/v1/giornale/prove/inclusione?posizione=%d", positions[0])
	if got := call(t, "GET", proofURL, "admin", "wrong-password", ""); got != 401 {
		t.Fatalf("proof without credentials: %d", got)
	}
	// An operator whose role gives Giornale degli Eventi R on one entity
	// only may not read the whole log's proofs.
	if got := call(t, "PUT", c.url+"/backoffice/rs/basic/v1/ruoli/giornaleD1", "admin", "admin-pass-1",
		`{"acl":[{"servizio":"Giornale degli Eventi","autorizzazioni":["R"]}],"domini":["00000000001"],"tipiPendenza":["*"]}`); got != 200 && got != 201 {
		t.Fatalf("PUT ruolo: %d", got)
	}
	if got := call(t, "PUT", c.url+"/backoffice/rs/basic/v1/operatori/auditor1", "admin", "admin-pass-1",
		`{"ragioneSociale":"Revisore","password":"auditor1-pw","abilitato":true,"ruoli":["giornaleD1"]}`); got != 200 && got != 201 {
		t.Fatalf("PUT operatore: %d", got)
	}
	for _, path := range []string{"/giornale/checkpoint", "/giornale/prove/consistenza?da=1",
		fmt.Sprintf("/giornale/prove/inclusione?posizione=%d", positions[0])} {
		if got := call(t, "GET", c.url+"/backoffice/rs/basic/v1"+path, "auditor1", "auditor1-pw", ""); got != 403 {
			t.Fatalf("GET %s as an auditor of one entity: %d, want 403", path, got)
		}
	}
	body := adminGet(t, proofURL)
	proofFile := filepath.Join(dir, "http-proof.json")
	if err := os.WriteFile(proofFile, body, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, "audit", "check-proof", proofFile, "--verifier-key", m[1]); !strings.Contains(out, "OK: the event at position") {
		t.Fatalf("check-proof of the HTTP proof:\n%s", out)
	}
	c.stop(t)
	return data, m[1], positions
}

type logStateBody struct {
	Size        uint64 `json:"dimensione"`
	Position    uint64 `json:"posizione"`
	Diverged    string `json:"divergenza"`
	Checkpoints []struct {
		Size     uint64 `json:"dimensione"`
		Position uint64 `json:"posizione"`
	} `json:"checkpoint"`
}

func logState(t *testing.T, url string) logStateBody {
	t.Helper()
	var st logStateBody
	if err := json.Unmarshal(adminGet(t, url+"/backoffice/rs/basic/v1/giornale/checkpoint"), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func getText(t *testing.T, url string) string {
	t.Helper()
	return string(get(t, url, false))
}

// rewrite copies the data dir's log into a new data dir, with the
// registration at position pos changed, and the rest of the data dir
// (signing key, snapshots) copied as a restored backup would be.
func rewrite(t *testing.T, data string, pos uint64) string {
	t.Helper()
	var commits [][]events.Envelope
	withDataDir(t, data, true, func(s *jetstream.Store) { commits = logtreetest.Commits(t, s) })
	changed := false
	for _, c := range commits {
		if uint64(c[0].Position) == pos {
			e := c[0].Event.(events.CreditorEntityRegistered)
			e.RagioneSociale = "Comune riscritto"
			c[0].Event, changed = e, true
		}
	}
	if !changed {
		t.Fatalf("no event at position %d", pos)
	}
	out := filepath.Join(t.TempDir(), "data")
	withDataDir(t, out, false, func(s *jetstream.Store) { logtreetest.Copy(t, commits, s) })
	for _, f := range []string{"log-signing.key", "session.key", "snapshots"} {
		copyPath(t, filepath.Join(data, f), filepath.Join(out, f))
	}
	return out
}

func copyPath(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAuditVerifyDetectsARewrittenLog(t *testing.T) {
	data, key, positions := signedService(t, 4)
	out := mustRun(t, "audit", "verify", "--data-dir", data, "--verifier-key", key)
	if !strings.Contains(out, "OK: the first") {
		t.Fatalf("untouched log:\n%s", out)
	}
	_, errOut, err := run(t, "audit", "verify", "--data-dir", data)
	if err == nil || !strings.Contains(err.Error(), "--verifier-key is required") {
		t.Fatalf("no key: %v %s", err, errOut)
	}
	_, otherKey, _ := note.GenerateKey(rand.Reader, "payauthz-other")
	out, _, err = run(t, "audit", "verify", "--data-dir", data, "--verifier-key", otherKey)
	if err == nil || !strings.Contains(out, "unknown-key") {
		t.Fatalf("unknown key: %v\n%s", err, out)
	}

	tampered := positions[2]
	bad := rewrite(t, data, tampered)
	out, _, err = run(t, "audit", "verify", "--data-dir", bad, "--verifier-key", key)
	if err == nil || !strings.Contains(out, fmt.Sprintf("the first event that differs from what was signed is at position %d ", tampered)) {
		t.Fatalf("rewritten log: %v\n%s", err, out)
	}
	t.Logf("audit verify of the rewritten log:\n%s", out)

	// Proofs: against the untouched log they hold; the rewritten event's
	// proof against the signed checkpoint does not.
	proofFile := filepath.Join(t.TempDir(), "proof.json")
	mustRun(t, "audit", "prove", "--data-dir", data, "--position", fmt.Sprint(tampered), "--out", proofFile)
	out = mustRun(t, "audit", "check-proof", proofFile, "--verifier-key", key)
	if !strings.Contains(out, fmt.Sprintf("OK: the event at position %d", tampered)) {
		t.Fatalf("check-proof:\n%s", out)
	}
	// An index beyond the event's commit names no event, however far (a
	// far one was said to come after the checkpoint).
	for _, index := range []string{"1", "100000"} {
		if _, _, err := run(t, "audit", "prove", "--data-dir", data, "--position", fmt.Sprint(tampered), "--index", index); err == nil ||
			!strings.Contains(err.Error(), fmt.Sprintf("the commit at position %d has no event %s", tampered, index)) {
			t.Fatalf("prove --index %s beyond the commit: %v", index, err)
		}
	}
	// The rewritten log no longer matches its signed checkpoint: prove
	// says so and writes no proof (it wrote one that could not check).
	badProof := filepath.Join(t.TempDir(), "bad.json")
	if _, _, err := run(t, "audit", "prove", "--data-dir", bad, "--position", fmt.Sprint(tampered), "--out", badProof); err == nil ||
		!strings.Contains(err.Error(), "the checkpoint does not match the log") {
		t.Fatalf("prove on the rewritten log: %v", err)
	}
	if _, err := os.Stat(badProof); err == nil {
		t.Fatal("prove on the rewritten log wrote a proof")
	}

	// The service started on the rewritten data dir, restored from its
	// snapshot or replaying the whole log, notices and signs no more.
	for _, mode := range [][]string{{"--snapshot-interval", "1h"}, {"--snapshot-interval", "0"}} {
		dir := filepath.Join(t.TempDir(), "data")
		copyPath(t, bad, dir)
		c := startChild(t, dir, freePort(t), append(mode, "--checkpoint-interval", "50ms")...)
		deadline := time.Now().Add(10 * time.Second)
		st := logState(t, c.url)
		for st.Diverged == "" {
			if time.Now().After(deadline) {
				t.Fatalf("%v: the service did not notice the rewritten log:\n%s", mode, c.stderr)
			}
			time.Sleep(20 * time.Millisecond)
			st = logState(t, c.url)
		}
		if mode[1] == "1h" && !strings.Contains(c.stderr.String(), "loaded the read-model snapshot") {
			t.Fatalf("not restored from the snapshot:\n%s", c.stderr)
		}
		if !strings.Contains(c.stderr.String(), "the event log was rewritten") {
			t.Fatalf("%v: nothing logged:\n%s", mode, c.stderr)
		}
	}
}
