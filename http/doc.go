// Package httpapi is the Echo server of payauthz: the five APIs mounted at
// /{api}/rs/{auth}/v{N}, the authentication middleware (basic, ssl, spid,
// public), consistency tokens, and the one error handler that turns every
// error into the contract's FaultBean. Handlers hold no rule and no order
// of checks: they read the request, call the operation function of package
// operations (the same one the commands and the auditors' explain call),
// render its result, and write through package commands.
package httpapi
