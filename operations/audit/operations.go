package audit

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// Resource names what an operation acts on. Each operation reads only the
// fields it needs and reports a missing one as ErrBadQuery.
type Resource struct {
	Service           string `json:"servizio,omitempty"`          // Backoffice service, e.g. "Pendenze"
	Right             string `json:"autorizzazione,omitempty"`    // Backoffice right, "R" or "W"
	IDDominio         string `json:"idDominio,omitempty"`         // creditor entity
	IDTipoPendenza    string `json:"idTipoPendenza,omitempty"`    // pendenza type
	IDUnitaOperativa  string `json:"idUnitaOperativa,omitempty"`  // the entity's operational unit
	IDA2A             string `json:"idA2A,omitempty"`             // pendenza creator (path idA2A)
	IDPendenza        string `json:"idPendenza,omitempty"`        // pendenza id
	NumeroAvviso      string `json:"numeroAvviso,omitempty"`      // notice number
	IDPagamento       string `json:"idPagamento,omitempty"`       // payment id
	IDRiconciliazione string `json:"idRiconciliazione,omitempty"` // reconciliation id
	IUV               string `json:"iuv,omitempty"`               // IUV of a receipt's or collection's notice
	IDRicevuta        string `json:"idRicevuta,omitempty"`        // receipt id (a collection's iur)
	IDFlusso          string `json:"idFlusso,omitempty"`          // settlement report id
	DataOraFlusso     string `json:"dataOraFlusso,omitempty"`     // settlement report date
	IDIncasso         string `json:"idIncasso,omitempty"`         // incasso id
	IDIntermediario   string `json:"idIntermediario,omitempty"`   // intermediary id
	IDRuolo           string `json:"idRuolo,omitempty"`           // role id
	// PrincipalOperatore is an operator's principal (GovPay's path
	// /operatori/{principal}); "principal" names who is asked about.
	PrincipalOperatore string `json:"principalOperatore,omitempty"`
}

// Field is one field of a Resource by its wire name: the JSON name of
// POST /autorizzazioni/verifica, the query parameter of GET
// /autorizzazioni, the console's form field.
type Field struct{ Name, Value string }

// resourceFields are the wire name and index of each field of Resource,
// in declaration order (every field is a string with a JSON name:
// TestResourceFieldsAreNamedStrings).
var resourceFields = func() []resourceField {
	t := reflect.TypeFor[Resource]()
	out := make([]resourceField, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if t.Field(i).Type.Kind() == reflect.String && name != "" && name != "-" {
			out = append(out, resourceField{name, i})
		}
	}
	return out
}()

type resourceField struct {
	name  string
	index int
}

// ResourceFrom reads every field of a Resource by its wire name from get
// (a query's or a form's values).
func ResourceFrom(get func(name string) string) Resource {
	var r Resource
	v := reflect.ValueOf(&r).Elem()
	for _, f := range resourceFields {
		v.Field(f.index).SetString(get(f.name))
	}
	return r
}

// Fields are r's fields by their wire names, in declaration order, empty
// ones included.
func (r Resource) Fields() []Field {
	v := reflect.ValueOf(r)
	out := make([]Field, len(resourceFields))
	for k, f := range resourceFields {
		out[k] = Field{Name: f.name, Value: v.Field(f.index).String()}
	}
	return out
}

// WithIDs returns r with each empty field that names a resource by its id
// set to v: every field but the service, the right and the place
// (idDominio, idUnitaOperativa, idTipoPendenza).
func (r Resource) WithIDs(v string) Resource {
	rv := reflect.ValueOf(&r).Elem()
	for _, f := range resourceFields {
		switch f.name {
		case "servizio", "autorizzazione", "idDominio", "idUnitaOperativa", "idTipoPendenza":
			continue
		}
		if fv := rv.Field(f.index); fv.String() == "" {
			fv.SetString(v)
		}
	}
	return r
}

// place is where the query's resource lies (entity, unit, type).
func (r Resource) place() domain.Place {
	return domain.Place{IDDominio: r.IDDominio, IDUnita: r.IDUnitaOperativa, IDTipoPendenza: r.IDTipoPendenza}
}

// Operation is one entry of the catalogue: a named thing a caller does on
// one API, decided by the same domain functions the HTTP layer calls for
// the listed routes.
type Operation struct {
	API     domain.API
	Name    string
	Summary string
	Routes  []string // the HTTP routes and commands whose decision this is
	// decide reads the query and calls the operation function the routes'
	// handlers call. It returns nil (allowed), a *domain.ForbiddenError,
	// domain.ErrNotFound, an *operations.UnprocessableError, or ErrBadQuery.
	decide decideFunc
	// registry: the operation is about a registry entry (a role, an
	// operator, an application, an intermediary), which lies at no place
	// whatever else the query names (resourcePlaces).
	registry bool
}

