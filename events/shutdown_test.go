package events

import "testing"

// TestShutdown: the zero Shutdown is open; the first Once closes it and
// runs its release, a second runs nothing.
func TestShutdown(t *testing.T) {
	var s Shutdown
	if s.Closed() {
		t.Fatal("the zero Shutdown is closed")
	}
	select {
	case <-s.Done():
		t.Fatal("Done is closed before Once")
	default:
	}
	released := 0
	s.Once(func() { released++ })
	s.Once(func() { released++ })
	if released != 1 || !s.Closed() {
		t.Fatalf("after two Once: released %d times, closed %v", released, s.Closed())
	}
	<-s.Done()
}
