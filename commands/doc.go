// Package commands holds one handler per command: validate the input (the
// formats of the contract), load the aggregate's stream, decide with the
// pure functions of package domain, and append the resulting events with
// the expected version. A conflicting concurrent write is retried a bounded
// number of times, re-loading and re-deciding each time.
//
// A command reads the read models only for facts outside its aggregate,
// and only these (all it knows of the aggregate it writes comes from the
// stream it loaded):
//   - the pendenze, notices and pendenza types a payment's references name;
//   - the entities, units and types a pendenza or reconciliation names,
//     the entity an incasso or an operational unit names, and the
//     intermediary an entity names (these through the functions of package
//     operations, which hold the checks HTTP and the auditors' explain
//     share);
//   - the roles and principals a registration refers to (delegation,
//     uniqueness of a principal);
//   - notice numbers in use;
//   - for a receipt, the pendenza its notice number names and the payment
//     that covers that notice;
//   - for a patch or an update of a pendenza, whether a receipt paid it
//     (payment is recorded on the receipt's stream).
//
// Passwords are hashed with argon2id here, before any event is written; no
// plaintext secret ever reaches the log. Handlers are safe for concurrent use.
package commands