// decideFunc decides one query of an operation: see Operation.decide.
type decideFunc = func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error

// Model is what the catalogue's decisions read: the operations' own small
// readers, which *projections.ReadModel implements. A caller that already
// holds a resource may answer its lookup itself (whatcan's listings).
type Model interface {
	operations.Entities
	operations.IncassiStore
	operations.Pendenze
	operations.Notices
	operations.Payments
	operations.PendenzaViews
	operations.Reconciliations
	operations.SettlementReports
	operations.Registry
	operations.Receipts
	operations.PendenzaTypes
	operations.Units
	Intermediary(id string) (*projections.Intermediary, bool)
	Role(id string) (*projections.RoleRecord, bool)
	Operator(principal string) (*projections.Operator, bool)
	Application(idA2A string) (*projections.Application, bool)
}

// Key is "API/name", e.g. "PENDENZE/read".
func (o *Operation) Key() string { return o.API.String() + "/" + o.Name }

// need takes (field, value) pairs and reports the first field left empty
// (a *MissingFieldError).
func need(fieldsAndValues ...string) error {
	for i := 0; i+1 < len(fieldsAndValues); i += 2 {
		if fieldsAndValues[i+1] == "" {
			return &MissingFieldError{Field: fieldsAndValues[i]}
		}
	}
	return nil
}

// backofficeRight parses the service and right of a Backoffice query.
func backofficeRight(r Resource) (domain.Service, domain.Right, error) {
	if err := need("servizio", r.Service); err != nil {
		return domain.Service{}, 0, err
	}
	s, err := domain.ParseService(r.Service)
	if err != nil {
		return domain.Service{}, 0, &QueryError{Code: QueryUnknownService, Args: []any{r.Service}, Detail: err.Error()}
	}
	if r.Right == "" {
		r.Right = "R"
	}
	right, err := domain.ParseRight(strings.ToUpper(r.Right)) // a query may say "r"
	if err != nil {
		return domain.Service{}, 0, &QueryError{Code: QueryUnknownRight, Args: []any{r.Right}, Detail: err.Error()}
	}
	return s, right, nil
}

