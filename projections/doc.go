// Package projections folds the event log into the read models that every
// authorization decision reads: principals and their verified-credential
// cache, roles and application grants, creditor entities, pendenza types,
// intermediaries, pendenze ownership, payments, receipts and collections,
// settlement reports, reconciliations and the public API protection.
//
// One goroutine applies events (the Watermill router in Run, or Replay);
// any number of readers read concurrently. The point lookups of the
// decision path take no lock: each table is a concurrent map
// (github.com/puzpuzpuz/xsync) whose reads are lock-free, and values are
// immutable once published (an event replaces them).
// Applying is idempotent: an event at or before the applied cursor is
// skipped, so re-delivery changes nothing.
package projections
