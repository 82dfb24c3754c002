package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func FuzzParseBasic(f *testing.F) {
	for _, s := range []string{"Basic " + base64.StdEncoding.EncodeToString([]byte("user:pass")), "basic dTpw", "Basic %%%",
		"Basic ", "Bearer x", "", "BASIC " + base64.StdEncoding.EncodeToString([]byte(":nouser")),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("a:b:c")),
		// Credentials that are not UTF-8 or hold a NUL, an empty password,
		// base64 broken by a line feed (the decoder skips it) or unpadded, an
		// over-long header, no space after the scheme.
		"Basic " + base64.StdEncoding.EncodeToString([]byte("\xff\xfe:\x00")), "Basic " + base64.StdEncoding.EncodeToString([]byte("u:")),
		"Basic dXNl\ncjpwYXNz", "Basic dTp", "Basic " + strings.Repeat("A", 4096), "BasicdTpw"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		user, pass, ok := parseBasic(h)
		if !ok {
			if user != "" || pass != "" {
				t.Fatalf("rejected header returned %q %q", user, pass)
			}
			return
		}
		if user == "" || strings.Contains(user, ":") {
			t.Fatalf("accepted user %q", user)
		}
		// What was accepted round-trips.
		u2, p2, ok2 := parseBasic("Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass)))
		if !ok2 || u2 != user || p2 != pass {
			t.Fatalf("round trip of %q:%q failed", user, pass)
		}
	})
}

func FuzzParseImporto(f *testing.F) {
	for _, s := range []string{"0", "1", "12.5", "12.50", "10.005", "-1", "01", "1e3", "", ".5", "5.", "99999999999.99", "1000000000000",
		// The bound and one cent past it, either sign; a sign alone, a
		// minus zero, a plus, white space, two dots, not UTF-8, 20 digits.
		"999999999.99", "-999999999.99", "1000000000.00", "-1000000000", "-", "-0", "-0.00", "+1", " 7.1 ", "1.2.3", "\xff",
		"99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseImporto([]byte(s))
		if err != nil {
			return
		}
		if v > maxImportoCents || v < -maxImportoCents {
			t.Fatalf("%q parsed out of range: %d", s, v)
		}
		out, _ := v.MarshalJSON()
		back, err := ParseImporto(out)
		if err != nil || back != v {
			t.Fatalf("%q → %d → %s → %d, %v", s, v, out, back, err)
		}
	})
}

func FuzzDecodeSiteverify(f *testing.F) {
	for _, s := range []string{`{"success":true}`, `{"success":false,"error-codes":["bad"]}`, `{"success":true,"score":0.9}`,
		`{"success":"yes"}`, `{}`, `null`, `[]`, `garbage`, `{"success":true,"score":"high"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeSiteverify(body)
		if err != nil {
			return
		}
		// A reply that did not say success never passes.
		if !r.Success && r.passes(0) {
			t.Fatal("unsuccessful reply passes")
		}
		// A v2 reply (no score) passes at any threshold iff it succeeded;
		// a v3 reply passes exactly at the thresholds up to its score.
		for _, soglia := range []float64{0, 0.5, 1} {
			want := r.Success && (r.Score == nil || *r.Score >= soglia)
			if r.passes(soglia) != want {
				t.Fatalf("%s at soglia %v: passes %v, want %v", body, soglia, r.passes(soglia), want)
			}
		}
		// What decoded re-encodes to a reply that decodes the same.
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		r2, err := decodeSiteverify(out)
		if err != nil || r2.Success != r.Success || (r2.Score == nil) != (r.Score == nil) ||
			(r.Score != nil && *r2.Score != *r.Score) {
			t.Fatalf("%s → %s → %+v, %v", body, out, r2, err)
		}
	})
}

// FuzzSessionCookie: of the values a client may send, only the cookie the
// signer issued verifies; of the others only the same session's cookie in
// the format before sessions ended (the id alone, signed) is a session
// the server signed, taken as ended. A value with another issue time
// than the one signed, or spelled otherwise, is forged.
func FuzzSessionCookie(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	s, _ := newSessionSigner("", time.Hour, func() time.Time { return now })
	good, _, _, _ := s.issue()
	payload, mac, _ := strings.Cut(good, ".")
	raw, _ := sessionEncoding.DecodeString(payload)
	id := raw[:sessionIDLen]
	legacy := sessionEncoding.EncodeToString(id) + "." + sessionEncoding.EncodeToString(s.mac(id))
	later := bytes.Clone(raw)
	later[sessionPayloadLen-1]++
	for _, v := range []string{good, legacy, "", ".", "a.b", good + "x", strings.ToUpper(good),
		sessionEncoding.EncodeToString(later) + "." + mac, sessionEncoding.EncodeToString(id) + "." + mac,
		// payload and MAC are 24 and 32 bytes: their base64url has no or
		// two unused bits.
		payload + "." + withPaddingBits(mac), withPaddingBits(sessionEncoding.EncodeToString(id)) + legacy[len(legacy)-len(mac)-1:],
		// The decoder skips CR and LF, strict or not.
		payload[:4] + "\n" + payload[4:] + "." + mac, payload + "." + mac[:8] + "\r\n" + mac[8:],
		payload[:22] + strings.Repeat("\n", 10) + "." + mac} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		_, err := s.verify(v)
		switch {
		case err == nil && v != good:
			t.Fatalf("forged cookie %q verified", v)
		case errors.Is(err, errSessionExpired) && v != legacy:
			t.Fatalf("cookie %q taken as an ended session the server signed", v)
		}
	})
}

// withPaddingBits spells the same bytes as the unpadded base64url part
// otherwise: the unused low bit of its last character set (a 16-byte id
// of the former format leaves four such bits, a 32-byte MAC two).
func withPaddingBits(part string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, part[len(part)-1])
	return part[:len(part)-1] + string(alphabet[last|1])
}
