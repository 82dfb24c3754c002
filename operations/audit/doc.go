// Package audit answers auditors' questions about the authorization
// decisions the service makes, at any point of the event log's history:
// what a request would have been answered (Explain) and who could do
// something (WhoCan).
//
// It never re-implements a rule. Its catalogue of operations maps each
// operation to the very function of package operations that the HTTP
// handlers and command handlers call, so an explanation agrees with the
// live decision by construction. What it adds is evidence: the trail of
// checks (recorded by the operation itself through an operations.Recorder),
// the roles or grants that matched or failed, and the log position they
// rest on.
//
// A query runs against a *projections.ReadModel: the live one, or one
// rebuilt up to a point with projections.Rebuild. Every function here is a
// pure read of the model and safe for concurrent use.
package audit
