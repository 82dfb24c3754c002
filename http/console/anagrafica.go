package console

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// The registry pages of Anagrafica: Tipi pendenza, Operatori, Ruoli,
// Intermediari. Reads are the Backoffice API's operations
// (operations.ReadTipoPendenza, ReadRegistry, ListRegistry), each registry
// named by its domain.Registry; writes the Backoffice's commands. The role
// page edits the ACL as the 9 services × R/W grid plus its entity and type
// scope; what the operator does not hold itself is marked, and a
// save beyond it is refused with the delegation rule's reason.

type anagraficaOps interface {
	ReadRegistry(p domain.Principal, kind, id string) (any, error)
	ListTipi(p domain.Principal) ([]events.PendenzaTypeRegistered, error)
	PutTipo(ctx context.Context, a commands.Actor, in commands.PutPendenzaType) (commands.Result, error)
	PutOperatore(ctx context.Context, a commands.Actor, in commands.PutOperator) (commands.Result, error)
	PutRuolo(ctx context.Context, a commands.Actor, in commands.DefineRole) (commands.Result, error)
	PutIntermediario(ctx context.Context, a commands.Actor, in commands.PutIntermediary) (commands.Result, error)
}

var _ anagraficaOps = backoffice{}

// ReadRegistry is GET of one registry entry (kind: tipo, operatore, ruolo,
// intermediario) with the Backoffice's decision.
func (b backoffice) ReadRegistry(p domain.Principal, kind, id string) (any, error) {
	switch kind {
	case "tipo":
		return operations.ReadTipoPendenza(b.model, p, id, nil)
	case "operatore":
		return operations.ReadRegistry(b.model.Operator, p, domain.RegistryOperatori, id, nil)
	case "ruolo":
		return operations.ReadRegistry(b.model.Role, p, domain.RegistryRuoli, id, nil)
	default:
		return operations.ReadRegistry(b.model.Intermediary, p, domain.RegistryIntermediari, id, nil)
	}
}

// ListTipi: GET /tipiPendenza (Anagrafica Creditore R; only the types in
// the scope of a role giving it).
func (b backoffice) ListTipi(p domain.Principal) ([]events.PendenzaTypeRegistered, error) {
	return operations.ListTipiPendenza(b.model.PendenzaTypes, p, nil)
}

func (b backoffice) PutTipo(ctx context.Context, a commands.Actor, in commands.PutPendenzaType) (commands.Result, error) {
	return b.cmds.PutPendenzaType(ctx, a, in)
}

func (b backoffice) PutOperatore(ctx context.Context, a commands.Actor, in commands.PutOperator) (commands.Result, error) {
	return b.cmds.PutOperator(ctx, a, in)
}

func (b backoffice) PutRuolo(ctx context.Context, a commands.Actor, in commands.DefineRole) (commands.Result, error) {
	return b.cmds.DefineRole(ctx, a, in)
}

func (b backoffice) PutIntermediario(ctx context.Context, a commands.Actor, in commands.PutIntermediary) (commands.Result, error) {
	return b.cmds.PutIntermediary(ctx, a, in)
}

func (c *Console) anagrafica() anagraficaOps { return c.ops }

// registryList renders the list page of one registry on the generic
// table: the records rows returns (it decides the read), a row each as
// cells renders it, and the link add to the registry's blank form for a
// caller it is offered to (blank.mayWrite, as registryNew decides).
func registryList[T any](c *Console, rq *request, blank writeForm, title string, t *table, add link,
	rows func() ([]T, error), cells func(T) []cell) error {
	all, err := rows()
	if err != nil {
		return err
	}
	if blank.mayWrite(rq.p, c.deps.Model) == nil {
		t.New = &add
	}
	for _, r := range all {
		t.Rows = append(t.Rows, cells(r))
	}
	return c.render(rq, http.StatusOK, "tabella.html", title, t)
}

// readAll is the rows of the unscoped registry reg, as the Backoffice API
// lists it (operations.ListRegistry).
func readAll[T any](p domain.Principal, reg domain.Registry, all func() []T) func() ([]T, error) {
	return func() ([]T, error) { return operations.ListRegistry(all, p, reg, nil) }
}

// yesNo is a boolean column.
func yesNo(b bool) cell {
	if b {
		return cell{Text: "sì"}
	}
	return cell{Text: "no"}
}

// recordLink is the first column of a registry list: the record's id,
// linked to its page under base.
func recordLink(base, id string) cell { return cell{Text: id, Href: base + url.PathEscape(id)} }

