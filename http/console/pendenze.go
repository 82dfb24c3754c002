package console

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// The Pendenze page: the pendenze of one creditor entity at a time (the
// entity picker lists those in the operator's scope), newest first, 25 a
// page, each checked with the Backoffice's scope decision. Reading one
// entity's index keeps a page's cost independent of the other entities'
// pendenze. A notice number finds one pendenza directly.

const perPage = 25

// maxPagina bounds the page a list may be asked for: the pendenze list
// walks its entity's index up to the page, so what a request costs stays
// bounded (2.5 million rows in at the most).
const maxPagina = 100_000

// paginaOf is the page a list's ?pagina= (s) asks for: 1 unless a number
// from 1 to maxPagina, the same on every list of the console.
func paginaOf(s string) int {
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= maxPagina {
		return n
	}
	return 1
}

type pendenzeFilter struct {
	Dominio string
	Avviso  string
	Pagina  int
}

type pendenzePage struct {
	Items []projections.Pendenza
	More  bool
}

type pendenzeView struct {
	Filter   pendenzeFilter
	Entities []option
	Items    []projections.Pendenza
	Prev     int
	Next     int
	Error    string
}

func (c *Console) pendenze() pendenzeOps { return c.ops }

// PagePendenze: GET /pendenze?idDominio= (Pendenze R; every row in the
// scope of a role giving it), read from the entity's index.
func (b backoffice) PagePendenze(p domain.Principal, f pendenzeFilter) (pendenzePage, error) {
	scope, err := operations.PendenzeList(p, nil)
	if err != nil {
		return pendenzePage{}, err
	}
	keep := scope.AdmitsPendenza
	if f.Avviso != "" {
		pd, ok := b.model.PendenzaByNotice(f.Dominio, f.Avviso)
		if !ok || !keep(pd.View()) {
			return pendenzePage{}, nil
		}
		return pendenzePage{Items: []projections.Pendenza{pd}}, nil
	}
	items, more := b.model.PendenzeOfDominio(f.Dominio, (f.Pagina-1)*perPage, perPage, keep)
	return pendenzePage{Items: items, More: more}, nil
}

func (c *Console) listPendenze(rq *request) error {
	q := rq.r.URL.Query()
	f := pendenzeFilter{Dominio: q.Get("idDominio"), Avviso: q.Get("numeroAvviso"), Pagina: paginaOf(q.Get("pagina"))}
	v := pendenzeView{}
	scope, err := operations.PendenzeList(rq.p, nil)
	if err != nil {
		return err
	}
	v.Entities = c.entityOptions(nil, scope.Reaches)
	if f.Dominio == "" && len(v.Entities) > 0 {
		f.Dominio = v.Entities[0].Value
	}
	v.Filter = f
	if f.Dominio != "" { // as the API's idDominio filter
		if err := commands.CheckDominio("idDominio", f.Dominio); err != nil {
			return err
		}
	}
	if f.Dominio != "" { // an entity outside the scope lists nothing, as GET /pendenze?idDominio=
		page, err := c.pendenze().PagePendenze(rq.p, f)
		if err != nil {
			return err
		}
		v.Items = page.Items
		if f.Pagina > 1 {
			v.Prev = f.Pagina - 1
		}
		if page.More {
			v.Next = f.Pagina + 1
		}
	}
	return c.render(rq, http.StatusOK, "pendenze.html", "Pendenze", v)
}

// The pendenza's page cancels or reopens it: the form of the Backoffice's
// PATCH /pendenze/{idA2A}/{idPendenza}, offered when that PATCH's operation
// allows the caller the pendenza as shown (Pendenze W on its entity ×
// type); the save issues the same command, which decides it again.

// patchBackoffice is the Backoffice's PATCH of a pendenza.
var patchBackoffice = func() operations.PatchPendenzaOn {
	op, ok := operations.PatchPendenza(domain.APIBackoffice)
	if !ok {
		panic("console: the Backoffice API has no PATCH of pendenze")
	}
	return op
}()

// pendenzaForm is a pendenza's page: its data and the form that sets its
// state.
type pendenzaForm struct {
	projections.Pendenza
	// Immutable is why its state cannot change (the patch's 422: it is
	// paid), for a caller the patch would otherwise allow.
	Immutable string
	// Descrizione is the descrizioneStato typed in the form.
	Descrizione string
	formState
}

// mayWrite: PATCH /pendenze/{idA2A}/{idPendenza} on the Backoffice, the
// API's operation on the stored pendenza.
func (f *pendenzaForm) mayWrite(p domain.Principal, m *projections.ReadModel) error {
	_, err := patchBackoffice.Authorize(m, p, f.IDA2A, f.IDPendenza, nil)
	return err
}

// Target is the state the form sets: a cancelled pendenza is reopened,
// an open one cancelled.
func (f *pendenzaForm) Target() string {
	if f.Stato == projections.StatoAnnullata {
		return projections.StatoNonEseguita
	}
	return projections.StatoAnnullata
}

// Action is the path of the pendenza's page, where its form posts.
func (f *pendenzaForm) Action() string { return pendenzaPath(f.IDA2A, f.IDPendenza) }

func pendenzaPath(idA2A, idPendenza string) string {
	return "/console/pendenze/" + url.PathEscape(idA2A) + "/" + url.PathEscape(idPendenza)
}

// title is the page's title.
func (f *pendenzaForm) title() string { return "Pendenza " + f.IDPendenza }

func (c *Console) openPendenza(rq *request, idA2A, idPendenza string) opener {
	return func() (writeForm, error) {
		pd, err := c.pendenze().GetPendenza(rq.p, idA2A, idPendenza)
		if err != nil {
			return nil, err
		}
		f := &pendenzaForm{Pendenza: pd}
		if err, ok := errors.AsType[*operations.UnprocessableError](f.mayWrite(rq.p, c.deps.Model)); ok {
			f.Immutable, _ = messaggio(err)
		}
		return f, nil
	}
}

func (c *Console) getPendenza(rq *request) error {
	return c.showForm(rq, "pendenza.html", c.openPendenza(rq, rq.r.PathValue("idA2A"), rq.r.PathValue("idPendenza")))
}

// patchPendenza saves the form of a pendenza's page: the gate of the API's
// patch first (the API decides it before it reads the body), then the
// command, written only over the state the form was opened on. Bad input
// and the 422 of a paid pendenza come back to its page as it is now.
func (c *Console) patchPendenza(rq *request) error {
	idA2A, idPendenza := rq.r.PathValue("idA2A"), rq.r.PathValue("idPendenza")
	if err := patchBackoffice.Gate(rq.p, idA2A, nil); err != nil {
		return err
	}
	pf := rq.r.PostForm
	in := commands.PatchPendenza{API: domain.APIBackoffice, IDA2A: idA2A, IDPendenza: idPendenza,
		Stato: pf.Get("stato"), DescrizioneStato: pf.Get("descrizioneStato"), Base: postedBase(rq.r)}
	res, err := c.save(rq, in.Base, false, "", nil, func() (commands.Result, error) {
		return c.pendenze().PatchPendenza(rq.r.Context(), rq.actor(), in)
	})
	o := c.openPendenza(rq, idA2A, idPendenza)
	var f writeForm
	if _, stale := errors.AsType[*commands.StaleError](err); err != nil && !stale {
		var oerr error
		if f, oerr = c.open(o); oerr != nil {
			return err
		}
		f.(*pendenzaForm).Descrizione = in.DescrizioneStato
	}
	return c.saved(rq, res, err, pendenzaPath(idA2A, idPendenza), "pendenza.html", f, o)
}
