package httpapi

import (
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/labstack/echo/v5"
)

// openAPI serves an OpenAPI 3 document generated from the routes actually
// registered, so it cannot drift from what the server implements. Every
// API operation documents the contract's FaultBean errors.
func (s *Server) openAPI(c *echo.Context) error {
	s.openAPIOnce.Do(func() { s.openAPIDoc = buildOpenAPI(s.echo) })
	return c.JSON(http.StatusOK, s.openAPIDoc)
}

type openAPIState struct {
	openAPIOnce sync.Once
	openAPIDoc  map[string]any
}

func buildOpenAPI(e *echo.Echo) map[string]any {
	paths := map[string]map[string]any{}
	routes := e.Router().Routes()
	sort.Slice(routes, func(i, j int) bool {
		if routes[i].Path != routes[j].Path {
			return routes[i].Path < routes[j].Path
		}
		return routes[i].Method < routes[j].Method
	})
	for _, r := range routes {
		if r.Method == "" || strings.HasPrefix(r.Method, "echo_") {
			continue
		}
		path, params := openAPIPath(r.Path)
		op := map[string]any{
			"operationId": strings.ToLower(r.Method) + strings.NewReplacer("/", "_", "{", "", "}", "").Replace(path),
			"responses":   openAPIResponses(r.Method, path),
		}
		if len(params) > 0 {
			var ps []map[string]any
			for _, p := range params {
				ps = append(ps, map[string]any{"name": p, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
			}
			op["parameters"] = ps
		}
		if sec := openAPISecurity(path); sec != nil {
			op["security"] = sec
		}
		if r.Method == http.MethodPut || r.Method == http.MethodPost {
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
				"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}}
		}
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(r.Method)] = op
	}
	return map[string]any{
		"openapi": "3.0.3",
		"info": map[string]any{"title": "payauthz", "version": "1.0.0",
			"description": "Authorization layer of a GovPay-style payment service. Wire contract: API.md."},
		"paths": paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"basic":  map[string]any{"type": "http", "scheme": "basic"},
				"ssl":    map[string]any{"type": "mutualTLS"},
				"spid":   map[string]any{"type": "apiKey", "in": "header", "name": spidHeader},
				"public": map[string]any{"type": "apiKey", "in": "cookie", "name": SessionCookie},
				"apikey": map[string]any{"type": "apiKey", "in": "header", "name": apiKeyHeader,
					"description": "GovPay's API key, with the header " + appIDHeader + " naming the application or operator"},
			},
			"schemas": map[string]any{
				"FaultBean": map[string]any{"type": "object", "required": []string{"categoria", "codice", "descrizione"},
					"properties": map[string]any{
						"categoria": map[string]any{"type": "string"}, "codice": map[string]any{"type": "string"},
						"descrizione": map[string]any{"type": "string"}, "dettaglio": map[string]any{"type": "string"}}},
			},
		},
	}
}

// openAPIPath turns Echo's :param segments into {param}.
func openAPIPath(p string) (string, []string) {
	segs := strings.Split(p, "/")
	var params []string
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			params = append(params, s[1:])
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/"), params
}

func openAPISecurity(path string) []map[string]any {
	parts := strings.Split(path, "/")
	if len(parts) < 4 || parts[2] != "rs" {
		return nil
	}
	return []map[string]any{{parts[3]: []string{}}}
}

func openAPIResponses(method, path string) map[string]any {
	fault := map[string]any{"content": map[string]any{"application/json": map[string]any{
		"schema": map[string]any{"$ref": "#/components/schemas/FaultBean"}}}}
	withDesc := func(d string) map[string]any {
		out := map[string]any{"description": d}
		for k, v := range fault {
			out[k] = v
		}
		return out
	}
	res := map[string]any{"200": map[string]any{"description": "OK"}}
	if !strings.Contains(path, "/rs/") {
		return res
	}
	if method == http.MethodPut || method == http.MethodPost {
		res["201"] = map[string]any{"description": "Created"}
		res["409"] = withDesc("Conflict")
		res["422"] = withDesc("Unprocessable")
	}
	res["400"] = withDesc("Bad request (SINTASSI)")
	res["401"] = withDesc("Not authenticated (401000)")
	res["403"] = withDesc("Auth type not accepted (403) or not allowed (403000)")
	res["404"] = withDesc("Not found (404000)")
	res["503"] = withDesc("Store unavailable or consistency token not reached (503000)")
	return res
}