// registryNew opens a registry's blank form f to a caller who may
// register a record (f.mayWrite), and answers the others its denial. Its
// base is the position this replica has applied: a record registered
// under the id it is saved with after that was not there to be seen.
func (c *Console) registryNew(rq *request, page string, f writeForm) error {
	if err := f.mayWrite(rq.p, c.deps.Model); err != nil {
		return err
	}
	f.state().Base = c.deps.Model.AppliedPosition()
	return c.renderForm(rq, http.StatusOK, page, f)
}

// registryOpener reads the registry entry of that kind and id as the
// registry's read operation lets the caller see it, its form as show
// makes it; an id it does not hold (the empty one too) is the read's 404.
func (c *Console) registryOpener(rq *request, kind, id string, show func(v any) writeForm) opener {
	return func() (writeForm, error) {
		v, err := c.anagrafica().ReadRegistry(rq.p, kind, id)
		if err != nil {
			return nil, err
		}
		return show(v), nil
	}
}

// registryRead is the read of the registry entry of that kind and id
// (ReadRegistry) as save takes it.
func (c *Console) registryRead(rq *request, kind, id string) func() error {
	return func() error {
		_, err := c.anagrafica().ReadRegistry(rq.p, kind, id)
		return err
	}
}

// mayWriteScoped is mayWrite of the forms of a registry scoped by role
// (domini, tipi pendenza): a record's form as write, the operation of its
// save, decides for that record; the blank form, whose id is still to be
// typed, as operations.RegisterCreditorRecord, and the save decides the
// id.
func mayWriteScoped(p domain.Principal, isNew bool, write func() error) error {
	if isNew {
		return operations.RegisterCreditorRecord(p, nil)
	}
	return write()
}

// --- tipi pendenza ---

type tipoForm struct {
	New, Enabled, Spontaneous bool
	IDTipoPendenza            string
	Descrizione               string
	formState
}

// mayWrite: PUT /tipiPendenza/{idTipoPendenza} (operations.WriteTipoPendenza).
func (f *tipoForm) mayWrite(p domain.Principal, _ *projections.ReadModel) error {
	return mayWriteScoped(p, f.New, func() error { return operations.WriteTipoPendenza(p, f.IDTipoPendenza, nil) })
}

func (f *tipoForm) title() string {
	if f.New {
		return "Nuovo tipo pendenza"
	}
	return "Tipo pendenza " + f.IDTipoPendenza
}

func (c *Console) listTipi(rq *request) error {
	return registryList(c, rq, &tipoForm{New: true}, "Tipi pendenza", &table{Caption: "Tipi pendenza", Empty: "Nessun tipo pendenza.",
		Headers: []string{"idTipoPendenza", "Descrizione", "Abilitato", "Pagamento spontaneo"}},
		link{Href: "/console/tipi?nuovo", Label: "Registra un nuovo tipo pendenza"},
		func() ([]events.PendenzaTypeRegistered, error) { return c.anagrafica().ListTipi(rq.p) },
		func(t events.PendenzaTypeRegistered) []cell {
			return []cell{recordLink("/console/tipi/", t.IDTipoPendenza), {Text: t.Descrizione}, yesNo(t.Enabled), yesNo(t.Spontaneous)}
		})
}

func (c *Console) newTipo(rq *request) error {
	return c.registryNew(rq, "tipo.html", &tipoForm{New: true, Enabled: true})
}

func (c *Console) openTipo(rq *request, id string) opener {
	return c.registryOpener(rq, "tipo", id, func(v any) writeForm {
		t := v.(events.PendenzaTypeRegistered)
		return &tipoForm{IDTipoPendenza: t.IDTipoPendenza,
			Descrizione: t.Descrizione, Enabled: t.Enabled, Spontaneous: t.Spontaneous}
	})
}

func (c *Console) formTipo(rq *request) error {
	return c.showForm(rq, "tipo.html", c.openTipo(rq, rq.r.PathValue("id")))
}

func (c *Console) saveTipo(rq *request) error {
	pf := rq.r.PostForm
	f := &tipoForm{New: pf.Get("nuovo") == "1", IDTipoPendenza: pf.Get("idTipoPendenza"), Descrizione: pf.Get("descrizione"),
		Enabled: pf.Get("abilitato") == "on", Spontaneous: pf.Get("pagamentoSpontaneo") == "on", formState: formState{Base: postedBase(rq.r)}}
	res, err := c.save(rq, f.Base, f.New, "idTipoPendenza", c.registryRead(rq, "tipo", f.IDTipoPendenza), func() (commands.Result, error) {
		// The form edits what it shows; GovPay's other fields stay as stored.
		return c.anagrafica().PutTipo(rq.r.Context(), rq.actor(), commands.PutPendenzaType{IDTipoPendenza: f.IDTipoPendenza,
			Descrizione: f.Descrizione, Enabled: f.Enabled, Spontaneous: f.Spontaneous, KeepFields: true, Base: f.Base})
	})
	return c.saved(rq, res, err, "/console/tipi", "tipo.html", f, c.openTipo(rq, f.IDTipoPendenza))
}

