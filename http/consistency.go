package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
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

// consistency makes a request that carries a token wait, before its
// credentials are checked, until this replica's projections have applied
// the token's position (at most --consistency-wait): credentials and the
// principal are then read in a state that holds the write (a password
// change, a disable). The wait never asks the store. What the token gets
// is answered once the caller is authenticated, before the mount's entry
// decision (answerToken; the node API's handlers after their admission):
// 400 for a token that is not ours or lies beyond the log's end, 503 for
// one not reached in time. A caller whose credentials fail is answered
// 401, or 503 when its token was not reached: the credentials it presents
// may be the very write it waits for (a new password), so this replica
// cannot tell them wrong; that answer needs no store call either, and
// the failure still counts as a failed login (throttles, log, metric):
// else a token that never arrives would let anyone guess passwords
// unthrottled. So is a caller refused (403) before its token was
// answered for, as the node API's admission refuses: the intermediary,
// its connector or its enabling may be that write.
func (s *Server) consistency(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		tok, err := headerValue(c.Request().Header, ConsistencyHeader)
		if err != nil {
			c.Set(tokenKey, &unhonoured{err: err})
			return next(c)
		}
		if tok == "" {
			return next(c)
		}
		pos, err := ParseToken(s.store.Backend(), tok)
		if err != nil {
			c.Set(tokenKey, &unhonoured{err: syntaxError("X-Consistency-Token: " + err.Error())})
			return next(c)
		}
		since := time.Now()
		if err := s.waitApplied(c, pos); err == nil {
			return next(c)
		}
		if c.Request().Context().Err() != nil {
			return c.Request().Context().Err()
		}
		c.Set(tokenKey, &unhonoured{pos: pos, since: since})
		err = next(c)
		if status, _ := fault(err); status == http.StatusUnauthorized || status == http.StatusForbidden {
			return errConsistencyTimeout
		}
		return err
	}
}

// caughtUp makes a request, until the read models have applied the log as
// it ended when the service started (Config.ReadyAt, as /readyz), wait
// for them (at most --consistency-wait), then answers 503: a replica
// starting from an older snapshot, or replaying the log from its start,
// would otherwise decide from a state it knows the log has moved past, a
// revocation written before it started unseen (a disabled principal let
// in, a removed grant honoured) for as long as the replay takes. Once
// caught up it costs one atomic load. It guards the API mounts and the
// console; /healthz, /readyz and /metrics answer while it waits.
func (s *Server) caughtUp(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if err := s.waitApplied(c, s.cfg.ReadyAt); err != nil {
			if err := c.Request().Context().Err(); err != nil {
				return err
			}
			if s.model.Stopped() != nil {
				return err
			}
			return errCatchingUp
		}
		return next(c)
	}
}

// requestWaits gives every wait of a request one deadline: its
// consistency token, the log as of start-up (caughtUp), the log's end
// (beyondLog), a PATCH's newer base, its own write, the console's, its
// captcha check (protectPublic). Each lasts at most --consistency-wait
// (the check its timeoutMs), but one request may make several, and
// net/http does not end a handler when --request-timeout cuts its
// connection: together they end a tenth of --request-timeout before that,
// time left to write the answer (503; a check's, denyOnFail's). The deadline is kept in the echo
// context, one allocation: most requests never wait, and the context a
// wait is given (waitContext, projections.WithWaitDeadline) is made only
// by the requests that do. The request's context keeps no deadline of its
// own (Config.RequestTimeout).
func (s *Server) requestWaits(next echo.HandlerFunc) echo.HandlerFunc {
	budget := s.cfg.RequestTimeout - s.cfg.RequestTimeout/10
	return func(c *echo.Context) error {
		c.Set(waitDeadlineKey, time.Now().Add(budget))
		return next(c)
	}
}

// waitDeadlineKey holds the deadline of the request's waits (requestWaits).
const waitDeadlineKey = "payauthz.waitDeadline"

// waitContext is the context a wait of the request is given: its own,
// with the deadline its waits share (requestWaits). Every wait for the
// read models in this package is given it.
func waitContext(c *echo.Context) context.Context {
	ctx := c.Request().Context()
	if t, ok := c.Get(waitDeadlineKey).(time.Time); ok {
		return projections.WithWaitDeadline(ctx, t)
	}
	return ctx
}

// waitsInContext puts the deadline of the request's waits into its
// context, for a handler that is given the request alone (the console).
func waitsInContext(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		c.SetRequest(c.Request().WithContext(waitContext(c)))
		return next(c)
	}
}

// tokenKey holds the request's *unhonoured token, if any.
const tokenKey = "payauthz.token"

// unhonoured is a consistency token the wait before authentication could
// not honour: one that is not ours (err), or a position not applied in
// time on a request that came in at since.
type unhonoured struct {
	err   error
	pos   events.Position
	since time.Time
}

