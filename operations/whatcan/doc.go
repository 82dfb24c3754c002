// Package whatcan answers the reverse of who-can: what could principal P do,
// and reach, at one state of the read models (now, or rebuilt up to a log
// position or time) — SpiceDB's LookupResources, OpenFGA's ListObjects.
// Every answer is decided by the audit catalogue's operations
// (operations/audit: Catalogue, Explain, Operation.Decide), the same
// domain decisions the live service makes; nothing here is a rule.
package whatcan
