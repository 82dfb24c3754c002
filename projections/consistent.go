package projections

import "github.com/payauthz/payauthz/events"

// ConsistentWithin is Consistent for a long read (who-can over every
// principal) that a busy log could otherwise restart for ever: it gives up
// after attempts runs of f that a commit interrupted, and reports ok false;
// what f read is then not one state and must not be answered.
func (m *ReadModel) ConsistentWithin(attempts int, f func()) (pos events.Position, ok bool) {
	for range attempts {
		s := m.readBegin()
		f()
		pos := m.applied.Load()
		if m.readDone(s) {
			return events.Position(pos), true
		}
	}
	return 0, false
}