// catalogue is every operation, by API. It is fixed at start-up and only
// read afterwards. Each decide reads the query's fields and calls the
// operation function the HTTP handler (or command) of its routes calls.
var catalogue = []*Operation{
	// BACKOFFICE (API.md section 4).
	{API: domain.APIBackoffice, Name: "serviziACL", Summary: "list the services an ACL entry may name (any role)",
		Routes: []string{"GET /enumerazioni/serviziACL"},
		decide: gate(operations.ServiziACL)},
	logout(domain.APIBackoffice),
	logout(domain.APIPagamento),
	{API: domain.APIPagamento, Name: "payable-domini", Summary: "list the entities the caller may pay at",
		Routes: []string{"GET /domini"},
		decide: gate(discard(operations.PayableDomini))},
	{API: domain.APIPagamento, Name: "payable-tipi", Summary: "list the types the caller may pay spontaneously at idDominio",
		Routes: []string{"GET /domini/{idDominio}/tipiPendenza", "GET /domini/{idDominio}/unitaOperative"},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			return reads(need("idDominio", r.IDDominio), func() (operations.PayableScope, error) {
				return operations.PayableTipi(m, p, r.IDDominio, rec)
			})
		}},
	{API: domain.APIBackoffice, Name: "profilo", Summary: "read the caller's profile (any role)",
		Routes: []string{"GET /profilo"},
		decide: gate(operations.ProfiloBackoffice)},
	{API: domain.APIBackoffice, Name: "patch-profilo", Summary: "change the caller's own password (PATCH /profilo; an operator, nothing else of its profile)",
		Routes: []string{"PATCH /profilo"},
		decide: func(_ Model, p domain.Principal, _ Resource, rec operations.Recorder) error {
			return operations.ChangeOwnPassword(p, rec)
		}},
	{API: domain.APIBackoffice, Name: "patch-pendenza", Summary: "cancel or reopen (PATCH of /stato) the pendenza idA2A/idPendenza: Pendenze W on its entity × type",
		Routes: []string{"PATCH /pendenze/{idA2A}/{idPendenza}"},
		decide: pendenzaRead(patchOf(domain.APIBackoffice))},
	{API: domain.APIBackoffice, Name: "servizio",
		Summary: "use a service right (servizio, autorizzazione R|W), optionally on an idDominio, an idTipoPendenza, idDominio×idTipoPendenza, a stored pendenza (idA2A, idPendenza) or payment (idPagamento)",
		Routes: []string{"GET /domini", "GET /domini/{idDominio}/unitaOperative", "GET /tipiPendenza", "PUT /tipiPendenza/{idTipoPendenza}",
			"GET /intermediari", "PUT /intermediari/{idIntermediario}", "GET /ruoli", "PUT /ruoli/{idRuolo}",
			"GET /operatori", "PUT /operatori/{principal}", "GET /applicazioni",
			"GET /pendenze", "GET /pendenze/{idA2A}/{idPendenza}", "GET /pagamenti", "GET /pagamenti/{id}",
			"GET /riconciliazioni", "GET /flussiRendicontazione", "GET /riscossioni", "GET /incassi", "GET /eventi",
			"POST /autorizzazioni/verifica", "GET /autorizzazioni",
			"GET /configurazioni/hardening", "PUT /configurazioni/hardening", "GET /operazioni/resetCacheAnagrafica"},
		decide: decideService},
	{API: domain.APIBackoffice, Name: "audit-whole-log",
		Summary: "ask about the whole log: what-can of any principal, the verifiable log's checkpoints and proofs (Giornale degli Eventi R on every entity and type)",
		Routes: []string{"GET /autorizzazioni/principal", "GET /autorizzazioni/principal/risorse",
			"GET /giornale/checkpoint", "GET /giornale/prove/inclusione", "GET /giornale/prove/consistenza"},
		decide: gate(operations.AuditWholeLog)},
	// The registry reads a Resource can name: the entry is looked up
	// after the right (403 before 404), as the routes do.
	{API: domain.APIBackoffice, Name: "read-dominio", Summary: "read the entity idDominio (Anagrafica Creditore R on it)",
		Routes: []string{"GET /domini/{idDominio}"},
		decide: idRead(idDominio, operations.ReadEntity)},
	{API: domain.APIBackoffice, Name: "write-dominio", Summary: "register or update the entity idDominio (Anagrafica Creditore W on it; the intermediary idIntermediario it names, when named, must be registered)",
		Routes: []string{"PUT /domini/{idDominio}"},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			if err := need("idDominio", r.IDDominio); err != nil {
				return err
			}
			return operations.WriteEntity(m, p, r.IDDominio, r.IDIntermediario, rec)
		}},
	{API: domain.APIBackoffice, Name: "read-unita-operativa", Summary: "read the operational unit idDominio/idUnitaOperativa (Anagrafica Creditore R on the whole entity)",
		Routes: []string{"GET /domini/{idDominio}/unitaOperative/{idUnitaOperativa}"},
		decide: dominioRead(idUnitaOperativa, operations.ReadUnit)},
	{API: domain.APIBackoffice, Name: "write-unita-operativa", Summary: "register or update an operational unit of idDominio (Anagrafica Creditore W on the whole entity; the entity must be registered)",
		Routes: []string{"PUT /domini/{idDominio}/unitaOperative/{idUnitaOperativa}"},
		decide: dominioWrite(operations.WriteUnit)},
	{API: domain.APIBackoffice, Name: "read-tipo-pendenza", Summary: "read the pendenza type idTipoPendenza (Anagrafica Creditore R on it)",
		Routes: []string{"GET /tipiPendenza/{idTipoPendenza}"},
		decide: idRead(idTipoPendenza, operations.ReadTipoPendenza)},
	registryOp("read-intermediario", "read the intermediary idIntermediario (Anagrafica PagoPA R)", "GET /intermediari/{idIntermediario}",
		idIntermediario, domain.RegistryIntermediari, Model.Intermediary, operations.ReadRegistry),
	registryOp("read-ruolo", "read the role idRuolo (Anagrafica Ruoli R)", "GET /ruoli/{idRuolo}",
		idRuolo, domain.RegistryRuoli, Model.Role, operations.ReadRegistry),
	registryOp("patch-ruolo", "change the role idRuolo (Anagrafica Ruoli W; the body is not evaluated)", "PATCH /ruoli/{idRuolo}",
		idRuolo, domain.RegistryRuoli, Model.Role, patchRegistry),
	registryOp("read-operatore", "read the operator principalOperatore (Anagrafica Ruoli R)", "GET /operatori/{principal}",
		principalOperatore, domain.RegistryOperatori, Model.Operator, operations.ReadRegistry),
	registryOp("patch-operatore", "change the operator principalOperatore (Anagrafica Ruoli W; the body is not evaluated)", "PATCH /operatori/{principal}",
		principalOperatore, domain.RegistryOperatori, Model.Operator, patchRegistry),
	registryOp("read-applicazione", "read the application idA2A (Anagrafica Applicazioni R)", "GET /applicazioni/{idA2A}",
		idA2A, domain.RegistryApplicazioni, Model.Application, operations.ReadRegistry),
	{API: domain.APIBackoffice, Name: "write-applicazione", Summary: "register or update the application idA2A (Anagrafica Applicazioni W; the body, its roles and grants, is not evaluated)",
		Routes: []string{"PUT /applicazioni/{idA2A}"},
		decide: func(_ Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			if err := need(idA2A.name, idA2A.of(r)); err != nil {
				return err
			}
			return operations.WriteApplicazione(p, idA2A.of(r), rec)
		}},
	registryOp("patch-applicazione", "change the application idA2A (Anagrafica Applicazioni W; the body is not evaluated)", "PATCH /applicazioni/{idA2A}",
		idA2A, domain.RegistryApplicazioni, Model.Application, patchRegistry),

	receiptRead(domain.APIBackoffice, "read-ricevuta", "read the receipt idDominio/iuv/idRicevuta (Pagamenti R on idDominio)",
		"GET /ricevute/{idDominio}/{iuv}/{idRicevuta}", operations.ReadRicevutaBackoffice),
	collectionRead(domain.APIBackoffice, "GET /riscossioni/{idDominio}/{iuv}/{iur}/{indice}", operations.ReadRiscossioneBackoffice),
	flowRead(domain.APIBackoffice, operations.ReadFlussoAtBackoffice),
	{API: domain.APIBackoffice, Name: "read-evento",
		Summary: "read one event of the log, named by the place it concerns: idDominio (and idUnitaOperativa, idTipoPendenza when the event has them); none for an event of a registry",
		Routes:  []string{"GET /eventi/{id}"},
		decide: func(_ Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			return operations.ReadEvent(p, func() ([]domain.Place, bool) {
				if r.IDDominio == "" {
					return nil, true
				}
				return []domain.Place{{IDDominio: r.IDDominio, IDUnita: r.IDUnitaOperativa, IDTipoPendenza: r.IDTipoPendenza}}, true
			}, rec)
		}},
	{API: domain.APIBackoffice, Name: "read-incasso", Summary: "read the incasso idDominio/idIncasso (Rendicontazioni e Incassi R on idDominio)",
		Routes: []string{"GET /incassi/{idDominio}/{idIncasso}"},
		decide: dominioRead(idIncasso, operations.ReadIncasso)},
	{API: domain.APIBackoffice, Name: "write-incasso", Summary: "record an incasso of idDominio (Rendicontazioni e Incassi W on idDominio)",
		Routes: []string{"POST /incassi/{idDominio}"},
		decide: dominioWrite(operations.WriteIncasso)},
	{API: domain.APIBackoffice, Name: "list-ricevute", Summary: "list receipts (Pagamenti R; each kept by its idDominio)",
		Routes: []string{"GET /ricevute"},
		decide: func(_ Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			_, err := operations.RicevuteList(p, r.IDDominio, rec)
			return err
		}},

	// PENDENZE (section 5).
	{API: domain.APIPendenze, Name: "create", Summary: "create a pendenza in idDominio × idTipoPendenza under idA2A (default: the caller's own)",
		Routes: []string{"PUT /pendenze/{idA2A}/{idPendenza} (new)"},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			if err := need("idDominio", r.IDDominio, "idTipoPendenza", r.IDTipoPendenza); err != nil {
				return err
			}
			// Without idA2A: under the caller's own (who may create there).
			return operations.PutPendenza(m, p, nil, or(r.IDA2A, p.IDA2A), r.place(), rec)
		}},
	{API: domain.APIPendenze, Name: "update",
		Summary: "update the stored pendenza idA2A/idPendenza (optionally moving it to idDominio, idUnitaOperativa × idTipoPendenza)",
		Routes:  []string{"PUT /pendenze/{idA2A}/{idPendenza} (existing)"},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			if err := needPendenza(r); err != nil {
				return err
			}
			return operations.UpdatePendenza(m, p, r.IDA2A, r.IDPendenza, r.place(), rec)
		}},
	{API: domain.APIPendenze, Name: "patch", Summary: "cancel or reopen (PATCH of /stato) the pendenza idA2A/idPendenza the caller created",
		Routes: []string{"PATCH /pendenze/{idA2A}/{idPendenza}"},
		decide: pendenzaRead(patchOf(domain.APIPendenze))},
	{API: domain.APIPendenze, Name: "read", Summary: "read the pendenza idA2A/idPendenza",
		Routes: []string{"GET /pendenze/{idA2A}/{idPendenza}"},
		decide: pendenzaRead(operations.ReadOwnPendenza)},
	{API: domain.APIPendenze, Name: "list", Summary: "list the caller's own pendenze",
		Routes: []string{"GET /pendenze"},
		decide: gate(operations.ListOwnPendenze)},
	{API: domain.APIPendenze, Name: "profilo", Summary: "read the caller's own profile (GovPay's Profilo)",
		Routes: []string{"GET /profilo"},
		decide: onAPI(domain.APIPendenze, operations.ProfiloAPI)},

	// PAGAMENTO (section 6).
	{API: domain.APIPagamento, Name: "pay",
		Summary: "start a payment of a pendenza (idA2A, idPendenza), a notice (idDominio, numeroAvviso) or a spontaneous one (idDominio, idTipoPendenza)",
		Routes:  []string{"POST /pagamenti"},
		decide:  decidePay},
	{API: domain.APIPagamento, Name: "create-pendenza", Summary: "create a pendenza of idDominio × idTipoPendenza as its payer (citizens: idA2A names no one, the payer is the citizen; others: the payer is not asked)",
		Routes: []string{"POST /pendenze/{idDominio}/{idTipoPendenza}"},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			if err := need("idDominio", r.IDDominio, "idTipoPendenza", r.IDTipoPendenza); err != nil {
				return err
			}
			payer := ""
			if p.Kind == domain.KindCitizen {
				payer = p.Name
			}
			return operations.CreatePendenzaPagamento(m, p, r.place(), payer, rec)
		}},
	{API: domain.APIPagamento, Name: "read-pendenza", Summary: "read the pendenza idA2A/idPendenza",
		Routes: []string{"GET /pendenze/{idA2A}/{idPendenza}"},
		decide: pendenzaRead(operations.ReadPendenzaPagamento)},
	{API: domain.APIPagamento, Name: "list-pendenze", Summary: "list pendenze",
		Routes: []string{"GET /pendenze"},
		decide: gate(operations.ListPendenzePagamento)},
	{API: domain.APIPagamento, Name: "read-payment", Summary: "read the payment idPagamento",
		Routes: []string{"GET /pagamenti/{id}"},
		decide: paymentRead(operations.ReadPaymentPagamento)},
	{API: domain.APIPagamento, Name: "list-payments", Summary: "list the payments the caller may read (each kept by read-payment's decision)",
		Routes: []string{"GET /pagamenti"},
		decide: gate(operations.ListPaymentsPagamento)},
	{API: domain.APIPagamento, Name: "read-notice", Summary: "read the notice idDominio/numeroAvviso (captcha protection not evaluated)",
		Routes: []string{"GET /avvisi/{idDominio}/{numeroAvviso}"},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			return reads(need("idDominio", r.IDDominio, "numeroAvviso", r.NumeroAvviso), func() (projections.Pendenza, error) {
				return operations.ReadNotice(m, p, r.IDDominio, r.NumeroAvviso, nil, rec)
			})
		}},
	byAvviso(domain.APIPagamento, func(m operations.Notices, p domain.Principal, idDominio, numeroAvviso string, rec operations.Recorder) (projections.Pendenza, error) {
		return operations.ReadByAvvisoPagamento(m, p, idDominio, numeroAvviso, nil, rec) // captcha protection not evaluated, as read-notice
	}),
	byAvviso(domain.APIPendenze, operations.ReadByAvvisoPendenze),
	byAvviso(domain.APIRagioneria, operations.ReadByAvvisoRagioneria),
	{API: domain.APIPagamento, Name: "profilo", Summary: "read the caller's profile",
		Routes: []string{"GET /profilo"},
		decide: gate(operations.ProfiloPagamento)},

	// RAGIONERIA (section 8).
	{API: domain.APIRagioneria, Name: "profilo", Summary: "read the caller's own profile (GovPay's Profilo)",
		Routes: []string{"GET /profilo"},
		decide: onAPI(domain.APIRagioneria, operations.ProfiloAPI)},
	{API: domain.APIRagioneria, Name: "write-reconciliation", Summary: "create the reconciliation idDominio/idRiconciliazione",
		Routes: []string{"PUT /riconciliazioni/{idDominio}/{id}"},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			if err := need("idDominio", r.IDDominio); err != nil {
				return err
			}
			var existing *domain.ReconciliationView
			if r.IDRiconciliazione != "" {
				if stored, ok := m.Reconciliation(r.IDDominio, r.IDRiconciliazione); ok {
					v := stored.View()
					existing = &v
				}
			}
			return operations.WriteReconciliation(m, p, r.IDDominio, existing, rec)
		}},
	{API: domain.APIRagioneria, Name: "read-reconciliation", Summary: "read the reconciliation idDominio/idRiconciliazione",
		Routes: []string{"GET /riconciliazioni/{idDominio}/{id}"},
		decide: dominioRead(idRiconciliazione, operations.ReadReconciliation)},
	{API: domain.APIRagioneria, Name: "read-dominio", Summary: "read the settlement report idDominio/idFlusso, or with no idFlusso any of idDominio (the grant must hold the entity whole; the lists keep their rows by place: operation list)",
		Routes: []string{"GET /flussiRendicontazione/{idDominio}/{idFlusso}"},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			if err := need("idDominio", r.IDDominio); err != nil {
				return err
			}
			if r.IDFlusso == "" {
				return operations.ReadRagioneriaDominio(p, r.IDDominio, rec)
			}
			_, err := operations.ReadFlusso(m, p, r.IDDominio, r.IDFlusso, rec)
			return err
		}},
	receiptRead(domain.APIRagioneria, "read-ricevuta", "read the receipt idDominio/iuv/idRicevuta",
		"GET /ricevute/{idDominio}/{iuv}/{idRicevuta}", operations.ReadRicevutaRagioneria),
	collectionRead(domain.APIRagioneria, "GET /riscossioni/{idDominio}/{iuv}/{iur}/{indice}", operations.ReadRiscossioneRagioneria),
	flowRead(domain.APIRagioneria, operations.ReadFlussoAt),
	{API: domain.APIRagioneria, Name: "list", Summary: "use the lists of the Ragioneria API",
		Routes: []string{"GET /riconciliazioni", "GET /flussiRendicontazione", "GET /riscossioni", "GET /ricevute", "GET /pagamenti"},
		decide: gate(operations.UseRagioneria)},
	{API: domain.APIRagioneria, Name: "read-payment", Summary: "read the payment idPagamento",
		Routes: []string{"GET /pagamenti/{id}"},
		decide: paymentRead(operations.ReadPaymentRagioneria)},
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func needPendenza(r Resource) error { return need("idA2A", r.IDA2A, "idPendenza", r.IDPendenza) }

