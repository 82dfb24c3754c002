package console

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// The Audit page: explain a decision, now or at a point of the log's
// history (a position or a date), with the Backoffice API's own function
// (POST /autorizzazioni/verifica): the same right (Giornale degli Eventi
// R), the same scope checks, the same answer.

// ExplainQuery is one explain question, as POST /autorizzazioni/verifica
// takes it.
type ExplainQuery struct {
	Principal, Auth, API, Operazione string
	Posizione                        *uint64
	Data                             string // RFC 3339
	Resource                         audit.Resource
}

// AuditFunc answers an explain question for the auditor p. Bad input is a
// *projections.PointError (a point of history the log does not hold), an
// audit.ErrBadQuery or audit.ErrUnknownOperation (a question the catalogue
// cannot decide), else a *commands.InvalidError; a denial is a
// *domain.ForbiddenError.
type AuditFunc func(ctx context.Context, p domain.Principal, q ExplainQuery) (*audit.Explanation, error)

// WhoCanFunc lists who may do the operation of q (its Principal and Auth
// are not used) for the auditor p.
type WhoCanFunc func(ctx context.Context, p domain.Principal, q ExplainQuery) (*audit.WhoCanResult, error)

type auditForm struct {
	Domanda                                           string // spiega or chi
	WhoCan                                            *audit.WhoCanResult
	Principal, Auth, API, Operazione, Posizione, Data string
	Resource                                          []audit.Field // every field, as the API names it
	APIs                                              []string
	Operations                                        map[string][]string
	Choices                                           []string // every API's operations, the input's suggestions
	Answer                                            *audit.Explanation
	Errors                                            fieldErrors
}

func (c *Console) auditPage(rq *request) error {
	if c.deps.Audit == nil {
		return domain.ErrNotFound
	}
	if err := operations.Audit(rq.p, nil); err != nil {
		return err
	}
	f := auditForm{Domanda: "spiega", Auth: "basic", API: "PAGAMENTO", APIs: audit.APINames(),
		Operations: map[string][]string{}}
	f.Resource = audit.Resource{}.Fields()
	for _, name := range f.APIs {
		api, _ := domain.ParseAPI(name)
		f.Operations[name] = audit.Names(api)
		f.Choices = append(f.Choices, f.Operations[name]...)
	}
	slices.Sort(f.Choices)
	f.Choices = slices.Compact(f.Choices)
	if rq.r.Method != http.MethodPost {
		// From the event log: "who could, just before or after event N".
		if pos, err := strconv.ParseUint(rq.r.URL.Query().Get("posizione"), 10, 64); err == nil && pos > 0 {
			f.Posizione = strconv.FormatUint(pos, 10)
		}
		return c.render(rq, http.StatusOK, "audit.html", "Audit", f)
	}
	pf := rq.r.PostForm
	if pf.Get("domanda") == "chi" && c.deps.WhoCan != nil {
		f.Domanda = "chi"
	}
	f.Principal, f.Auth, f.API, f.Operazione = pf.Get("principal"), pf.Get("auth"), pf.Get("api"), pf.Get("operazione")
	f.Posizione, f.Data = pf.Get("posizione"), pf.Get("data")
	f.Errors = fieldErrors{}
	q := ExplainQuery{Principal: f.Principal, Auth: f.Auth, API: f.API, Operazione: f.Operazione}
	q.Resource = audit.ResourceFrom(pf.Get)
	f.Resource = q.Resource.Fields()
	if names, ok := f.Operations[f.API]; ok {
		// The catalogue's own lookup, beside the input: a typo is not a
		// question about the whole form.
		api, _ := domain.ParseAPI(f.API)
		if _, err := audit.Lookup(api, f.Operazione); err != nil {
			f.Errors["operazione"] = "Scegli un'operazione dell'API " + f.API + ": " + strings.Join(names, ", ") + "."
		}
	}
	if f.Posizione != "" {
		n, err := strconv.ParseUint(f.Posizione, 10, 64)
		if err == nil {
			_, err = projections.Until{}.AtPosition(n)
		}
		if err != nil {
			f.Errors["posizione"] = "La posizione è un numero intero da 1."
		}
		q.Posizione = &n
	}
	if f.Data != "" {
		// The browser's datetime-local has no zone: it is Rome's clock.
		t, err := oraDelModulo(f.Data)
		if err != nil {
			f.Errors["data"] = "La data è nel formato AAAA-MM-GGThh:mm (ora italiana)."
		}
		q.Data = t.UTC().Format(time.RFC3339Nano)
	}
	if len(f.Errors) > 0 {
		return c.render(rq, http.StatusBadRequest, "audit.html", "Audit", f)
	}
	var x *audit.Explanation
	var err error
	if f.Domanda == "chi" {
		f.WhoCan, err = c.deps.WhoCan(rq.r.Context(), rq.p, q)
	} else {
		x, err = c.deps.Audit(rq.r.Context(), rq.p, q)
	}
	if err != nil {
		fe, status, ok := formError(err)
		if !ok {
			return err
		}
		f.Errors = fe
		c.setRetryAfter(rq.w, err, status)
		return c.render(rq, status, "audit.html", "Audit", f)
	}
	f.Answer = x
	return c.render(rq, http.StatusOK, "audit.html", "Audit", f)
}
