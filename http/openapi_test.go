package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
)

// contract is the OpenAPI document of the server and a validator of it,
// built once per test process (every harness mounts the same routes).
var contract struct {
	once sync.Once
	doc  []byte
	v    validator.Validator
	err  error
}

func openAPIValidator(t testing.TB, h *harness) validator.Validator {
	t.Helper()
	contract.once.Do(func() {
		contract.doc, contract.err = buildOpenAPI(h.srv.echo)
		if contract.err != nil {
			return
		}
		doc, err := libopenapi.NewDocument(contract.doc)
		if err != nil {
			contract.err = err
			return
		}
		v, errs := validator.NewValidator(doc)
		if len(errs) > 0 {
			contract.err = errs[0]
			return
		}
		contract.v = v
	})
	if contract.err != nil {
		t.Fatalf("openapi: %v", contract.err)
	}
	return contract.v
}

// checkAgainstOpenAPI validates one response the test suite received
// against the OpenAPI document: its status must be documented for the
// operation and its body must match the schema. A request to a path or
// method the document does not describe (a mount the API does not accept,
// an unknown route) must have been refused with 403, 404 or 405, or with
// 401 by the mount's authentication, which runs before routing decides.
func checkAgainstOpenAPI(t testing.TB, h *harness, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	v := openAPIValidator(t, h)
	res := &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(bytes.NewReader(body)), Request: req}
	ok, errs := v.ValidateHttpResponse(req, res)
	if ok {
		return
	}
	for _, e := range errs {
		if e.IsPathMissingError() || e.IsOperationMissingError() {
			if status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusNotFound ||
				status == http.StatusMethodNotAllowed {
				return
			}
			t.Errorf("openapi: %s %s answered %d but the document does not describe it", req.Method, req.URL.Path, status)
			return
		}
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	t.Errorf("openapi: %s %s → %d does not match the document:\n  %s\n  body: %.400s",
		req.Method, req.URL.Path, status, strings.Join(msgs, "\n  "), body)
}