// decideService is the Backoffice's service-right decision, by the most
// specific resource named, as the handler of that resource decides it.
func decideService(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
	s, right, err := backofficeRight(r)
	if err != nil {
		return err
	}
	switch {
	case r.IDA2A != "" || r.IDPendenza != "":
		if err := needPendenza(r); err != nil {
			return err
		}
		_, err := operations.OnPendenza(m, p, s, right, r.IDA2A, r.IDPendenza, rec)
		return err
	case r.IDPagamento != "":
		_, err := operations.OnPayment(m, p, s, right, r.IDPagamento, rec)
		return err
	case r.IDDominio != "" && r.IDTipoPendenza != "":
		return operations.OnPlace(p, s, right, r.place(), rec)
	case r.IDDominio != "":
		return operations.OnDominio(p, s, right, r.IDDominio, rec)
	case r.IDTipoPendenza != "":
		return operations.OnTipoPendenza(p, s, right, r.IDTipoPendenza, rec)
	}
	return operations.UseService(p, s, right, rec)
}

// decidePay is the payment decision for one reference, as
// commands.StartPayment decides it.
func decidePay(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
	switch {
	case r.IDA2A != "" || r.IDPendenza != "":
		if err := needPendenza(r); err != nil {
			return err
		}
		_, err := operations.PayPendenza(m, p, r.IDA2A, r.IDPendenza, rec)
		return err
	case r.NumeroAvviso != "":
		if err := need("idDominio", r.IDDominio); err != nil {
			return err
		}
		_, err := operations.PayNotice(m, p, r.IDDominio, r.NumeroAvviso, rec)
		return err
	case r.IDTipoPendenza != "":
		if err := need("idDominio", r.IDDominio); err != nil {
			return err
		}
		return operations.PaySpontaneous(m, p, r.IDDominio, r.IDTipoPendenza, rec)
	}
	return &QueryError{Code: QueryNoPayment,
		Detail: "name a pendenza (idA2A, idPendenza), a notice (idDominio, numeroAvviso) or a spontaneous payment (idDominio, idTipoPendenza)"}
}

