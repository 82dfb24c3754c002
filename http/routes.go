package httpapi

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v5"
	"github.com/labstack/echo/v5/middleware"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
)

// routes builds the Echo instance: operations endpoints, then every API
// mounted at /{api}/rs/{auth}/v{N} for every auth type. The mount's
// middleware refuses an auth type the API does not accept with 403 "403".
func (s *Server) routes() *echo.Echo {
	// Every path id is read decoded (RFC 3986: an escaped character is
	// that character), whichever form of the path the router matched. A
	// group replaces its own not-found route (as echo.New allows).
	e := echo.NewWithConfig(echo.Config{Router: echo.NewRouter(echo.RouterConfig{AllowOverwritingRoute: true, UnescapePathParamValues: true})})
	e.HTTPErrorHandler = s.errorHandler
	e.Use(middleware.Recover()) // a bug answers the 500 FaultBean, never a dropped connection
	e.Use(requestIDs(), headerLimit, s.following, s.requestWaits)

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

	table := s.apiRoutes()
	var allow *allowTable // set once every route is in
	for _, api := range domain.APIs {
		for _, auth := range domain.AuthTypes {
			prefix := "/" + api.Segment() + "/rs/" + auth.String() + "/" + api.Version()
			// The mount's auth type is refused before anything else, a
			// replica still catching up with the log as of its start
			// waits for it (caughtUp), the consistency token is waited for before the credentials are
			// checked (a password change must be visible to them), and
			// answered for (400, 503) only after them, before the entry
			// decision (authenticate): a caller that is not authenticated
			// costs the store nothing. A panic below instrument is an
			// error it counts and records (outcome error).
			g := e.Group(prefix, noStore, s.instrument(api), middleware.Recover(), acceptsAuth(api, auth), s.caughtUp, s.consistency, s.authenticate(api, auth))
			for _, r := range table {
				if r.api == api {
					g.Add(r.method, r.path, wholeSegments(strings.Count(prefix+r.path, "/"), &allow, r.handler))
				}
			}
			g.RouteNotFound("/*", func(c *echo.Context) error { return allow.missed(c) })
		}
		// An {auth} segment that is no auth type at all is refused like
		// one the API does not accept: 403 "403", never 404, under the
		// mount and at its root alike. Every auth type has its mount
		// above, so a segment that reaches here names none as sent: it is
		// no auth type, or one percent-encoded (the router matches the
		// path as sent, and decodes only the ids), which is refused as the
		// API refuses that type, or as no type.
		api := api
		unknownAuth := func(c *echo.Context) error {
			if auth, err := domain.ParseAuthType(c.Param("auth")); err == nil {
				if err := domain.AcceptsAuth(api, auth); err != nil {
					return err
				}
			}
			return domain.AcceptsAuth(api, domain.AuthType{})
		}
		mount := "/" + api.Segment() + "/rs/:auth/" + api.Version()
		e.Any(mount, unknownAuth, s.instrument(api))
		e.Any(mount+"/*", unknownAuth, s.instrument(api))
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

// route is one endpoint of an API, mounted under each of its
// /{api}/rs/{auth}/v{N} prefixes.
type route struct {
	api     domain.API
	method  string
	path    string
	handler echo.HandlerFunc
}

// apiRoutes is every endpoint of the five APIs, in mount order.
func (s *Server) apiRoutes() []route {
	return []route{
		// Backoffice, API.md section 4 (and the hardening setting of section 7).
		{domain.APIBackoffice, http.MethodPut, "/domini/:idDominio", s.putDominio},
		{domain.APIBackoffice, http.MethodGet, "/domini/:idDominio", s.getDominio},
		{domain.APIBackoffice, http.MethodGet, "/domini", s.listDomini},
		{domain.APIBackoffice, http.MethodPut, "/domini/:idDominio/unitaOperative/:idUnitaOperativa", s.putUnitaOperativa},
		{domain.APIBackoffice, http.MethodGet, "/domini/:idDominio/unitaOperative/:idUnitaOperativa", s.getUnitaOperativa},
		{domain.APIBackoffice, http.MethodGet, "/domini/:idDominio/unitaOperative", s.listUnitaOperative},
		{domain.APIBackoffice, http.MethodPut, "/tipiPendenza/:idTipoPendenza", s.putTipoPendenza},
		{domain.APIBackoffice, http.MethodGet, "/tipiPendenza/:idTipoPendenza", s.getTipoPendenza},
		{domain.APIBackoffice, http.MethodGet, "/tipiPendenza", s.listTipiPendenza},
		{domain.APIBackoffice, http.MethodPut, "/intermediari/:idIntermediario", s.putIntermediario},
		{domain.APIBackoffice, http.MethodGet, "/intermediari/:idIntermediario", s.getIntermediario},
		{domain.APIBackoffice, http.MethodGet, "/intermediari", s.listIntermediari},
		{domain.APIBackoffice, http.MethodPut, "/ruoli/:idRuolo", s.putRuolo},
		{domain.APIBackoffice, http.MethodGet, "/ruoli/:idRuolo", s.getRuolo},
		{domain.APIBackoffice, http.MethodPatch, "/ruoli/:idRuolo", s.patchRuolo},
		{domain.APIBackoffice, http.MethodGet, "/ruoli", s.listRuoli},
		{domain.APIBackoffice, http.MethodPut, "/operatori/:principal", s.putOperatore},
		{domain.APIBackoffice, http.MethodGet, "/operatori/:principal", s.getOperatore},
		{domain.APIBackoffice, http.MethodPatch, "/operatori/:principal", s.patchOperatore},
		{domain.APIBackoffice, http.MethodGet, "/operatori", s.listOperatori},
		{domain.APIBackoffice, http.MethodPut, "/applicazioni/:idA2A", s.putApplicazione},
		{domain.APIBackoffice, http.MethodGet, "/applicazioni/:idA2A", s.getApplicazione},
		{domain.APIBackoffice, http.MethodPatch, "/applicazioni/:idA2A", s.patchApplicazione},
		{domain.APIBackoffice, http.MethodGet, "/applicazioni", s.listApplicazioni},
		{domain.APIBackoffice, http.MethodGet, "/pendenze", s.boListPendenze},
		{domain.APIBackoffice, http.MethodGet, "/pendenze/:idA2A/:idPendenza", s.boGetPendenza},
		{domain.APIBackoffice, http.MethodPatch, "/pendenze/:idA2A/:idPendenza", s.patchPendenza(domain.APIBackoffice)},
		{domain.APIBackoffice, http.MethodGet, "/pagamenti", s.boListPagamenti},
		{domain.APIBackoffice, http.MethodGet, "/pagamenti/:id", s.boGetPagamento},
		{domain.APIBackoffice, http.MethodGet, "/riconciliazioni", s.boListRiconciliazioni},
		{domain.APIBackoffice, http.MethodGet, "/flussiRendicontazione", s.boListFlussi},
		{domain.APIBackoffice, http.MethodGet, "/flussiRendicontazione/:idDominio/:idFlusso/:dataOraFlusso", s.getFlussoAt(operations.ReadFlussoAtBackoffice)},
		{domain.APIBackoffice, http.MethodGet, "/riscossioni", s.boListRiscossioni},
		{domain.APIBackoffice, http.MethodGet, "/riscossioni/:idDominio/:iuv/:iur/:indice", s.getRiscossione(operations.ReadRiscossioneBackoffice, s.riscossioneBackoffice)},
		{domain.APIBackoffice, http.MethodGet, "/ricevute", s.listRicevute(operations.RicevuteList, ricevuteFilters)},
		{domain.APIBackoffice, http.MethodGet, "/incassi", s.listIncassi},
		{domain.APIBackoffice, http.MethodGet, "/incassi/:idDominio/:idIncasso", s.getIncasso},
		{domain.APIBackoffice, http.MethodPost, "/incassi/:idDominio", s.postIncasso},
		{domain.APIBackoffice, http.MethodGet, "/ricevute/:idDominio/:iuv/:idRicevuta", s.getRicevuta(operations.ReadRicevutaBackoffice)},
		{domain.APIBackoffice, http.MethodGet, "/eventi", s.listEventi},
		{domain.APIBackoffice, http.MethodGet, "/eventi/:id", s.getEvento},
		{domain.APIBackoffice, http.MethodPost, "/autorizzazioni/verifica", s.postVerifica},
		{domain.APIBackoffice, http.MethodGet, "/autorizzazioni", s.getAutorizzazioni},
		{domain.APIBackoffice, http.MethodGet, "/autorizzazioni/principal", s.getWhatCan},
		{domain.APIBackoffice, http.MethodGet, "/autorizzazioni/principal/risorse", s.getWhatCanResources},
		{domain.APIBackoffice, http.MethodGet, "/giornale/checkpoint", s.getLogCheckpoints},
		{domain.APIBackoffice, http.MethodGet, "/giornale/prove/inclusione", s.getInclusionProof},
		{domain.APIBackoffice, http.MethodGet, "/giornale/prove/consistenza", s.getConsistencyProof},
		{domain.APIBackoffice, http.MethodGet, "/profilo", s.boProfilo},
		{domain.APIBackoffice, http.MethodPatch, "/profilo", s.patchProfilo},
		{domain.APIBackoffice, http.MethodGet, "/operazioni/resetCacheAnagrafica", s.resetCache},
		{domain.APIBackoffice, http.MethodPut, "/configurazioni/hardening", s.putHardening},
		{domain.APIBackoffice, http.MethodGet, "/configurazioni/hardening", s.getHardening},
		{domain.APIBackoffice, http.MethodGet, "/enumerazioni/serviziACL", s.serviziACL},
		{domain.APIBackoffice, http.MethodGet, "/logout", s.logout(domain.APIBackoffice)},

		// Pendenze, API.md section 5: applications authorized on the
		// Pendenze API create, update and read the pendenze they created.
		{domain.APIPendenze, http.MethodPut, "/pendenze/:idA2A/:idPendenza", s.putPendenza},
		{domain.APIPendenze, http.MethodGet, "/pendenze/:idA2A/:idPendenza", s.getOwnPendenza},
		{domain.APIPendenze, http.MethodPatch, "/pendenze/:idA2A/:idPendenza", s.patchPendenza(domain.APIPendenze)},
		{domain.APIPendenze, http.MethodGet, "/pendenze", s.listOwnPendenze},
		{domain.APIPendenze, http.MethodGet, "/profilo", s.apiProfilo(domain.APIPendenze)},
		{domain.APIPendenze, http.MethodGet, "/pendenze/byAvviso/:idDominio/:numeroAvviso", byAvviso(s, operations.ReadByAvvisoPendenze, s.pendenzaDetailPendenze)},

		// Pagamento, API.md section 6: applications authorized on the
		// Pagamento API, citizens (spid) and anonymous callers (public).
		{domain.APIPagamento, http.MethodPost, "/pagamenti", s.postPagamento},
		{domain.APIPagamento, http.MethodGet, "/pagamenti/:id", s.getPagamento},
		{domain.APIPagamento, http.MethodGet, "/pagamenti", s.listPagamenti},
		{domain.APIPagamento, http.MethodGet, "/pendenze/:idA2A/:idPendenza", s.pgGetPendenza},
		{domain.APIPagamento, http.MethodGet, "/pendenze", s.pgListPendenze},
		{domain.APIPagamento, http.MethodPost, "/pendenze/:idDominio/:idTipoPendenza", s.pgPostPendenza},
		{domain.APIPagamento, http.MethodGet, "/avvisi/:idDominio/:numeroAvviso", s.getAvviso},
		{domain.APIPagamento, http.MethodGet, "/profilo", s.pgProfilo},
		{domain.APIPagamento, http.MethodGet, "/logout", s.logout(domain.APIPagamento)},
		{domain.APIPagamento, http.MethodGet, "/domini", s.pgDomini},
		{domain.APIPagamento, http.MethodGet, "/domini/:idDominio/tipiPendenza", s.pgTipiPendenza},
		{domain.APIPagamento, http.MethodGet, "/domini/:idDominio/unitaOperative", s.pgUnitaOperative},
		{domain.APIPagamento, http.MethodGet, "/pendenze/byAvviso/:idDominio/:numeroAvviso", s.byAvvisoPagamento},

		// Ragioneria, API.md section 8: applications authorized on the
		// Ragioneria API, scoped by the idDominio of their grant.
		{domain.APIRagioneria, http.MethodPut, "/riconciliazioni/:idDominio/:id", s.putRiconciliazione},
		{domain.APIRagioneria, http.MethodGet, "/riconciliazioni/:idDominio/:id", s.getRiconciliazione},
		{domain.APIRagioneria, http.MethodGet, "/riconciliazioni", s.listRiconciliazioni},
		{domain.APIRagioneria, http.MethodGet, "/flussiRendicontazione", s.listFlussi},
		{domain.APIRagioneria, http.MethodGet, "/flussiRendicontazione/:idDominio/:idFlusso", s.getFlusso},
		{domain.APIRagioneria, http.MethodGet, "/flussiRendicontazione/:idDominio/:idFlusso/:dataOraFlusso", s.getFlussoAt(operations.ReadFlussoAt)},
		{domain.APIRagioneria, http.MethodGet, "/riscossioni", s.listRiscossioni},
		{domain.APIRagioneria, http.MethodGet, "/riscossioni/:idDominio/:iuv/:iur/:indice", s.getRiscossione(operations.ReadRiscossioneRagioneria, s.riscossione)},
		{domain.APIRagioneria, http.MethodGet, "/ricevute", s.listRicevute(operations.RagioneriaList, ricevuteFilters)},
		{domain.APIRagioneria, http.MethodGet, "/ricevute/:idDominio/:iuv/:idRicevuta", s.getRicevuta(operations.ReadRicevutaRagioneria)},
		{domain.APIRagioneria, http.MethodGet, "/pagamenti", s.ragListPagamenti},
		{domain.APIRagioneria, http.MethodGet, "/pagamenti/:id", s.ragGetPagamento},
		{domain.APIRagioneria, http.MethodGet, "/profilo", s.apiProfilo(domain.APIRagioneria)},
		{domain.APIRagioneria, http.MethodGet, "/pendenze/byAvviso/:idDominio/:numeroAvviso", byAvviso(s, operations.ReadByAvvisoRagioneria, s.pendenza)},

		// Node API, API.md section 9, on /nodo/rs/ssl/v1 and /nodo/rs/basic/v1
		// (the mount refuses the other auth types). Every endpoint lives under
		// /intermediari/{idIntermediario} and admits only the exact principal
		// of that intermediary's node connector, for an entity that
		// intermediary serves (domain.CanActAsNode).
		{domain.APINodo, http.MethodGet, "/intermediari/:idIntermediario/avvisi/:idDominio/:numeroAvviso", s.nodoVerifica},
		{domain.APINodo, http.MethodPost, "/intermediari/:idIntermediario/ricevute", s.nodoRicevuta},
		{domain.APINodo, http.MethodPost, "/intermediari/:idIntermediario/flussiRendicontazione", s.nodoFlusso},
	}
}

// noStoreValue is noStore's Cache-Control, one slice for every answer
// (net/http only reads it; a Set replaces it, an Add copies it).
var noStoreValue = []string{"no-store"}

// noStore marks every answer of the APIs, errors included, Cache-Control:
// no-store: they carry personal data (payers, fiscal codes, payments) and
// are decided per caller, so no shared cache may keep one or serve it to
// another caller.
func noStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		c.Response().Header()["Cache-Control"] = noStoreValue
		return next(c)
	}
}

// wholeSegments answers a request whose path has another number of
// segments than its route's (segments, its slashes) as a request no route
// took (allowTable.missed): Echo's router lets a route's last ":param"
// take the rest of the path, slashes and all, so GET
// /tipiPendenza/t1/extra would reach /tipiPendenza/:idTipoPendenza with
// "t1/extra". It counts in the path Echo routes on (RawPath when set), so
// an escaped slash stays inside its segment.
func wholeSegments(segments int, allow **allowTable, next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if strings.Count(routedPath(c.Request().URL), "/") != segments {
			return (*allow).missed(c)
		}
		return next(c)
	}
}

// routedPath is the form of a request's path Echo's router matches: the
// path as sent (RawPath) when it differs from Path's default encoding, so
// that an escaped slash stays inside its segment.
func routedPath(u *url.URL) string {
	if u.RawPath != "" {
		return u.RawPath
	}
	return u.Path
}
