package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
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

// registerBackoffice mounts API.md section 4 (and the hardening setting of
// section 7) on one /backoffice/rs/{auth}/v1 group.
func (s *Server) registerBackoffice(g *echo.Group) {
	g.PUT("/domini/:idDominio", s.putDominio)
	g.GET("/domini/:idDominio", s.getDominio)
	g.GET("/domini", s.listDomini)
	g.PUT("/tipiPendenza/:idTipoPendenza", s.putTipoPendenza)
	g.GET("/tipiPendenza/:idTipoPendenza", s.getTipoPendenza)
	g.GET("/tipiPendenza", s.listTipiPendenza)
	g.PUT("/intermediari/:idIntermediario", s.putIntermediario)
	g.GET("/intermediari/:idIntermediario", s.getIntermediario)
	g.GET("/intermediari", s.listIntermediari)
	g.PUT("/ruoli/:idRuolo", s.putRuolo)
	g.GET("/ruoli/:idRuolo", s.getRuolo)
	g.GET("/ruoli", s.listRuoli)
	g.PUT("/operatori/:principal", s.putOperatore)
	g.GET("/operatori/:principal", s.getOperatore)
	g.GET("/operatori", s.listOperatori)
	g.PUT("/applicazioni/:idA2A", s.putApplicazione)
	g.GET("/applicazioni/:idA2A", s.getApplicazione)
	g.GET("/applicazioni", s.listApplicazioni)
	g.GET("/pendenze", s.boListPendenze)
	g.GET("/pendenze/:idA2A/:idPendenza", s.boGetPendenza)
	g.GET("/pagamenti", s.boListPagamenti)
	g.GET("/pagamenti/:id", s.boGetPagamento)
	g.GET("/riconciliazioni", s.boListRiconciliazioni)
	g.GET("/flussiRendicontazione", s.boListFlussi)
	g.GET("/riscossioni", s.boListRiscossioni)
	g.GET("/eventi", s.listEventi)
	g.POST("/autorizzazioni/verifica", s.postVerifica)
	g.GET("/autorizzazioni", s.getAutorizzazioni)
	s.registerLogAudit(g)
	s.registerWhatCan(g)
	g.GET("/profilo", s.boProfilo)
	g.GET("/operazioni/resetCacheAnagrafica", s.resetCache)
	g.PUT("/configurazioni/hardening", s.putHardening)
	g.GET("/configurazioni/hardening", s.getHardening)
	g.GET("/enumerazioni/serviziACL", s.serviziACL)
	g.GET("/logout", s.logout(domain.APIBackoffice))
}

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
