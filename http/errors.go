package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"
	"golang.org/x/time/rate"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// FaultBean is GovPay's error body.
type FaultBean struct {
	Categoria   string `json:"categoria"`
	Codice      string `json:"codice"`
	Descrizione string `json:"descrizione"`
	Dettaglio   string `json:"dettaglio,omitempty"`
}

// Errors raised by the HTTP layer itself.
var (
	errUnauthenticated    = operations.ErrUnauthenticated
	errNotFound           = domain.ErrNotFound
	errConsistencyTimeout = errors.New("consistency token not reached in time")
	errCatchingUp         = errors.New("the read models have not yet applied the log as of start-up")
)

// badRequest is malformed input found by the HTTP layer (400 SINTASSI):
// detail is the API's dettaglio; cause, when set, is the typed error detail
// words, which a client that words errors itself (the console) reads.
type badRequest struct {
	detail string
	cause  error
}

func (e *badRequest) Error() string { return e.detail }

// Unwrap is the typed error the detail words, nil when none.
func (e *badRequest) Unwrap() error { return e.cause }

func syntaxError(detail string) error { return &badRequest{detail: detail} }

// syntaxErrorOf is syntaxError wording cause, which it keeps.
func syntaxErrorOf(cause error, detail string) error {
	return &badRequest{detail: detail, cause: cause}
}

// tooLarge is a body over --max-body-bytes (413).
type tooLarge struct{}

func (tooLarge) Error() string { return "request body too large" }

// fault chooses the status and FaultBean of err. It is the only place
// where errors become statuses.
func fault(err error) (int, FaultBean) {
	var (
		forbidden *domain.ForbiddenError
		invalid   *commands.InvalidError
		unproc    *commands.UnprocessableError
		bad       *badRequest
		tmr       *tooManyRequests
		appID     *commands.AppIDInUseError
		notice    *commands.NoticeInUseError
	)
	switch {
	case errors.As(err, &forbidden) && forbidden.Rule == domain.RuleAuthNotAccepted:
		return http.StatusForbidden, FaultBean{"AUTORIZZAZIONE", "403", "Tipo di autenticazione non ammesso per questa API", forbidden.Detail}
	case errors.As(err, &forbidden):
		return http.StatusForbidden, FaultBean{"AUTORIZZAZIONE", "403000", "Operazione non autorizzata", forbidden.Detail}
	case errors.Is(err, errUnauthenticated):
		return http.StatusUnauthorized, FaultBean{"AUTORIZZAZIONE", "401000", "Utenza non autenticata", ""}
	case errors.As(err, &tmr):
		return http.StatusTooManyRequests, FaultBean{"OPERAZIONE", "429000", "Troppe richieste", tmr.reason + "; retry later"}
	case errors.As(err, &invalid):
		return http.StatusBadRequest, FaultBean{"RICHIESTA", "SINTASSI", "Richiesta non valida", invalid.Error()}
	case errors.As(err, &bad):
		return http.StatusBadRequest, FaultBean{"RICHIESTA", "SINTASSI", "Richiesta non valida", bad.detail}
	case errors.As(err, new(tooLarge)), errors.As(err, new(*http.MaxBytesError)):
		return http.StatusRequestEntityTooLarge, FaultBean{"RICHIESTA", "SINTASSI", "Richiesta troppo grande", "the body exceeds the size limit"}
	case errors.Is(err, errHeadersTooLarge):
		return http.StatusRequestHeaderFieldsTooLarge, FaultBean{"RICHIESTA", "SINTASSI", "Intestazioni troppo grandi", "the request headers exceed 32 KiB"}
	case errors.Is(err, events.ErrTooLarge):
		return http.StatusRequestEntityTooLarge, FaultBean{"RICHIESTA", "SINTASSI", "Richiesta troppo grande", "the resulting commit exceeds the event store's message limit (1 MiB)"}
	case errors.As(err, &unproc):
		return http.StatusUnprocessableEntity, FaultBean{"RICHIESTA", "422000", "Richiesta non processabile", unproc.Detail}
	case errors.Is(err, errNotFound), errors.Is(err, commands.ErrNotFound):
		return http.StatusNotFound, FaultBean{"RICHIESTA", "404000", "Risorsa non trovata", ""}
	case errors.As(err, &appID):
		return http.StatusConflict, FaultBean{"RICHIESTA", "409000", "Conflitto",
			appID.Field + " " + appID.ID + " is the X-APP-ID of another application or operator"}
	case errors.Is(err, commands.ErrPrincipalInUse):
		return http.StatusConflict, FaultBean{"RICHIESTA", "409000", "Conflitto", "the principal is already in use"}
	case errors.As(err, &notice):
		return http.StatusConflict, FaultBean{"RICHIESTA", "409000", "Conflitto",
			"numeroAvviso " + notice.NumeroAvviso + " is already used at idDominio " + notice.IDDominio}
	case errors.Is(err, commands.ErrConflict), errors.Is(err, events.ErrConflict):
		return http.StatusConflict, FaultBean{"RICHIESTA", "409000", "Conflitto", "the resource changed concurrently or differs from the stored one"}
	case errors.Is(err, audit.ErrBusy):
		return http.StatusServiceUnavailable, FaultBean{"INTERNO", "503000", "Servizio non disponibile", "the log moved on while the answer was read: ask again, or at a posizione"}
	case errors.Is(err, projections.ErrStopped):
		return http.StatusServiceUnavailable, FaultBean{"INTERNO", "503000", "Servizio non disponibile", "the read models stopped applying the event log: this replica is stopping"}
	case errors.Is(err, errCatchingUp):
		return http.StatusServiceUnavailable, FaultBean{"INTERNO", "503000", "Servizio non disponibile", "this replica is catching up with the event log after its start"}
	case errors.Is(err, errConsistencyTimeout):
		return http.StatusServiceUnavailable, FaultBean{"INTERNO", "503000", "Servizio non disponibile", "the consistency token was not reached in time"}
	case errors.Is(err, events.ErrUnavailable), errors.Is(err, events.ErrClosed), errors.Is(err, context.DeadlineExceeded):
		// A closed store: a request that outlived the shutdown grace.
		return http.StatusServiceUnavailable, FaultBean{"INTERNO", "503000", "Servizio non disponibile", "the event store is unavailable"}
	case errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable, FaultBean{"INTERNO", "503000", "Servizio non disponibile", "the request was cancelled"}
	case echo.StatusCode(err) != 0:
		// Echo's own errors (no route, wrong method, ...): *echo.HTTPError
		// and the unexported sentinels like echo.ErrNotFound alike.
		switch echo.StatusCode(err) {
		case http.StatusNotFound:
			return http.StatusNotFound, FaultBean{"RICHIESTA", "404000", "Risorsa non trovata", ""}
		case http.StatusMethodNotAllowed:
			return http.StatusMethodNotAllowed, FaultBean{"RICHIESTA", "405000", "Metodo non ammesso", ""}
		case http.StatusRequestEntityTooLarge:
			return http.StatusRequestEntityTooLarge, FaultBean{"RICHIESTA", "SINTASSI", "Richiesta troppo grande", "the body exceeds the size limit"}
		case http.StatusBadRequest, http.StatusUnsupportedMediaType:
			return http.StatusBadRequest, FaultBean{"RICHIESTA", "SINTASSI", "Richiesta non valida", ""}
		case http.StatusUnauthorized:
			return http.StatusUnauthorized, FaultBean{"AUTORIZZAZIONE", "401000", "Utenza non autenticata", ""}
		}
	}
	return http.StatusInternalServerError, FaultBean{"INTERNO", "500000", "Errore interno", ""}
}

