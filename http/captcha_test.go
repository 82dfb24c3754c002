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
