package httpapi

import (
	"io"
	"net/http"
	"testing"
)

// TestBasicChallengeAndHeadProbes: a 401 on a basic mount carries the
// basic challenge (other mounts do not); HEAD on /healthz and /readyz
// answers like GET without a body.
func TestBasicChallengeAndHeadProbes(t *testing.T) {
	h := newHarness(t)
	const challenge = `Basic realm="payauthz"`
	for _, c := range []struct {
		name, path string
		opts       []reqOpt
		status     int
		header     string
	}{
		{"basic_wrong_password", "/backoffice/rs/basic/v1/domini", []reqOpt{asBasic(adminUser, "wrong-password")}, 401, challenge},
		{"basic_no_credentials", "/pendenze/rs/basic/v2/pendenze", nil, 401, challenge},
		{"basic_good_password", "/backoffice/rs/basic/v1/domini", []reqOpt{asAdmin()}, 200, ""},
		// Two Authorization headers are ambiguous (a proxy in front may
		// read the last): 401, whichever is good.
		{"basic_given_twice", "/backoffice/rs/basic/v1/domini",
			[]reqOpt{asAdmin(), alsoHeader("Authorization", basicHeader(adminUser, "wrong-password"))}, 401, challenge},
		{"basic_good_one_given_last", "/backoffice/rs/basic/v1/domini",
			[]reqOpt{asBasic(adminUser, "wrong-password"), alsoHeader("Authorization", basicHeader(adminUser, adminPass))}, 401, challenge},
		{"basic_same_one_twice", "/pendenze/rs/basic/v2/pendenze",
			[]reqOpt{asAdmin(), alsoHeader("Authorization", basicHeader(adminUser, adminPass))}, 401, challenge},
		{"spid_untrusted_is_not_a_basic_challenge", "/backoffice/rs/spid/v1/domini", []reqOpt{asSPID("RSSMRA80A01H501U"), fromLocalAddr("127.0.0.2")}, 401, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(t, "GET", c.path, nil, c.opts...)
			if r.Status == 401 {
				r.expect(t, 401, "401000")
			}
			if r.Status != c.status || r.Header.Get("WWW-Authenticate") != c.header {
				t.Fatalf("status %d WWW-Authenticate %q; want %d %q", r.Status, r.Header.Get("WWW-Authenticate"), c.status, c.header)
			}
		})
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		res, err := http.Head(h.httpURL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || len(body) != 0 {
			t.Fatalf("HEAD %s: %d, %d bytes of body", path, res.StatusCode, len(body))
		}
	}
	if r := h.do(t, "DELETE", "/healthz", nil); r.Status == 200 {
		t.Fatalf("DELETE /healthz: %d", r.Status)
	}
}
