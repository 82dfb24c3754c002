package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v5"
)

// The Backoffice API v1 (API.md section 4, and the hardening setting of
// section 7). Handlers validate path ids and bodies first (400), then ask
// domain whether the caller may (403), and only then look the resource up
// (404), so that existence is never revealed outside the caller's scope.
// Reads call the operation functions of package operations; writes go
// through commands, which call them for the service right and decide the
// delegation themselves.
//
// Files: backoffice_registry.go (domini, tipiPendenza, intermediari),
// backoffice_principals.go (ruoli, operatori, applicazioni),
// backoffice_reads.go (pendenze, pagamenti, rendicontazioni),
// backoffice_ops.go (eventi, profilo, operazioni, configurazioni),
// backoffice_audit.go (autorizzazioni: explain and who-can for auditors).
// The routes of every API are one table, apiRoutes in routes.go.

// requireBool reads a required boolean body field: absent is a 400, not
// false, so that a client that forgets abilitato does not disable anything.
func requireBool(field string, b *bool) (bool, error) {
	if b == nil {
		return false, syntaxError(field + " is required")
	}
	return *b, nil
}

// pageJSON answers one GovPay page of items (section 10).
func pageJSON[S, T any](c *echo.Context, items []S, conv func(S) T) error {
	page, err := paginate(c, items, conv)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

// nonNilList makes an absent list encode as [] rather than null.
func nonNilList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