// answerToken answers, for an authenticated caller (authenticate, before
// the entry decision; admitNode, after the admission), a token consistency
// could not honour: 400 for a token that is not ours or whose position
// lies beyond the end of the log, else 503 (not reached within
// --consistency-wait). Nil when the request carried none, or it was
// reached.
func (s *Server) answerToken(c *echo.Context) error {
	t, ok := c.Get(tokenKey).(*unhonoured)
	if !ok {
		return nil
	}
	if t.err != nil {
		return t.err
	}
	if s.beyondLog(waitContext(c), t.pos, t.since) {
		return syntaxError("X-Consistency-Token: the position is beyond the end of the log")
	}
	return errConsistencyTimeout
}

// beyondLog reports whether pos, a position a caller waited for in vain
// since then, lies beyond the end of the log (read through the shared
// logEnd, a read at most --consistency-wait, all within the request's
// waits; false when the store cannot tell, or the request's time ran out
// before it could be told). A consistency token and a console form's base
// are answered by it.
func (s *Server) beyondLog(ctx context.Context, pos events.Position, since time.Time) bool {
	last, err := s.logEnd.since(ctx, s.store, since, s.cfg.ConsistencyWait)
	return err == nil && pos > last
}

// logEnd shares reads of the log's last position between requests. A
// token a caller holds was written before its request came in, so a read
// that started after that moment is as good as a new one: every request
// that came in before the latest read started reuses its answer, a
// failure included (not one cut short by its caller's own time).
// Requests reach it only after waiting --consistency-wait, and only once
// authenticated, so the store sees at most about one call per wait,
// whatever the number of callers. One read is made at a time; a request
// that finds one in flight waits for it within its own waits, and one
// whose time ends first leaves the read to the others.
type logEnd struct {
	mu      sync.Mutex    // guards the fields below; not held across the store call
	reading chan struct{} // closed when the read in flight ends; nil when none is
	read    time.Time     // when the latest read started
	last    events.Position
	err     error
}

// since returns the log's last position as read at or after t, reading
// it for at most wait and within ctx's waits (projections.WaitBound). A
// read cut short by its caller's own time (what its request's waits had
// left, its cancellation) is not the store's answer: it is kept for no
// one, and the next caller reads anew. Waiting for another's read in
// flight is one of ctx's waits too: when their deadline passes (or ctx is
// done) before that read ends, since returns context.DeadlineExceeded
// (ctx's error), as a read with no time left does, and the read goes on
// for those that wait with it.
func (l *logEnd) since(ctx context.Context, store events.LogReader, t time.Time, wait time.Duration) (events.Position, error) {
	l.mu.Lock()
	if l.reading != nil {
		wctx := ctx
		if dl, ok := projections.WaitDeadline(ctx); ok {
			var cancel context.CancelFunc
			wctx, cancel = context.WithDeadline(ctx, dl)
			defer cancel()
		}
		for l.reading != nil {
			reading := l.reading
			l.mu.Unlock()
			select {
			case <-reading:
			case <-wctx.Done():
				return 0, wctx.Err()
			}
			l.mu.Lock()
		}
	}
	if !l.read.IsZero() && !l.read.Before(t) {
		defer l.mu.Unlock()
		return l.last, l.err
	}
	d := projections.WaitBound(ctx, wait) // what is left once another's read ended
	if d <= 0 {
		l.mu.Unlock()
		return 0, context.DeadlineExceeded
	}
	read, done := time.Now(), make(chan struct{})
	l.reading = done
	l.mu.Unlock()
	kept := false
	var last events.Position
	var err error
	defer func() { // also when the store call panics: the next caller reads
		l.mu.Lock()
		defer l.mu.Unlock()
		if kept {
			l.read, l.last, l.err = read, last, err
		}
		l.reading = nil
		close(done)
	}()
	rctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	last, err = store.LastPosition(rctx)
	kept = err == nil || ctx.Err() == nil && (d >= wait || rctx.Err() == nil)
	return last, err
}

// afterWrite sets the consistency token of a write at pos and waits until
// the local projections applied it, so the writer reads its own write
// here. A write not applied within --consistency-wait is answered 503 with
// its token all the same: it is in the log, and the token tells the client
// so (a retry would write again) and lets it read the write anywhere.
func (s *Server) afterWrite(c *echo.Context, pos events.Position) error {
	if pos == 0 {
		return nil
	}
	c.Response().Header().Set(ConsistencyHeader, Token(s.store.Backend(), pos))
	if err := s.waitApplied(c, pos); err != nil {
		return errConsistencyTimeout
	}
	return nil
}

// waitApplied waits until the read models here have applied pos: at once,
// one atomic load, when they have; else for at most --consistency-wait
// within the request's waits (waitContext, made only then). Every wait of
// a request for the read models is this one.
func (s *Server) waitApplied(c *echo.Context, pos events.Position) error {
	if s.model.AppliedPosition() >= pos {
		return nil
	}
	return s.model.WaitWithin(waitContext(c), pos, s.cfg.ConsistencyWait)
}
