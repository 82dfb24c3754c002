package httpapi

import (
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/operations/whatcan"
	"github.com/payauthz/payauthz/projections/logtree"
)

// opDoc documents one operation of an API: what the route table does not
// say. Every route the server mounts must have one (buildOpenAPI refuses a
// route without, TestOpenAPIIsValidAndComplete).
type opDoc struct {
	summary string
	query   []string // query parameters (list operations also take pagina, risultatiPerPagina)
	body    any      // request body (nil: none)
	resp    any      // success body
	created bool     // a write that answers 201 when it creates, 200 when it updates
	// createsOnly marks a POST that makes a new resource every time: 201,
	// never 200.
	createsOnly bool
	list        bool // a GovPay page
	// captcha marks a read under the public API's protection (section 7),
	// which answers 429 when the captcha checks in flight are at their
	// bound (writes of the public API may answer 429 anyway), and which
	// the query parameter UUID passes on the public mount.
	captcha bool
	// docPath, when set, is the path the document lists the route under:
	// OpenAPI holds one template per path shape, so a route whose segments
	// name other parameters than another method's at the same shape is
	// listed under that one's names; each parameter keeps the schema of the
	// route's own (an idDominio's 11 digits under the name idA2A) and says
	// what it is.
	docPath string
	// params are the formats of query parameters that are the
	// operation's own: bounds a name has here only (da, limite), or a
	// parameter it refuses to go without; they come before paramSchemas.
	params map[string]paramSchema
	// readOnly marks a write method that changes nothing (a question sent
	// as a body): it answers no 409 or 422, though its body may be 413.
	readOnly bool
	// unprocessable marks a read that answers 422 (the node's verification
	// of a notice at a disabled entity, type or unit).
	unprocessable bool
}

// opKey names an operation by API, method and the route below the mount.
type opKey struct {
	api    domain.API
	method string
	path   string
}

// esitoView is the body of GET /operazioni/resetCacheAnagrafica.
type esitoView struct {
	Esito     string `json:"esito"`
	Dettaglio string `json:"dettaglio"`
}

