package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
)

// actor is the command actor of the request: its principal and its request
// id as correlation id.
func (s *Server) actor(c *echo.Context) commands.Actor {
	return commands.Actor{Principal: callerOf(c).principal, CorrelationID: requestID(c)}
}

// requestID is the request's id as the request-id middleware chose it
// (a client's id only when validRequestID accepts it).
func requestID(c *echo.Context) string {
	return c.Response().Header().Get(echo.HeaderXRequestID)
}

// written answers a write: the command's error err, or for a success it waits until the local projections
// applied it (so body() reads the stored resource), sets the consistency
// token, and answers 201 when the write created the resource, else 200.
func (s *Server) written(c *echo.Context, res commands.Result, err error, body func() (any, error)) error {
	if err != nil {
		return err
	}
	if err := s.afterWrite(c, res.Position); err != nil {
		return err
	}
	v, err := body()
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	return c.JSON(status, v)
}

// pathParam returns the path parameter name after checking its format
// (400 SINTASSI when it does not match).
func pathParam(c *echo.Context, name string, valid func(string) bool) (string, error) {
	v := c.Param(name)
	if !valid(v) {
		return "", syntaxError("bad " + name + " in the path")
	}
	return v, nil
}

// newRequestIDs returns a generator of request ids: a random per-process
// prefix and a counter. Ids only need to be unique, not secret, so the
// hot path reads no randomness from the kernel.
func newRequestIDs() func() string {
	var prefix [6]byte
	_, _ = rand.Read(prefix[:])
	p := hex.EncodeToString(prefix[:]) + "-"
	var n atomic.Uint64
	return func() string { return p + strconv.FormatUint(n.Add(1), 36) }
}

// entry returns the post-write body of the registry entry id: find
// looks it up, view renders it.
func entry[T, V any](find func(string) (T, bool), id string, view func(T) V) func() (any, error) {
	return func() (any, error) {
		v, ok := find(id)
		if !ok {
			return nil, errNotFound
		}
		return view(v), nil
	}
}

// stored returns the post-write body of the resource found by find(a, b),
// rendered by view.
func stored[T, V any](find func(a, b string) (T, bool), a, b string, view func(T) V) func() (any, error) {
	return entry(func(string) (T, bool) { return find(a, b) }, "", view)
}

// admitted returns the items of all that ok admits, in order (nil when
// none): a list narrowed to the caller's scope.
func admitted[T any](all []T, ok func(T) bool) []T {
	var keep []T
	for _, x := range all {
		if ok(x) {
			keep = append(keep, x)
		}
	}
	return keep
}

// gated runs the operation's gate, the first decision of a request that
// names no resource in its path, and returns the caller it admitted.
func gated(c *echo.Context, gate func(domain.Principal, operations.Recorder) error) (domain.Principal, error) {
	p := callerOf(c).principal
	return p, gate(p, nil)
}

// gatedParam reads the path parameter a and runs the operation's gate on
// it, the first decision of a request under one path parameter.
func gatedParam(c *echo.Context, a param, gate func(domain.Principal, string, operations.Recorder) error) (string, error) {
	x, err := pathParam(c, a.name, a.valid)
	if err != nil {
		return "", err
	}
	return x, gate(callerOf(c).principal, x, nil)
}

// gatedBody reads what a write under two path parameters starts with: the
// pair, the operation's gate on the first (decided before the body is
// even read), then the JSON body.
func (s *Server) gatedBody(c *echo.Context, a, b param, gate func(domain.Principal, string, operations.Recorder) error, body any) (string, string, error) {
	x, y, err := pathPair(c, a, b)
	if err != nil {
		return "", "", err
	}
	if err := gate(callerOf(c).principal, x, nil); err != nil {
		return "", "", err
	}
	return x, y, s.decodeJSON(c, body)
}

// decodePut reads what every registry PUT of the Backoffice starts with:
// the resource id from the path (by readID), the JSON body, the body's own
// ids bodyIDs and, when abilitato is not nil, the required abilitato (absent
// is a 400, not false, so that a client that forgets it disables nothing).
// The body may carry the resource's own id, as GET returns it (a role's
// under two names, GovPay's id and idRuolo), so that a client can PUT back
// what it read; the path stays the authority, and a body id that differs
// from it is a 400.
func (s *Server) decodePut(c *echo.Context, readID func(*echo.Context) (string, error), body any, abilitato **bool, bodyIDs ...**string) (id string, enabled bool, err error) {
	if id, err = readID(c); err != nil {
		return "", false, err
	}
	if err = s.decodeJSON(c, body); err != nil {
		return "", false, err
	}
	for _, bodyID := range bodyIDs {
		if *bodyID != nil && **bodyID != id {
			return "", false, syntaxError("the id in the body differs from the " + c.Path()[strings.LastIndex(c.Path(), ":")+1:] + " in the path")
		}
	}
	if abilitato != nil {
		enabled, err = requireBool("abilitato", *abilitato)
	}
	return id, enabled, err
}

// idParam reads the path parameter name, an id checked by valid.
func idParam(name string, valid func(string) bool) func(*echo.Context) (string, error) {
	return func(c *echo.Context) (string, error) { return pathParam(c, name, valid) }
}

// param names a path parameter and the format it must have.
type param struct {
	name  string
	valid func(string) bool
}

var (
	pIDA2A      = param{"idA2A", commands.ValidID}
	pIDPendenza = param{"idPendenza", commands.ValidID}
	pIDDominio  = param{"idDominio", commands.ValidDominio}
	pID         = param{"id", commands.ValidID}
	pIDFlusso   = param{"idFlusso", commands.ValidFlusso}
	pAvviso     = param{"numeroAvviso", commands.ValidAvviso}
	pPagamento  = param{"id", validPaymentID}
)

// read1 answers GET of the resource named by one path parameter: op
// decides for the caller and finds it in m, view renders it.
func read1[M, T, V any](c *echo.Context, m M, a param, op func(M, domain.Principal, string, operations.Recorder) (T, error), view func(T) V) error {
	id, err := pathParam(c, a.name, a.valid)
	if err != nil {
		return err
	}
	v, err := op(m, callerOf(c).principal, id, nil)
	return reply(c, v, err, view)
}

// read2 is read1 for a resource named by two path parameters.
func read2[M, T, V any](c *echo.Context, m M, a, b param, op func(M, domain.Principal, string, string, operations.Recorder) (T, error), view func(T) V) error {
	x, y, err := pathPair(c, a, b)
	if err != nil {
		return err
	}
	v, err := op(m, callerOf(c).principal, x, y, nil)
	return reply(c, v, err, view)
}

// reply answers an operation's result: its error, or the resource v
// rendered by view.
func reply[T, V any](c *echo.Context, v T, err error, view func(T) V) error {
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, view(v))
}

// pathPair reads two path parameters.
func pathPair(c *echo.Context, a, b param) (string, string, error) {
	x, err := pathParam(c, a.name, a.valid)
	if err != nil {
		return "", "", err
	}
	y, err := pathParam(c, b.name, b.valid)
	return x, y, err
}
