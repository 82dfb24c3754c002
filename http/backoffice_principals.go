package httpapi

import (
	"slices"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// --- ruoli ---

type aclEntry struct {
	Servizio       string             `json:"servizio"`
	Autorizzazioni autorizzazioniList `json:"autorizzazioni"`
}

// aclList is a registry body's acl (a role's, or a principal's personal
// role's): at most one entry per servizio.
type aclList = boundedList[aclEntry, aclBound]

type aclBound struct{}

func (aclBound) bound() (int, func(int) error) {
	return commands.MaxACLEntries, commands.CheckACLEntries
}

// ruoliList, tipiList and autorizzazioniList are a registry body's lists
// of ids (a principal's ruoli; the tipiPendenza of a role, a personal role
// or an API grant; an acl entry's autorizzazioni), each of at most
// commands.MaxListEntries.
type (
	ruoliList          = boundedList[string, ruoliBound]
	tipiList           = boundedList[string, tipiBound]
	autorizzazioniList = boundedList[string, autorizzazioniBound]
)

type (
	ruoliBound          struct{}
	tipiBound           struct{}
	autorizzazioniBound struct{}
)

func (ruoliBound) bound() (int, func(int) error)          { return idsBound("ruoli") }
func (tipiBound) bound() (int, func(int) error)           { return idsBound("tipiPendenza") }
func (autorizzazioniBound) bound() (int, func(int) error) { return idsBound("acl.autorizzazioni") }

// idsBound is the bound of a registry body's list of ids field: the
// command's own.
func idsBound(field string) (int, func(int) error) {
	return commands.MaxListEntries, func(n int) error { return commands.CheckListLength(field, n) }
}

type ruoloBody struct {
	ID           *string    `json:"id,omitempty"`      // GovPay's; optional, must equal the path
	IDRuolo      *string    `json:"idRuolo,omitempty"` // optional; must equal the path
	ACL          aclList    `json:"acl"`
	Domini       dominiList `json:"domini"`
	TipiPendenza tipiList   `json:"tipiPendenza"`
}

// ruoloView is GovPay's ruolo, named by id, with idRuolo, its name here,
// and the role's scope.
type ruoloView struct {
	ID           string     `json:"id"`
	IDRuolo      string     `json:"idRuolo"`
	ACL          []aclEntry `json:"acl"`
	Domini       dominiList `json:"domini"`
	TipiPendenza []string   `json:"tipiPendenza"`
}

func toRuolo(r *projections.RoleRecord) ruoloView {
	return ruoloView{ID: r.Event.IDRuolo, IDRuolo: r.Event.IDRuolo, ACL: roleACL(r.Role), Domini: dominiOf(r.Role.Domini), TipiPendenza: r.Role.Tipi.List()}
}

// roleACL is a role's acl in wire form, in the services' order.
func roleACL(r domain.Role) []aclEntry {
	acl := []aclEntry{}
	for _, svc := range domain.Services {
		if rights := r.Rights(svc); rights != 0 {
			acl = append(acl, aclEntry{Servizio: svc.String(), Autorizzazioni: rights.List()})
		}
	}
	return acl
}

// aclEvents is a wire acl as the events hold it.
func aclEvents(body []aclEntry) []events.ACLEntry {
	acl := make([]events.ACLEntry, len(body))
	for i, e := range body {
		acl[i] = events.ACLEntry{Service: e.Servizio, Rights: e.Autorizzazioni}
	}
	return acl
}

func (s *Server) putRuolo(c *echo.Context) error {
	var body ruoloBody
	id, _, err := s.decodePut(c, idParam("idRuolo", commands.ValidID), &body, nil, &body.ID, &body.IDRuolo)
	if err != nil {
		return err
	}
	if body.ACL == nil {
		return syntaxError("acl is required")
	}
	// GovPay's role is {acl} alone (its scope lives on each user): a role
	// without domini or tipiPendenza reaches no entity or type.
	body.TipiPendenza = nonNilList(body.TipiPendenza)
	res, err := s.cmds.DefineRole(c.Request().Context(), s.actor(c), commands.DefineRole{IDRuolo: id, ACL: aclEvents(body.ACL),
		Domini: nonNilList(body.Domini.IDs), UnitaOperative: body.Domini.Units, TipiPendenza: body.TipiPendenza, Base: patchBase(c)})
	return s.written(c, res, err, entry(s.model.Role, id, toRuolo))
}

func (s *Server) getRuolo(c *echo.Context) error {
	return readRegistry(c, "idRuolo", s.model.Role, domain.RegistryRuoli, toRuolo)
}

func (s *Server) listRuoli(c *echo.Context) error {
	return listRegistry(c, domain.RegistryRuoli, s.model.Roles, queryFilters[*projections.RoleRecord](nil), toRuolo) // GovPay's has none
}

// --- operatori ---

type operatoreBody struct {
	Principal      *string `json:"principal,omitempty"` // optional; must equal the path
	RagioneSociale string  `json:"ragioneSociale"`
	credentialsBody
}

// credentialsBody is what the bodies of PUT /operatori and PUT
// /applicazioni share: the principal's secrets, abilitato, its roles, and
// its personal role, ACL over Domini × TipiPendenza (GovPay's per-user acl
// and scope; an application's Domini and TipiPendenza are also the scope
// of its GovPay-shaped API grants).
type credentialsBody struct {
	Password     *string    `json:"password,omitempty"`
	APIKey       *string    `json:"apiKey,omitempty"` // stored hashed, never returned
	Abilitato    *bool      `json:"abilitato"`
	Ruoli        ruoliList  `json:"ruoli"`
	ACL          aclList    `json:"acl,omitempty"`
	Domini       dominiList `json:"domini,omitempty"`
	TipiPendenza tipiList   `json:"tipiPendenza,omitempty"`
}

// credentials is the body's part of the command, enabled being abilitato
// as decodePut resolved it.
func (b *credentialsBody) credentials(enabled bool) commands.Credentials {
	return commands.Credentials{Password: b.Password, APIKey: b.APIKey, Enabled: enabled, Roles: b.Ruoli,
		Personal: events.PersonalRole{ACL: aclEvents(b.ACL), Domini: b.Domini.IDs, UnitaOperative: b.Domini.Units, TipiPendenza: b.TipiPendenza}}
}

type operatoreView struct {
	Principal      string     `json:"principal"`
	RagioneSociale string     `json:"ragioneSociale"`
	Abilitato      bool       `json:"abilitato"`
	Ruoli          []string   `json:"ruoli"`
	ACL            []aclEntry `json:"acl,omitempty"`
	Domini         dominiList `json:"domini"`
	TipiPendenza   []string   `json:"tipiPendenza"`
}

// toOperatore shows the personal role, when there is one, as acl over
// domini × tipiPendenza; without one, domini and tipiPendenza (GovPay's
// required members) are [] and acl is absent, a body PUT accepts unchanged.
func toOperatore(o *projections.Operator) operatoreView {
	v := operatoreView{Principal: o.Principal, RagioneSociale: o.RagioneSociale, Abilitato: o.Enabled, Ruoli: nonNilList(o.Roles),
		Domini: dominiList{IDs: []string{}}, TipiPendenza: []string{}}
	if r, ok := o.PersonalRole(); ok {
		v.ACL, v.Domini, v.TipiPendenza = roleACL(r), dominiOf(r.Domini), r.Tipi.List()
	}
	return v
}

// principalParam reads the {principal} path segment. A principal may be a
// DN with spaces, commas or slashes, so clients percent-encode it; the
// router decodes it once (routes), so a literal "%41" stays "%41".
func principalParam(c *echo.Context) (string, error) {
	p := c.Param("principal")
	if !commands.ValidPrincipal(p) {
		return "", syntaxError("bad principal in the path")
	}
	return p, nil
}

func (s *Server) putOperatore(c *echo.Context) error {
	var body operatoreBody
	principal, enabled, err := s.decodePut(c, principalParam, &body, &body.Abilitato, &body.Principal)
	if err != nil {
		return err
	}
	res, err := s.cmds.PutOperator(c.Request().Context(), s.actor(c), commands.PutOperator{Principal: principal,
		RagioneSociale: body.RagioneSociale, Credentials: body.credentials(enabled), Base: patchBase(c)})
	return s.written(c, res, err, entry(s.model.Operator, principal, toOperatore))
}

func (s *Server) getOperatore(c *echo.Context) error {
	principal, err := principalParam(c)
	if err != nil {
		return err
	}
	return registryJSON(c, s.model.Operator, domain.RegistryOperatori, principal, toOperatore)
}

func (s *Server) listOperatori(c *echo.Context) error {
	return listRegistry(c, domain.RegistryOperatori, s.model.Operators, operatoriFilters, toOperatore)
}

// operatoriFilters are GovPay's filters of GET /operatori.
var operatoriFilters = queryFilters[*projections.Operator]{abilitatoFilter(func(o *projections.Operator) bool { return o.Enabled })}

// --- applicazioni ---

// autorizzazioneAPI is one per-API grant in wire form.
type autorizzazioneAPI struct {
	API          string     `json:"api"`
	Domini       dominiList `json:"domini"`
	TipiPendenza tipiList   `json:"tipiPendenza"`
}

// autorizzazioniAPIList is an application body's autorizzazioniApi: at
// most one grant per API an application can be granted.
type autorizzazioniAPIList = boundedList[autorizzazioneAPI, apiGrantsBound]

type apiGrantsBound struct{}

func (apiGrantsBound) bound() (int, func(int) error) {
	return commands.MaxAPIGrants, commands.CheckAPIGrants
}

// applicazioneBody accepts GovPay's shape (three booleans sharing one
// domini × tipiPendenza scope), autorizzazioniApi (a scope per API), or
// both when they agree (see grants).
type applicazioneBody struct {
	IDA2A             *string               `json:"idA2A,omitempty"` // optional; must equal the path
	Principal         string                `json:"principal"`
	APIPagamenti      *bool                 `json:"apiPagamenti,omitempty"`
	APIPendenze       *bool                 `json:"apiPendenze,omitempty"`
	APIRagioneria     *bool                 `json:"apiRagioneria,omitempty"`
	AutorizzazioniAPI autorizzazioniAPIList `json:"autorizzazioniApi,omitempty"`
	credentialsBody
	events.ApplicationFields // GovPay's fields that bear on no decision
}

type applicazioneView struct {
	IDA2A             string              `json:"idA2A"`
	Principal         string              `json:"principal"`
	Abilitato         bool                `json:"abilitato"`
	Ruoli             []string            `json:"ruoli"`
	APIPagamenti      bool                `json:"apiPagamenti"`
	APIPendenze       bool                `json:"apiPendenze"`
	APIRagioneria     bool                `json:"apiRagioneria"`
	Domini            *dominiList         `json:"domini,omitempty"`
	TipiPendenza      []string            `json:"tipiPendenza,omitzero"`
	AutorizzazioniAPI []autorizzazioneAPI `json:"autorizzazioniApi"`
	ACL               []aclEntry          `json:"acl,omitempty"`
	// CodificaAvvisi is GovPay's; the integration connector, which may
	// hold credentials, is never returned.
	CodificaAvvisi *events.CodificaAvvisi `json:"codificaAvvisi,omitempty"`
}

// govpayFlag is one of GovPay's api* booleans with the API it stands for.
type govpayFlag struct {
	on   *bool
	api  domain.API
	name string
}

func (b applicazioneBody) govpayFlags() []govpayFlag {
	return []govpayFlag{{b.APIPagamenti, domain.APIPagamento, "apiPagamenti"},
		{b.APIPendenze, domain.APIPendenze, "apiPendenze"}, {b.APIRagioneria, domain.APIRagioneria, "apiRagioneria"}}
}

// grants turns the body into the application's complete list of API grants
// (an API not listed is revoked).
//
// Without autorizzazioniApi, GovPay's shape applies: each api* boolean that
// is true authorizes that API with the scope domini × tipiPendenza (an
// absent list is the empty scope). With autorizzazioniApi, that list is
// the grants, and the GovPay fields may come along only when they agree
// with it, so that a client can PUT back exactly what GET returned: an
// api* boolean that is present must be true exactly when its API is
// listed, and domini / tipiPendenza, when present, must equal the scope of
// every listed API. Any disagreement is a 400, never a silent choice.
func (b applicazioneBody) grants() ([]commands.GrantInput, error) {
	if b.AutorizzazioniAPI == nil {
		var out []commands.GrantInput
		for _, f := range b.govpayFlags() {
			if f.on != nil && *f.on {
				out = append(out, commands.GrantInput{API: f.api.String(), Domini: nonNilList(b.Domini.IDs), UnitaOperative: b.Domini.Units,
					TipiPendenza: nonNilList(b.TipiPendenza)})
			}
		}
		return out, nil
	}
	out := make([]commands.GrantInput, 0, len(b.AutorizzazioniAPI))
	listed := map[domain.API]bool{}
	for _, a := range b.AutorizzazioniAPI {
		if !a.Domini.present() || a.TipiPendenza == nil {
			return nil, syntaxError("autorizzazioniApi entries need api, domini and tipiPendenza")
		}
		out = append(out, commands.GrantInput{API: a.API, Domini: nonNilList(a.Domini.IDs), UnitaOperative: a.Domini.Units, TipiPendenza: a.TipiPendenza})
		if api, err := domain.ParseAPI(a.API); err == nil {
			listed[api] = true // an unknown api is the command's 400
		}
		if b.Domini.present() && !b.Domini.scope().Equal(a.Domini.scope()) ||
			b.TipiPendenza != nil && !domain.ParseScope(b.TipiPendenza).Equal(domain.ParseScope(a.TipiPendenza)) {
			return nil, syntaxError("domini and tipiPendenza disagree with the scope of autorizzazioniApi " + a.API +
				"; send autorizzazioniApi alone for a different scope per API")
		}
	}
	for _, f := range b.govpayFlags() {
		if f.on != nil && *f.on != listed[f.api] {
			return nil, syntaxError(f.name + " disagrees with autorizzazioniApi")
		}
	}
	return out, nil
}

// toApplicazione shows both shapes: autorizzazioniApi always; the GovPay
// booleans true for each authorized API; domini and tipiPendenza the one
// scope every grant (and the personal role) shares, empty with neither, and
// absent only when there is no single scope (autorizzazioniApi tells each
// API's), so that what GET returns is a body PUT accepts unchanged.
func toApplicazione(a *projections.Application) applicazioneView {
	v := applicazioneView{IDA2A: a.IDA2A, Principal: a.Principal, Abilitato: a.Enabled, Ruoli: nonNilList(a.Roles),
		AutorizzazioniAPI: []autorizzazioneAPI{}, CodificaAvvisi: a.Fields.CodificaAvvisi}
	for i, g := range a.Grants {
		v.AutorizzazioniAPI = append(v.AutorizzazioniAPI, autorizzazioneAPI{API: g.API.String(), Domini: dominiOf(g.Domini), TipiPendenza: g.Tipi.List()})
		switch g.API {
		case domain.APIPagamento:
			v.APIPagamenti = true
		case domain.APIPendenze:
			v.APIPendenze = true
		case domain.APIRagioneria:
			v.APIRagioneria = true
		}
		if i == 0 {
			d := dominiOf(g.Domini)
			v.Domini, v.TipiPendenza = &d, g.Tipi.List()
		} else if !g.Domini.Equal(a.Grants[0].Domini) || !g.Tipi.Equal(a.Grants[0].Tipi) {
			v.Domini, v.TipiPendenza = nil, nil // no single GovPay scope: see autorizzazioniApi
		}
	}
	if r, ok := a.PersonalRole(); ok {
		v.ACL = roleACL(r)
		switch {
		case len(a.Grants) == 0:
			d := dominiOf(r.Domini)
			v.Domini, v.TipiPendenza = &d, r.Tipi.List()
		case v.Domini == nil || !v.Domini.scope().Equal(r.Domini) || !slices.Equal(v.TipiPendenza, r.Tipi.List()):
			v.Domini, v.TipiPendenza = nil, nil // no single GovPay scope
		}
	} else if len(a.Grants) == 0 {
		v.Domini, v.TipiPendenza = &dominiList{}, []string{} // the empty scope
	}
	return v
}

func (s *Server) putApplicazione(c *echo.Context) error {
	var body applicazioneBody
	id, enabled, err := s.decodePut(c, idParam("idA2A", commands.ValidID), &body, &body.Abilitato, &body.IDA2A)
	if err != nil {
		return err
	}
	grants, err := body.grants()
	if err != nil {
		return err
	}
	res, err := s.cmds.PutApplication(c.Request().Context(), s.actor(c), commands.PutApplication{IDA2A: id,
		Principal: body.Principal, Credentials: body.credentials(enabled), Grants: grants, Fields: body.ApplicationFields,
		Base: patchBase(c)})
	return s.written(c, res, err, entry(s.model.Application, id, toApplicazione))
}

func (s *Server) getApplicazione(c *echo.Context) error {
	return readRegistry(c, "idA2A", s.model.Application, domain.RegistryApplicazioni, toApplicazione)
}

func (s *Server) listApplicazioni(c *echo.Context) error {
	return listRegistry(c, domain.RegistryApplicazioni, s.model.Applications, applicazioniFilters, toApplicazione)
}

// applicazioniFilters are GovPay's filters of GET /applicazioni.
var applicazioniFilters = queryFilters[*projections.Application]{
	abilitatoFilter(func(a *projections.Application) bool { return a.Enabled }),
	textFilter("idA2A", "the application's idA2A", func(a *projections.Application) []string { return []string{a.IDA2A} }),
	textFilter("principal", "the application's principal", func(a *projections.Application) []string { return []string{a.Principal} }),
}
