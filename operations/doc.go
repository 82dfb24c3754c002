// Package operations holds one function per API operation: the whole of
// its authorization, written once. Each runs the operation's pre-lookup
// gate, fetches what it needs through a small read interface declared next
// to it (a *projections.ReadModel satisfies every one), runs the domain
// decisions in order, answers a missing resource with domain.Missing (403
// before 404), and returns the resource or a typed error: a
// *domain.ForbiddenError, domain.ErrNotFound, ErrUnauthenticated or an
// *UnprocessableError.
//
// The HTTP handlers, the commands' reference resolution and the auditors'
// Explain and WhoCan (package operations/audit) all call these functions,
// so an explanation agrees with the live decision by construction.
//
// Every function takes an optional Recorder that receives each check with
// its outcome; a nil Recorder costs one comparison. Functions on hot paths
// do not allocate. All functions are pure reads of the models they are
// given and safe for concurrent use.
package operations
