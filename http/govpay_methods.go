package httpapi

import (
	"slices"
	"strings"

	"github.com/labstack/echo/v5"
)

// allowTable knows, for a path no route of the request's method matches,
// the methods that some route does accept on it: such a request answers
// 405 with Allow and the FaultBean (as GovPay does), one on no route at
// all 404. It is built once after every route is registered and only read
// afterwards; lookups walk the route list, so only requests that miss pay
// for them.
type allowTable struct {
	routes []routePattern
	// longest is the most segments of a route: a lookup splits the path
	// into at most one more, so a path of many segments (an anonymous
	// caller's, on the public mount) costs what reading it costs.
	longest int
}

type routePattern struct {
	method   string
	segments []string // ":name" matches one segment, a final "*" the rest
}

// newAllowTable keeps the routes of real methods (not Echo's any-method
// catch-alls).
func newAllowTable(routes echo.Routes) *allowTable {
	t := &allowTable{}
	for _, r := range routes {
		if r.Method == echo.RouteAny || r.Method == echo.RouteNotFound {
			continue
		}
		segs := strings.Split(r.Path, "/")
		t.routes = append(t.routes, routePattern{method: r.Method, segments: segs})
		t.longest = max(t.longest, len(segs))
	}
	return t
}

// allowed lists, sorted, the methods accepted on path (nil for none).
func (t *allowTable) allowed(path string) []string {
	// Split once, into at most longest+1 segments: a path with more has
	// its rest in the last one, which no route of fixed length matches and
	// a final "*" never reads.
	segs := strings.SplitN(path, "/", t.longest+1)
	var out []string
	for _, r := range t.routes {
		if r.matches(segs) && !slices.Contains(out, r.method) {
			out = append(out, r.method)
		}
	}
	slices.Sort(out)
	return out
}

// matches reports whether the path split into segs is r's.
func (r routePattern) matches(segs []string) bool {
	for i, seg := range r.segments {
		switch {
		case seg == "*" && i == len(r.segments)-1:
			return true
		case i >= len(segs):
			return false
		case strings.HasPrefix(seg, ":"):
			if segs[i] == "" {
				return false
			}
		case seg != segs[i]:
			return false
		}
	}
	return len(segs) == len(r.segments)
}

// missed answers a request no route took: 405 with Allow when the path
// is a route's under another method, else 404.
func (t *allowTable) missed(c *echo.Context) error {
	if t == nil {
		return echo.ErrNotFound
	}
	methods := t.allowed(routedPath(c.Request().URL))
	if len(methods) == 0 {
		return echo.ErrNotFound
	}
	c.Response().Header().Set(echo.HeaderAllow, strings.Join(methods, ", "))
	return echo.ErrMethodNotAllowed
}
