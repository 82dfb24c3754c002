// Package eventstoretest is the conformance suite of events.Store: the
// contract every backend must pass. A backend's test calls Run with a
// Harness that opens its store and can reopen it over the same data.
package eventstoretest
