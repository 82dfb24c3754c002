package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v5"
	"github.com/labstack/echo/v5/middleware"

	"github.com/payauthz/payauthz/domain"
)

// routes builds the Echo instance: operations endpoints, then every API
// mounted at /{api}/rs/{auth}/v{N} for every auth type. The mount's
// middleware refuses an auth type the API does not accept with 403 "403".
func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HTTPErrorHandler = s.errorHandler
	e.Use(middleware.Recover()) // a bug answers the 500 FaultBean, never a dropped connection
	e.Use(requestIDs(), headerLimit)

	healthz := func(c *echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) }
	e.GET("/healthz", healthz)
	e.HEAD("/healthz", healthz)
	readyz := func(c *echo.Context) error {
		ok, status := s.ready()
		body := map[string]any{"position": uint64(s.model.AppliedPosition()),
			"readyAt": max(uint64(s.cfg.ReadyAt), s.catchUpTo.Load()), "status": status}
		if !ok {
			return c.JSON(http.StatusServiceUnavailable, body)
		}
		return c.JSON(http.StatusOK, body)
	}
	e.GET("/readyz", readyz)
	e.HEAD("/readyz", readyz) // probes that send HEAD get the same status, no body
	e.GET("/metrics", echo.WrapHandler(s.metrics.handler()))
	e.GET("/openapi.json", s.openAPI)
	e.GET(PathVerifierKey, s.getVerifierKey)

	mounts := map[domain.API]func(g *echo.Group){
		domain.APIBackoffice: s.registerBackoffice,
		domain.APIPendenze:   s.registerPendenze,
		domain.APIPagamento:  s.registerPagamento,
		domain.APIRagioneria: s.registerRagioneria,
		domain.APINodo:       s.registerNodo,
	}
	var allow *allowTable // set once every route is in
	for _, api := range domain.APIs {
		for _, auth := range domain.AuthTypes {
			prefix := "/" + api.Segment() + "/rs/" + auth.String() + "/" + api.Version()
			// The mount's auth type is refused before anything else, the
			// consistency token is waited for before the credentials are
			// checked (a password change must be visible to them).
			g := e.Group(prefix, s.instrument(api), acceptsAuth(api, auth), s.consistency, s.authenticate(api, auth))
			mounts[api](g)
			g.RouteNotFound("/*", func(c *echo.Context) error { return allow.missed(c) })
		}
		// An {auth} segment that is no auth type at all is refused like
		// one the API does not accept: 403 "403", never 404.
		api := api
		e.Any("/"+api.Segment()+"/rs/:auth/"+api.Version()+"/*", func(c *echo.Context) error {
			if _, err := domain.ParseAuthType(c.Param("auth")); err == nil {
				return echo.ErrNotFound
			}
			return domain.AcceptsAuth(api, domain.AuthType{})
		}, s.instrument(api))
	}
	allow = newAllowTable(e.Router().Routes())
	return e
}

// acceptsAuth refuses the requests of a mount whose {auth} the API does
// not accept (API.md section 1).
func acceptsAuth(api domain.API, auth domain.AuthType) echo.MiddlewareFunc {
	err := domain.AcceptsAuth(api, auth)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if err != nil {
			return func(*echo.Context) error { return err }
		}
		return next
	}
}
