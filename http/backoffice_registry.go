package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// --- domini ---

type dominioBody struct {
	IDDominio           *string `json:"idDominio,omitempty"` // optional; must equal the path
	RagioneSociale      string  `json:"ragioneSociale"`
	IDIntermediario     string  `json:"idIntermediario,omitempty"` // or GovPay's stazione, idIntermediario_NN
	Abilitato           *bool   `json:"abilitato"`
	events.EntityFields         // GovPay's fields that bear on no decision
}

type dominioView struct {
	IDDominio         string `json:"idDominio"`
	RagioneSociale    string `json:"ragioneSociale"`
	IDIntermediario   string `json:"idIntermediario,omitempty"`
	Abilitato         bool   `json:"abilitato"`
	events.EntityInfo        // the connectors, which may hold credentials, are never returned
}

func toDominio(e events.CreditorEntityRegistered) dominioView {
	return dominioView{IDDominio: e.IDDominio, RagioneSociale: e.RagioneSociale, IDIntermediario: e.IDIntermediario, Abilitato: e.Enabled,
		EntityInfo: e.EntityInfo}
}

func (s *Server) putDominio(c *echo.Context) error {
	var body dominioBody
	id, enabled, err := s.decodePut(c, idParam("idDominio", commands.ValidDominio), &body, &body.Abilitato, &body.IDDominio)
	if err != nil {
		return err
	}
	res, err := s.cmds.PutEntity(c.Request().Context(), s.actor(c), commands.PutEntity{IDDominio: id,
		RagioneSociale: body.RagioneSociale, IDIntermediario: body.IDIntermediario, Enabled: enabled, Fields: body.EntityFields})
	return s.written(c, res, err, entry(s.model.Entity, id, toDominio))
}

// getDominio needs Anagrafica Creditore R from a role whose domini hold
// idDominio: outside that scope the answer is 403 whether or not the entity
// exists; inside it, an unknown entity is 404.
func (s *Server) getDominio(c *echo.Context) error {
	return read1[operations.Entities](c, s.model, pIDDominio, operations.ReadEntity, toDominio)
}

// listDomini needs Anagrafica Creditore R and lists only the entities in
// the scope of a role giving it (a caller with the right on no entity gets
// an empty page, not a 403).
func (s *Server) listDomini(c *echo.Context) error {
	return listed(c, operations.ListDomini, s.model.Entities, dominiFilters, toDominio)
}

// dominiFilters are GovPay's filters of GET /domini (its idDominio too is
// a part, as GovPay's: not an idDominio's format).
var dominiFilters = queryFilters[events.CreditorEntityRegistered]{
	abilitatoFilter(func(e events.CreditorEntityRegistered) bool { return e.Enabled }),
	textFilter("idDominio", "the entity's idDominio", func(e events.CreditorEntityRegistered) []string { return []string{e.IDDominio} }),
	textFilter("ragioneSociale", "the entity's ragioneSociale", func(e events.CreditorEntityRegistered) []string { return []string{e.RagioneSociale} }),
}

// --- tipiPendenza ---

var pIDTipoPendenza = param{"idTipoPendenza", commands.ValidID}

type tipoBody struct {
	IDTipoPendenza     *string `json:"idTipoPendenza,omitempty"` // optional; must equal the path
	Descrizione        string  `json:"descrizione"`
	Abilitato          *bool   `json:"abilitato"`
	PagamentoSpontaneo *bool   `json:"pagamentoSpontaneo"`
	Tipo               *string `json:"tipo,omitempty"` // GovPay's "spontaneo" | "dovuto"
	events.TypeFields
}

// spontaneous reads pagamentoSpontaneo and GovPay's tipo, which must agree
// when both are given.
func (b tipoBody) spontaneous() (bool, error) {
	var fromTipo *bool
	if b.Tipo != nil {
		switch *b.Tipo {
		case "spontaneo", "dovuto":
			v := *b.Tipo == "spontaneo"
			fromTipo = &v
		default:
			return false, syntaxError(`tipo must be "spontaneo" or "dovuto"`)
		}
	}
	switch {
	case b.PagamentoSpontaneo != nil && fromTipo != nil && *b.PagamentoSpontaneo != *fromTipo:
		return false, syntaxError("tipo and pagamentoSpontaneo disagree")
	case b.PagamentoSpontaneo != nil:
		return *b.PagamentoSpontaneo, nil
	case fromTipo != nil:
		return *fromTipo, nil
	}
	return false, nil
}