// --- operatori ---

type operatoreForm struct {
	New, Enabled   bool
	Principal      string
	RagioneSociale string
	Roles          []string
	AllRoles       []string
	Personal       string // the personal role, shown, kept (personalLabel)
	formState
}

// mayWrite: PUT /operatori/{principal} (operations.WriteRegistry).
func (f *operatoreForm) mayWrite(p domain.Principal, _ *projections.ReadModel) error {
	return operations.WriteRegistry(p, domain.RegistryOperatori, nil)
}

func (f *operatoreForm) title() string {
	if f.New {
		return "Nuovo operatore"
	}
	return "Operatore " + f.Principal
}

// roleChoices are the roles a form offers p: every role when p may list
// them (GET /ruoli, operations.ListRegistry), else only those the form's
// principal holds already, so that saving the form keeps them.
func (c *Console) roleChoices(p domain.Principal, held []string) []string {
	roles, err := operations.ListRegistry(c.deps.Model.Roles, p, domain.RegistryRuoli, nil)
	if err != nil {
		return slices.Clone(held)
	}
	var out []string
	for _, r := range roles {
		out = append(out, r.Event.IDRuolo)
	}
	return out
}

func (c *Console) listOperatori(rq *request) error {
	reg := domain.RegistryOperatori
	return registryList(c, rq, &operatoreForm{New: true}, "Operatori", &table{Caption: "Operatori", Empty: "Nessun operatore.",
		Headers: []string{"Principal", "Ragione sociale", "Abilitato", "Ruoli"}},
		link{Href: "/console/operatori?nuovo", Label: "Registra un nuovo operatore"},
		readAll(rq.p, reg, c.deps.Model.Operators),
		func(o *projections.Operator) []cell {
			return []cell{{Text: o.Principal, Href: "/console/operatore?principal=" + url.QueryEscape(o.Principal)},
				{Text: o.RagioneSociale}, yesNo(o.Enabled), {Text: strings.Join(o.Roles, ", ")}}
		})
}

func (c *Console) newOperatore(rq *request) error {
	return c.registryNew(rq, "operatore.html",
		&operatoreForm{New: true, Enabled: true, AllRoles: c.roleChoices(rq.p, nil)})
}

func (c *Console) openOperatore(rq *request, principal string) opener {
	return c.registryOpener(rq, "operatore", principal, func(v any) writeForm {
		o := v.(*projections.Operator)
		return &operatoreForm{Principal: o.Principal,
			RagioneSociale: o.RagioneSociale, Enabled: o.Enabled, Roles: o.Roles, AllRoles: c.roleChoices(rq.p, o.Roles),
			Personal: personalLabel(o.PersonalRole())}
	})
}

func (c *Console) formOperatore(rq *request) error {
	return c.showForm(rq, "operatore.html", c.openOperatore(rq, rq.r.URL.Query().Get("principal")))
}

func (c *Console) saveOperatore(rq *request) error {
	pf := rq.r.PostForm
	f := &operatoreForm{New: pf.Get("nuovo") == "1", Principal: pf.Get("principal"), RagioneSociale: pf.Get("ragioneSociale"),
		Enabled: pf.Get("abilitato") == "on", Roles: pf["ruoli"], AllRoles: c.roleChoices(rq.p, pf["ruoli"]),
		formState: formState{Base: postedBase(rq.r)}}
	if !f.New { // the form comes back, on an error, with what it keeps
		if o, err := c.anagrafica().ReadRegistry(rq.p, "operatore", f.Principal); err == nil {
			f.Personal = personalLabel(o.(*projections.Operator).PersonalRole())
		}
	}
	// The form does not edit the personal role (acl, domini, tipiPendenza
	// of the API's body): it stays as stored.
	in := commands.PutOperator{Principal: f.Principal, RagioneSociale: f.RagioneSociale,
		Credentials: commands.Credentials{Enabled: f.Enabled, Roles: f.Roles, KeepPersonal: true}, Base: f.Base}
	if in.Roles == nil {
		in.Roles = []string{}
	}
	in.Password, in.APIKey = postedSecret(rq.r, "password"), postedSecret(rq.r, "apiKey")
	res, err := c.save(rq, f.Base, f.New, "principal", c.registryRead(rq, "operatore", f.Principal), func() (commands.Result, error) {
		return c.anagrafica().PutOperatore(rq.r.Context(), rq.actor(), in)
	})
	return c.saved(rq, res, err, "/console/operatori", "operatore.html", f, c.openOperatore(rq, f.Principal))
}

