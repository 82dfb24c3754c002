//go:build !race

package projections

// raceDetector: see race_on_test.go.
const raceDetector = false
