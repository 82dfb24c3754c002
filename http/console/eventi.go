package console

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// The Giornale degli eventi page: the log from a position, oldest first,
// within the operator's scope (GET /eventi's decisions), filtered by type,
// actor, entity and time. Data is shown redacted (no password hash or
// secret ever). Each event links to the Audit page to ask about the
// moment just before and just after it.

type eventRow struct {
	Position uint64
	// Before is the position just before the event's, 0 for the log's
	// first event: nothing precedes it, and 0 is no point of history
	// (projections.Until.AtPosition), so it has no "prima" link.
	Before      uint64
	Name, Actor string
	Time        string
	Data        string
	Stream      string
}

type eventiView struct {
	Da, Tipo, Attore, Dominio, Dal string
	Rows                           []eventRow
	// Next is the position the next page starts at; More says the log
	// has events there (the page stopped before the log's end).
	Next uint64
	More bool
	// Types are the event types of the catalogue, the type filter's
	// suggestions.
	Types  []string
	Errors fieldErrors
}

// maxScanned bounds the events one page examines.
const maxScanned = 5000

var errPageDone = errors.New("page done")

func (c *Console) listEventi(rq *request) error {
	seeAll, err := operations.ReadEventLog(rq.p, nil)
	if err != nil {
		return err
	}
	q := rq.r.URL.Query()
	v := eventiView{Da: q.Get("da"), Tipo: q.Get("tipo"), Attore: q.Get("attore"), Dominio: q.Get("idDominio"), Dal: q.Get("dal"),
		Types: events.DefaultCodec.Names(), Errors: fieldErrors{}}
	da := uint64(1)
	if v.Da != "" {
		n, err := strconv.ParseUint(v.Da, 10, 64)
		if err != nil || n == 0 {
			v.Errors["da"] = "La posizione è un numero intero da 1."
		}
		da = n
	}
	if v.Tipo != "" && !events.DefaultCodec.Known(v.Tipo) {
		// Not a filter that matches nothing: a type no event can have.
		v.Errors["tipo"] = "Non è un tipo di evento del catalogo: scegline uno dall'elenco."
	}
	var dal time.Time
	if v.Dal != "" {
		if dal, err = giorno(v.Dal); err != nil {
			v.Errors["dal"] = "La data è nel formato AAAA-MM-GG."
		}
	}
	if len(v.Errors) > 0 {
		return c.render(rq, http.StatusBadRequest, "eventi.html", "Giornale degli eventi", v)
	}
	ctx, cancel := context.WithTimeout(rq.r.Context(), 5*time.Second)
	defer cancel()
	scanned := 0
	v.Next = da
	var places [4]domain.Place
	err = c.deps.Store.ReadFrom(ctx, events.Position(da), func(_ context.Context, env events.Envelope) error {
		if env.Index == 0 && (len(v.Rows) >= 50 || scanned >= maxScanned) {
			return errPageDone
		}
		scanned++
		v.Next = uint64(env.Position) + 1
		if !domain.EventVisible(rq.p, seeAll, env.Event) ||
			v.Tipo != "" && env.Name != v.Tipo || v.Attore != "" && env.Actor != v.Attore ||
			!dal.IsZero() && env.Time.Before(dal) {
			return nil
		}
		if v.Dominio != "" {
			in := false
			for _, pl := range domain.PlacesOf(env.Event, places[:0]) {
				in = in || pl.IDDominio == v.Dominio
			}
			if !in {
				return nil
			}
		}
		v.Rows = append(v.Rows, eventRow{Position: uint64(env.Position), Before: uint64(env.Position) - 1, Name: env.Name,
			Actor: env.Actor, Time: istante(env.Time), Data: string(events.Redact(env.Data)), Stream: env.Stream})
		return nil
	})
	if errors.Is(err, events.ErrInvalidPosition) {
		// A store with sparse positions (KurrentDB) reads from a
		// position of the log, or one past it, only.
		v.Errors["da"] = "Non è una posizione del giornale: usa la posizione di un evento o quella degli eventi successivi."
		return c.render(rq, http.StatusBadRequest, "eventi.html", "Giornale degli eventi", v)
	}
	v.More = errors.Is(err, errPageDone)
	if err != nil && !v.More {
		return err
	}
	return c.render(rq, http.StatusOK, "eventi.html", "Giornale degli eventi", v)
}
