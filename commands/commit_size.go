package commands

import (
	"encoding/json"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// MaxCommitBytes is the largest commit a command writes: NATS's default
// max_payload (1 MiB). A command whose commit could exceed it is refused
// with events.ErrTooLarge before it writes anything, claims included; the
// stores refuse a larger commit themselves too.
const MaxCommitBytes = 1 << 20

// commitOverhead is what the log adds to each event of a commit: its id,
// name, time, actor (a principal ≤ 512 bytes) and correlation id.
const commitOverhead = 1024

// checkCommitSize fails with events.ErrTooLarge when evs, written as one
// commit, could exceed MaxCommitBytes.
func checkCommitSize(evs ...events.Event) error {
	n := 0
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode %s: %w", e.EventName(), err)
		}
		n += len(b) + commitOverhead
	}
	if n > MaxCommitBytes {
		return fmt.Errorf("%w: about %d bytes, at most %d", events.ErrTooLarge, n, MaxCommitBytes)
	}
	return nil
}

// dummyIf is a stand-in hash when secret is set, so that the largest
// commit a write may make is measured with the hash it will hold.
func dummyIf(secret *string) string {
	if secret == nil || *secret == "" {
		return ""
	}
	return domain.DummyHash()
}
