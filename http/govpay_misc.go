package httpapi

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
)

// serviziACL answers GET /enumerazioni/serviziACL: the names of the
// services, in GovPay's order.
func (s *Server) serviziACL(c *echo.Context) error {
	if err := operations.ServiziACL(callerOf(c).principal, nil); err != nil {
		return err
	}
	out := make([]string, len(domain.Services))
	for i, svc := range domain.Services {
		out[i] = svc.String()
	}
	return c.JSON(http.StatusOK, out)
}

// logout answers GET /logout on api: an anonymous caller's session cookie
// is expired; the answer is 200 with no body, as GovPay's.
func (s *Server) logout(api domain.API) echo.HandlerFunc {
	return func(c *echo.Context) error {
		cl := callerOf(c)
		if err := operations.Logout(cl.principal, api, nil); err != nil {
			return err
		}
		if cl.auth == domain.AuthPublic {
			c.SetCookie(s.sessionCookie(c.Request(), "", time.Time{}))
		}
		return c.NoContent(http.StatusOK)
	}
}
