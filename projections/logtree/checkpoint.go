package logtree

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/payauthz/payauthz/internal/durable"
)

// Origin is the first line of every payauthz checkpoint: the log it is a
// checkpoint of.
const Origin = "payauthz event log v1"

// ErrBadCheckpoint reports a checkpoint text that is not one.
var ErrBadCheckpoint = errors.New("not a payauthz checkpoint")

// maxCheckpointBytes bounds a checkpoint note (body and signatures).
const maxCheckpointBytes = 16 << 10

// Checkpoint is the body of a signed checkpoint, in the transparency-dev
// checkpoint format: origin, tree size and base64 root hash, one per line,
// then the extension line "time <RFC 3339>". Its JSON names are those of
// the Backoffice's GET /giornale/checkpoint (dimensione, radice, data).
type Checkpoint struct {
	Size uint64    `json:"dimensione"`
	Root []byte    `json:"radice"`
	Time time.Time `json:"data"`
}

// Text returns the note body of c.
func (c Checkpoint) Text() string {
	return fmt.Sprintf("%s\n%d\n%s\ntime %s\n", Origin, c.Size, base64.StdEncoding.EncodeToString(c.Root),
		c.Time.UTC().Format(time.RFC3339Nano))
}

// ParseCheckpoint parses a note body written by Text. It never panics.
func ParseCheckpoint(text string) (Checkpoint, error) {
	var c Checkpoint
	if len(text) > maxCheckpointBytes {
		return c, fmt.Errorf("%w: too long", ErrBadCheckpoint)
	}
	body, ok := strings.CutSuffix(text, "\n")
	if !ok {
		return c, fmt.Errorf("%w: no final newline", ErrBadCheckpoint)
	}
	lines := strings.Split(body, "\n")
	if len(lines) != 4 {
		return c, fmt.Errorf("%w: want 4 lines, got %d", ErrBadCheckpoint, len(lines))
	}
	if lines[0] != Origin {
		return c, fmt.Errorf("%w: origin %q, want %q", ErrBadCheckpoint, lines[0], Origin)
	}
	size, err := strconv.ParseUint(lines[1], 10, 64)
	if err != nil || strconv.FormatUint(size, 10) != lines[1] {
		return c, fmt.Errorf("%w: tree size %q", ErrBadCheckpoint, lines[1])
	}
	root, err := base64.StdEncoding.Strict().DecodeString(lines[2])
	if err != nil || len(root) != 32 {
		return c, fmt.Errorf("%w: root hash %q", ErrBadCheckpoint, lines[2])
	}
	ts, ok := strings.CutPrefix(lines[3], "time ")
	if !ok {
		return c, fmt.Errorf("%w: want a time line, got %q", ErrBadCheckpoint, lines[3])
	}
	// As the size and the root, the time only as Text writes it (UTC, no
	// trailing zero): a checkpoint has one text.
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil || t.UTC().Format(time.RFC3339Nano) != ts {
		return c, fmt.Errorf("%w: time %q", ErrBadCheckpoint, ts)
	}
	return Checkpoint{Size: size, Root: root, Time: t}, nil
}

// SignCheckpoint returns c as a signed note.
func SignCheckpoint(c Checkpoint, signer note.Signer) (string, error) {
	msg, err := note.Sign(&note.Note{Text: c.Text()}, signer)
	if err != nil {
		return "", fmt.Errorf("sign checkpoint: %w", err)
	}
	return string(msg), nil
}

// Signed is a checkpoint whose signature was verified.
type Signed struct {
	Checkpoint
	Signer string `json:"firmatario"` // the key name of the verified signature
	Note   string `json:"nota"`       // the signed note, as checked
}

// OpenCheckpoint verifies a signed checkpoint note with the known
// verifiers and parses its body. A note signed by no known key gives an
// error matching *note.UnverifiedNoteError, a bad signature of a known key
// *note.InvalidSignatureError, as golang.org/x/mod/sumdb/note reports them.
func OpenCheckpoint(msg string, known note.Verifiers) (Signed, error) {
	if len(msg) > maxCheckpointBytes {
		return Signed{}, fmt.Errorf("%w: too long", ErrBadCheckpoint)
	}
	n, err := note.Open([]byte(msg), known)
	if err != nil {
		return Signed{}, err
	}
	c, err := ParseCheckpoint(n.Text)
	if err != nil {
		return Signed{}, err
	}
	return Signed{Checkpoint: c, Signer: n.Sigs[0].Name, Note: msg}, nil
}

