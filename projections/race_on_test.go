//go:build race

package projections

// raceDetector reports whether the tests run under the race detector,
// where sync.Pool drops a share of what is put back (to shake out misuse),
// so code that reuses pooled values (json.Valid's scanner) allocates.
const raceDetector = true
