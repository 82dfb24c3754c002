// Package commands holds one handler per command: validate the input (the
// formats of the contract), load the aggregate's stream, decide with the
// pure functions of package domain, and append the resulting events with
// the expected version. A conflicting concurrent write is retried a bounded
// number of times, re-loading and re-deciding each time.
//
// A command reads the read models only for facts outside its aggregate,
// and only these: the pendenze, notices and pendenza types a payment's
// references name, and the entities and types a pendenza or
// reconciliation names (through the functions of package operations, which
// hold the checks HTTP and the auditors' explain share); the roles,
// principals and intermediaries a registration refers to (delegation,
// uniqueness of a principal); notice numbers in use; and the stored value
// a repeated registration is compared with.
//
// Passwords are hashed with argon2id here, before any event is written; no
// plaintext secret ever reaches the log. Handlers are safe for concurrent use.
package commands
