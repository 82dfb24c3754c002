package console

import (
	"net/http"
	"slices"
	"strings"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// The Applicazioni page: the granting flow in one place. An application's
// principal is chosen by authentication type (a username for basic, the
// certificate subject for ssl, whose canonical form is shown), its
// authorization on each API with entity and type pickers ("*" = all), and
// its roles. Saving issues the Backoffice's PutApplication command.

func (c *Console) applicazioni() applicazioniOps { return c.ops }

func (c *Console) listApplicazioni(rq *request) error {
	return registryList(c, rq, &appForm{New: true}, "Applicazioni",
		&table{Caption: "Applicazioni registrate", Empty: "Nessuna applicazione.",
			Headers: []string{"idA2A", "Principal", "Abilitata", "API autorizzate"}},
		link{Href: "/console/applicazioni?nuova", Label: "Registra una nuova applicazione", ID: "nuova-applicazione"},
		func() ([]*projections.Application, error) { return c.applicazioni().ListApplicazioni(rq.p) },
		func(a *projections.Application) []cell {
			var apis []string
			for _, g := range a.Grants {
				apis = append(apis, g.API.String())
			}
			return []cell{recordLink("/console/applicazioni/", a.IDA2A), {Text: a.Principal}, yesNo(a.Enabled),
				{Text: strings.Join(apis, ", ")}}
		})
}

type option struct{ Value, Label string }

// entityOptions appends to opts the options of an entity picker: each
// entity admits keeps (nil: every one), labelled with its id and name.
func (c *Console) entityOptions(opts []option, admits func(idDominio string) bool) []option {
	for _, e := range c.deps.Model.Entities() {
		if admits == nil || admits(e.IDDominio) {
			opts = append(opts, option{e.IDDominio, e.IDDominio + " — " + e.RagioneSociale})
		}
	}
	return opts
}

// typeOptions appends to opts the options of a type picker: each pendenza
// type admits keeps, labelled with its id and description.
func (c *Console) typeOptions(opts []option, admits func(idTipo string) bool) []option {
	for _, t := range c.deps.Model.PendenzaTypes() {
		if admits(t.IDTipoPendenza) {
			opts = append(opts, option{t.IDTipoPendenza, t.IDTipoPendenza + " — " + t.Descrizione})
		}
	}
	return opts
}

type grantForm struct {
	API, Label   string
	On           bool
	Domini, Tipi []string
	Unita        string // units of entities covered only in some (formUnits)
	// Limit says what the operator may not grant on this API, when it
	// cannot grant every entity and type (delegation).
	Limit string
	// Entities and Types are its pickers (scopeOptions).
	Entities, Types []option
}

type appForm struct {
	New       bool
	IDA2A     string
	Auth      string // basic or ssl
	Principal string
	Canonical string // the ssl subject's canonical form
	Enabled   bool
	Roles     []string
	AllRoles  []string
	Personal  string // the personal role, shown, kept (personalLabel)
	Grants    []grantForm
	formState
}

// mayWrite: PUT /applicazioni/{idA2A} (operations.WriteApplicazione); the
// blank form, whose idA2A is still to be typed, to whoever passes that
// write's gate (operations.WriteRegistry), and the save decides the id.
func (f *appForm) mayWrite(p domain.Principal, _ *projections.ReadModel) error {
	if f.New {
		return operations.WriteRegistry(p, domain.RegistryApplicazioni, nil)
	}
	return operations.WriteApplicazione(p, f.IDA2A, nil)
}

func (f *appForm) title() string {
	if f.New {
		return "Nuova applicazione"
	}
	return "Applicazione " + f.IDA2A
}

var apiLabels = map[domain.API]string{domain.APIPagamento: "API Pagamento", domain.APIPendenze: "API Pendenze",
	domain.APIRagioneria: "API Ragioneria"}

// pickers fills each grant's entity and type options and the roles.
func (c *Console) pickers(f *appForm, p domain.Principal) {
	entities, types := c.knownOptions(p) // once for every grant
	for i := range f.Grants {
		g := &f.Grants[i]
		g.Entities, g.Types = held(entities, g.Domini), held(types, g.Tipi)
	}
	f.AllRoles = c.roleChoices(p, f.Roles)
	for i := range f.Grants {
		api, _ := domain.ParseAPI(f.Grants[i].API)
		if err := domain.CanGrantAPI(p, domain.Grant{API: api, Domini: domain.Entities(domain.ScopeAll()), Tipi: domain.ScopeAll()}); err != nil {
			m, _ := messaggio(err)
			f.Grants[i].Limit = "Puoi autorizzare solo domini e tipi che possiedi. " + m
		}
	}
	if f.Auth == "ssl" && f.Principal != "" {
		if can, err := domain.CanonicalDN(f.Principal); err == nil {
			f.Canonical = can
		}
	}
}

// scopeOptions are the entity and type pickers of a scope: knownOptions,
// then those the scope holds already, by id alone where p may not see them
// named, so that saving the form keeps them.
func (c *Console) scopeOptions(p domain.Principal, domini, tipi []string) (entities, types []option) {
	entities, types = c.knownOptions(p)
	return held(entities, domini), held(types, tipi)
}

// knownOptions are the options every scope picker of p offers ("*"
// first): the entities and types p may see named (operations.KnownDomini
// and KnownTipi).
func (c *Console) knownOptions(p domain.Principal) (entities, types []option) {
	return c.entityOptions([]option{{"*", "Tutti i domini (*)"}}, operations.KnownDomini(p)),
		c.typeOptions([]option{{"*", "Tutti i tipi (*)"}}, operations.KnownTipi(p))
}

// held returns opts with an option labelled by its value for each value of
// values it does not offer yet; opts itself is never written, so several
// pickers can share it.
func held(opts []option, values []string) []option {
	opts = slices.Clip(opts)
	for _, v := range values {
		if !slices.ContainsFunc(opts, func(o option) bool { return o.Value == v }) {
			opts = append(opts, option{v, v})
		}
	}
	return opts
}

func formOf(a *projections.Application) appForm {
	f := appForm{IDA2A: a.IDA2A, Principal: a.Principal, Enabled: a.Enabled, Roles: a.Roles, Auth: "basic",
		Personal: personalLabel(a.PersonalRole())}
	if _, err := domain.ParseDN(a.Principal); err == nil && a.PasswordHash == "" {
		f.Auth = "ssl"
	}
	for _, api := range domain.GrantableAPIs {
		g := grantForm{API: api.String(), Label: apiLabels[api]}
		for _, og := range a.Grants {
			if og.API == api {
				g.On, g.Domini, g.Unita, g.Tipi = true, og.Domini.List(), formUnits(og.Domini), og.Tipi.List()
			}
		}
		f.Grants = append(f.Grants, g)
	}
	return f
}

func (c *Console) newApplicazione(rq *request) error {
	f := formOf(&projections.Application{Enabled: true})
	f.New = true
	c.pickers(&f, rq.p)
	return c.registryNew(rq, "applicazione.html", &f)
}

func (c *Console) openApplicazione(rq *request, id string) opener {
	return func() (writeForm, error) {
		a, err := c.applicazioni().GetApplicazione(rq.p, id)
		if err != nil {
			return nil, err
		}
		f := formOf(a)
		c.pickers(&f, rq.p)
		return &f, nil
	}
}

func (c *Console) editApplicazione(rq *request) error {
	return c.showForm(rq, "applicazione.html", c.openApplicazione(rq, rq.r.PathValue("id")))
}

// saveApplicazione turns the form into PutApplication. A password or an
// API key left empty keeps the stored one; an ssl principal has no
// password (its API key authenticates its idA2A, whatever the principal).
func (c *Console) saveApplicazione(rq *request) error {
	pf := rq.r.PostForm
	f := appForm{New: pf.Get("nuova") == "1", IDA2A: pf.Get("idA2A"), Auth: pf.Get("auth"), Principal: pf.Get("principal"),
		Enabled: pf.Get("abilitato") == "on", Roles: pf["ruoli"], formState: formState{Errors: fieldErrors{}, Base: postedBase(rq.r)}}
	if !f.New { // the form comes back, on an error, with what it keeps
		if a, err := c.applicazioni().GetApplicazione(rq.p, f.IDA2A); err == nil {
			f.Personal = personalLabel(a.PersonalRole())
		}
	}
	// The form does not edit the personal role nor GovPay's other fields:
	// they stay as stored.
	in := commands.PutApplication{IDA2A: f.IDA2A, Principal: f.Principal, KeepFields: true,
		Credentials: commands.Credentials{Enabled: f.Enabled, Roles: f.Roles, KeepPersonal: true,
			APIKey: postedSecret(rq.r, "apiKey")}, Base: f.Base}
	if in.Roles == nil {
		in.Roles = []string{}
	}
	switch f.Auth {
	case "basic":
		in.Password = postedSecret(rq.r, "password")
	case "ssl":
		if _, err := domain.ParseDN(f.Principal); err != nil {
			f.Errors["principal"] = "Il soggetto del certificato non è un DN valido: " + err.Error()
		}
	default:
		f.Errors["auth"] = "Scegli il tipo di autenticazione."
	}
	for _, api := range domain.GrantableAPIs {
		g := grantForm{API: api.String(), Label: apiLabels[api], On: pf.Get("api_"+api.String()) == "on",
			Domini: pf["domini_"+api.String()], Tipi: pf["tipi_"+api.String()], Unita: pf.Get("unita_" + api.String())}
		if g.On {
			if len(g.Domini)+len(parseFormUnits(g.Unita)) == 0 || len(g.Tipi) == 0 {
				f.Errors["api_"+api.String()] = "Scegli almeno un dominio e un tipo pendenza (* = tutti)."
			}
			in.Grants = append(in.Grants, commands.GrantInput{API: g.API, Domini: append([]string{}, g.Domini...), UnitaOperative: parseFormUnits(g.Unita),
				TipiPendenza: g.Tipi})
		}
		f.Grants = append(f.Grants, g)
	}
	if len(f.Errors) == 0 {
		read := func() error { _, err := c.applicazioni().GetApplicazione(rq.p, f.IDA2A); return err }
		res, err := c.save(rq, f.Base, f.New, "idA2A", read, func() (commands.Result, error) {
			return c.applicazioni().PutApplicazione(rq.r.Context(), rq.actor(), in)
		})
		if err != nil {
			c.pickers(&f, rq.p)
		}
		return c.saved(rq, res, err, "/console/applicazioni/"+f.IDA2A, "applicazione.html", &f,
			c.openApplicazione(rq, f.IDA2A))
	}
	c.pickers(&f, rq.p)
	return c.renderForm(rq, http.StatusBadRequest, "applicazione.html", &f)
}
