package httpapi

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/events"
)

// ConsistencyHeader carries a consistency token both ways.
const ConsistencyHeader = "X-Consistency-Token"

// Token returns the consistency token of a log position:
// "<backend>:<position>". A token names its backend so that a token from
// another backend's log is refused rather than misread.
func Token(backend string, pos events.Position) string {
	return backend + ":" + strconv.FormatUint(uint64(pos), 10)
}

// ParseToken reads a token of the given backend.
func ParseToken(backend, token string) (events.Position, error) {
	b, num, ok := strings.Cut(token, ":")
	if !ok || b != backend || num == "" || len(num) > 20 {
		return 0, errors.New("not a consistency token of this service")
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, errors.New("not a consistency token of this service")
	}
	return events.Position(n), nil
}

// consistency makes a request that carries a token wait until this
// replica's projections have applied it: 400 for a garbage or future token,
// 503 with Retry-After when it is not reached within --consistency-wait.
func (s *Server) consistency(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		tok := c.Request().Header.Get(ConsistencyHeader)
		if tok == "" {
			return next(c)
		}
		pos, err := ParseToken(s.store.Backend(), tok)
		if err != nil {
			return syntaxError("X-Consistency-Token: " + err.Error())
		}
		if s.model.AppliedPosition() >= pos {
			return next(c)
		}
		ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.ConsistencyWait)
		defer cancel()
		if last, err := s.store.LastPosition(ctx); err == nil && pos > last {
			return syntaxError("X-Consistency-Token: the position is beyond the end of the log")
		}
		if err := s.model.WaitFor(ctx, pos); err != nil {
			if c.Request().Context().Err() != nil {
				return c.Request().Context().Err()
			}
			return errConsistencyTimeout
		}
		return next(c)
	}
}

// afterWrite waits until the local projections applied a write at pos and
// sets its consistency token, so the writer reads its own write here.
func (s *Server) afterWrite(c *echo.Context, pos events.Position) error {
	if pos == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.ConsistencyWait)
	defer cancel()
	if err := s.model.WaitFor(ctx, pos); err != nil {
		return errConsistencyTimeout
	}
	c.Response().Header().Set(ConsistencyHeader, Token(s.store.Backend(), pos))
	return nil
}