// Lookup returns the operation name of api (names are case-insensitive).
func Lookup(api domain.API, name string) (*Operation, error) {
	for _, o := range catalogue {
		if o.API == api && strings.EqualFold(o.Name, name) {
			return o, nil
		}
	}
	return nil, fmt.Errorf("%w %q on the %s API (known: %s)", ErrUnknownOperation, name, api, strings.Join(Names(api), ", "))
}

// APIs are the APIs questions are asked about: every API but the node's
// (its one caller is the connector an intermediary configures, whose
// decision is the connector's identity, not a grant).
var APIs = []domain.API{domain.APIBackoffice, domain.APIPendenze, domain.APIPagamento, domain.APIRagioneria}

// APINames are the names of APIs, in order.
func APINames() []string {
	out := make([]string, len(APIs))
	for i, a := range APIs {
		out[i] = a.String()
	}
	return out
}

// Names lists the operation names of api, sorted.
func Names(api domain.API) []string {
	var out []string
	for _, o := range catalogue {
		if o.API == api {
			out = append(out, o.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Catalogue returns every operation, in catalogue order. The operations
// are shared: callers must not modify them.
func Catalogue() []*Operation { return catalogue }

// byAvviso is the catalogue entry of GET /pendenze/byAvviso on api,
// decided by op, the operation its route calls.
func byAvviso(api domain.API, op func(operations.Notices, domain.Principal, string, string, operations.Recorder) (projections.Pendenza, error)) *Operation {
	return &Operation{API: api, Name: "read-by-avviso", Summary: "read the pendenza of the notice idDominio/numeroAvviso",
		Routes: []string{"GET /pendenze/byAvviso/{idDominio}/{numeroAvviso}"},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			return reads(need("idDominio", r.IDDominio, "numeroAvviso", r.NumeroAvviso), func() (projections.Pendenza, error) {
				return op(m, p, r.IDDominio, r.NumeroAvviso, rec)
			})
		}}
}

// logout is the catalogue entry of GET /logout on api.
func logout(api domain.API) *Operation {
	return &Operation{API: api, Name: "logout", Summary: "end the caller's own session",
		Routes: []string{"GET /logout"},
		decide: onAPI(api, operations.Logout)}
}

// gate adapts an operation the caller alone decides (a list's gate, a
// profile).
func gate(op func(domain.Principal, operations.Recorder) error) decideFunc {
	return func(_ Model, p domain.Principal, _ Resource, rec operations.Recorder) error {
		return op(p, rec)
	}
}

// onAPI adapts an operation the caller alone decides on one API.
func onAPI(api domain.API, op func(domain.Principal, domain.API, operations.Recorder) error) decideFunc {
	return func(_ Model, p domain.Principal, _ Resource, rec operations.Recorder) error {
		return op(p, api, rec)
	}
}

// discard adapts an operation whose answer the catalogue does not need.
func discard[T any](op func(domain.Principal, operations.Recorder) (T, error)) func(domain.Principal, operations.Recorder) error {
	return func(p domain.Principal, rec operations.Recorder) error {
		_, err := op(p, rec)
		return err
	}
}

// reads runs a read once the query has its fields (bad is the first one
// missing), keeping only its decision.
func reads[T any](bad error, read func() (T, error)) error {
	if bad != nil {
		return bad
	}
	_, err := read()
	return err
}

// pendenzaRead adapts a read of the stored pendenza idA2A/idPendenza.
func pendenzaRead[M, T any](op func(M, domain.Principal, string, string, operations.Recorder) (T, error)) decideFunc {
	return func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
		return reads(needPendenza(r), func() (T, error) { return op(any(m).(M), p, r.IDA2A, r.IDPendenza, rec) })
	}
}

// patchOf is the decision of api's PATCH of a pendenza, as its route and
// command take it (operations.PatchPendenza).
func patchOf(api domain.API) func(operations.Pendenze, domain.Principal, string, string, operations.Recorder) (domain.PendenzaView, error) {
	op, _ := operations.PatchPendenza(api)
	return op.Authorize
}

// dominioRead adapts a read of the resource of idDominio named by the
// query's field f.
func dominioRead[M, T any](f idField, op func(M, domain.Principal, string, string, operations.Recorder) (T, error)) decideFunc {
	return func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
		return reads(need("idDominio", r.IDDominio, f.name, f.of(r)), func() (T, error) { return op(any(m).(M), p, r.IDDominio, f.of(r), rec) })
	}
}

// dominioWrite adapts a write to idDominio, whose body the query does not
// carry (a write of a resource that may not exist yet).
func dominioWrite[M any](op func(M, domain.Principal, string, operations.Recorder) error) decideFunc {
	return func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
		if err := need("idDominio", r.IDDominio); err != nil {
			return err
		}
		return op(any(m).(M), p, r.IDDominio, rec)
	}
}

