package httpapi

import (
	"net/http"
	"testing"

	"github.com/labstack/echo/v5"
)

// TestMethodNotAllowed: a method no route takes on an existing path is 405
// with Allow and the FaultBean (issue 13 §4); a path no route has is 404.
func TestMethodNotAllowed(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	cases := []struct {
		name   string
		method string
		path   string
		opt    reqOpt
		want   int
		allow  string
	}{
		{"delete_entity", "DELETE", bo + "/domini/" + d1, asAdmin(), http.StatusMethodNotAllowed, "GET, PUT"},
		{"post_entity", "POST", bo + "/domini/" + d1, asAdmin(), http.StatusMethodNotAllowed, "GET, PUT"},
		{"put_profile", "PUT", bo + "/profilo", asAdmin(), http.StatusMethodNotAllowed, "GET, PATCH"},
		{"delete_entity_list", "DELETE", bo + "/domini", asAdmin(), http.StatusMethodNotAllowed, "GET"},
		{"allowed_method_still_answers", "GET", bo + "/domini/" + d1, asAdmin(), http.StatusOK, ""},
		{"unknown_path", "DELETE", bo + "/nothing/here", asAdmin(), http.StatusNotFound, ""},
		{"unknown_path_get", "GET", bo + "/nothing", asAdmin(), http.StatusNotFound, ""},
		// The mount's authentication runs first, as for every request
		// under it: no credentials learn nothing of the routes.
		{"no_credentials", "DELETE", bo + "/domini/" + d1, nil, http.StatusUnauthorized, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var opts []reqOpt
			if c.opt != nil {
				opts = append(opts, c.opt)
			}
			res := h.do(t, c.method, c.path, nil, opts...)
			codice := codiceOf(c.want)
			if c.want == http.StatusMethodNotAllowed {
				codice = "405000"
			}
			res.expect(t, c.want, codice)
			if got := res.Header.Get("Allow"); got != c.allow {
				t.Fatalf("Allow = %q, want %q", got, c.allow)
			}
		})
	}
}

func TestRoutePatternMatches(t *testing.T) {
	t.Parallel()
	table := newAllowTable(echo.Routes{
		{Method: "GET", Path: "/a/rs/basic/v1/domini/:id"},
		{Method: "PUT", Path: "/a/rs/basic/v1/domini/:id"},
		{Method: "GET", Path: "/a/rs/basic/v1/domini"},
		{Method: "POST", Path: "/a/rs/basic/v1/files/*"},
		{Method: echo.RouteNotFound, Path: "/a/rs/basic/v1/*"},
		{Method: echo.RouteAny, Path: "/a/rs/:auth/v1/*"},
	})
	cases := []struct {
		name, path, want string
	}{
		{"param_segment", "/a/rs/basic/v1/domini/X", "GET,PUT"},
		{"static_route", "/a/rs/basic/v1/domini", "GET"},
		{"empty_param_is_no_match", "/a/rs/basic/v1/domini/", ""},
		{"extra_segment_is_no_match", "/a/rs/basic/v1/domini/X/Y", ""},
		{"trailing_wildcard", "/a/rs/basic/v1/files/x/y", "POST"},
		{"catch_alls_are_not_routes", "/a/rs/basic/v1/other", ""},
		{"other_mount", "/a/rs/ssl/v1/domini/X", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			for i, m := range table.allowed(c.path) {
				if i > 0 {
					got += ","
				}
				got += m
			}
			if got != c.want {
				t.Fatalf("allowed(%q) = %q, want %q", c.path, got, c.want)
			}
		})
	}
}
