package domain

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
)

// MinPasswordLength is the contract's minimum password length.
const MinPasswordLength = 8

// Argon2Params are the argon2id cost parameters used for new hashes
// (OWASP's 19 MiB, t=2, p=1 profile).
var Argon2Params = struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
	KeyLen  uint32
	SaltLen int
}{Memory: 19 * 1024, Time: 2, Threads: 1, KeyLen: 32, SaltLen: 16}

// ErrBadHash is returned for a stored hash that is neither argon2id nor bcrypt.
var ErrBadHash = errors.New("domain: unsupported password hash")

// HashPassword returns an argon2id PHC string
// ($argon2id$v=19$m=...,t=...,p=...$salt$hash) for password.
func HashPassword(password string) (string, error) {
	p := Argon2Params
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifyPassword reports whether password matches the stored hash (argon2id
// PHC string or bcrypt). The comparison is constant-time. A malformed hash
// returns false and ErrBadHash.
func VerifyPassword(stored, password string) (bool, error) {
	switch {
	case strings.HasPrefix(stored, "$argon2id$"):
		return verifyArgon2id(stored, password)
	case strings.HasPrefix(stored, "$2a$"), strings.HasPrefix(stored, "$2b$"), strings.HasPrefix(stored, "$2y$"):
		err := bcrypt.CompareHashAndPassword([]byte(stored), []byte(password))
		if errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("%w: %v", ErrBadHash, err)
		}
		return true, nil
	}
	return false, ErrBadHash
}

func verifyArgon2id(stored, password string) (bool, error) {
	parts := strings.Split(stored, "$")
	// "", "argon2id", "v=19", "m=..,t=..,p=..", salt, hash
	if len(parts) != 6 {
		return false, ErrBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, ErrBadHash
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || t == 0 || p == 0 {
		return false, ErrBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, ErrBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, ErrBadHash
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// DummyHash returns a hash to verify against when a username is unknown,
// so that an unknown username costs the same as a wrong password. It is
// computed once, on first use.
var DummyHash = sync.OnceValue(func() string {
	h, err := HashPassword("payauthz-dummy-password")
	if err != nil {
		panic(err) // crypto/rand failing is unrecoverable
	}
	return h
})
