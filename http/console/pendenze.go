package console

import (
	"net/http"
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

func (c *Console) getPendenza(rq *request) error {
	pd, err := c.pendenze().GetPendenza(rq.p, rq.r.PathValue("idA2A"), rq.r.PathValue("idPendenza"))
	if err != nil {
		return err
	}
	return c.render(rq, http.StatusOK, "pendenza.html", "Pendenza "+pd.IDPendenza, pd)
}
