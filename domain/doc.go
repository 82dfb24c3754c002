// Package domain is the authorization model of payauthz and its pure
// decision functions: principals, authentication types, APIs, Backoffice
// services and rights, roles with their own scope, applications' per-API
// grants and the ownership rules of the contract (shared/API.md).
//
// Nothing here does I/O or imports another payauthz package but events,
// the log's facts, which the event-log scoping places (PlacesOf). Every
// decision function returns nil when allowed or a *ForbiddenError naming
// the rule.
// All values are immutable after construction and safe for concurrent use.
package domain