// failureLogBurst and failureLogRate pace the service log's 'request
// failed' lines: a flood of failures (a store that is down, a bug every
// request meets) writes a burst, then one line a second, not one per
// request; the metrics and the decision log still count each.
const (
	failureLogBurst = 10
	failureLogRate  = rate.Limit(1)
)

// logged reports whether a request answered status for err is a failure
// of the service the service log reports: a 5xx, but not a request the
// caller cancelled, nor a consistency token not reached in time (the
// caller's own, which it may send without credentials: see consistency).
func logged(err error, status int) bool {
	return status >= 500 && !errors.Is(err, context.Canceled) && !errors.Is(err, errConsistencyTimeout) && !errors.Is(err, errCatchingUp)
}

// retryAfter is the Retry-After header of an answer with status for err,
// "" for none: a refusal of the password budget or the failed-login
// throttles says when to try again, every 503 one second. The APIs and the
// console both answer it (errorHandler, the console's Deps.Fault).
func retryAfter(err error, status int) string {
	var tmr *tooManyRequests
	switch {
	case errors.As(err, &tmr):
		return tmr.retryAfterSeconds()
	case status == http.StatusServiceUnavailable:
		return strconv.Itoa(1)
	}
	return ""
}

// logFailure writes the service log's 'request failed' line of a request
// answered status for err, when logged counts it a failure of the service
// and the pace allows a line now: for the APIs' requests (errorHandler)
// and the console's pages alike.
func (s *Server) logFailure(r *http.Request, requestID string, status int, err error) {
	if logged(err, status) && s.failures.Allow() {
		s.logger.Error("request failed", "method", methodLabel(r.Method), "path", loggedValue(r.URL.Path),
			"request_id", requestID, "status", status, "error", err.Error())
	}
}

// errorHandler is the Echo error handler: every error becomes a FaultBean.
func (s *Server) errorHandler(c *echo.Context, err error) {
	if resp, uerr := echo.UnwrapResponse(c.Response()); uerr == nil && resp.Committed {
		return
	}
	status, fb := fault(err)
	s.logFailure(c.Request(), requestID(c), status, err)
	if ra := retryAfter(err, status); ra != "" {
		c.Response().Header().Set("Retry-After", ra)
	}
	if status == http.StatusUnauthorized && authSegment(c) == "basic" {
		// RFC 7617: a basic challenge, so clients know to send credentials.
		c.Response().Header().Set("WWW-Authenticate", `Basic realm="payauthz"`)
	}
	_ = c.JSON(status, fb)
}
