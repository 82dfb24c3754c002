package httpapi

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v5"
)

// Query parameters are read here, once for every operation of every API:
// the lists' filters (queryFilters, entityScope), pagination, the event
// log's, the audit questions', the log proofs', the public protection's
// UUID and captcha token; and the request headers of one value
// (headerValue). Each operation reads them where it always did:
// after its gate, but for those the gate itself reads (the protection's).

// queryValues are the values of the query parameter param in c's query,
// the empty ones left out (an empty value is no value: no filter, the
// default). A parameter of one value (not many) given more than once is
// 400, even twice the same: reading one of its values would silently
// ignore the others, and any other reading (each narrowing, any of them
// kept, each tried in turn) would be a guess. Only GovPay's arrays are
// many.
func queryValues(c *echo.Context, param string, many bool) ([]string, error) {
	q, err := queryParams(c)
	if err != nil {
		return nil, err
	}
	values := slices.DeleteFunc(slices.Clone(q[param]), func(v string) bool { return v == "" })
	if len(values) > 1 && !many {
		return nil, givenTwice(param)
	}
	return values, nil
}

// queryValue is the value of the query parameter param of one value, ""
// when it is not given (or empty); given more than once it is 400
// (queryValues).
func queryValue(c *echo.Context, param string) (string, error) {
	q, err := queryParams(c)
	if err != nil {
		return "", err
	}
	return oneValueOf(q[param], param)
}

// errMalformedQuery is the 400 of a query string a pair of which Go's
// parser leaves out (queryParams).
var errMalformedQuery = syntaxError("the query string is malformed: a pair holds a ';' or a bad %-escape, or there are more than 10000")

// queryParams is c's query (parsed once, by Echo), or errMalformedQuery
// when the parser left a pair of it out: one holding a ';' (no longer a
// separator in Go), one with a bad %-escape, or every pair past the
// parser's bound on their number (10,000). Reading the query without that
// pair would silently drop a filter, or the second value of a parameter
// that takes one. The raw query is looked at once a request (an operation
// reads many parameters); the verdict is kept in c.
func queryParams(c *echo.Context) (url.Values, error) {
	q := c.QueryParams()
	whole, checked := c.Get(queryWholeKey).(bool)
	if !checked {
		whole = holdsEveryPair(q, c.Request().URL.RawQuery)
		c.Set(queryWholeKey, whole)
	}
	if !whole {
		return nil, errMalformedQuery
	}
	return q, nil
}

// queryWholeKey holds queryParams' verdict on the request's raw query.
const queryWholeKey = "payauthz.queryWhole"

// holdsEveryPair reports whether q, parsed from raw, holds a value for
// each of raw's non-empty pairs. It allocates nothing.
func holdsEveryPair(q url.Values, raw string) bool {
	parsed := 0
	for _, vs := range q {
		parsed += len(vs)
	}
	pairs := 0
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair != "" {
			pairs++
		}
	}
	return pairs == parsed
}

// headerValue is the value of the request header name of one value, ""
// when it is not given (or empty); given more than once it is 400, as a
// query parameter is (queryValues): the consistency token, the captcha
// token. Credentials are not read here: two of them authenticate no one
// (oneValue).
func headerValue(h http.Header, name string) (string, error) {
	return oneValueOf(h.Values(name), name)
}

// oneValueOf is the one non-empty value among values, those given for
// name, "" when there is none; two are 400 (givenTwice).
func oneValueOf(values []string, name string) (string, error) {
	one := ""
	for _, v := range values {
		if v == "" {
			continue
		}
		if one != "" {
			return "", givenTwice(name)
		}
		one = v
	}
	return one, nil
}

// queryReader reads several query parameters of one value (queryValue),
// err the first given more than once, so that an operation reads them all
// and then answers that one.
type queryReader struct {
	c   *echo.Context
	err error
}

// value is the value of param (queryValue), "" when it is given more than
// once (err then tells).
func (q *queryReader) value(param string) string {
	v, err := queryValue(q.c, param)
	q.err = cmp.Or(q.err, err)
	return v
}

// givenTwice is the 400 of a query parameter of one value given more than
// once (queryValues).
func givenTwice(param string) error {
	return syntaxError(param + " is given more than once: it takes one value")
}