// --- ruoli ---

// aclCell is one service × right of the grid.
type aclCell struct {
	Name    string // form field
	Checked bool
	NotHeld bool // the operator does not hold this right itself
}

type aclRow struct {
	Service string
	R, W    aclCell
}

type ruoloForm struct {
	New      bool
	IDRuolo  string
	Grid     []aclRow
	Domini   []string
	Unita    string // units of entities covered only in some (formUnits)
	Tipi     []string
	Entities []option
	Types    []option
	formState
}

// mayWrite: PUT /ruoli/{idRuolo} (operations.WriteRegistry).
func (f *ruoloForm) mayWrite(p domain.Principal, _ *projections.ReadModel) error {
	return operations.WriteRegistry(p, domain.RegistryRuoli, nil)
}

func (f *ruoloForm) title() string {
	if f.New {
		return "Nuovo ruolo"
	}
	return "Ruolo " + f.IDRuolo
}

// fill builds the grid from acl and the pickers, marking what p lacks.
func (c *Console) fillRuolo(f *ruoloForm, p domain.Principal, has func(domain.Service, domain.Right) bool) {
	f.Grid = nil
	for i, s := range domain.Services {
		row := aclRow{Service: s.String()}
		for _, rt := range []struct {
			cell  *aclCell
			right domain.Right
			tag   string
		}{{&row.R, domain.RightRead, "R"}, {&row.W, domain.RightWrite, "W"}} {
			*rt.cell = aclCell{Name: "acl_" + itoa(i) + "_" + rt.tag, Checked: has(s, rt.right),
				NotHeld: operations.UseService(p, s, rt.right, nil) != nil}
		}
		f.Grid = append(f.Grid, row)
	}
	f.Entities, f.Types = c.scopeOptions(p, f.Domini, f.Tipi)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

func (c *Console) listRuoli(rq *request) error {
	reg := domain.RegistryRuoli
	return registryList(c, rq, &ruoloForm{New: true}, "Ruoli", &table{Caption: "Ruoli", Empty: "Nessun ruolo.",
		Headers: []string{"idRuolo", "Domini", "Tipi pendenza"}},
		link{Href: "/console/ruoli?nuovo", Label: "Definisci un nuovo ruolo"},
		readAll(rq.p, reg, c.deps.Model.Roles),
		func(r *projections.RoleRecord) []cell {
			return []cell{recordLink("/console/ruoli/", r.Event.IDRuolo), {Text: strings.Join(r.Event.Domini, ", ")},
				{Text: strings.Join(r.Event.TipiPendenza, ", ")}}
		})
}

func (c *Console) newRuolo(rq *request) error {
	f := &ruoloForm{New: true}
	c.fillRuolo(f, rq.p, func(domain.Service, domain.Right) bool { return false })
	return c.registryNew(rq, "ruolo.html", f)
}

func (c *Console) openRuolo(rq *request, id string) opener {
	return c.registryOpener(rq, "ruolo", id, func(v any) writeForm {
		r := v.(*projections.RoleRecord)
		f := &ruoloForm{IDRuolo: r.Event.IDRuolo, Domini: r.Role.Domini.List(), Unita: formUnits(r.Role.Domini), Tipi: r.Role.Tipi.List()}
		c.fillRuolo(f, rq.p, func(s domain.Service, rt domain.Right) bool { return r.Role.Has(s, rt) })
		return f
	})
}

func (c *Console) formRuolo(rq *request) error {
	return c.showForm(rq, "ruolo.html", c.openRuolo(rq, rq.r.PathValue("id")))
}

func (c *Console) saveRuolo(rq *request) error {
	pf := rq.r.PostForm
	f := &ruoloForm{New: pf.Get("nuovo") == "1", IDRuolo: pf.Get("idRuolo"), Domini: pf["domini"], Unita: pf.Get("unita"), Tipi: pf["tipi"],
		formState: formState{Base: postedBase(rq.r)}}
	in := commands.DefineRole{IDRuolo: f.IDRuolo, ACL: []events.ACLEntry{}, Domini: f.Domini, UnitaOperative: parseFormUnits(f.Unita),
		TipiPendenza: f.Tipi, Base: f.Base}
	if in.Domini == nil {
		in.Domini = []string{}
	}
	if in.TipiPendenza == nil {
		in.TipiPendenza = []string{}
	}
	checked := func(s domain.Service, rt domain.Right) bool {
		for i, svc := range domain.Services {
			if svc == s {
				return pf.Get("acl_"+itoa(i)+"_"+rt.String()) == "on"
			}
		}
		return false
	}
	for _, s := range domain.Services {
		var rights []string
		for _, rt := range []domain.Right{domain.RightRead, domain.RightWrite} {
			if checked(s, rt) {
				rights = append(rights, rt.String())
			}
		}
		if rights != nil {
			in.ACL = append(in.ACL, events.ACLEntry{Service: s.String(), Rights: rights})
		}
	}
	c.fillRuolo(f, rq.p, checked)
	res, err := c.save(rq, f.Base, f.New, "idRuolo", c.registryRead(rq, "ruolo", f.IDRuolo), func() (commands.Result, error) {
		return c.anagrafica().PutRuolo(rq.r.Context(), rq.actor(), in)
	})
	return c.saved(rq, res, err, "/console/ruoli/"+f.IDRuolo, "ruolo.html", f, c.openRuolo(rq, f.IDRuolo))
}

// --- intermediari ---

type intermediarioForm struct {
	New, Enabled       bool
	IDIntermediario    string
	Denominazione      string
	ConnectorPrincipal string
	formState
}

// mayWrite: PUT /intermediari/{idIntermediario} (operations.WriteRegistry).
func (f *intermediarioForm) mayWrite(p domain.Principal, _ *projections.ReadModel) error {
	return operations.WriteRegistry(p, domain.RegistryIntermediari, nil)
}

func (f *intermediarioForm) title() string {
	if f.New {
		return "Nuovo intermediario"
	}
	return "Intermediario " + f.IDIntermediario
}

func (c *Console) listIntermediari(rq *request) error {
	reg := domain.RegistryIntermediari
	return registryList(c, rq, &intermediarioForm{New: true}, "Intermediari", &table{Caption: "Intermediari e connettori al nodo", Empty: "Nessun intermediario.",
		Headers: []string{"idIntermediario", "Denominazione", "Abilitato", "Principal del connettore"}},
		link{Href: "/console/intermediari?nuovo", Label: "Registra un nuovo intermediario"},
		readAll(rq.p, reg, c.deps.Model.Intermediaries),
		func(i *projections.Intermediary) []cell {
			e := i.Event
			return []cell{recordLink("/console/intermediari/", e.IDIntermediario), {Text: e.Denominazione}, yesNo(e.Enabled),
				{Text: e.ConnectorPrincipal}}
		})
}

func (c *Console) newIntermediario(rq *request) error {
	return c.registryNew(rq, "intermediario.html", &intermediarioForm{New: true, Enabled: true})
}

func (c *Console) openIntermediario(rq *request, id string) opener {
	return c.registryOpener(rq, "intermediario", id, func(v any) writeForm {
		e := v.(*projections.Intermediary).Event
		return &intermediarioForm{IDIntermediario: e.IDIntermediario,
			Denominazione: e.Denominazione, Enabled: e.Enabled, ConnectorPrincipal: e.ConnectorPrincipal}
	})
}

func (c *Console) formIntermediario(rq *request) error {
	return c.showForm(rq, "intermediario.html", c.openIntermediario(rq, rq.r.PathValue("id")))
}

func (c *Console) saveIntermediario(rq *request) error {
	pf := rq.r.PostForm
	f := &intermediarioForm{New: pf.Get("nuovo") == "1", IDIntermediario: pf.Get("idIntermediario"),
		Denominazione: pf.Get("denominazione"), Enabled: pf.Get("abilitato") == "on", ConnectorPrincipal: pf.Get("connettorePrincipal"),
		formState: formState{Base: postedBase(rq.r)}}
	in := commands.PutIntermediary{IDIntermediario: f.IDIntermediario, Denominazione: f.Denominazione, Enabled: f.Enabled,
		ConnectorPrincipal: f.ConnectorPrincipal, Base: f.Base}
	in.ConnectorPassword = postedSecret(rq.r, "connettorePassword")
	res, err := c.save(rq, f.Base, f.New, "idIntermediario", c.registryRead(rq, "intermediario", f.IDIntermediario), func() (commands.Result, error) {
		return c.anagrafica().PutIntermediario(rq.r.Context(), rq.actor(), in)
	})
	return c.saved(rq, res, err, "/console/intermediari", "intermediario.html", f, c.openIntermediario(rq, f.IDIntermediario))
}