// idRead adapts a read of the resource named by the query's field f.
func idRead[M, T any](f idField, op func(M, domain.Principal, string, operations.Recorder) (T, error)) decideFunc {
	return func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
		return reads(need(f.name, f.of(r)), func() (T, error) { return op(any(m).(M), p, f.of(r), rec) })
	}
}

// registryOp is the catalogue entry of a read or PATCH of one entry of
// the unscoped Backoffice registry reg, named by the query's field f and found
// by lookup, decided by op (operations.ReadRegistry, patchRegistry) as its
// route decides it.
func registryOp[T any](name, summary, route string, f idField, reg domain.Registry, lookup func(Model, string) (T, bool),
	op func(func(string) (T, bool), domain.Principal, domain.Registry, string, operations.Recorder) (T, error)) *Operation {
	return &Operation{API: domain.APIBackoffice, Name: name, Summary: summary, Routes: []string{route}, registry: true,
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			id := f.of(r)
			return reads(need(f.name, id), func() (T, error) {
				return op(func(key string) (T, bool) { return lookup(m, key) }, p, reg, id, rec)
			})
		}}
}

// patchRegistry is operations.PatchRegistry of a body the query does not
// carry: the right, then the entry.
func patchRegistry[T any](lookup func(string) (T, bool), p domain.Principal, reg domain.Registry, id string, rec operations.Recorder) (T, error) {
	return operations.PatchRegistry(lookup, p, reg, id, func() error { return nil }, rec)
}