// ParseNote parses a signed checkpoint note as it claims to be, without
// verifying its signature (one found in the log, or a copy an auditor
// kept: the proof made from it is checked with the verifier key).
func ParseNote(msg string) (Signed, error) {
	c, err := ParseCheckpoint(NoteText(msg))
	if err != nil {
		return Signed{}, err
	}
	return Signed{Checkpoint: c, Signer: SignerName(msg), Note: msg}, nil
}

// SignerName returns the name on the first signature line of a note
// without verifying anything ("" if there is none).
func SignerName(msg string) string {
	i := strings.LastIndex(msg, "\n\n")
	if i < 0 {
		return ""
	}
	line, _, _ := strings.Cut(msg[i+2:], "\n")
	line, ok := strings.CutPrefix(line, "— ")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(line, " ")
	return name
}

// Verifiers parses verifier keys (note's "name+hash+base64" form). The
// list it returns also knows the names of its keys, so that Verify tells
// a checkpoint signed by another key under a name given (a substituted
// key) from one whose signer no key was given for.
func Verifiers(keys ...string) (note.Verifiers, error) {
	var vs []note.Verifier
	names := map[string]bool{}
	for _, k := range keys {
		v, err := note.NewVerifier(strings.TrimSpace(k))
		if err != nil {
			return nil, fmt.Errorf("verifier key %q: %w", k, err)
		}
		vs = append(vs, v)
		names[v.Name()] = true
	}
	return verifierList{Verifiers: note.VerifierList(vs...), names: names}, nil
}

// verifierList is note's list of verifiers and the names of their keys.
type verifierList struct {
	note.Verifiers
	names map[string]bool
}

// keyNamed reports whether known holds a key named name, when it can tell.
func keyNamed(known note.Verifiers, name string) bool {
	l, ok := known.(verifierList)
	return ok && l.names[name]
}

// LoadOrCreateKey reads the signing key in path (note's
// "PRIVATE+KEY+name+hash+base64" form) or, when the file does not exist,
// generates an Ed25519 key named name into it (durably, mode 0600: a crash
// leaves no empty key file that every later start would refuse; never
// over a key another process wrote meanwhile, whose key it then uses). It
// returns the signer and its verifier key.
func LoadOrCreateKey(path, name string) (note.Signer, string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		skey, _, gerr := note.GenerateKey(rand.Reader, name)
		if gerr != nil {
			return nil, "", fmt.Errorf("generate the log signing key: %w", gerr)
		}
		switch werr := durable.WriteNew(path, []byte(skey+"\n"), 0o600); {
		case errors.Is(werr, fs.ErrExist):
			// Another process sharing the path generated it first: sign
			// with that one, the key the file holds.
			if b, err = os.ReadFile(path); err != nil {
				return nil, "", fmt.Errorf("log signing key: %w", err)
			}
		case werr != nil:
			return nil, "", fmt.Errorf("write the log signing key %s: %w", path, werr)
		default:
			b = []byte(skey)
		}
	} else if err != nil {
		return nil, "", fmt.Errorf("log signing key: %w", err)
	}
	return ParseSigningKey(strings.TrimSpace(string(b)))
}

// ParseSigningKey returns the signer of a note signing key and its
// verifier key.
func ParseSigningKey(skey string) (note.Signer, string, error) {
	signer, err := note.NewSigner(skey)
	if err != nil {
		return nil, "", fmt.Errorf("log signing key: %w", err)
	}
	// PRIVATE+KEY+<name>+<hash>+<base64(alg || seed)>
	// (the base64 may itself hold '+').
	rest := skey
	for range 4 {
		_, rest, _ = strings.Cut(rest, "+")
	}
	raw, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return nil, "", errors.New("log signing key: not an Ed25519 note key")
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	vkey, err := note.NewEd25519VerifierKey(signer.Name(), pub)
	if err != nil {
		return nil, "", err
	}
	return signer, vkey, nil
}
