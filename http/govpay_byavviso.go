package httpapi

import (
	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// byAvviso answers GET /pendenze/byAvviso/{idDominio}/{numeroAvviso} with
// the operation of the API that mounts it, the pendenza rendered as that
// API's schema has it (view).
func byAvviso[V any](s *Server, op func(operations.Notices, domain.Principal, string, string, operations.Recorder) (projections.Pendenza, error),
	view func(projections.Pendenza) V) echo.HandlerFunc {
	return func(c *echo.Context) error {
		return read2[operations.Notices](c, s.model, pIDDominio, pAvviso, op, view)
	}
}

// byAvvisoPagamento is the Pagamento API's read by notice: on the public
// mount behind the protection of GET /avvisi (API.md section 7).
func (s *Server) byAvvisoPagamento(c *echo.Context) error {
	guard := func(uuid string) error { return s.protectPublic(c, domain.ProtectedNotice, uuid) }
	return read2[operations.Notices](c, s.model, pIDDominio, pAvviso,
		func(m operations.Notices, p domain.Principal, idDominio, numeroAvviso string, rec operations.Recorder) (projections.Pendenza, error) {
			return operations.ReadByAvvisoPagamento(m, p, idDominio, numeroAvviso, guard, rec)
		}, s.pendenzaDetail)
}
