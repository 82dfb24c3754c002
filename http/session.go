package httpapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/payauthz/payauthz/internal/durable"
)

// SessionCookie is the cookie that binds an anonymous caller's payments to
// its session.
const SessionCookie = "PAYAUTHZ_SESSION"

// DefaultSessionTTL is how long an anonymous session lasts from its
// issue: a payer returning from the PSP within a day sees its outcome.
const DefaultSessionTTL = 24 * time.Hour

// sessionCookie is the PAYAUTHZ_SESSION cookie holding value until
// expires (Max-Age the whole seconds left, and Expires); a zero expires
// expires it now. It is Secure on a TLS request, and on every request
// with Config.SecureCookies: behind a proxy that terminates TLS the
// server sees plain HTTP while the browser speaks HTTPS.
func (s *Server) sessionCookie(r *http.Request, value string, expires time.Time) *http.Cookie {
	ck := &http.Cookie{Name: SessionCookie, Value: value, Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.cfg.SecureCookies || r.TLS != nil}
	if !expires.IsZero() {
		// At least 1: 0 would be no Max-Age, a cookie kept until the
		// browser closes.
		ck.MaxAge, ck.Expires = max(1, int(expires.Sub(s.session.now())/time.Second)), expires
	}
	return ck
}

var (
	errBadSession = errors.New("session cookie is not valid")
	// errSessionExpired is a cookie the server issued whose session
	// ended: its caller has no session.
	errSessionExpired = errors.New("session expired")
)

// sessionEncoding is the cookie's base64url, strict: the unused low bits
// of a part's last character must be zero, so that, with each part of its
// issued length (verify), one payload and MAC have one spelling and a
// value the server did not issue never verifies.
var sessionEncoding = base64.RawURLEncoding.Strict()

// A session's payload is its random id and the Unix second it was issued
// at (big-endian): 24 bytes, whose base64url has no unused bits.
const (
	sessionIDLen      = 16
	sessionPayloadLen = sessionIDLen + 8
)

// sessionSigner issues and verifies PAYAUTHZ_SESSION values:
// base64url(id ‖ issued) "." base64url(HMAC-SHA256(key, id ‖ issued)).
// A session ends ttl after issued, whatever its use: nothing signs an
// existing id again, so no answer extends it. The server never stores
// sessions; the log keeps only SHA-256(id).
type sessionSigner struct {
	key []byte
	ttl time.Duration
	now func() time.Time
}

// newSessionSigner signs with the key of keyFile (see Config.SessionKeyFile)
// sessions that last ttl by now.
func newSessionSigner(keyFile string, ttl time.Duration, now func() time.Time) (*sessionSigner, error) {
	key, err := sessionKey(keyFile)
	if err != nil {
		return nil, err
	}
	return &sessionSigner{key: key, ttl: ttl, now: now}, nil
}

func sessionKey(keyFile string) ([]byte, error) {
	if keyFile == "" {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		return key, nil
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
			return key, nil
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
	return key, nil
}

func (s *sessionSigner) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(payload)
	return m.Sum(nil)
}

// issue returns a new session: its cookie value, its hash, and when it
// ends.
func (s *sessionSigner) issue() (value, hash string, expires time.Time, err error) {
	payload := make([]byte, sessionPayloadLen)
	if _, err := rand.Read(payload[:sessionIDLen]); err != nil {
		return "", "", time.Time{}, err
	}
	issued := s.now().Unix()
	binary.BigEndian.PutUint64(payload[sessionIDLen:], uint64(issued))
	b64 := sessionEncoding
	value = b64.EncodeToString(payload) + "." + b64.EncodeToString(s.mac(payload))
	return value, sessionHash(payload[:sessionIDLen]), time.Unix(issued, 0).Add(s.ttl), nil
}

// verify checks a cookie value and returns the session's hash: a value
// the server did not sign (its time included) is errBadSession; one it
// signed whose session ended, or of the format before sessions ended
// (the id alone, signed: unbounded, so taken as ended), is
// errSessionExpired.
func (s *sessionSigner) verify(value string) (string, error) {
	payloadPart, macPart, ok := strings.Cut(value, ".")
	if !ok || len(value) > 128 {
		return "", errBadSession
	}
	b64 := sessionEncoding
	// The decoder skips CR and LF, even strict: a part longer than the
	// issued one's spells it otherwise.
	n := sessionPayloadLen
	if len(payloadPart) == b64.EncodedLen(sessionIDLen) {
		n = sessionIDLen
	}
	if len(payloadPart) != b64.EncodedLen(n) || len(macPart) != b64.EncodedLen(sha256.Size) {
		return "", errBadSession
	}
	payload, err := b64.DecodeString(payloadPart)
	if err != nil || len(payload) != n {
		return "", errBadSession
	}
	got, err := b64.DecodeString(macPart)
	if err != nil || !hmac.Equal(got, s.mac(payload)) {
		return "", errBadSession
	}
	if n == sessionIDLen {
		return "", errSessionExpired
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(payload[sessionIDLen:])), 0)
	if s.now().Sub(issued) >= s.ttl {
		return "", errSessionExpired
	}
	return sessionHash(payload[:sessionIDLen]), nil
}

func sessionHash(id []byte) string {
	h := sha256.Sum256(id)
	return hex.EncodeToString(h[:])
}