type tipoView struct {
	IDTipoPendenza     string `json:"idTipoPendenza"`
	Descrizione        string `json:"descrizione"`
	Abilitato          bool   `json:"abilitato"`
	PagamentoSpontaneo bool   `json:"pagamentoSpontaneo"`
	Tipo               string `json:"tipo" enum:"spontaneo,dovuto"` // GovPay's form of pagamentoSpontaneo
	events.TypeFields
}

// tipologia is GovPay's TipoPendenzaTipologia: spontaneo for what a
// payer starts (a pendenza it created, a type it may pay spontaneously),
// dovuto for a debt an application loads.
func tipologia(spontaneous bool) string {
	if spontaneous {
		return "spontaneo"
	}
	return "dovuto"
}

func toTipo(e events.PendenzaTypeRegistered) tipoView {
	return tipoView{IDTipoPendenza: e.IDTipoPendenza, Descrizione: e.Descrizione, Abilitato: e.Enabled,
		PagamentoSpontaneo: e.Spontaneous, Tipo: tipologia(e.Spontaneous), TypeFields: e.TypeFields}
}

func (s *Server) putTipoPendenza(c *echo.Context) error {
	var body tipoBody
	id, enabled, err := s.decodePut(c, idParam("idTipoPendenza", commands.ValidID), &body, &body.Abilitato, &body.IDTipoPendenza)
	if err != nil {
		return err
	}
	spontaneous, err := body.spontaneous()
	if err != nil {
		return err
	}
	res, err := s.cmds.PutPendenzaType(c.Request().Context(), s.actor(c), commands.PutPendenzaType{IDTipoPendenza: id,
		Descrizione: body.Descrizione, Enabled: enabled, Spontaneous: spontaneous, Fields: body.TypeFields})
	return s.written(c, res, err, entry(s.model.PendenzaType, id, toTipo))
}

// getTipoPendenza needs Anagrafica Creditore R from a role whose
// tipiPendenza hold the type: outside that scope the answer is 403 whether
// or not the type exists.
func (s *Server) getTipoPendenza(c *echo.Context) error {
	return read1[operations.PendenzaTypes](c, s.model, pIDTipoPendenza, operations.ReadTipoPendenza, toTipo)
}

// listTipiPendenza needs Anagrafica Creditore R and lists only the types
// in the scope of a role giving it.
func (s *Server) listTipiPendenza(c *echo.Context) error {
	return listed(c, operations.ListTipiPendenza, s.model.PendenzaTypes, tipiFilters, toTipo)
}

// tipiFilters are GovPay's filters of GET /tipiPendenza: its descrizione
// is looked for in the type's id too, as GovPay's.
var tipiFilters = queryFilters[events.PendenzaTypeRegistered]{
	abilitatoFilter(func(e events.PendenzaTypeRegistered) bool { return e.Enabled }),
	textFilter("idTipoPendenza", "the type's idTipoPendenza", func(e events.PendenzaTypeRegistered) []string { return []string{e.IDTipoPendenza} }),
	textFilter("descrizione", "the type's descrizione or idTipoPendenza", func(e events.PendenzaTypeRegistered) []string { return []string{e.Descrizione, e.IDTipoPendenza} }),
}

// --- intermediari ---

type connettoreBody struct {
	Principal string  `json:"principal"`
	Password  *string `json:"password,omitempty"`
}

// intermediarioBody is the contract's intermediary, whose node
// connector's principal GovPay's intermediario names principalPagoPa: a
// body gives it there, in connettoreNodo, or in both alike.
type intermediarioBody struct {
	IDIntermediario *string         `json:"idIntermediario,omitempty"` // optional; must equal the path
	Denominazione   string          `json:"denominazione"`
	Abilitato       *bool           `json:"abilitato"`
	ConnettoreNodo  *connettoreBody `json:"connettoreNodo,omitempty"`
	PrincipalPagoPa *string         `json:"principalPagoPa,omitempty"` // GovPay's name of connettoreNodo.principal
}

// connector is the node connector the body names, its principal under
// either name (without connettoreNodo, no password: the one held is
// kept); naming none, or two principals, is a 400.
func (b *intermediarioBody) connector() (connettoreBody, error) {
	switch {
	case b.ConnettoreNodo == nil && b.PrincipalPagoPa == nil:
		return connettoreBody{}, syntaxError("connettoreNodo or principalPagoPa is required")
	case b.PrincipalPagoPa == nil:
		return *b.ConnettoreNodo, nil
	case b.ConnettoreNodo == nil:
		return connettoreBody{Principal: *b.PrincipalPagoPa}, nil
	case b.ConnettoreNodo.Principal != "" && b.ConnettoreNodo.Principal != *b.PrincipalPagoPa:
		return connettoreBody{}, syntaxError("principalPagoPa and connettoreNodo.principal name two principals")
	}
	return connettoreBody{Principal: *b.PrincipalPagoPa, Password: b.ConnettoreNodo.Password}, nil
}

