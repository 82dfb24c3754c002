package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// errEventFound stops the read of the log once the asked event is past.
var errEventFound = errors.New("event found")

// getEvento answers GET /eventi/{id} on the Backoffice: the event id
// (operations.EventID) of the log, decided by operations.ReadEvent.
func (s *Server) getEvento(c *echo.Context) error {
	pos, index, ok := operations.ParseEventID(c.Param("id"))
	if !ok {
		return syntaxError("bad id in the path: an event id is a log position, optionally followed by . and the event's index in its commit")
	}
	var found *events.Envelope
	var readErr error
	places := func() ([]domain.Place, bool) {
		readErr = s.store.ReadFrom(c.Request().Context(), pos, func(_ context.Context, env events.Envelope) error {
			if env.Position != pos {
				return errEventFound // the commit at pos is past (or absent)
			}
			if env.Index == index {
				found = &env
				return errEventFound
			}
			return nil
		})
		if errors.Is(readErr, errEventFound) || errors.Is(readErr, events.ErrInvalidPosition) {
			// Found, or no commit at pos (a store with sparse positions
			// refuses to read from there): a missing id.
			readErr = nil
		}
		if found == nil {
			return nil, false
		}
		return domain.PlacesOf(found.Event, nil), true
	}
	err := operations.ReadEvent(callerOf(c).principal, places, nil)
	if readErr != nil {
		return readErr
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, operations.NewEventEntry(*found))
}