// TestOpenAPIIsValidAndComplete: /openapi.json is an OpenAPI 3.1 document
// that a real validator accepts; it describes every operation only on the
// mounts that serve it, with typed parameters, bodies, FaultBeans,
// security schemes and tags.
func TestOpenAPIIsValidAndComplete(t *testing.T) {
	h := newHarness(t)
	// The first GET builds the document, by reflection over every body
	// type: a second without the race detector, and up to half a minute
	// with it on a loaded machine, past the harness client's timeout.
	res, err := (&http.Client{Timeout: 5 * time.Minute}).Get(h.httpURL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /openapi.json: %d %v", res.StatusCode, err)
	}
	doc, err := libopenapi.NewDocument(body)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("document: %v", e)
		}
	}
	var spec struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			Tags       []string              `json:"tags"`
			Security   []map[string][]string `json:"security"`
			Parameters []struct {
				Name, In, Description string
				Required              bool
				Schema                struct{ Pattern string }
			} `json:"parameters"`
			RequestBody *struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
			Responses map[string]struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
		Components struct {
			SecuritySchemes map[string]map[string]any `json:"securitySchemes"`
		} `json:"components"`
	}
	if err := json.Unmarshal(body, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q, want 3.1.0", spec.OpenAPI)
	}
	if spec.Components.SecuritySchemes["ssl"]["type"] != "mutualTLS" || spec.Components.SecuritySchemes["basic"]["scheme"] != "basic" ||
		spec.Components.SecuritySchemes["spid"]["name"] != spidHeader {
		t.Fatalf("security schemes: %v", spec.Components.SecuritySchemes)
	}
	ops := 0
	for path, methods := range spec.Paths {
		for m, op := range methods {
			ops++
			if api, auth, _, ok := mountRoute(echoPath(path)); ok {
				if err := acceptsCheck(api, auth); err != nil {
					t.Errorf("%s %s is on a mount that always answers 403", m, path)
				}
				optional := auth == domain.AuthPublic // the session cookie, or nothing
				if len(op.Tags) != 1 || op.Tags[0] != api.String() || op.Security[0][auth.String()] == nil ||
					len(op.Security) != 1 && !(optional && len(op.Security) == 2 && len(op.Security[1]) == 0) {
					t.Errorf("%s %s: tags %v security %v", m, path, op.Tags, op.Security)
				}
				api, _, rel, _ := mountRoute(echoPath(path))
				doc := documentedAs(api, strings.ToUpper(m), rel)
				noBody := doc.resp == nil // e.g. GET /logout: 200, no body
				ok200 := op.Responses["200"].Content["application/json"].Schema != nil || noBody && op.Responses["200"].Content == nil
				if doc.createsOnly {
					_, has200 := op.Responses["200"]
					ok200 = !has200 && op.Responses["201"].Content["application/json"].Schema != nil
				}
				if op.Responses["403"].Content["application/json"].Schema == nil || !ok200 {
					t.Errorf("%s %s: no FaultBean for 403 or no 200 schema", m, path)
				}
				if _, ok := op.Responses["415"]; ok { // a body not JSON is 400 SINTASSI (decodeJSON, API.md section 2)
					t.Errorf("%s %s documents a 415, which the server never answers", m, path)
				}
				token := false // API.md section 3: every request may carry one
				for _, q := range op.Parameters {
					token = token || q.In == "header" && q.Name == ConsistencyHeader && !q.Required && q.Schema.Pattern != ""
				}
				if !token {
					t.Errorf("%s %s: the optional %s header is not documented", m, path, ConsistencyHeader)
				}
			}
		}
	}
	for _, gone := range []string{"/pendenze/rs/public/v2/pendenze", "/nodo/rs/spid/v1/intermediari/{idIntermediario}/ricevute", "/ragioneria/rs/public/v3/pagamenti"} {
		if _, ok := spec.Paths[gone]; ok {
			t.Errorf("%s is documented but always answers 403", gone)
		}
	}
	list := spec.Paths["/backoffice/rs/basic/v1/pendenze"]["get"]
	params := map[string]string{}
	for _, p := range list.Parameters {
		params[p.In+":"+p.Name] = p.Schema.Pattern
	}
	_, stato := params["query:stato"]
	_, pagina := params["query:pagina"]
	if params["query:idDominio"] != `^[0-9]{11}$` || !stato || !pagina {
		t.Errorf("backoffice pendenze list parameters: %v", params)
	}
	// The Pagamento POST listed under the GET's template at the same shape:
	// its segments keep their own schemas, say what they are, and it
	// answers 201 alone (it always creates).
	post := spec.Paths["/pagamento/rs/basic/v2/pendenze/{idA2A}/{idPendenza}"]["post"]
	if len(post.Parameters) != 3 || post.Parameters[0].Schema.Pattern != `^[0-9]{11}$` || post.Parameters[0].Description != "the idDominio" ||
		post.Parameters[1].Description != "the idTipoPendenza" {
		t.Errorf("POST pendenze/{idDominio}/{idTipoPendenza} parameters: %+v", post.Parameters)
	}
	if _, ok := post.Responses["200"]; ok {
		t.Errorf("POST pendenze/{idDominio}/{idTipoPendenza} documents a 200; it always creates (201)")
	}
	if _, ok := spec.Paths["/pagamento/rs/basic/v2/pagamenti"]["post"].Responses["200"]; ok {
		t.Errorf("POST pagamenti documents a 200; it always creates (201)")
	}
	incasso := spec.Paths["/backoffice/rs/basic/v1/incassi/{idDominio}"]["post"]
	if _, ok := incasso.Responses["200"]; ok || incasso.Responses["201"].Content["application/json"].Schema == nil {
		t.Errorf("POST incassi/{idDominio} documents a 200 or no 201; it always creates (201, API.md section 4)")
	}
	// What the document says instead of a 415: a body that is not JSON is
	// 400 SINTASSI.
	h.do(t, "PUT", bo+"/domini/01234567890", `{"ragioneSociale":"C","abilitato":true}`, asAdmin(),
		withHeader("Content-Type", "text/plain")).expect(t, http.StatusBadRequest, "SINTASSI")
	// The public reads of a notice are protected alike (API.md section 7):
	// the UUID passes, and a check that cannot start is 429.
	for _, p := range []string{"/pagamento/rs/public/v2/avvisi/{idDominio}/{numeroAvviso}", "/pagamento/rs/public/v2/pendenze/byAvviso/{idDominio}/{numeroAvviso}"} {
		op := spec.Paths[p]["get"]
		uuid := false
		for _, q := range op.Parameters {
			uuid = uuid || q.In == "query" && q.Name == "UUID"
		}
		if _, ok := op.Responses["429"]; !ok || !uuid {
			t.Errorf("GET %s: 429 documented %v, query UUID %v; want both", p, ok, uuid)
		}
	}
	put := spec.Paths["/backoffice/rs/basic/v1/domini/{idDominio}"]["put"]
	if put.RequestBody == nil || put.RequestBody.Content["application/json"].Schema == nil {
		t.Fatalf("PUT domini has no JSON request body")
	}
	if len(put.Parameters) != 2 || put.Parameters[0].Schema.Pattern != `^[0-9]{11}$` || !put.Parameters[0].Required {
		t.Errorf("PUT domini path parameter: %+v", put.Parameters)
	}
	if _, ok := put.Responses["201"]; !ok {
		t.Errorf("PUT domini: no 201")
	}
	t.Logf("%d operations on %d paths", ops, len(spec.Paths))
}

