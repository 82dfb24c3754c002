// Package logtreetest helps tests rewrite a log as an attacker with the
// data dir (or a backup) would: every commit copied into a fresh store
// through the events.Store API, some changed, removed or reordered.
package logtreetest

import (
	"context"
	"testing"

	"github.com/payauthz/payauthz/events"
)

// Commits reads every commit of src, in order.
func Commits(tb testing.TB, src events.Store) [][]events.Envelope {
	tb.Helper()
	var commits [][]events.Envelope
	err := src.Read(context.Background(), 0, func(_ context.Context, env events.Envelope) error {
		if env.Index == 0 {
			commits = append(commits, nil)
		}
		commits[len(commits)-1] = append(commits[len(commits)-1], env)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return commits
}

// Copy appends commits to dst, an empty store, each with its events' ids,
// times, actors and correlation ids, so that an unchanged copy is the same
// log (same positions when dst numbers commits as the source did).
func Copy(tb testing.TB, commits [][]events.Envelope, dst events.Store) {
	tb.Helper()
	ctx := context.Background()
	versions := map[string]events.Version{}
	for _, c := range commits {
		recs := make([]events.Record, len(c))
		for i, env := range c {
			recs[i] = events.Record{ID: env.ID, Event: env.Event, Actor: env.Actor, CorrelationID: env.CorrelationID, Time: env.Time}
		}
		pos, err := dst.Append(ctx, c[0].Stream, events.ExpectVersion(versions[c[0].Stream]), recs...)
		if err != nil {
			tb.Fatal(err)
		}
		versions[c[0].Stream] = events.Version(pos)
	}
}
