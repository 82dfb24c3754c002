package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/operations/whatcan"
	"github.com/payauthz/payauthz/projections"
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

// whatCanQuery checks the caller and reads the principal asked about and
// the read models at posizione or data.
func (s *Server) whatCanQuery(c *echo.Context) (string, *projections.ReadModel, error) {
	if err := operations.AuditWholeLog(callerOf(c).principal, nil); err != nil {
		return "", nil, err
	}
	name, err := queryValue(c, "principal")
	if err != nil {
		return "", nil, err
	}
	if name == "" {
		return "", nil, syntaxError("principal is required")
	}
	pos, err := queryPosizione(c)
	if err != nil {
		return "", nil, err
	}
	data, err := queryValue(c, "data")
	if err != nil {
		return "", nil, err
	}
	until, err := untilOf(pos, data)
	if err != nil {
		return "", nil, err
	}
	m, err := s.modelAt(c.Request().Context(), until)
	return name, m, err
}

func (s *Server) getWhatCan(c *echo.Context) error {
	name, m, err := s.whatCanQuery(c)
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
	name, m, err := s.whatCanQuery(c)
	if err != nil {
		return err
	}
	q := queryReader{c: c}
	apiName, op, dopo, limite := q.value("api"), q.value("operazione"), q.value("dopo"), q.value("limite")
	servizio, autorizzazione := q.value("servizio"), q.value("autorizzazione")
	if q.err != nil {
		return q.err
	}
	api, err := parseAuditAPI(apiName)
	if err != nil {
		return err
	}
	if op == "" {
		return syntaxError("operazione is required")
	}
	after, limit := uint64(0), defaultResourcesLimit
	if dopo != "" {
		if after, err = strconv.ParseUint(dopo, 10, 64); err != nil {
			return syntaxError("dopo must be a non-negative integer (the successivo of the previous page)")
		}
	}
	if limite != "" {
		n, err := strconv.Atoi(limite)
		if err != nil || n < 1 || n > maxResourcesLimit {
			return syntaxError("limite must be between 1 and " + strconv.Itoa(maxResourcesLimit))
		}
		limit = n
	}
	body := resourcesPage{Resources: []audit.Resource{}}
	body.Page, err = whatcan.Resources(m, name, api, op, servizio, autorizzazione,
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