// documentedAs is the doc of the operation listed at api, method, rel:
// its own, or the one of the route listed there under docPath.
func documentedAs(api domain.API, method, rel string) opDoc {
	for k, d := range operationDocs {
		if k.api == api && k.method == method && (k.path == rel && d.docPath == "" || d.docPath == rel) {
			return d
		}
	}
	return opDoc{}
}

// echoPath turns {param} into :param.
func echoPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			segs[i] = ":" + strings.Trim(s, "{}")
		}
	}
	return strings.Join(segs, "/")
}

func acceptsCheck(api domain.API, auth domain.AuthType) error { return domain.AcceptsAuth(api, auth) }

// TestOpenAPIValidationCatchesALie: the response check the harness runs on
// every response fails on a body, a status or a path the document does not
// allow, so passing it means something.
func TestOpenAPIValidationCatchesALie(t *testing.T) {
	h := newHarness(t)
	v := openAPIValidator(t, h)
	check := func(method, path string, status int, body string) bool {
		req, _ := http.NewRequest(method, h.httpURL+path, nil)
		res := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: req}
		ok, _ := v.ValidateHttpResponse(req, res)
		return ok
	}
	for _, c := range []struct {
		name, method, path string
		status             int
		body               string
		want               bool
	}{
		{"true_dominio", "GET", "/backoffice/rs/basic/v1/domini/01234567890", 200, `{"idDominio":"01234567890","ragioneSociale":"C","abilitato":true}`, true},
		{"dominio_with_a_number_for_a_string", "GET", "/backoffice/rs/basic/v1/domini/01234567890", 200, `{"idDominio":5,"ragioneSociale":"C","abilitato":true}`, false},
		{"true_fault", "GET", "/backoffice/rs/basic/v1/domini/01234567890", 404, `{"categoria":"RICHIESTA","codice":"404000","descrizione":"Risorsa non trovata"}`, true},
		{"fault_without_codice", "GET", "/backoffice/rs/basic/v1/domini/01234567890", 404, `{"categoria":"RICHIESTA","descrizione":"x"}`, false},
		{"undocumented_status", "GET", "/backoffice/rs/basic/v1/domini/01234567890", 418, `{}`, false},
		{"page_with_an_object_for_a_list", "GET", "/pendenze/rs/basic/v2/pendenze", 200, `{"numRisultati":1,"numPagine":1,"risultatiPerPagina":25,"pagina":1,"risultati":{}}`, false},
	} {
		if got := check(c.method, c.path, c.status, c.body); got != c.want {
			t.Errorf("%s: valid = %v, want %v", c.name, got, c.want)
		}
	}
}