type connettoreView struct {
	Principal string `json:"principal"`
}

// intermediarioView is an intermediary with its node connector's
// principal also as GovPay's intermediario requires it, principalPagoPa.
type intermediarioView struct {
	IDIntermediario string         `json:"idIntermediario"`
	Denominazione   string         `json:"denominazione"`
	Abilitato       bool           `json:"abilitato"`
	ConnettoreNodo  connettoreView `json:"connettoreNodo"`
	PrincipalPagoPa string         `json:"principalPagoPa"`
}

func (s *Server) putIntermediario(c *echo.Context) error {
	var body intermediarioBody
	id, enabled, err := s.decodePut(c, idParam("idIntermediario", commands.ValidID), &body, &body.Abilitato, &body.IDIntermediario)
	if err != nil {
		return err
	}
	conn, err := body.connector()
	if err != nil {
		return err
	}
	res, err := s.cmds.PutIntermediary(c.Request().Context(), s.actor(c), commands.PutIntermediary{IDIntermediario: id,
		Denominazione: body.Denominazione, Enabled: enabled, ConnectorPrincipal: conn.Principal,
		ConnectorPassword: conn.Password})
	return s.written(c, res, err, entry(s.model.Intermediary, id, toIntermediario))
}

func toIntermediario(in *projections.Intermediary) intermediarioView {
	e := in.Event
	return intermediarioView{IDIntermediario: e.IDIntermediario, Denominazione: e.Denominazione, Abilitato: e.Enabled,
		ConnettoreNodo: connettoreView{Principal: e.ConnectorPrincipal}, PrincipalPagoPa: e.ConnectorPrincipal}
}

// getIntermediario needs Anagrafica PagoPA R. The connector's password is
// never returned, only its principal.
func (s *Server) getIntermediario(c *echo.Context) error {
	return readRegistry(c, "idIntermediario", s.model.Intermediary, domain.RegistryIntermediari, toIntermediario)
}

func (s *Server) listIntermediari(c *echo.Context) error {
	return listRegistry(c, domain.RegistryIntermediari, s.model.Intermediaries, intermediariFilters, toIntermediario)
}

// intermediariFilters are GovPay's filters of GET /intermediari.
var intermediariFilters = queryFilters[*projections.Intermediary]{
	abilitatoFilter(func(in *projections.Intermediary) bool { return in.Event.Enabled }),
}

// readRegistry answers GET of one entry of the unscoped registry reg,
// named by the path parameter param (an id): operations.ReadRegistry
// decides and finds it, view renders it.
func readRegistry[T, V any](c *echo.Context, param string, find func(string) (T, bool), reg domain.Registry, view func(T) V) error {
	id, err := pathParam(c, param, commands.ValidID)
	if err != nil {
		return err
	}
	return registryJSON(c, find, reg, id, view)
}

// registryJSON decides and answers the registry entry id.
func registryJSON[T, V any](c *echo.Context, find func(string) (T, bool), reg domain.Registry, id string, view func(T) V) error {
	v, err := operations.ReadRegistry(find, callerOf(c).principal, reg, id, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, view(v))
}

// listRegistry answers a page of the unscoped registry reg: its service's
// R, then every entry of all that the request's filters (f) keep.
func listRegistry[T, V any](c *echo.Context, reg domain.Registry, all func() []T, f queryFilters[T], view func(T) V) error {
	entries, err := operations.ListRegistry(all, callerOf(c).principal, reg, nil)
	if err != nil {
		return err
	}
	return filteredPage(c, entries, f, view)
}

// listed answers a scoped Backoffice list as one GovPay page: list's gate,
// then the records of all its scope admits that the request's filters (f)
// keep, each rendered by view.
func listed[T, V any](c *echo.Context, list func(func() []T, domain.Principal, operations.Recorder) ([]T, error),
	all func() []T, f queryFilters[T], view func(T) V) error {
	items, err := list(all, callerOf(c).principal, nil)
	if err != nil {
		return err
	}
	return filteredPage(c, items, f, view)
}

// filteredPage answers the page of the items f keeps.
func filteredPage[T, V any](c *echo.Context, items []T, f queryFilters[T], view func(T) V) error {
	items, err := f.narrow(c, items)
	if err != nil {
		return err
	}
	return pageJSON(c, items, view)
}
