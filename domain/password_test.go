package domain

import (
	"errors"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

func TestPasswordHashing(t *testing.T) {
	t.Parallel()
	h, err := HashPassword("secret-pass")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := VerifyPassword(h, "secret-pass"); !ok || err != nil {
		t.Fatalf("right password: %v %v", ok, err)
	}
	if ok, _ := VerifyPassword(h, "secret-pasS"); ok {
		t.Fatal("wrong password accepted")
	}
	if ok, err := VerifyPassword("plaintext", "plaintext"); ok || !errors.Is(err, ErrBadHash) {
		t.Fatal("a plaintext 'hash' must never verify")
	}
	// bcrypt hashes (GovPay's legacy) verify too.
	bh, err := bcrypt.GenerateFromPassword([]byte("legacy-pass"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := VerifyPassword(string(bh), "legacy-pass"); !ok || err != nil {
		t.Fatalf("bcrypt: %v %v", ok, err)
	}
	if ok, _ := VerifyPassword(string(bh), "legacy-pasS"); ok {
		t.Fatal("bcrypt: wrong password accepted")
	}
}

func TestConstantTimeEqual(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		a, b string
		want bool
	}{
		{"equal", "abc", "abc", true},
		{"both_empty", "", "", true},
		{"last_byte_differs", "abc", "abd", false},
		{"prefix", "ab", "abc", false},
	} {
		if got := ConstantTimeEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: ConstantTimeEqual(%q, %q) = %v", tt.name, tt.a, tt.b, got)
		}
	}
}
