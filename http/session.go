package httpapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"github.com/payauthz/payauthz/internal/durable"
)

// SessionCookie is the cookie that binds an anonymous caller's payments to
// its session.
const SessionCookie = "PAYAUTHZ_SESSION"

// sessionCookie is the PAYAUTHZ_SESSION cookie holding value (maxAge < 0
// expires it). It is Secure on a TLS request, and on every request with
// Config.SecureCookies: behind a proxy that terminates TLS the server
// sees plain HTTP while the browser speaks HTTPS.
func (s *Server) sessionCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: SessionCookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.cfg.SecureCookies || r.TLS != nil}
}

var errBadSession = errors.New("session cookie is not valid")

// sessionEncoding is the cookie's base64url, strict: the unused low bits
// of a part's last character must be zero, so that, with each part of its
// issued length (verify), one id and MAC have one spelling and a value
// the server did not issue never verifies.
var sessionEncoding = base64.RawURLEncoding.Strict()

// sessionSigner issues and verifies PAYAUTHZ_SESSION values:
// base64url(id) "." base64url(HMAC-SHA256(key, id)). The server never
// stores sessions; the log keeps only SHA-256(id).
type sessionSigner struct {
	key []byte
}

func newSessionSigner(keyFile string) (*sessionSigner, error) {
	if keyFile == "" {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		return &sessionSigner{key: key}, nil
	}
	key, err := os.ReadFile(keyFile)
	if errors.Is(err, os.ErrNotExist) {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		// Never over a key another replica sharing the file wrote
		// meanwhile: that one is read below, and sessions stay shared.
		err = durable.WriteNew(keyFile, key, 0o600)
		if err == nil {
			return &sessionSigner{key: key}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("write session key: %w", err)
		}
		key, err = os.ReadFile(keyFile)
	}
	if err != nil {
		return nil, fmt.Errorf("read session key: %w", err)
	}
	if len(key) < 32 {
		// An empty file is what a crash while writing the key left before
		// it was written durably. It is refused, not replaced: a short
		// file may also be a key shared by replicas and copied wrong, and
		// a new one would silently split their sessions.
		return nil, fmt.Errorf("session key %s: it holds %d bytes, want at least 32 bytes "+
			"(remove it to have a new key generated; replicas sharing it need the same file)", keyFile, len(key))
	}
	return &sessionSigner{key: key}, nil
}

func (s *sessionSigner) mac(id []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(id)
	return m.Sum(nil)
}

// issue returns a new cookie value and the session's hash.
func (s *sessionSigner) issue() (value, hash string, err error) {
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return "", "", err
	}
	b64 := sessionEncoding
	return b64.EncodeToString(id) + "." + b64.EncodeToString(s.mac(id)), sessionHash(id), nil
}

// verify checks a cookie value and returns the session's hash.
func (s *sessionSigner) verify(value string) (string, error) {
	idPart, macPart, ok := strings.Cut(value, ".")
	if !ok || len(value) > 128 {
		return "", errBadSession
	}
	b64 := sessionEncoding
	// The decoder skips CR and LF, even strict: a part longer than the
	// issued one's spells it otherwise.
	if len(idPart) != b64.EncodedLen(16) || len(macPart) != b64.EncodedLen(sha256.Size) {
		return "", errBadSession
	}
	id, err := b64.DecodeString(idPart)
	if err != nil || len(id) != 16 {
		return "", errBadSession
	}
	got, err := b64.DecodeString(macPart)
	if err != nil || !hmac.Equal(got, s.mac(id)) {
		return "", errBadSession
	}
	return sessionHash(id), nil
}

func sessionHash(id []byte) string {
	h := sha256.Sum256(id)
	return hex.EncodeToString(h[:])
}
