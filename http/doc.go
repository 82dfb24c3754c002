// Package httpapi is the Echo server of payauthz: the five APIs mounted at
// /{api}/rs/{auth}/v{N}, the authentication middleware (basic, ssl, spid,
// public), consistency tokens, and the one error handler that turns every
// error into the contract's FaultBean. Handlers hold no rule: they read a
// view from the projections and ask the pure functions of package domain,
// and they write through package commands.
package httpapi
