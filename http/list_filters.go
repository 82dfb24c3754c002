package httpapi

import (
	"slices"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
)

// queryFilters are GovPay's filters of a list over its records T, each
// an optional query parameter narrowing what the list's gate and scope
// already admit (never widening it); a bad value is 400 SINTASSI. The
// handlers and the OpenAPI document both read them from here: the
// Backoffice registry lists' (abilitatoFilter, textFilter), the Ragioneria
// lists' (ragioneria_filters.go), the Backoffice's lists of money records
// (backoffice_filters.go), the lists of pendenze of every API
// (pendenzeFilters) and the Pagamento API's list of payments
// (shownPagamentiFilters).
type queryFilters[T any] []queryFilter[T]

// queryFilter is one query parameter of a list over its records T.
type queryFilter[T any] struct {
	param  string
	schema paramSchema // for the document
	// keep reads the parameter's values (never none, and one unless
	// many): the records it keeps, or the 400 of a bad value.
	keep func(values []string) (func(T) bool, error)
	// many is GovPay's array of values (repeatable): the parameter may be
	// given more than once.
	many bool
}

// abilitatoValues are the values abilitato takes, as the document states
// them (paramSchemas).
var abilitatoValues = []string{"true", "false"}

// abilitatoFilter is GovPay's abilitato, true or false: it keeps the
// enabled or the disabled records.
func abilitatoFilter[T any](enabled func(T) bool) queryFilter[T] {
	return queryFilter[T]{param: "abilitato", schema: paramSchemas["abilitato"],
		keep: func(values []string) (func(T) bool, error) {
			if !slices.Contains(abilitatoValues, values[0]) {
				return nil, notOneOf("abilitato", abilitatoValues)
			}
			want := values[0] == "true"
			return func(x T) bool { return enabled(x) == want }, nil
		}}
}

// textFilter is GovPay's filter "anche parziale", a case-insensitive like
// anywhere: it keeps the records one of whose fields holds its value,
// ignoring case (about says what the fields are, for the document). Its
// value is any string: one that names a path parameter elsewhere
// (idDominio) is no such format here.
func textFilter[T any](param, about string, fields func(T) []string) queryFilter[T] {
	return queryFilter[T]{param: param, schema: paramSchema{description: "a part of " + about + ", compared without case (GovPay's filter)"},
		keep: func(values []string) (func(T) bool, error) {
			part := strings.ToLower(values[0])
			return func(x T) bool {
				return slices.ContainsFunc(fields(x), func(s string) bool { return strings.Contains(strings.ToLower(s), part) })
			}, nil
		}}
}

// fiscalCodeFilter is GovPay's filter of a fiscal code (described by
// about, for the document), compared as payers' are, without case
// (domain.NormalFiscalCode): it keeps the records one of whose codes (in
// that form) is the value's. Any value is read: one that is no fiscal code
// matches nothing, as in GovPay, and one of blanks alone is no filter.
func fiscalCodeFilter[T any](param, about string, codes func(T) []string) queryFilter[T] {
	return queryFilter[T]{param: param, schema: paramSchema{description: about},
		keep: func(values []string) (func(T) bool, error) {
			code := domain.NormalFiscalCode(values[0])
			if code == "" {
				return func(T) bool { return true }, nil
			}
			return func(x T) bool { return slices.Contains(codes(x), code) }, nil
		}}
}

// documented is f as the document states it: ps (its keep unchanged).
func (f queryFilter[T]) documented(ps paramSchema) queryFilter[T] {
	f.schema = ps
	return f
}

// query are the list's query parameters, for the document: first, those
// the list reads before its filters (idDominio of a list by entity).
func (fs queryFilters[T]) query(first ...string) []string {
	q := slices.Clone(first)
	for _, f := range fs {
		q = append(q, f.param)
	}
	return q
}

// params are the filters' formats, for the document.
func (fs queryFilters[T]) params() map[string]paramSchema {
	ps := map[string]paramSchema{}
	for _, f := range fs {
		ps[f.param] = f.schema
	}
	return ps
}

// narrow keeps the items every filter the request gives keeps; every
// value is checked, whatever the items. An empty value is no filter; a
// filter of one value given more than once is 400 (queryValues).
func (fs queryFilters[T]) narrow(c *echo.Context, items []T) ([]T, error) {
	var keep []func(T) bool
	for _, f := range fs {
		values, err := queryValues(c, f.param, f.many)
		if err != nil {
			return nil, err
		}
		if len(values) == 0 {
			continue
		}
		k, err := f.keep(values)
		if err != nil {
			return nil, err
		}
		keep = append(keep, k)
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

// The 400s of the filters' bad values: each kind of filter words its own
// here, once for every list of every API, naming the parameter (one given
// more than once is every query parameter's: givenTwice).

// notMatching is the 400 of an id filter's value (idFilter, and the lists'
// idDominio: checkFilterID): pattern is the one the document gives.
func notMatching(param, pattern string) error { return syntaxError(param + " must match " + pattern) }

// notOneOf is the 400 of a filter of a list of values (enumFilter,
// abilitatoFilter, the Pagamento API's stato of payments).
func notOneOf(param string, values []string) error {
	return syntaxError(param + " must be one of " + strings.Join(values, ", "))
}

// notABound is the 400 of a window's bound (windowFilters).
func notABound(param string) error {
	return syntaxError(param + " must be a date-time (RFC 3339; without a zone, Europe/Rome) or a date")
}

// checkFilterID checks the value v of the id filter param: one valid
// accepts, else notMatching pattern.
func checkFilterID(param, pattern string, valid func(string) bool, v string) error {
	if !valid(v) {
		return notMatching(param, pattern)
	}
	return nil
}

// keepingAll is f with its values still checked, keeping every record.
func (f queryFilter[T]) keepingAll() queryFilter[T] {
	check := f.keep
	f.keep = func(values []string) (func(T) bool, error) {
		if _, err := check(values); err != nil {
			return nil, err
		}
		return func(T) bool { return true }, nil
	}
	return f
}

// repeatable is f read once for each value of its parameter (GovPay's
// array of values, the parameter given again): each value is checked and
// a record one of them keeps is kept.
func (f queryFilter[T]) repeatable() queryFilter[T] {
	one := f.keep
	f.keep = func(values []string) (func(T) bool, error) {
		keeps := make([]func(T) bool, len(values))
		for i, v := range values {
			k, err := one([]string{v})
			if err != nil {
				return nil, err
			}
			keeps[i] = k
		}
		return func(x T) bool { return slices.ContainsFunc(keeps, func(k func(T) bool) bool { return k(x) }) }, nil
	}
	f.schema.description += ", the parameter given once for each value (any kept)"
	f.many = true
	return f
}