// operationDocs is every operation's documentation. The routes themselves
// come from the Echo route table (routes.go and the register* functions).
var operationDocs = map[opKey]opDoc{
	{domain.APIBackoffice, http.MethodPut, "/domini/:idDominio"}:                                       {summary: "Register or update a creditor entity", body: dominioBody{}, resp: dominioView{}, created: true},
	{domain.APIBackoffice, http.MethodGet, "/domini/:idDominio"}:                                       {summary: "Read a creditor entity", resp: dominioView{}},
	{domain.APIBackoffice, http.MethodGet, "/domini"}:                                                  {summary: "List creditor entities in the caller's scope", query: dominiFilters.query(), params: dominiFilters.params(), resp: Page[dominioView]{}, list: true},
	{domain.APIBackoffice, http.MethodPut, "/domini/:idDominio/unitaOperative/:idUnitaOperativa"}:      {summary: "Register or update an operational unit of a creditor entity", body: unitaOperativaBody{}, resp: unitaOperativaView{}, created: true},
	{domain.APIBackoffice, http.MethodGet, "/domini/:idDominio/unitaOperative/:idUnitaOperativa"}:      {summary: "Read an operational unit of a creditor entity", resp: unitaOperativaView{}},
	{domain.APIBackoffice, http.MethodGet, "/domini/:idDominio/unitaOperative"}:                        {summary: "List the operational units of a creditor entity", query: unitFilters.query(), params: unitFilters.params(), resp: Page[unitaOperativaView]{}, list: true},
	{domain.APIBackoffice, http.MethodPut, "/tipiPendenza/:idTipoPendenza"}:                            {summary: "Register or update a pendenza type", body: tipoBody{}, resp: tipoView{}, created: true},
	{domain.APIBackoffice, http.MethodGet, "/tipiPendenza/:idTipoPendenza"}:                            {summary: "Read a pendenza type", resp: tipoView{}},
	{domain.APIBackoffice, http.MethodGet, "/tipiPendenza"}:                                            {summary: "List pendenza types", query: tipiFilters.query(), params: tipiFilters.params(), resp: Page[tipoView]{}, list: true},
	{domain.APIBackoffice, http.MethodPut, "/intermediari/:idIntermediario"}:                           {summary: "Register or update an intermediary and its node connector", body: intermediarioBody{}, resp: intermediarioView{}, created: true},
	{domain.APIBackoffice, http.MethodGet, "/intermediari/:idIntermediario"}:                           {summary: "Read an intermediary", resp: intermediarioView{}},
	{domain.APIBackoffice, http.MethodGet, "/intermediari"}:                                            {summary: "List intermediaries", query: intermediariFilters.query(), params: intermediariFilters.params(), resp: Page[intermediarioView]{}, list: true},
	{domain.APIBackoffice, http.MethodPut, "/ruoli/:idRuolo"}:                                          {summary: "Define a role", body: ruoloBody{}, resp: ruoloView{}, created: true},
	{domain.APIBackoffice, http.MethodPatch, "/ruoli/:idRuolo"}:                                        {summary: "Change a role by GovPay's patch operations (ADD, DELETE, REPLACE), decided and written as the PUT of the result", body: []patchOp{}, resp: ruoloView{}},
	{domain.APIBackoffice, http.MethodGet, "/ruoli/:idRuolo"}:                                          {summary: "Read a role", resp: ruoloView{}},
	{domain.APIBackoffice, http.MethodGet, "/ruoli"}:                                                   {summary: "List roles", resp: Page[ruoloView]{}, list: true},
	{domain.APIBackoffice, http.MethodPut, "/operatori/:principal"}:                                    {summary: "Register or update an operator", body: operatoreBody{}, resp: operatoreView{}, created: true},
	{domain.APIBackoffice, http.MethodPatch, "/operatori/:principal"}:                                  {summary: "Change an operator by GovPay's patch operations (ADD, DELETE, REPLACE), decided and written as the PUT of the result", body: []patchOp{}, resp: operatoreView{}},
	{domain.APIBackoffice, http.MethodGet, "/operatori/:principal"}:                                    {summary: "Read an operator", resp: operatoreView{}},
	{domain.APIBackoffice, http.MethodGet, "/operatori"}:                                               {summary: "List operators", query: operatoriFilters.query(), params: operatoriFilters.params(), resp: Page[operatoreView]{}, list: true},
	{domain.APIBackoffice, http.MethodPut, "/applicazioni/:idA2A"}:                                     {summary: "Register or update an application and its API grants", body: applicazioneBody{}, resp: applicazioneView{}, created: true},
	{domain.APIBackoffice, http.MethodPatch, "/applicazioni/:idA2A"}:                                   {summary: "Change an application by GovPay's patch operations (ADD, DELETE, REPLACE), decided and written as the PUT of the result", body: []patchOp{}, resp: applicazioneView{}},
	{domain.APIBackoffice, http.MethodGet, "/applicazioni/:idA2A"}:                                     {summary: "Read an application", resp: applicazioneView{}},
	{domain.APIBackoffice, http.MethodGet, "/applicazioni"}:                                            {summary: "List applications", query: applicazioniFilters.query(), params: applicazioniFilters.params(), resp: Page[applicazioneView]{}, list: true},
	{domain.APIBackoffice, http.MethodGet, "/pendenze"}:                                                {summary: "List pendenze in the caller's scope", query: boPendenzeFilters.query(), params: boPendenzeFilters.params(), resp: Page[pendenzaView]{}, list: true},
	{domain.APIBackoffice, http.MethodGet, "/pendenze/:idA2A/:idPendenza"}:                             {summary: "Read a pendenza", resp: pendenzaDetailBackoffice{}},
	{domain.APIBackoffice, http.MethodGet, "/pagamenti"}:                                               {summary: "List payments in the caller's scope", query: pagamentiFilters.query(), params: pagamentiFilters.params(), resp: Page[pagamentoView]{}, list: true},
	{domain.APIBackoffice, http.MethodGet, "/pagamenti/:id"}:                                           {summary: "Read a payment", resp: pagamentoView{}, params: paymentID},
	{domain.APIBackoffice, http.MethodGet, "/riconciliazioni"}:                                         {summary: "List reconciliations", query: riconciliazioniFilters.query("idDominio"), params: riconciliazioniFilters.params(), resp: Page[riconciliazioneView]{}, list: true},
	{domain.APIBackoffice, http.MethodGet, "/flussiRendicontazione"}:                                   {summary: "List settlement reports", query: flussiFilters.query("idDominio"), params: flussiFilters.params(), resp: Page[flussoView]{}, list: true},
	{domain.APIBackoffice, http.MethodGet, "/riscossioni"}:                                             {summary: "List collections", query: boRiscossioniFilters.query("idDominio"), params: boRiscossioniFilters.params(), resp: Page[riscossioneView]{}, list: true},
	{domain.APIBackoffice, http.MethodGet, "/eventi"}:                                                  {summary: "Read the event log (secrets removed)", query: []string{"da", "limite"}, resp: eventiPage{}, params: map[string]paramSchema{"da": logPosition.from(0), "limite": {integer: true, min: 1, max: maxEventiLimite}}},
	{domain.APIBackoffice, http.MethodPost, "/autorizzazioni/verifica"}:                                {summary: "Explain the decision a request would receive", body: verificaBody{}, resp: audit.Explanation{}, readOnly: true},
	{domain.APIBackoffice, http.MethodGet, "/autorizzazioni"}:                                          {summary: "Who may do an operation", query: auditQuery, resp: audit.WhoCanResult{}, params: auditParams(nil)},
	{domain.APIBackoffice, http.MethodGet, "/autorizzazioni/principal"}:                                {summary: "What a principal could do, and over which scope, at a point of the log", query: []string{"principal", "posizione", "data"}, resp: whatcan.Result{}, params: map[string]paramSchema{"principal": askedAbout}},
	{domain.APIBackoffice, http.MethodGet, "/autorizzazioni/principal/risorse"}:                        {summary: "The resources a principal could act on with one operation, paginated", query: []string{"principal", "posizione", "data", "api", "operazione", "servizio", "autorizzazione", "dopo", "limite"}, resp: resourcesPage{}, params: whatCanResourcesParams},
	{domain.APIBackoffice, http.MethodGet, "/giornale/checkpoint"}:                                     {summary: "The verifiable log's tree and its signed checkpoints", resp: logState{}},
	{domain.APIBackoffice, http.MethodGet, "/giornale/prove/inclusione"}:                               {summary: "An inclusion proof of an event against a signed checkpoint", query: []string{"posizione", "indice", "checkpoint"}, resp: logtree.Proof{}, params: map[string]paramSchema{"posizione": logPosition.need(), "checkpoint": logPosition}},
	{domain.APIBackoffice, http.MethodGet, "/giornale/prove/consistenza"}:                              {summary: "A consistency proof between two signed checkpoints (da the older's position, a the newer's, by default the latest checkpoint)", query: []string{"da", "a"}, resp: logtree.Proof{}, params: map[string]paramSchema{"da": logPosition.need(), "a": logPosition}},
	{domain.APIBackoffice, http.MethodGet, "/enumerazioni/serviziACL"}:                                 {summary: "The names of the Backoffice services, in GovPay's order", resp: []string{}},
	{domain.APIBackoffice, http.MethodGet, "/logout"}:                                                  {summary: "End the caller's session (200, no body)"},
	{domain.APIPagamento, http.MethodGet, "/logout"}:                                                   {summary: "End the caller's payment session (200, no body; an anonymous session cookie is expired)"},
	{domain.APIPagamento, http.MethodGet, "/domini"}:                                                   {summary: "The creditor entities the caller may pay", resp: Page[dominioRef]{}, list: true},
	{domain.APIPagamento, http.MethodGet, "/domini/:idDominio/tipiPendenza"}:                           {summary: "The pendenza types of an entity the caller may pay spontaneously", resp: Page[tipoPagabile]{}, list: true},
	{domain.APIPagamento, http.MethodGet, "/domini/:idDominio/unitaOperative"}:                         {summary: "List the enabled operational units of an entity the caller may pay at", resp: Page[unitaOperativaRef]{}, list: true},
	{domain.APIPagamento, http.MethodGet, "/pendenze/byAvviso/:idDominio/:numeroAvviso"}:               {summary: "Read a pendenza by its notice (payer or PAGAMENTO grant)", resp: pendenzaDetail{}, captcha: true},
	{domain.APIPendenze, http.MethodGet, "/pendenze/byAvviso/:idDominio/:numeroAvviso"}:                {summary: "Read a pendenza the caller created, by its notice", resp: pendenzaDetailPendenze{}},
	{domain.APIPendenze, http.MethodGet, "/profilo"}:                                                   {summary: "The caller's profile in GovPay's shape", resp: govpayProfilo{}},
	{domain.APIRagioneria, http.MethodGet, "/pendenze/byAvviso/:idDominio/:numeroAvviso"}:              {summary: "Read a pendenza by its notice (entities of the RAGIONERIA grant)", resp: pendenzaView{}},
	{domain.APIRagioneria, http.MethodGet, "/profilo"}:                                                 {summary: "The caller's profile in GovPay's shape", resp: govpayProfilo{}},
	{domain.APIBackoffice, http.MethodGet, "/profilo"}:                                                 {summary: "The caller's profile", resp: profiloView{}},
	{domain.APIBackoffice, http.MethodPatch, "/profilo"}:                                               {summary: "An operator changes its own password (one REPLACE of /password); nothing else of its profile (403 own-profile)", body: []patchOp{}, resp: profiloView{}},
	{domain.APIBackoffice, http.MethodGet, "/operazioni/resetCacheAnagrafica"}:                         {summary: "Accepted for GovPay compatibility; caches follow the log", resp: esitoView{}},
	{domain.APIBackoffice, http.MethodPut, "/configurazioni/hardening"}:                                {summary: "Configure the public API protection", body: hardeningBody{}, resp: hardeningView{}, created: true},
	{domain.APIBackoffice, http.MethodGet, "/configurazioni/hardening"}:                                {summary: "Read the public API protection", resp: hardeningView{}},
	{domain.APIPendenze, http.MethodPut, "/pendenze/:idA2A/:idPendenza"}:                               {summary: "Create or update a pendenza", body: pendenzaBody{}, resp: pendenzaView{}, created: true},
	{domain.APIPendenze, http.MethodGet, "/pendenze/:idA2A/:idPendenza"}:                               {summary: "Read a pendenza the caller created", resp: pendenzaDetailPendenze{}},
	{domain.APIPendenze, http.MethodGet, "/pendenze"}:                                                  {summary: "List the pendenze the caller created", query: debitoreFilters.query(), params: debitoreFilters.params(), resp: Page[pendenzaView]{}, list: true},
	{domain.APIPagamento, http.MethodPost, "/pagamenti"}:                                               {summary: "Start a payment", body: pagamentoBody{}, resp: pagamentoCreated{}, createsOnly: true},
	{domain.APIPagamento, http.MethodGet, "/pagamenti/:id"}:                                            {summary: "Read a payment", resp: pagamentoView{}, params: paymentID},
	{domain.APIPagamento, http.MethodGet, "/pagamenti"}:                                                {summary: "List the caller's payments", query: shownPagamentiFilters(domain.Principal{}).query(), params: shownPagamentiFilters(domain.Principal{}).params(), resp: Page[pagamentoView]{}, list: true},
	{domain.APIPagamento, http.MethodGet, "/pendenze/:idA2A/:idPendenza"}:                              {summary: "Read a pendenza to pay", resp: pendenzaDetail{}},
	{domain.APIPagamento, http.MethodGet, "/pendenze"}:                                                 {summary: "List the pendenze the caller may pay", query: pagatoreFilters.query(), params: pagatoreFilters.params(), resp: Page[pendenzaView]{}, list: true},
	{domain.APIPagamento, http.MethodPost, "/pendenze/:idDominio/:idTipoPendenza"}:                     {summary: "POST /pendenze/{idDominio}/{idTipoPendenza} (the two segments are the entity and the type): a payer creates its own pendenza of a type that allows it (citizens: as payer; anonymous: the session's; applications: in their PAGAMENTO scope); 201", body: pendenzaPagamentoBody{}, resp: pendenzaCreata{}, createsOnly: true, docPath: "/pendenze/:idA2A/:idPendenza"},
	{domain.APIPagamento, http.MethodGet, "/avvisi/:idDominio/:numeroAvviso"}:                          {summary: "Read a payment notice", resp: avvisoView{}, captcha: true},
	{domain.APIPagamento, http.MethodGet, "/profilo"}:                                                  {summary: "The caller's profile", resp: profiloView{}},
	{domain.APIRagioneria, http.MethodPut, "/riconciliazioni/:idDominio/:id"}:                          {summary: "Record a reconciliation", body: riconciliazioneBody{}, resp: riconciliazioneView{}, created: true, params: reconciliationID},
	{domain.APIRagioneria, http.MethodGet, "/riconciliazioni/:idDominio/:id"}:                          {summary: "Read a reconciliation", resp: riconciliazioneView{}, params: reconciliationID},
	{domain.APIRagioneria, http.MethodGet, "/riconciliazioni"}:                                         {summary: "List reconciliations", query: riconciliazioniFilters.query("idDominio"), params: riconciliazioniFilters.params(), resp: Page[riconciliazioneView]{}, list: true},
	{domain.APIRagioneria, http.MethodGet, "/flussiRendicontazione"}:                                   {summary: "List settlement reports", query: flussiFilters.query("idDominio"), params: flussiFilters.params(), resp: Page[flussoView]{}, list: true},
	{domain.APIRagioneria, http.MethodGet, "/flussiRendicontazione/:idDominio/:idFlusso"}:              {summary: "Read a settlement report", resp: flussoView{}},
	{domain.APIRagioneria, http.MethodGet, "/riscossioni"}:                                             {summary: "List collections", query: riscossioniFilters.query("idDominio"), params: riscossioniFilters.params(), resp: Page[riscossioneView]{}, list: true},
	{domain.APIRagioneria, http.MethodGet, "/pagamenti"}:                                               {summary: "List payments with the items in the caller's scope", resp: Page[pagamentoView]{}, list: true},
	{domain.APIRagioneria, http.MethodGet, "/pagamenti/:id"}:                                           {summary: "Read a payment's items in the caller's scope", resp: pagamentoView{}, params: paymentID},
	{domain.APINodo, http.MethodGet, "/intermediari/:idIntermediario/avvisi/:idDominio/:numeroAvviso"}: {summary: "Verify a payment notice", resp: avvisoView{}, unprocessable: true},
	{domain.APINodo, http.MethodPost, "/intermediari/:idIntermediario/ricevute"}:                       {summary: "Record a receipt", body: ricevutaBody{}, resp: ricevutaView{}, created: true},
	{domain.APINodo, http.MethodPost, "/intermediari/:idIntermediario/flussiRendicontazione"}:          {summary: "Record a settlement report", body: flussoBody{}, resp: flussoView{}, created: true},

	// Issue 13 §4: PATCH of pendenze, receipts, collections and settlement
	// reports by id, one event, incassi.
	{domain.APIBackoffice, http.MethodGet, "/eventi/:id"}:                                                {summary: "Read one event of the log by its id (secrets removed; scoped as the log)", resp: operations.EventEntry{}, params: eventID},
	{domain.APIPendenze, http.MethodPatch, "/pendenze/:idA2A/:idPendenza"}:                               {summary: "Cancel (stato ANNULLATA) or reopen (NON_ESEGUITA) a pendenza the caller created", body: pendenzaPatch{}, resp: pendenzaView{}},
	{domain.APIBackoffice, http.MethodPatch, "/pendenze/:idA2A/:idPendenza"}:                             {summary: "Cancel (stato ANNULLATA) or reopen (NON_ESEGUITA) a pendenza (Pendenze W on its entity and type)", body: pendenzaPatch{}, resp: pendenzaView{}},
	{domain.APIRagioneria, http.MethodGet, "/riscossioni/:idDominio/:iuv/:iur/:indice"}:                  {summary: "Read a collection (entities of the RAGIONERIA grant)", resp: riscossioneView{}},
	{domain.APIRagioneria, http.MethodGet, "/ricevute"}:                                                  {summary: "List receipts (entities of the RAGIONERIA grant)", query: ricevuteFilters.query("idDominio"), params: ricevuteFilters.params(), resp: Page[ricevutaResource]{}, list: true},
	{domain.APIRagioneria, http.MethodGet, "/ricevute/:idDominio/:iuv/:idRicevuta"}:                      {summary: "Read a receipt (entities of the RAGIONERIA grant)", resp: ricevutaResource{}},
	{domain.APIBackoffice, http.MethodGet, "/riscossioni/:idDominio/:iuv/:iur/:indice"}:                  {summary: "Read a collection (Rendicontazioni e Incassi R on its entity)", resp: riscossioneView{}},
	{domain.APIBackoffice, http.MethodGet, "/ricevute"}:                                                  {summary: "List receipts (Pagamenti R, entities in scope)", query: ricevuteFilters.query("idDominio"), params: ricevuteFilters.params(), resp: Page[ricevutaResource]{}, list: true},
	{domain.APIBackoffice, http.MethodGet, "/ricevute/:idDominio/:iuv/:idRicevuta"}:                      {summary: "Read a receipt (Pagamenti R on its entity)", resp: ricevutaResource{}},
	{domain.APIRagioneria, http.MethodGet, "/flussiRendicontazione/:idDominio/:idFlusso/:dataOraFlusso"}: {summary: "Read a settlement report under its date (entities of the RAGIONERIA grant)", resp: flussoView{}},
	{domain.APIBackoffice, http.MethodGet, "/flussiRendicontazione/:idDominio/:idFlusso/:dataOraFlusso"}: {summary: "Read a settlement report under its date (Rendicontazioni e Incassi R on its entity)", resp: flussoView{}},
	{domain.APIBackoffice, http.MethodGet, "/incassi"}:                                                   {summary: "List incassi (Rendicontazioni e Incassi R, entities in scope)", query: incassiFilters.query("idDominio"), params: incassiFilters.params(), resp: Page[incassoView]{}, list: true},
	{domain.APIBackoffice, http.MethodGet, "/incassi/:idDominio/:idIncasso"}:                             {summary: "Read an incasso (Rendicontazioni e Incassi R on its entity)", resp: incassoView{}},
	{domain.APIBackoffice, http.MethodPost, "/incassi/:idDominio"}:                                       {summary: "Record an incasso (Rendicontazioni e Incassi W on the entity); 201", body: incassoBody{}, resp: incassoView{}, createsOnly: true},
}

