package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections/audit"
	"github.com/payauthz/payauthz/projections/whatcan"
)

// What could a principal do and reach, now or at a point of the log's
// history: GET /autorizzazioni/principal (every operation, its scope and
// the role or grant behind it) and GET /autorizzazioni/principal/risorse
// (the stored resources it could act on, paginated). Both need Giornale
// degli Eventi R on every entity, as audit questions that touch no single
// entity do.

const (
	defaultResourcesLimit = 1000
	maxResourcesLimit     = 100_000
)

func (s *Server) registerWhatCan(g *echo.Group) {
	g.GET("/autorizzazioni/principal", s.getWhatCan)
	g.GET("/autorizzazioni/principal/risorse", s.getWhatCanResources)
}

func (s *Server) whatCanAuditor(c *echo.Context) error {
	return domain.CanOnDominio(callerOf(c).principal, domain.ServiceGiornaleEventi, domain.RightRead, domain.Wildcard)
}

// pointOf reads posizione and data.
func pointOf(c *echo.Context) (*uint64, string, error) {
	var pos *uint64
	if v := c.QueryParam("posizione"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			return nil, "", syntaxError("posizione must be a positive integer")
		}
		pos = &n
	}
	return pos, c.QueryParam("data"), nil
}

func (s *Server) getWhatCan(c *echo.Context) error {
	if err := s.whatCanAuditor(c); err != nil {
		return err
	}
	name := c.QueryParam("principal")
	if name == "" {
		return syntaxError("principal is required")
	}
	pos, data, err := pointOf(c)
	if err != nil {
		return err
	}
	until, err := untilOf(pos, data)
	if err != nil {
		return err
	}
	m, err := s.modelAt(c, until)
	if err != nil {
		return err
	}
	res, err := whatcan.WhatCan(m, name)
	if errors.Is(err, whatcan.ErrUnknownPrincipal) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// resourcesPage is the body of GET /autorizzazioni/principal/risorse.
type resourcesPage struct {
	*whatcan.Page
	Resources []audit.Resource `json:"risorse"`
}

func (s *Server) getWhatCanResources(c *echo.Context) error {
	if err := s.whatCanAuditor(c); err != nil {
		return err
	}
	name := c.QueryParam("principal")
	if name == "" {
		return syntaxError("principal is required")
	}
	api, err := parseAuditAPI(c.QueryParam("api"))
	if err != nil {
		return err
	}
	op := c.QueryParam("operazione")
	if op == "" {
		return syntaxError("operazione is required")
	}
	after, limit := uint64(0), defaultResourcesLimit
	if v := c.QueryParam("dopo"); v != "" {
		if after, err = strconv.ParseUint(v, 10, 64); err != nil {
			return syntaxError("dopo must be a non-negative integer (the successivo of the previous page)")
		}
	}
	if v := c.QueryParam("limite"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxResourcesLimit {
			return syntaxError("limite must be between 1 and " + strconv.Itoa(maxResourcesLimit))
		}
		limit = n
	}
	pos, data, err := pointOf(c)
	if err != nil {
		return err
	}
	until, err := untilOf(pos, data)
	if err != nil {
		return err
	}
	m, err := s.modelAt(c, until)
	if err != nil {
		return err
	}
	body := resourcesPage{Resources: []audit.Resource{}}
	body.Page, err = whatcan.Resources(m, name, api, op, c.QueryParam("servizio"), strings.ToUpper(c.QueryParam("autorizzazione")),
		after, limit, func(r audit.Resource) error {
			body.Resources = append(body.Resources, r)
			return nil
		})
	switch {
	case errors.Is(err, whatcan.ErrUnknownPrincipal):
		return errNotFound
	case errors.Is(err, whatcan.ErrNoResources):
		return syntaxError(err.Error())
	case err != nil:
		return auditQueryError(err)
	}
	return c.JSON(http.StatusOK, body)
}
