package httpapi

import (
	"strconv"

	"github.com/labstack/echo/v5"
)

// Page is GovPay's paginated list.
type Page[T any] struct {
	NumRisultati       int    `json:"numRisultati"`
	NumPagine          int    `json:"numPagine"`
	RisultatiPerPagina int    `json:"risultatiPerPagina"`
	Pagina             int    `json:"pagina"`
	ProssimiRisultati  string `json:"prossimiRisultati,omitempty"`
	Risultati          []T    `json:"risultati"`
}

// maxRisultatiPerPagina is the largest page a list answers (API.md
// section 10); the OpenAPI document states it from here.
const maxRisultatiPerPagina = 200

// pageParams reads pagina (from 1) and risultatiPerPagina (default 25,
// from 0 to maxRisultatiPerPagina: 0 asks for the count alone, as GovPay's
// lists take it), each of one value (queryValue).
func pageParams(c *echo.Context) (pagina, per int, err error) {
	pagina, per = 1, 25
	v, err := queryValue(c, "pagina")
	if err != nil {
		return 0, 0, err
	}
	if v != "" {
		if pagina, err = strconv.Atoi(v); err != nil || pagina < 1 {
			return 0, 0, syntaxError("pagina must be a whole number from 1")
		}
	}
	if v, err = queryValue(c, "risultatiPerPagina"); err != nil {
		return 0, 0, err
	}
	if v != "" {
		if per, err = strconv.Atoi(v); err != nil || per < 0 || per > maxRisultatiPerPagina {
			return 0, 0, syntaxError("risultatiPerPagina must be a whole number from 0 to " + strconv.Itoa(maxRisultatiPerPagina))
		}
	}
	return pagina, per, nil
}

// paginate cuts all into the requested page, mapping each kept item. A
// list with no results has one page, empty, as GovPay counts them. A page
// of 0 results counts them and holds none: numPagine is then 0 (no page
// holds a result; GovPay leaves it out, which its Pendenze API's Lista
// requires) and there is no next page.
func paginate[S, T any](c *echo.Context, all []S, conv func(S) T) (Page[T], error) {
	pagina, per, err := pageParams(c)
	if err != nil {
		return Page[T]{}, err
	}
	n := len(all)
	pages := 0
	if per > 0 {
		pages = max((n+per-1)/per, 1)
	}
	p := Page[T]{NumRisultati: n, NumPagine: pages, RisultatiPerPagina: per, Pagina: pagina, Risultati: []T{}}
	if pagina <= pages { // (pagina-1)*per ≤ n: it cannot overflow
		from := (pagina - 1) * per
		to := min(from+per, n)
		for _, s := range all[from:to] {
			p.Risultati = append(p.Risultati, conv(s))
		}
	}
	if pagina < pages {
		q := c.Request().URL.Query()
		q.Set("pagina", strconv.Itoa(pagina+1))
		q.Set("risultatiPerPagina", strconv.Itoa(per))
		p.ProssimiRisultati = c.Request().URL.Path + "?" + q.Encode()
	}
	return p, nil
}
