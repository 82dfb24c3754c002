package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/labstack/echo/v5"
	"github.com/swaggest/jsonschema-go"
	"github.com/swaggest/openapi-go"
	"github.com/swaggest/openapi-go/openapi31"

	"github.com/payauthz/payauthz/domain"
)

// openAPI serves the OpenAPI 3.1 document built from the routes actually
// registered (buildOpenAPI), so it cannot drift from what the server
// implements.
func (s *Server) openAPI(c *echo.Context) error {
	s.openAPIOnce.Do(func() { s.openAPIDoc, s.openAPIErr = buildOpenAPI(s.echo) })
	if s.openAPIErr != nil {
		return s.openAPIErr
	}
	return c.JSONBlob(http.StatusOK, s.openAPIDoc)
}

type openAPIState struct {
	openAPIOnce sync.Once
	openAPIDoc  []byte
	openAPIErr  error
}

// errorStatuses are the statuses every API operation may answer with a
// FaultBean (API.md section 1 and 10, and the README's limits: 431 for
// oversize headers); a method with a body adds 413, writes 409 and 422
// (not a read-only one), and mounts that verify passwords add 429
// (verification budget and failed-login throttles).
var errorStatuses = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
	http.StatusMethodNotAllowed, http.StatusRequestHeaderFieldsTooLarge, http.StatusInternalServerError,
	http.StatusServiceUnavailable}

var writeErrorStatuses = []int{http.StatusConflict, http.StatusUnprocessableEntity}

// mountRoute splits an Echo route path into its API, auth type and the
// route below the mount; ok is false for a path outside every mount.
func mountRoute(path string) (api domain.API, auth domain.AuthType, rel string, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 5) // api, rs, auth, vN, rest
	if len(parts) < 5 || parts[1] != "rs" {
		return api, auth, "", false
	}
	for _, a := range domain.APIs {
		if a.Segment() == parts[0] && a.Version() == parts[3] {
			api, ok = a, true
		}
	}
	auth, err := domain.ParseAuthType(parts[2])
	if !ok || err != nil {
		return api, auth, "", false
	}
	return api, auth, "/" + parts[4], true
}

