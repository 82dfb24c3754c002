package httpapi

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
)

// maxRequestIDLength bounds a client's X-Request-ID; see validRequestID.
const maxRequestIDLength = 64

// validRequestID reports whether a client's X-Request-ID may be kept: at
// most 64 characters of [A-Za-z0-9._-]. It is echoed, written into every
// decision-log line and stored as the correlation id of events, so anything
// longer or stranger is replaced by a fresh id.
func validRequestID(id string) bool { return commands.ValidToken(id, maxRequestIDLength) }

// requestIDs is the request-id middleware: it keeps a valid client
// X-Request-ID, else generates one, and answers it in the response header,
// where requestID reads it.
func requestIDs() echo.MiddlewareFunc {
	gen := newRequestIDs()
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			id := c.Request().Header.Get(echo.HeaderXRequestID)
			if !validRequestID(id) {
				id = gen()
			}
			c.Response().Header().Set(echo.HeaderXRequestID, id)
			return next(c)
		}
	}
}

// methodLabel is the metric label of a request method: the methods the
// APIs know, anything else "other", so that made-up methods cannot add
// series.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// maxFaultHeaderBytes is the header size the service answers with a 431
// FaultBean; net/http itself cuts a header block at maxHeaderBytes
// (64 KiB) with a plain-text 431, before the service can answer.
const maxFaultHeaderBytes = 32 << 10

// errHeadersTooLarge is a header block over maxFaultHeaderBytes (431).
var errHeadersTooLarge = errors.New("request headers too large")

// headerLimit refuses a request whose request line and headers exceed
// maxFaultHeaderBytes.
func headerLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		r := c.Request()
		n := len(r.RequestURI)
		for k, vs := range r.Header {
			for _, v := range vs {
				n += len(k) + len(v) + 4
			}
		}
		if n > maxFaultHeaderBytes {
			return errHeadersTooLarge
		}
		return next(c)
	}
}