// auditQuery are the query parameters of GET /autorizzazioni: the
// question, then every field of its resource (audit.ResourceFrom reads
// them).
var auditQuery = func() []string {
	q := []string{"api", "operazione", "posizione", "data"}
	for _, f := range (audit.Resource{}).Fields() {
		q = append(q, f.Name)
	}
	return q
}()

// askedAbout is the principal an audit question asks about: any string,
// required.
var askedAbout = paramSchema{required: true}

// whatCanResourcesParams are the formats of GET
// /autorizzazioni/principal/risorse: a question's, who it asks about, and
// its page (dopo, ParseUint's, and limite).
var whatCanResourcesParams = auditParams(map[string]paramSchema{
	"principal": askedAbout,
	"dopo":      {integer: true, format: "uint64", description: "the successivo of the previous page"},
	"limite":    {integer: true, min: 1, max: maxResourcesLimit},
})

// The formats of a path parameter named id, which means another thing on
// each route: a payment's, an event's (a pattern the handler matches, then
// the bounds it cannot say), a reconciliation's.
var (
	paymentID        = map[string]paramSchema{"path:id": {pattern: rePaymentID.String()}}
	reconciliationID = map[string]paramSchema{"path:id": {pattern: commands.PatternID}}
	eventID          = map[string]paramSchema{"path:id": {pattern: operations.PatternEventID,
		description: fmt.Sprintf("position[.index]: a position within 64 bits, an index in its commit from 0 to %d", operations.MaxEventIndex)}}
)

