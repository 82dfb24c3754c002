package httpapi

import "testing"

// TestCaptchaSlotsPerClient: one client address holds at most its share
// of the checks in flight, the others still find slots until all are
// taken, and a released slot is free again.
func TestCaptchaSlotsPerClient(t *testing.T) {
	t.Parallel()
	cc := newCaptchaClient(2 * captchaChecksPerClient)
	for i := range captchaChecksPerClient {
		if !cc.acquire("a") {
			t.Fatalf("client a refused its check %d", i+1)
		}
	}
	if cc.acquire("a") {
		t.Fatal("client a took more than its share")
	}
	for i := range captchaChecksPerClient {
		if !cc.acquire("b") {
			t.Fatalf("client b refused its check %d while slots were free", i+1)
		}
	}
	if cc.acquire("c") {
		t.Fatal("client c took a slot beyond the bound")
	}
	cc.release("a")
	if !cc.acquire("c") {
		t.Fatal("client c refused a released slot")
	}
	for range captchaChecksPerClient - 1 {
		cc.release("a")
	}
	if _, held := cc.byClient["a"]; held || cc.inFlight != captchaChecksPerClient+1 {
		t.Fatalf("after a released all: byClient %v, in flight %d", cc.byClient, cc.inFlight)
	}
}

// TestSiteverifyKeysAreExact: only siteverify's own keys, in lower case,
// decide a reply. encoding/json matches keys without regard to case, and
// {"success":false,"Success":true} passed.
func TestSiteverifyKeysAreExact(t *testing.T) {
	for _, c := range []struct {
		body   string
		soglia float64
		passes bool
	}{
		{`{"success":true}`, 0.5, true},
		{`{"success":false,"Success":true}`, 0, false},
		{`{"Success":true,"success":false}`, 0, false},
		{`{"success":true,"score":0.1,"SCORE":0.9}`, 0.5, false},
		{`{"success":true,"Score":0.1}`, 0.5, true}, // v2: no score of its own
		{`{"success":true,"score":null}`, 0.5, true},
	} {
		r, err := decodeSiteverify([]byte(c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if got := r.passes(c.soglia); got != c.passes {
			t.Errorf("%s at soglia %v: passes %v, want %v", c.body, c.soglia, got, c.passes)
		}
	}
	for _, body := range []string{`{"Success":true}`, `{"success":true,"score":"high"}`, `{"success":"true"}`} {
		if _, err := decodeSiteverify([]byte(body)); err == nil {
			t.Errorf("%s decoded as a siteverify reply", body)
		}
	}
}