// idField is a field of Resource naming a resource by its id, with its
// wire name.
type idField struct {
	name string
	of   func(Resource) string
}

var (
	idDominio          = idField{"idDominio", func(r Resource) string { return r.IDDominio }}
	idUnitaOperativa   = idField{"idUnitaOperativa", func(r Resource) string { return r.IDUnitaOperativa }}
	idTipoPendenza     = idField{"idTipoPendenza", func(r Resource) string { return r.IDTipoPendenza }}
	idIncasso          = idField{"idIncasso", func(r Resource) string { return r.IDIncasso }}
	idRiconciliazione  = idField{"idRiconciliazione", func(r Resource) string { return r.IDRiconciliazione }}
	idPagamento        = idField{"idPagamento", func(r Resource) string { return r.IDPagamento }}
	idIntermediario    = idField{"idIntermediario", func(r Resource) string { return r.IDIntermediario }}
	idRuolo            = idField{"idRuolo", func(r Resource) string { return r.IDRuolo }}
	principalOperatore = idField{"principalOperatore", func(r Resource) string { return r.PrincipalOperatore }}
	idA2A              = idField{"idA2A", func(r Resource) string { return r.IDA2A }}
)

// paymentRead adapts a read of the stored payment idPagamento.
func paymentRead(op func(operations.Payments, domain.Principal, string, operations.Recorder) (*projections.Payment, error)) decideFunc {
	return idRead(idPagamento, op)
}

