// Package commands holds one handler per command: validate the input (the
// formats of the contract), load the aggregate's stream, decide with the
// pure functions of package domain, and append the resulting events with
// the expected version. A conflicting concurrent write is retried a bounded
// number of times, re-loading and re-deciding each time.
//
// Passwords are hashed with argon2id here, before any event is written; no
// plaintext secret ever reaches the log. Handlers are safe for concurrent use.
package commands
