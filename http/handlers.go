package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
)

// actor is the command actor of the request: its principal and its request
// id as correlation id.
func (s *Server) actor(c *echo.Context) commands.Actor {
	return commands.Actor{Principal: callerOf(c).principal, CorrelationID: requestID(c)}
}

func requestID(c *echo.Context) string {
	if id := c.Response().Header().Get(echo.HeaderXRequestID); id != "" {
		return id
	}
	return c.Request().Header.Get(echo.HeaderXRequestID)
}

// written answers a successful write: it waits until the local projections
// applied it (so body() reads the stored resource), sets the consistency
// token, and answers 201 when the write created the resource, else 200.
func (s *Server) written(c *echo.Context, res commands.Result, body func() (any, error)) error {
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
