package httpapi

import (
	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// byAvviso answers GET /pendenze/byAvviso/{idDominio}/{numeroAvviso} with
// the operation of the API that mounts it.
func (s *Server) byAvviso(op func(operations.Notices, domain.Principal, string, string, operations.Recorder) (projections.Pendenza, error)) echo.HandlerFunc {
	return func(c *echo.Context) error {
		return read2[operations.Notices](c, s.model, pIDDominio, pAvviso, op, toPendenza)
	}
}
