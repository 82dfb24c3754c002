package httpapi

import (
	"slices"
	"strings"

	"github.com/labstack/echo/v5"
)

// listFilters are GovPay's filters of a Backoffice registry list over its
// records T, each optional and each narrowing what the list's gate already
// admits (never widening it): abilitato, true or false, keeps the enabled
// or the disabled records; a text filter keeps the records one of whose
// fields holds its value, ignoring case (GovPay's filters "anche
// parziale", a case-insensitive like anywhere). The handler and the
// OpenAPI document both read them from here.
type listFilters[T any] struct {
	enabled func(T) bool // nil: the list takes no abilitato
	text    []textFilter[T]
}

// textFilter is a text filter's query parameter, the fields of a record
// its value is looked for in, and what they are, for the document: the
// value is any string.
type textFilter[T any] struct {
	param  string
	fields func(T) []string
	about  string
}

// abilitatoValues are the values abilitato takes, as the document states
// them (paramSchemas).
var abilitatoValues = []string{"true", "false"}

// query are the filters' query parameters, for the document.
func (f listFilters[T]) query() []string {
	var q []string
	if f.enabled != nil {
		q = append(q, "abilitato")
	}
	for _, tf := range f.text {
		q = append(q, tf.param)
	}
	return q
}

// params are the formats of the text filters, any string, for the
// document (abilitato's is paramSchemas'): one that names a path parameter
// elsewhere (idDominio) is no such format here.
func (f listFilters[T]) params() map[string]paramSchema {
	ps := map[string]paramSchema{}
	for _, tf := range f.text {
		ps[tf.param] = paramSchema{description: "a part of " + tf.about + ", compared without case (GovPay's filter)"}
	}
	return ps
}

// narrow keeps the items the request's filters admit: a bad abilitato is
// 400.
func (f listFilters[T]) narrow(c *echo.Context, items []T) ([]T, error) {
	var keep []func(T) bool
	if v := c.QueryParam("abilitato"); f.enabled != nil && v != "" {
		if !slices.Contains(abilitatoValues, v) {
			return nil, syntaxError("abilitato must be true or false")
		}
		want := v == "true"
		keep = append(keep, func(x T) bool { return f.enabled(x) == want })
	}
	for _, tf := range f.text {
		v := c.QueryParam(tf.param)
		if v == "" {
			continue
		}
		part := strings.ToLower(v)
		keep = append(keep, func(x T) bool {
			for _, s := range tf.fields(x) {
				if strings.Contains(strings.ToLower(s), part) {
					return true
				}
			}
			return false
		})
	}
	if len(keep) == 0 {
		return items, nil
	}
	return admitted(items, func(x T) bool {
		for _, k := range keep {
			if !k(x) {
				return false
			}
		}
		return true
	}), nil
}