// buildOpenAPI describes every route of e that serves requests: each API
// operation on the mounts whose auth type the API accepts (a mount that
// always answers 403 is left out), with its path and query parameters,
// request and response schemas reflected from the Go types the handlers
// use, a FaultBean per error status, the security scheme of its mount and
// a tag per API. An API route without an entry in operationDocs is an error.
func buildOpenAPI(e *echo.Echo) ([]byte, error) {
	r := openapi31.NewReflector()
	r.AddTypeMapping(Importo(0), float64(0))
	r.AddTypeMapping(json.RawMessage{}, new(any))
	r.AddTypeMapping(jsontext.Value{}, new(any)) // a patch operation's value: any JSON value, not a list of bytes
	r.DefaultOptions = append(r.DefaultOptions, jsonschema.InterceptProp(requiredUnlessOmitEmpty))
	spec := r.SpecEns()
	spec.SetTitle("payauthz")
	spec.SetVersion("1.0.0")
	spec.SetDescription("Authorization layer of a GovPay-style payment service (pagoPA). The wire contract is docs/API.md; " +
		"errors are GovPay FaultBeans. Each API is mounted at /{api}/rs/{auth}/v{N} for the auth types it accepts.")
	spec.SetHTTPBasicSecurity("basic", "HTTP basic: the username is the principal")
	spec.ComponentsEns().WithSecuritySchemesItem("ssl", openapi31.SecuritySchemeOrReference{
		SecurityScheme: (&openapi31.SecurityScheme{MutualTLS: &openapi31.MutualTLS{}}).
			WithDescription("TLS client certificate; its subject DN is the principal"),
	})
	spec.SetAPIKeySecurity("spid", spidHeader, openapi.InHeader, "fiscal code set by a trusted SPID proxy")
	spec.SetAPIKeySecurity("public", SessionCookie, openapi.InCookie, "anonymous; a payment sets this signed session cookie")
	spec.SetAPIKeySecurity("apikey", apiKeyHeader, openapi.InHeader,
		"GovPay's API key, with the header "+appIDHeader+" naming the application or operator")

	routes := e.Router().Routes()
	sort.Slice(routes, func(i, j int) bool {
		if routes[i].Path != routes[j].Path {
			return routes[i].Path < routes[j].Path
		}
		return routes[i].Method < routes[j].Method
	})
	var missing []string
	for _, rt := range routes {
		if rt.Method == "" || strings.HasPrefix(rt.Method, "echo_") || strings.Contains(rt.Path, "*") {
			continue
		}
		api, auth, rel, ok := mountRoute(rt.Path)
		if !ok {
			if err := addProbe(r, rt.Method, rt.Path); err != nil {
				return nil, err
			}
			continue
		}
		if domain.AcceptsAuth(api, auth) != nil {
			continue
		}
		doc, ok := operationDocs[opKey{api, rt.Method, rel}]
		if !ok {
			missing = append(missing, api.String()+" "+rt.Method+" "+rel)
			continue
		}
		path := rt.Path
		if doc.docPath != "" {
			path = strings.TrimSuffix(path, rel) + doc.docPath
		}
		if err := addOperation(r, api, auth, rt.Method, path, rt.Path, doc); err != nil {
			return nil, fmt.Errorf("openapi: %s %s: %w", rt.Method, rt.Path, err)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("openapi: routes without documentation: %s", strings.Join(missing, "; "))
	}
	return json.Marshal(r.Spec)
}

// addProbe documents the operations endpoints outside the mounts.
func addProbe(r *openapi31.Reflector, method, path string) error {
	oc, err := r.NewOperationContext(method, path)
	if err != nil {
		return err
	}
	oc.SetTags("operations")
	oc.SetID(operationID(method, path))
	switch path {
	case "/metrics":
		oc.SetSummary("Prometheus metrics")
		oc.AddRespStructure(nil, openapi.WithContentType("text/plain"), openapi.WithHTTPStatus(http.StatusOK))
	case PathVerifierKey:
		oc.SetSummary("The verifier key of the service's log checkpoints (signed-note form), for `payauthz audit check-proof`; 404 when the service keeps no verifiable log")
		oc.AddRespStructure(nil, openapi.WithContentType("text/plain"), openapi.WithHTTPStatus(http.StatusOK))
		oc.AddRespStructure(new(FaultBean), openapi.WithHTTPStatus(http.StatusNotFound))
	case "/openapi.json":
		oc.SetSummary("This document")
		oc.AddRespStructure(map[string]any{}, openapi.WithHTTPStatus(http.StatusOK))
	case "/healthz":
		oc.SetSummary("200 while the process serves")
		oc.AddRespStructure(map[string]string{}, openapi.WithHTTPStatus(http.StatusOK))
	case "/readyz":
		oc.SetSummary("200 once the projections applied the log as of start-up, 503 before")
		oc.AddRespStructure(map[string]any{}, openapi.WithHTTPStatus(http.StatusOK))
		oc.AddRespStructure(map[string]any{}, openapi.WithHTTPStatus(http.StatusServiceUnavailable))
	default:
		oc.AddRespStructure(map[string]any{}, openapi.WithHTTPStatus(http.StatusOK))
	}
	return r.AddOperation(oc)
}

// addOperation documents the route at routePath under path (the same but
// for parameter names where doc.docPath is set).
func addOperation(r *openapi31.Reflector, api domain.API, auth domain.AuthType, method, path, routePath string, doc opDoc) error {
	oc, err := r.NewOperationContext(method, openAPIPath(path))
	if err != nil {
		return err
	}
	oc.SetTags(api.String())
	oc.SetSummary(doc.summary)
	oc.SetID(operationID(method, path))
	oc.AddSecurity(auth.String())
	if auth == domain.AuthPublic {
		// No credentials (API.md section 1): a first request carries no
		// session cookie, and its answer may set one.
		op := oc.(openapi31.OperationExposer).Operation()
		op.Security = append(op.Security, map[string][]string{})
	}
	query := doc.query
	if doc.list {
		query = append(append([]string{}, query...), "pagina", "risultatiPerPagina")
	}
	if doc.captcha && auth == domain.AuthPublic {
		query = append(append([]string{}, query...), "UUID") // the pendenza's UUID passes the protection
	}
	oc.AddReqStructure(paramsStruct(path, routePath, query, doc.params))
	if doc.body != nil {
		oc.AddReqStructure(doc.body, openapi.WithContentType("application/json"))
	}
	if !doc.createsOnly {
		oc.AddRespStructure(doc.resp, openapi.WithHTTPStatus(http.StatusOK))
	}
	if doc.created || doc.createsOnly {
		oc.AddRespStructure(doc.resp, openapi.WithHTTPStatus(http.StatusCreated))
	}
	statuses := errorStatuses
	if method != http.MethodGet {
		statuses = append(append([]int{}, statuses...), http.StatusRequestEntityTooLarge)
	}
	if method != http.MethodGet && !doc.readOnly {
		statuses = append(statuses, writeErrorStatuses...)
	} else if doc.unprocessable {
		statuses = append(append([]int{}, statuses...), http.StatusUnprocessableEntity)
	}
	if auth == domain.AuthBasic || auth == domain.AuthAPIKey || auth == domain.AuthPublic && (method != http.MethodGet || doc.captcha) {
		statuses = append(statuses, http.StatusTooManyRequests) // failed logins; anonymous writes; captcha checks
	}
	for _, st := range statuses {
		oc.AddRespStructure(FaultBean{}, openapi.WithHTTPStatus(st))
	}
	return r.AddOperation(oc)
}

// paramsStruct builds a struct type whose tagged fields are the path
// parameters of path, the given query parameters and the consistency
// token's header, with their formats: the operation's own (opParams:
// "path:name" for a path parameter, name for a query parameter), else
// paramSchemas'. The i-th path parameter has the
// schema of the i-th parameter of routePath, the route's own, and names
// it when path names another.
func paramsStruct(path, routePath string, query []string, opParams map[string]paramSchema) any {
	var fields []reflect.StructField
	field := func(name, is, in string, required bool) {
		tag := fmt.Sprintf(`%s:%q`, in, name)
		var about []string
		if is != name {
			about = append(about, "the "+is)
		}
		typ := reflect.TypeFor[string]()
		ps, ok := paramSchemas[in+":"+is]
		if !ok {
			ps, ok = paramSchemas[is]
		}
		if mine, found := opParams[in+":"+is]; found {
			ps, ok = mine, true
		} else if mine, found := opParams[is]; found && in == "query" {
			ps, ok = mine, true
		}
		if ok {
			switch {
			case ps.integer:
				typ = reflect.TypeFor[int]()
				tag += fmt.Sprintf(` minimum:"%d"`, ps.min)
				if ps.max > 0 {
					tag += fmt.Sprintf(` maximum:"%d"`, ps.max)
				}
			case ps.pattern != "":
				tag += fmt.Sprintf(` pattern:%q`, ps.pattern)
			case len(ps.enum) > 0:
				tag += fmt.Sprintf(` enum:%q`, strings.Join(ps.enum, ","))
			}
			if ps.format != "" {
				tag += fmt.Sprintf(` format:%q`, ps.format)
			}
			if ps.maxLength > 0 {
				tag += fmt.Sprintf(` maxLength:"%d"`, ps.maxLength)
			}
			if ps.description != "" {
				about = append(about, ps.description)
			}
		}
		if len(about) > 0 {
			tag += fmt.Sprintf(` description:%q`, strings.Join(about, "; "))
		}
		if required || ps.required {
			tag += ` required:"true"`
			if typ.Kind() == reflect.String && ps.pattern == "" && len(ps.enum) == 0 {
				tag += ` minLength:"1"` // the handlers read "" as absent
			}
		}
		fields = append(fields, reflect.StructField{Name: "F" + strconv.Itoa(len(fields)), Type: typ, Tag: reflect.StructTag(tag)})
	}
	names, own := pathParams(path), pathParams(routePath)
	for i, n := range names {
		field(n, own[i], "path", true)
	}
	for _, q := range query {
		field(q, q, "query", false)
	}
	// Every operation of an API takes a consistency token (API.md section 3).
	field(ConsistencyHeader, ConsistencyHeader, "header", false)
	return reflect.New(reflect.StructOf(fields)).Elem().Interface()
}

// pathParams lists the :param names of an Echo path, in order.
func pathParams(path string) []string {
	var names []string
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, ":") {
			names = append(names, seg[1:])
		}
	}
	return names
}

// operationID is unique per method and path: getBackofficeBasicV1Domini.
func operationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, seg := range strings.Split(path, "/") {
		seg = strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(seg, ":"), ".json"), "{")
		if seg == "" || seg == "rs" {
			continue
		}
		b.WriteString(strings.ToUpper(seg[:1]) + seg[1:])
	}
	return b.String()
}

// openAPIPath turns Echo's :param segments into {param}.
func openAPIPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

// requiredUnlessOmitEmpty marks a response field required when its JSON
// tag has neither omitempty nor omitzero: encoding/json always writes it,
// so a client may rely on it (and the response check of the tests holds
// the server to it).
func requiredUnlessOmitEmpty(p jsonschema.InterceptPropParams) error {
	if !p.Processed || p.ParentSchema == nil {
		return nil
	}
	if oc, ok := openapi.OperationCtx(p.Context); !ok || !oc.IsProcessingResponse() {
		return nil
	}
	name, opts, _ := strings.Cut(p.Field.Tag.Get("json"), ",")
	if name != p.Name || strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
		return nil
	}
	for _, r := range p.ParentSchema.Required {
		if r == name {
			return nil
		}
	}
	p.ParentSchema.Required = append(p.ParentSchema.Required, name)
	return nil
}
