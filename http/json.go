package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"
)

// decodeJSON reads exactly one JSON object into v: unknown fields, wrong
// types, trailing data and bodies over the size limit are rejected with the
// contract's 400 (or 413), never a 500.
func (s *Server) decodeJSON(c *echo.Context, v any) error {
	r := c.Request()
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return syntaxError("Content-Type must be application/json")
	}
	body := http.MaxBytesReader(c.Response(), r.Body, s.cfg.MaxBodyBytes)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge{}
		}
		return syntaxError("the body must hold exactly one JSON value")
	}
	return nil
}

func jsonError(err error) error {
	var (
		mbe *http.MaxBytesError
		se  *json.SyntaxError
		ute *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &mbe):
		return tooLarge{}
	case errors.Is(err, io.EOF):
		return syntaxError("the body is empty")
	case errors.As(err, &se):
		return syntaxError(fmt.Sprintf("malformed JSON at offset %d", se.Offset))
	case errors.As(err, &ute):
		return syntaxError(fmt.Sprintf("field %q has the wrong type", ute.Field))
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return syntaxError(strings.TrimPrefix(err.Error(), "json: "))
	}
	return syntaxError("malformed JSON")
}
