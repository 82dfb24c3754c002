// Package console serves the management console at /console/: HTML pages
// rendered on the server from html/template, with hand-written CSS, for
// the operators and auditors who administer payauthz in a browser.
//
// The console holds no rules of its own. A page or action asks the same
// decision functions as the Backoffice API (reads) or issues the same
// commands (writes, with the logged-in principal as actor), through one
// small interface per page (ops.go), so that every check exists once.
//
// Sessions are server-side and per replica: the cookie PAYAUTHZ_CONSOLE
// carries a random id; each request resolves the session's principal from
// the read models again, so a disabled principal, a password change or a
// change of its roles ends the session at its next request. Every form
// carries a CSRF token bound to the session; a POST without a valid one is
// refused before anything is written.
package console
