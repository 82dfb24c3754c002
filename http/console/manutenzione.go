package console

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
)

// The Manutenzione page: where GovPay has "reset cache". Nothing needs a
// reset here: every change applies as soon as this replica's read models
// have applied it from the log. The page shows how far this replica is.

type manutenzioneView struct {
	Applied       uint64
	Last          uint64
	LastErr       string
	LastEventTime string
	Behind        uint64
	Principal     string
	PrincipalPos  uint64
	PrincipalErr  string
}

func (c *Console) manutenzione(rq *request) error {
	if err := operations.ReadConfigurazione(rq.p, nil); err != nil {
		return err
	}
	m := c.deps.Model
	v := manutenzioneView{Applied: uint64(m.AppliedPosition())}
	if t := m.LastEventTime(); !t.IsZero() {
		v.LastEventTime = istante(t)
	}
	ctx, cancel := context.WithTimeout(rq.r.Context(), 2*time.Second)
	defer cancel()
	if last, err := c.deps.Store.LastPosition(ctx); err != nil {
		v.LastErr = "Il giornale degli eventi non è raggiungibile."
	} else {
		v.Last = uint64(last)
		if v.Last > v.Applied {
			v.Behind = v.Last - v.Applied
		}
	}
	// For a chosen principal: the position of the event that built its
	// current record (its grants and roles as they stand), shown to who
	// may read that principal's registry.
	if name := rq.r.URL.Query().Get("principal"); name != "" && len(name) <= 512 {
		v.Principal = name
		rec, err := operations.ReadPrincipal(m, rq.p, name, nil)
		switch {
		case errors.Is(err, domain.ErrNotFound):
			v.PrincipalErr = "Nessuna applicazione o operatore con questo principal."
		case err != nil:
			v.PrincipalErr = "Non hai il diritto di leggere questa utenza."
		default:
			v.PrincipalPos = uint64(rec.Position)
		}
	}
	return c.render(rq, http.StatusOK, "manutenzione.html", "Manutenzione", v)
}
