// Package domain is the authorization model of payauthz and its pure
// decision functions: principals, authentication types, APIs, Backoffice
// services and rights, roles with their own scope, applications' per-API
// grants and the ownership rules of the contract (shared/API.md).
//
// Nothing here does I/O but loading the zone Rome once, at start (the
// host's zoneinfo, else the copy embedded by time/tzdata). The one
// payauthz package imported is events, a leaf holding the log's facts:
// the event-log scoping places them (PlacesOf), and a caller's kind is
// the word the log records (PrincipalKind.String). Every decision function returns nil when allowed
// or a *ForbiddenError naming the rule. All values are immutable after
// construction and safe for concurrent use.
package domain