// needReceipt reports the first field of a receipt's name left empty.
func needReceipt(r Resource) error {
	return need("idDominio", r.IDDominio, "iuv", r.IUV, "idRicevuta", r.IDRicevuta)
}

// receiptRead is the catalogue entry of a read of the receipt named by
// idDominio, iuv and idRicevuta, decided by op, the operation its route
// calls.
func receiptRead(api domain.API, name, summary, route string,
	op func(operations.Receipts, domain.Principal, operations.ReceiptKey, operations.Recorder) (*projections.Receipt, error)) *Operation {
	return &Operation{API: api, Name: name, Summary: summary, Routes: []string{route},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			return reads(needReceipt(r), func() (*projections.Receipt, error) {
				return op(m, p, operations.ReceiptKey{IDDominio: r.IDDominio, IUV: r.IUV, IDRicevuta: r.IDRicevuta}, rec)
			})
		}}
}

// collectionRead is the catalogue entry of a read of the collection named
// by idDominio, iuv and idRicevuta (its iur), item 1.
func collectionRead(api domain.API, route string,
	op func(operations.Receipts, domain.Principal, operations.CollectionKey, operations.Recorder) (*projections.Receipt, error)) *Operation {
	return &Operation{API: api, Name: "read-riscossione", Summary: "read the collection idDominio/iuv/idRicevuta (its iur), item 1",
		Routes: []string{route},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			return reads(needReceipt(r), func() (*projections.Receipt, error) {
				return op(m, p, operations.CollectionKey{ReceiptKey: operations.ReceiptKey{IDDominio: r.IDDominio,
					IUV: r.IUV, IDRicevuta: r.IDRicevuta}, Indice: 1}, rec)
			})
		}}
}

// flowRead is the catalogue entry of the by-date read of a settlement
// report on api, decided by op, the operation its route calls.
func flowRead(api domain.API, op func(operations.SettlementReports, domain.Principal, operations.FlowKey, operations.Recorder) (*projections.SettlementReport, error)) *Operation {
	return &Operation{API: api, Name: "read-flusso", Summary: "read the settlement report idDominio/idFlusso under its date dataOraFlusso",
		Routes: []string{"GET /flussiRendicontazione/{idDominio}/{idFlusso}/{dataOraFlusso}"},
		decide: func(m Model, p domain.Principal, r Resource, rec operations.Recorder) error {
			return reads(need("idDominio", r.IDDominio, "idFlusso", r.IDFlusso, "dataOraFlusso", r.DataOraFlusso), func() (*projections.SettlementReport, error) {
				return op(m, p, operations.FlowKey{IDDominio: r.IDDominio, IDFlusso: r.IDFlusso, DataOraFlusso: r.DataOraFlusso}, rec)
			})
		}}
}