// openAPIRequestErrors is what the document finds wrong with a request as
// h.do sends it: method, path with its query, a JSON body ("" for none)
// and the caller's options (nil: the document accepts it).
func openAPIRequestErrors(t testing.TB, h *harness, method, path, body string, opts ...reqOpt) []string {
	t.Helper()
	r := &request{method: method, path: path, header: http.Header{}}
	for _, o := range opts {
		o(r)
	}
	req, err := http.NewRequest(method, h.httpURL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = r.header
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	ok, errs := openAPIValidator(t, h).ValidateHttpRequest(req)
	if ok {
		return nil
	}
	var msgs []string
	for _, e := range errs {
		msg := e.Message
		for _, se := range e.SchemaValidationErrors {
			msg += "; " + se.FieldPath + ": " + se.Reason
		}
		msgs = append(msgs, msg)
	}
	return msgs
}

// TestOpenAPIAcceptsTheRequestsTheServerServes: a request the server
// serves is one the document accepts, parameters and body alike, so a
// client built from the document can send it. A patch operation's value
// is any JSON value (it was described as a list of bytes, jsontext.Value's
// Go type); the indice of an inclusion proof counts from 0, the first
// event of its commit (it had the format of a collection's indice, 1 to
// 9999); the public mount needs no credentials (the document required
// the session cookie, which a first request cannot have).
func TestOpenAPIAcceptsTheRequestsTheServerServes(t *testing.T) {
	w := newWorld(t, withVerifiableLog())
	w.createPendenza(t, "appA", "oa-1", d1, t1, citizen1)
	notice := w.createPendenza(t, "appA", "oa-2", d1, t1, citizen1).NumeroAvviso
	ctx := context.Background()
	w.logCaughtUp(t)
	if _, ok, err := w.log.Checkpoint(ctx); err != nil || !ok {
		t.Fatalf("checkpoint: %v %v", ok, err)
	}
	w.logCaughtUp(t)
	for _, c := range []struct {
		name, method, path, body string
		opts                     []reqOpt
		status                   int
		has                      string // in the answer's body
	}{
		{"patch_value_a_string", "PATCH", pe + "/pendenze/appA/oa-1", `[{"op":"REPLACE","path":"/stato","value":"ANNULLATA"}]`,
			opts(as("appA")), http.StatusOK, `"stato":"ANNULLATA"`},
		{"patch_value_a_list", "PATCH", bo + "/ruoli/readOnly", `[{"op":"REPLACE","path":"/tipiPendenza","value":["*"]}]`,
			opts(asAdmin()), http.StatusOK, `"tipiPendenza":["*"]`},
		{"public_read_without_a_session", "GET", "/pagamento/rs/public/v2/avvisi/" + d1 + "/" + notice, "",
			nil, http.StatusOK, `"numeroAvviso":"` + notice + `"`},
		{"inclusion_of_the_first_event_of_its_commit", "GET", bo + "/giornale/prove/inclusione?posizione=2&indice=0", "",
			opts(asAdmin()), http.StatusOK, `"kind":"inclusion"`},
		{"consistency_token", "GET", bo + "/domini/" + d1, "",
			opts(asAdmin(), withToken(Token(w.store.Backend(), 1))), http.StatusOK, `"idDominio":"` + d1 + `"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := w.do(t, c.method, c.path, c.body, c.opts...)
			res.expect(t, c.status, "")
			if !strings.Contains(string(res.Body), c.has) {
				t.Fatalf("%s %s: body %s, want %s in it", c.method, c.path, res.Body, c.has)
			}
			if errs := openAPIRequestErrors(t, w.harness, c.method, c.path, c.body, c.opts...); errs != nil {
				t.Fatalf("the server serves %s %s %s but the document refuses it:\n  %s", c.method, c.path, c.body, strings.Join(errs, "\n  "))
			}
		})
	}
}

// TestOpenAPIListFiltersAreTheServers: a list documents the idDominio,
// stato, dataDa and dataA filters it reads, and only those: a filter the server reads
// refuses a bad value (400 SINTASSI), one it ignores answers the page, and
// one the document gives as any string (GovPay's idDominio on /domini, a
// part of it) answers the page too. The Pendenze and Pagamento lists of
// pendenze read idDominio (API.md section 5) and did not document it; the
// Pagamento list of payments documented stato and the Ragioneria one
// idDominio, which neither reads.
func TestOpenAPIListFiltersAreTheServers(t *testing.T) {
	w := newWorld(t)
	mounts := map[domain.API]struct {
		prefix string
		caller reqOpt
	}{
		domain.APIBackoffice: {bo, asAdmin()},
		domain.APIPendenze:   {pe, as("appA")},
		domain.APIPagamento:  {pg, as("appA")},
		domain.APIRagioneria: {rg, as("appA")},
	}
	for k, doc := range operationDocs {
		m, ok := mounts[k.api]
		if !doc.list || !ok || strings.Contains(k.path, ":") {
			continue
		}
		for _, filter := range []string{"idDominio", "stato", "dataDa", "dataA"} {
			t.Run(k.api.String()+k.path+"?"+filter, func(t *testing.T) {
				res := w.do(t, k.method, m.prefix+k.path+"?"+filter+"=bad", nil, m.caller)
				documented := slices.Contains(doc.query, filter)
				// A list's window is documented by its description alone
				// (it reads a date, which the date-time format would
				// refuse): no format, yet no string either.
				window := filter == "dataDa" || filter == "dataA"
				if ps, ok := doc.params[filter]; documented && ok && ps.pattern == "" && len(ps.enum) == 0 && ps.format == "" && !window {
					res.expect(t, http.StatusOK, "")
					return
				}
				switch {
				case documented && res.Status != http.StatusBadRequest:
					t.Fatalf("%s %s documents %s, but a bad value answers %d: %s", k.method, k.path, filter, res.Status, res.Body)
				case !documented && res.Status == http.StatusBadRequest:
					t.Fatalf("%s %s reads %s (a bad value is 400: %s), but does not document it", k.method, k.path, filter, res.Body)
				case documented:
					res.expect(t, http.StatusBadRequest, "SINTASSI")
				default:
					res.expect(t, http.StatusOK, "")
				}
			})
		}
	}
}

// TestOpenAPIParameterBoundsAreTheServers: the document refuses exactly
// the query parameters the server refuses (400 SINTASSI), at the bounds
// the server reads them with: limite up to maxEventiLimite on the log and
// maxResourcesLimit on a principal's resources, risultatiPerPagina up to
// maxRisultatiPerPagina, a list's stato one of GovPay's StatoPendenza (it
// was any string), da a log position from 0 on the log (any
// decimal form of it: the server refused one of over 20 digits, zeros
// first) but from 1, and required, on a consistency proof, as an
// inclusion proof's posizione; the audit questions' api, operazione and
// principal required, dopo ParseUint's integer, a servizio, an
// autorizzazione and an operazione from their lists, and the rest of a
// resource any string. The document had limite without a maximum, a
// consistency proof's da from 0 and optional, an inclusion proof's
// posizione optional and checkpoint any string, the audit questions' api,
// operazione and principal optional, dopo any string, operazione and
// servizio any string, autorizzazione R or W though the server reads r and
// w, and a resource's ids in formats the server does not check.
func TestOpenAPIParameterBoundsAreTheServers(t *testing.T) {
	w := newWorld(t, withVerifiableLog())
	w.logCaughtUp(t)
	if _, ok, err := w.log.Checkpoint(t.Context()); err != nil || !ok {
		t.Fatalf("checkpoint: %v %v", ok, err)
	}
	w.logCaughtUp(t)
	var st logState
	w.must(t, "GET", bo+"/giornale/checkpoint", nil, asAdmin()).decode(t, &st)
	if len(st.Checkpoints) == 0 {
		t.Fatal("no checkpoint listed")
	}
	checkpoint := strconv.FormatUint(uint64(st.Checkpoints[0].Position), 10)
	itoa := strconv.Itoa
	const ask = bo + "/autorizzazioni/principal/risorse?principal=" + adminUser + "&api=BACKOFFICE&operazione="
	const risorse = ask + "patch-pendenza&limite="
	const proof = bo + "/giornale/prove/consistenza"
	const who = bo + "/autorizzazioni?api=BACKOFFICE&operazione="
	for _, c := range []struct {
		name, path string
		refused    bool
	}{
		{"eventi_limite_max", bo + "/eventi?limite=" + itoa(maxEventiLimite), false},
		{"eventi_limite_over_max", bo + "/eventi?limite=" + itoa(maxEventiLimite+1), true},
		{"eventi_limite_zero", bo + "/eventi?limite=0", true},
		{"eventi_da_zero", bo + "/eventi?da=0", false},
		// The document says format uint64; its validator reads integers
		// as int64, so the test stops there.
		{"eventi_da_large", bo + "/eventi?da=" + strconv.FormatInt(math.MaxInt64, 10), false},
		{"eventi_da_zero_padded", bo + "/eventi?da=" + strings.Repeat("0", 20) + "1", false},
		{"eventi_da_negative", bo + "/eventi?da=-1", true},
		{"risorse_limite_max", risorse + itoa(maxResourcesLimit), false},
		{"risorse_limite_over_max", risorse + itoa(maxResourcesLimit+1), true},
		{"risorse_limite_zero", risorse + "0", true},
		{"page_max", bo + "/domini?risultatiPerPagina=" + itoa(maxRisultatiPerPagina), false},
		{"page_over_max", bo + "/domini?risultatiPerPagina=" + itoa(maxRisultatiPerPagina+1), true},
		{"page_of_no_results", bo + "/domini?risultatiPerPagina=0", false},
		{"page_negative", bo + "/domini?risultatiPerPagina=-1", true},
		{"stato", bo + "/pendenze?stato=" + domain.StatoEseguita.String(), false},
		{"stato_unknown", bo + "/pendenze?stato=PAGATA", true},
		{"stato_lower_case", bo + "/pendenze?stato=eseguita", true},
		{"inclusion_without_posizione", bo + "/giornale/prove/inclusione", true},
		{"inclusion_checkpoint_zero", bo + "/giornale/prove/inclusione?posizione=1&checkpoint=0", true},
		{"inclusion_of_the_first_event", bo + "/giornale/prove/inclusione?posizione=1&checkpoint=" + checkpoint, false},
		{"consistency_without_da", proof, true},
		{"consistency_da_zero", proof + "?da=0", true},
		{"consistency_da_one", proof + "?da=1", false}, // no checkpoint there: 404
		{"consistency_da_a_checkpoint", proof + "?da=" + checkpoint, false},
		{"consistency_a_zero", proof + "?da=" + checkpoint + "&a=0", true},
		// The audit questions: api, operazione and the principal asked
		// about are required; an operazione is the catalogue's, a servizio
		// and an autorizzazione the Backoffice's (either case); the other
		// fields of a resource are any string, checked by nothing.
		{"who_can", who + "read-dominio&idDominio=" + d1, false},
		{"who_can_without_api", bo + "/autorizzazioni?operazione=read-dominio&idDominio=" + d1, true},
		{"who_can_without_operazione", bo + "/autorizzazioni?api=BACKOFFICE&idDominio=" + d1, true},
		{"who_can_operazione_empty", who + "&idDominio=" + d1, true},
		{"who_can_operazione_unknown", who + "nope&idDominio=" + d1, true},
		{"who_can_resource_any_string", who + "read-dominio&idDominio=bad", false},
		{"who_can_autorizzazione_lowercase", who + "servizio&servizio=Pendenze&autorizzazione=w", false},
		{"who_can_autorizzazione_unknown", who + "servizio&servizio=Pendenze&autorizzazione=X", true},
		{"who_can_servizio_unknown", who + "servizio&servizio=Pendenz", true},
		{"what_can", bo + "/autorizzazioni/principal?principal=" + adminUser, false},
		{"what_can_without_principal", bo + "/autorizzazioni/principal", true},
		{"what_can_principal_empty", bo + "/autorizzazioni/principal?principal=", true},
		{"risorse_without_principal", bo + "/autorizzazioni/principal/risorse?api=BACKOFFICE&operazione=patch-pendenza", true},
		{"risorse_without_api", bo + "/autorizzazioni/principal/risorse?principal=" + adminUser + "&operazione=patch-pendenza", true},
		{"risorse_without_operazione", bo + "/autorizzazioni/principal/risorse?principal=" + adminUser + "&api=BACKOFFICE", true},
		{"risorse_operazione_unknown", ask + "nope", true},
		{"risorse_servizio_unknown", ask + "servizio&servizio=Pendenz", true},
		{"risorse_autorizzazione_lowercase", ask + "servizio&autorizzazione=w", false},
		{"risorse_dopo_zero", ask + "patch-pendenza&dopo=0", false},
		{"risorse_dopo_zero_padded", ask + "patch-pendenza&dopo=007", false},
		{"risorse_dopo_negative", ask + "patch-pendenza&dopo=-1", true},
		{"risorse_dopo_not_a_number", ask + "patch-pendenza&dopo=x", true},
	} {
		t.Run(c.name, func(t *testing.T) { sameVerdict(t, w, c.path, c.refused, asAdmin()) })
	}
}

// sameVerdict requires the server and the document to agree on GET path
// as caller sends it: both refuse it (the server with 400 SINTASSI), or
// both accept it (the server may still answer it 404).
func sameVerdict(t *testing.T, w *world, path string, refused bool, caller reqOpt) {
	t.Helper()
	res := w.do(t, "GET", path, nil, caller)
	if got := res.Status == http.StatusBadRequest; got != refused {
		t.Fatalf("GET %s: %d %s, want refused %v", path, res.Status, res.Body, refused)
	}
	if refused {
		res.expect(t, http.StatusBadRequest, "SINTASSI")
	}
	errs := openAPIRequestErrors(t, w.harness, "GET", path, "", caller)
	if got := errs != nil; got != refused {
		t.Fatalf("the server refuses GET %s: %v, the document: %v %s", path, refused, got, strings.Join(errs, "; "))
	}
}

// TestOpenAPIPathParametersAreTheServers: the document refuses exactly the
// path parameters the server refuses (400 SINTASSI), by the patterns the
// handlers match: a collection's indice from 1 to 9999 without a leading
// zero, a payment's id of 32 lowercase hex characters, an event's id
// position[.index] without leading zeros, an operator's principal of at
// most commands.MaxPrincipalLength bytes without control characters, a
// unit's and a reconciliation's id, and no id "." or "..". The document had
// indice an integer (01 passed), the ids of payments, events, units,
// reconciliations and an operator's principal any string, and an id "."
// or "..". (An event's index over operations.MaxEventIndex, of 7 digits,
// is refused by the server alone: a pattern cannot say it, the
// parameter's description does.)
func TestOpenAPIPathParametersAreTheServers(t *testing.T) {
	w := newWorld(t)
	riscossione := bo + "/riscossioni/" + d1 + "/iuv1/iur1/"
	const hex = "0123456789abcdef"
	for _, c := range []struct {
		name, path string
		refused    bool
		caller     reqOpt
	}{
		{"indice_one", riscossione + "1", false, asAdmin()},
		{"indice_max", riscossione + "9999", false, asAdmin()},
		{"indice_over_max", riscossione + "10000", true, asAdmin()},
		{"indice_zero", riscossione + "0", true, asAdmin()},
		{"indice_leading_zero", riscossione + "01", true, asAdmin()},
		{"indice_not_a_number", riscossione + "x", true, asAdmin()},
		{"payment_id", bo + "/pagamenti/" + hex + hex, false, asAdmin()},
		{"payment_id_upper_case", bo + "/pagamenti/" + hex + strings.ToUpper(hex), true, asAdmin()},
		{"payment_id_short", bo + "/pagamenti/" + hex + hex[1:], true, asAdmin()},
		{"payment_id_ragioneria", rg + "/pagamenti/" + hex, true, as("appA")},
		{"event_id", bo + "/eventi/1", false, asAdmin()},
		{"event_id_index", bo + "/eventi/1.0", false, asAdmin()},
		{"event_id_max_index", bo + "/eventi/1." + strconv.Itoa(operations.MaxEventIndex), false, asAdmin()},
		{"event_id_zero", bo + "/eventi/0", true, asAdmin()},
		{"event_id_leading_zero", bo + "/eventi/01", true, asAdmin()},
		{"event_id_index_leading_zero", bo + "/eventi/1.01", true, asAdmin()},
		{"event_id_not_a_number", bo + "/eventi/x", true, asAdmin()},
		{"unit", bo + "/domini/" + d1 + "/unitaOperative/u1", false, asAdmin()},
		{"unit_with_a_space", bo + "/domini/" + d1 + "/unitaOperative/a%20b", true, asAdmin()},
		{"reconciliation", rg + "/riconciliazioni/" + d1 + "/r1", false, as("appA")},
		{"reconciliation_with_a_space", rg + "/riconciliazioni/" + d1 + "/a%20b", true, as("appA")},
		{"id_dot", bo + "/tipiPendenza/.", true, asAdmin()},
		{"id_dot_dot", bo + "/tipiPendenza/..", true, asAdmin()},
		{"id_three_dots", bo + "/tipiPendenza/...", false, asAdmin()},
		{"id_max", bo + "/tipiPendenza/" + strings.Repeat("t", 35), false, asAdmin()},
		{"id_over_max", bo + "/tipiPendenza/" + strings.Repeat("t", 36), true, asAdmin()},
		{"principal_dn", bo + "/operatori/CN=op%2C%20O=Ente", false, asAdmin()},
		{"principal_max", bo + "/operatori/" + strings.Repeat("p", commands.MaxPrincipalLength), false, asAdmin()},
		{"principal_over_max", bo + "/operatori/" + strings.Repeat("p", commands.MaxPrincipalLength+1), true, asAdmin()},
		{"principal_control_character", bo + "/operatori/a%01b", true, asAdmin()},
		{"principal_c1_control_character", bo + "/operatori/a%C2%85b", true, asAdmin()},
	} {
		t.Run(c.name, func(t *testing.T) { sameVerdict(t, w, c.path, c.refused, c.caller) })
	}
}

// TestOpenAPIBoundsAreEachOperations: da and limite mean other bounds
// on each operation that reads them, and a path parameter id another
// thing on each route, so each states its own (paramSchemas has none to
// fall back on); every other path parameter has a format (the handlers
// check each: a unit's id, a payment's, an event's had none).
func TestOpenAPIBoundsAreEachOperations(t *testing.T) {
	t.Parallel()
	for k, doc := range operationDocs {
		for _, q := range doc.query {
			if _, own := doc.params[q]; (q == "da" || q == "limite") && !own {
				t.Errorf("%s %s %s reads %s without stating its bounds", k.api, k.method, k.path, q)
			}
		}
		for _, p := range pathParams(k.path) {
			_, own := doc.params["path:"+p]
			_, shared := paramSchemas["path:"+p]
			_, named := paramSchemas[p]
			if p == "id" && !own || !own && !shared && !named {
				t.Errorf("%s %s %s: path parameter %s has no format of its own", k.api, k.method, k.path, p)
			}
		}
	}
}

// TestOpenAPIReadOnlyPostAnswersNoWriteStatuses: POST
// /autorizzazioni/verifica only asks a question, so the document lists no
// 409 or 422 for it, which it never answers; it reads a body, so a body
// over the limit is 413 there as on a write, which lists all three.
func TestOpenAPIReadOnlyPostAnswersNoWriteStatuses(t *testing.T) {
	h := newHarness(t, withMaxBody(64))
	var spec struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	openAPIValidator(t, h) // the document GET /openapi.json serves, built once per test process
	if err := json.Unmarshal(contract.doc, &spec); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, path string
		want, not    []string
	}{
		{"post", "/backoffice/rs/basic/v1/autorizzazioni/verifica", []string{"400", "413"}, []string{"409", "422"}},
		{"put", "/backoffice/rs/basic/v1/domini/{idDominio}", []string{"400", "409", "413", "422"}, nil},
	} {
		got := spec.Paths[c.path][c.method].Responses
		for _, st := range c.want {
			if _, ok := got[st]; !ok {
				t.Errorf("%s %s does not document %s", c.method, c.path, st)
			}
		}
		for _, st := range c.not {
			if _, ok := got[st]; ok {
				t.Errorf("%s %s documents %s, which it never answers", c.method, c.path, st)
			}
		}
	}
	big := `{"principal":"` + strings.Repeat("x", 64) + `","api":"BACKOFFICE","operazione":"read-dominio"}`
	h.do(t, "POST", bo+"/autorizzazioni/verifica", big, asAdmin()).expect(t, http.StatusRequestEntityTooLarge, "SINTASSI")
	h.do(t, "POST", bo+"/autorizzazioni/verifica", `{"principal":"`+adminUser+`"}`, asAdmin()).expect(t, http.StatusBadRequest, "SINTASSI")
}
