package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/http/console"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// mountConsole serves the management console at /console/ on every
// listener, with the server's own authentication functions, so that the
// console accepts exactly the identities the Backoffice API accepts. When
// it is disabled, /console/ falls through to the 404 of unknown routes.
func (s *Server) mountConsole(e *echo.Echo) error {
	if s.cfg.Console.Disabled {
		return nil
	}
	cfg := s.cfg.Console
	cfg.SecureCookies = cfg.SecureCookies || s.cfg.SecureCookies
	c, err := console.New(cfg, console.Deps{
		Model: s.model, Commands: s.cmds, Store: s.store, Logger: s.logger,
		Authenticate:    s.authenticateBasic,
		VerifiedSubject: s.verifiedSubject,
		SPIDCode: func(r *http.Request) (string, bool) {
			return s.spidPrincipal(e.NewContext(r, nil))
		},
		Token:     func(pos events.Position) string { return Token(s.store.Backend(), pos) },
		WriteWait: s.cfg.ConsistencyWait,
		BeyondLog: s.beyondLog,
		Audit:     s.consoleExplain,
		WhoCan:    s.consoleWhoCan,
		Fault: func(err error) console.Fault {
			status, fb := fault(err)
			return console.Fault{Status: status, Codice: fb.Codice, Descrizione: fb.Descrizione, Dettaglio: fb.Dettaglio}
		},
		RetryAfter: retryAfter,
		Importo: func(s string) (int64, error) {
			cents, err := ParseImporto([]byte(s))
			return int64(cents), err
		},
		Failed: func(w http.ResponseWriter, r *http.Request, status int, err error) {
			s.logFailure(r, w.Header().Get(echo.HeaderXRequestID), status, err)
		},
	})
	if err != nil {
		return err
	}
	s.console = c
	h := echo.WrapHandler(c)
	e.Any("/console", h, s.caughtUp, waitsInContext)
	e.Any("/console/*", h, s.caughtUp, waitsInContext)
	return nil
}

// authenticateBasic is the credential check of basic authentication, with
// the same verification budget and failed-login throttles. A refusal of
// those is console.ErrLoginBusy that keeps the refusal, so that Deps.Fault
// answers it as the API does (429, Retry-After).
func (s *Server) authenticateBasic(r *http.Request, user, password string) (*projections.PrincipalRecord, error) {
	rec, err := s.model.AuthenticateGated(s.logins, r.RemoteAddr, user, password)
	var busy *tooManyRequests
	if errors.As(err, &busy) {
		return nil, fmt.Errorf("%w: %w", console.ErrLoginBusy, busy)
	}
	return rec, err
}

// consoleWhoCan is GET /autorizzazioni for the console.
func (s *Server) consoleWhoCan(ctx context.Context, p domain.Principal, q console.ExplainQuery) (*audit.WhoCanResult, error) {
	res, err := s.whoCan(ctx, p, q.API, q.Operazione, q.Posizione, q.Data, q.Resource)
	return res, consoleInputError(err)
}

// consoleInputError hands the HTTP layer's bad input to the console, which
// shows it on the form: the typed error it words, when it has one (a point
// of history the log does not hold, a question the catalogue cannot
// decide), which the console words itself; else a commands.InvalidError.
func consoleInputError(err error) error {
	var bad *badRequest
	if errors.As(err, &bad) {
		if bad.cause != nil {
			return bad.cause
		}
		return &commands.InvalidError{Field: "", Detail: bad.detail}
	}
	return err
}

// consoleExplain is POST /autorizzazioni/verifica for the console.
func (s *Server) consoleExplain(ctx context.Context, p domain.Principal, q console.ExplainQuery) (*audit.Explanation, error) {
	x, err := s.explain(ctx, p, verificaBody{Principal: q.Principal, Auth: q.Auth, API: q.API, Operazione: q.Operazione,
		Posizione: q.Posizione, Data: q.Data, Resource: q.Resource})
	return x, consoleInputError(err)
}