// auditParams are the formats of an audit question's query parameters,
// with more: api and operazione are required (an operazione is one of the
// catalogue's, matched ignoring case), servizio and autorizzazione are
// read as the Backoffice's (autorizzazione in either case), and every
// other field of the resource is any string, as the server reads it (a
// question may name a resource no one could hold).
func auditParams(more map[string]paramSchema) map[string]paramSchema {
	ps := map[string]paramSchema{
		"api": paramSchemas["api"].need(),
		"operazione": {enum: auditOperationNames(), required: true,
			description: "an operation of the api (matched ignoring case)"},
		"servizio": {enum: domainNames(domain.Services)},
	}
	for _, f := range (audit.Resource{}).Fields() {
		if _, set := ps[f.Name]; !set {
			ps[f.Name] = paramSchema{}
		}
	}
	var rights []string
	for _, r := range []domain.Right{domain.RightRead, domain.RightWrite} {
		rights = append(rights, r.String(), strings.ToLower(r.String()))
	}
	ps["autorizzazione"] = paramSchema{enum: rights}
	maps.Copy(ps, more)
	return ps
}

// auditOperationNames are the names of the catalogue's operations over
// every API questions are asked about, sorted, each once.
func auditOperationNames() []string {
	var names []string
	for _, api := range audit.APIs {
		names = append(names, audit.Names(api)...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// domainNames are the names of a domain enum's values.
func domainNames[T fmt.Stringer](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = v.String()
	}
	return out
}

// paramSchemas are the formats of path and query parameters: a regular
// expression (the one the handlers check), or a type. An entry "query:name"
// is the format of the query parameter name where a path parameter of the
// same name means something else ("path:name" the other way round).
var paramSchemas = map[string]paramSchema{
	"idDominio":          {pattern: commands.PatternDominio},
	"numeroAvviso":       {pattern: commands.PatternAvviso},
	"idTipoPendenza":     {pattern: commands.PatternID},
	"idA2A":              {pattern: commands.PatternID},
	"idPendenza":         {pattern: commands.PatternID},
	"idIntermediario":    {pattern: commands.PatternID},
	"idRuolo":            {pattern: commands.PatternID},
	"idFlusso":           {pattern: commands.PatternFlusso},
	"idRiconciliazione":  {pattern: commands.PatternID},
	"iuv":                {pattern: commands.PatternID},
	"idIncasso":          {pattern: commands.PatternID},
	"idRicevuta":         {pattern: commands.PatternID},
	"idUnitaOperativa":   {pattern: commands.PatternID},
	"iur":                {pattern: commands.PatternID},
	"indice":             {pattern: reIndice.String()}, // a collection's (riscossioni), no leading zero
	"abilitato":          {enum: abilitatoValues, description: "keeps only the enabled (true) or the disabled (false) entries (GovPay's filter)"},
	"dataOraFlusso":      {description: "an RFC 3339 date-time, one without a zone (Europe/Rome) or a date (its midnight in Europe/Rome; domain.ParseFlowDate)"},
	"query:indice":       {integer: true, min: 0, max: math.MaxUint32}, // an event's place in its commit (inclusion proofs)
	"pagina":             {integer: true, min: 1},
	"risultatiPerPagina": {integer: true, min: 0, max: maxRisultatiPerPagina, description: "0 counts the results (numRisultati) and answers none"},
	"posizione":          logPosition,
	"data":               {format: "date-time"},
	"api":                {enum: audit.APINames()},
	// API.md section 3: "<backend>:<position>" (Token); the backends are
	// the two stores'.
	"header:" + ConsistencyHeader: {pattern: `^(jetstream|kurrentdb):[0-9]{1,20}$`},
	// An operator's principal (/operatori/{principal}); the audit
	// questions' principal is any name.
	"path:principal": {pattern: commands.PatternPrincipal, maxLength: commands.MaxPrincipalLength,
		description: fmt.Sprintf("at most %d bytes of UTF-8, no control character", commands.MaxPrincipalLength)},
}

type paramSchema struct {
	pattern  string
	format   string // with integer too: its width (uint64)
	enum     []string
	integer  bool
	min, max int
	required bool // a query parameter the operation refuses to go without
	// maxLength bounds a string parameter; description says what the
	// schema cannot (a length in bytes, a case-insensitive match).
	maxLength   int
	description string
}

// logPosition is a position of the log as the handlers read it
// (strconv.ParseUint, 64 bits): from 1 unless said otherwise.
var logPosition = paramSchema{integer: true, min: 1, format: "uint64"}

// from is ps counting from min.
func (ps paramSchema) from(min int) paramSchema { ps.min = min; return ps }

// need is ps required.
func (ps paramSchema) need() paramSchema { ps.required = true; return ps }
