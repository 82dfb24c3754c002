package httpapi

import (
	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// Operational units (unità operative) of a creditor entity: GovPay's
// unitaOperativaPost and unitaOperativa.

type unitaOperativaBody struct {
	IDUnita         *string `json:"idUnita,omitempty"` // optional; must equal the path
	RagioneSociale  string  `json:"ragioneSociale"`
	Abilitato       *bool   `json:"abilitato"`
	events.Contacts         // GovPay's address and contacts
}

type unitaOperativaView struct {
	IDUnita        string `json:"idUnita"`
	RagioneSociale string `json:"ragioneSociale"`
	Abilitato      bool   `json:"abilitato"`
	events.Contacts
}

// unitaOperativaRef is GovPay's unitaOperativaIndex (the Pagamento list).
type unitaOperativaRef struct {
	IDUnita        string `json:"idUnita"`
	RagioneSociale string `json:"ragioneSociale"`
}

var pIDUnita = param{"idUnitaOperativa", commands.ValidID}

func toUnitaOperativa(u events.UnitRegistered) unitaOperativaView {
	return unitaOperativaView{IDUnita: u.IDUnita, RagioneSociale: u.RagioneSociale, Abilitato: u.Enabled, Contacts: u.Contacts}
}

func (s *Server) putUnitaOperativa(c *echo.Context) error {
	dominio, err := pathParam(c, pIDDominio.name, pIDDominio.valid)
	if err != nil {
		return err
	}
	var body unitaOperativaBody
	id, enabled, err := s.decodePut(c, idParam(pIDUnita.name, pIDUnita.valid), &body, &body.Abilitato, &body.IDUnita)
	if err != nil {
		return err
	}
	res, err := s.cmds.PutUnit(c.Request().Context(), s.actor(c), commands.PutUnit{IDDominio: dominio, IDUnita: id,
		RagioneSociale: body.RagioneSociale, Enabled: enabled, Contacts: body.Contacts})
	return s.written(c, res, err, stored(s.model.Unit, dominio, id, toUnitaOperativa))
}

func (s *Server) getUnitaOperativa(c *echo.Context) error {
	return read2[operations.Units](c, s.model, pIDDominio, pIDUnita, operations.ReadUnit, toUnitaOperativa)
}

// listUnitaOperative is the Backoffice list: Anagrafica Creditore R on
// idDominio.
func (s *Server) listUnitaOperative(c *echo.Context) error {
	dominio, err := gatedParam(c, pIDDominio, operations.ListUnits)
	if err != nil {
		return err
	}
	return filteredPage(c, s.model.Units(dominio), unitFilters, toUnitaOperativa)
}

// unitFilters are GovPay's filters of the Backoffice list of units.
var unitFilters = queryFilters[events.UnitRegistered]{
	abilitatoFilter(func(u events.UnitRegistered) bool { return u.Enabled }),
	textFilter("ragioneSociale", "the unit's ragioneSociale", func(u events.UnitRegistered) []string { return []string{u.RagioneSociale} }),
}

// pgUnitaOperative answers GET /domini/{idDominio}/unitaOperative on the
// Pagamento API: the enabled units of an entity the caller may pay at
// (the gate of the entity's types list), within an application's grant.
func (s *Server) pgUnitaOperative(c *echo.Context) error {
	dominio, scope, err := s.payableAt(c)
	if err != nil {
		return err
	}
	keep := admitted(s.model.Units(dominio), func(u events.UnitRegistered) bool { return scope.AdmitsUnit(dominio, u) })
	return pageJSON(c, keep, func(u events.UnitRegistered) unitaOperativaRef {
		return unitaOperativaRef{IDUnita: u.IDUnita, RagioneSociale: u.RagioneSociale}
	})
}
