package httpapi

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// The auditors' endpoints of the Backoffice API: explain a decision and
// list who may do an operation, now or at a point of the log's history
// (posizione or data). Both need Giornale degli Eventi R and are scoped
// like every Backoffice read: the entities the question touches must be in
// the scope of a role giving that right, and a question that touches no
// entity needs a role giving it on every entity.

// verificaBody is the body of POST /autorizzazioni/verifica.
type verificaBody struct {
	Principal  string  `json:"principal"`
	Auth       string  `json:"auth"`
	API        string  `json:"api"`
	Operazione string  `json:"operazione"`
	Posizione  *uint64 `json:"posizione,omitempty"`
	Data       string  `json:"data,omitempty"`
	audit.Resource
}

func (s *Server) postVerifica(c *echo.Context) error {
	p, err := gated(c, operations.Audit)
	if err != nil {
		return err
	}
	var body verificaBody
	if err := s.decodeJSON(c, &body); err != nil {
		return err
	}
	x, err := s.explain(c.Request().Context(), p, body)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, x)
}

// explain answers an explain question for the auditor p (the API and the
// console share it).
func (s *Server) explain(ctx context.Context, p domain.Principal, body verificaBody) (*audit.Explanation, error) {
	if err := operations.Audit(p, nil); err != nil {
		return nil, err
	}
	api, err := parseAuditAPI(body.API)
	if err != nil {
		return nil, err
	}
	auth := domain.AuthBasic
	if body.Auth != "" {
		if auth, err = domain.ParseAuthType(body.Auth); err != nil {
			return nil, syntaxError("auth: " + err.Error())
		}
	}
	until, err := untilOf(body.Posizione, body.Data)
	if err != nil {
		return nil, err
	}
	m, err := s.modelAt(ctx, until)
	if err != nil {
		return nil, err
	}
	x, err := audit.ExplainFor(m, p, audit.Query{Principal: body.Principal, Auth: auth, API: api, Operation: body.Operazione, Resource: body.Resource})
	if err != nil {
		return nil, auditQueryError(err)
	}
	return x, nil
}

func (s *Server) getAutorizzazioni(c *echo.Context) error {
	p, err := gated(c, operations.Audit)
	if err != nil {
		return err
	}
	pos, err := queryPosizione(c)
	if err != nil {
		return err
	}
	q := queryReader{c: c}
	r := audit.ResourceFrom(q.value)
	api, op, data := q.value("api"), q.value("operazione"), q.value("data")
	if q.err != nil {
		return q.err
	}
	res, err := s.whoCan(c.Request().Context(), p, api, op, pos, data, r)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// whoCan lists who may do an operation for the auditor p (the API and the
// console share it).
func (s *Server) whoCan(ctx context.Context, p domain.Principal, apiName, op string, pos *uint64, data string, r audit.Resource) (*audit.WhoCanResult, error) {
	if err := operations.Audit(p, nil); err != nil {
		return nil, err
	}
	api, err := parseAuditAPI(apiName)
	if err != nil {
		return nil, err
	}
	if op == "" {
		return nil, syntaxError("operazione is required")
	}
	until, err := untilOf(pos, data)
	if err != nil {
		return nil, err
	}
	m, err := s.modelAt(ctx, until)
	if err != nil {
		return nil, err
	}
	res, err := audit.WhoCanFor(m, p, api, op, r)
	if err != nil {
		return nil, auditQueryError(err)
	}
	return res, nil
}

func parseAuditAPI(s string) (domain.API, error) {
	api, err := domain.ParseAPI(s)
	if err != nil || !slices.Contains(audit.APIs, api) {
		return domain.API{}, syntaxError("api must be one of " + strings.Join(audit.APINames(), ", "))
	}
	return api, nil
}

// queryPosizione reads the query's posizione, nil when absent (untilOf
// refuses 0), of one value (queryValue).
func queryPosizione(c *echo.Context) (*uint64, error) {
	v, err := queryValue(c, "posizione")
	if v == "" {
		return nil, err
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return nil, errPosizione
	}
	return &n, nil
}

// errPosizione is a posizione that is no log position.
var errPosizione = syntaxError("posizione must be a positive integer")

// untilOf is the point of history an audit question names: a position
// from 1 (nil: none) and an RFC 3339 time ("": none).
func untilOf(pos *uint64, data string) (projections.Until, error) {
	var u projections.Until
	if pos != nil {
		var err error
		if u, err = u.AtPosition(*pos); err != nil {
			return u, errPosizione
		}
	}
	if data != "" {
		t, err := time.Parse(time.RFC3339Nano, data)
		if err != nil {
			return u, syntaxError("data must be an RFC 3339 time")
		}
		u = u.At(t)
	}
	return u, nil
}

// modelAt returns the live read models for the present, or read models
// rebuilt from the log up to u (a cold partial replay), one rebuild at a
// time per server. A point the log does not hold (projections.CheckPoint,
// the rule the audit CLI applies too) is bad input, refused before the
// rebuild.
func (s *Server) modelAt(ctx context.Context, u projections.Until) (*projections.ReadModel, error) {
	if u.IsEnd() {
		return s.model, nil
	}
	err := projections.CheckPoint(ctx, s.store, u)
	if pe, ok := errors.AsType[*projections.PointError](err); ok {
		return nil, syntaxErrorOf(pe, pe.Describe("posizione", "data"))
	}
	if err != nil {
		return nil, err
	}
	// One rebuild at a time: a replay of a long log is CPU-bound, and
	// auditors' questions must not starve the requests the service serves.
	select {
	case s.rebuilds <- struct{}{}:
		defer func() { <-s.rebuilds }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	m, _, err := projections.RebuildWithSnapshots(ctx, s.store, s.cfg.SnapshotDir, u, nil)
	return m, err
}

func auditQueryError(err error) error {
	if errors.Is(err, audit.ErrBadQuery) || errors.Is(err, audit.ErrUnknownOperation) {
		return syntaxErrorOf(err, err.Error())
	}
	return err
}
