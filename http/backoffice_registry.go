package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// --- domini ---

type dominioBody struct {
	IDDominio       *string `json:"idDominio,omitempty"` // optional; must equal the path
	RagioneSociale  string  `json:"ragioneSociale"`
	IDIntermediario string  `json:"idIntermediario,omitempty"`
	Abilitato       *bool   `json:"abilitato"`
}

type dominioView struct {
	IDDominio       string `json:"idDominio"`
	RagioneSociale  string `json:"ragioneSociale"`
	IDIntermediario string `json:"idIntermediario,omitempty"`
	Abilitato       bool   `json:"abilitato"`
}

func toDominio(e events.CreditorEntityRegistered) dominioView {
	return dominioView{IDDominio: e.IDDominio, RagioneSociale: e.RagioneSociale, IDIntermediario: e.IDIntermediario, Abilitato: e.Enabled}
}

func (s *Server) putDominio(c *echo.Context) error {
	id, err := pathParam(c, "idDominio", commands.ValidDominio)
	if err != nil {
		return err
	}
	var body dominioBody
	if err := s.decodeJSON(c, &body); err != nil {
		return err
	}
	if err := samePathID("idDominio", body.IDDominio, id); err != nil {
		return err
	}
	enabled, err := requireBool("abilitato", body.Abilitato)
	if err != nil {
		return err
	}
	res, err := s.cmds.PutEntity(c.Request().Context(), s.actor(c), commands.PutEntity{IDDominio: id,
		RagioneSociale: body.RagioneSociale, IDIntermediario: body.IDIntermediario, Enabled: enabled})
	if err != nil {
		return err
	}
	return s.written(c, res, func() (any, error) { return s.dominio(id) })
}

func (s *Server) dominio(id string) (any, error) {
	e, ok := s.model.Entity(id)
	if !ok {
		return nil, errNotFound
	}
	return toDominio(e), nil
}

// getDominio needs Anagrafica Creditore R from a role whose domini hold
// idDominio: outside that scope the answer is 403 whether or not the entity
// exists; inside it, an unknown entity is 404.
func (s *Server) getDominio(c *echo.Context) error {
	id, err := pathParam(c, "idDominio", commands.ValidDominio)
	if err != nil {
		return err
	}
	if err := domain.CanOnDominio(callerOf(c).principal, domain.ServiceAnagraficaCreditore, domain.RightRead, id); err != nil {
		return err
	}
	v, err := s.dominio(id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// listDomini needs Anagrafica Creditore R and lists only the entities in
// the scope of a role giving it (a caller with the right on no entity gets
// an empty page, not a 403).
func (s *Server) listDomini(c *echo.Context) error {
	p := callerOf(c).principal
	if err := domain.HasServiceRight(p, domain.ServiceAnagraficaCreditore, domain.RightRead); err != nil {
		return err
	}
	var keep []events.CreditorEntityRegistered
	for _, e := range s.model.Entities() {
		if domain.CanOnDominio(p, domain.ServiceAnagraficaCreditore, domain.RightRead, e.IDDominio) == nil {
			keep = append(keep, e)
		}
	}
	return pageJSON(c, keep, toDominio)
}

// --- tipiPendenza ---

type tipoBody struct {
	IDTipoPendenza     *string `json:"idTipoPendenza,omitempty"` // optional; must equal the path
	Descrizione        string  `json:"descrizione"`
	Abilitato          *bool   `json:"abilitato"`
	PagamentoSpontaneo bool    `json:"pagamentoSpontaneo"`
}

type tipoView struct {
	IDTipoPendenza     string `json:"idTipoPendenza"`
	Descrizione        string `json:"descrizione"`
	Abilitato          bool   `json:"abilitato"`
	PagamentoSpontaneo bool   `json:"pagamentoSpontaneo"`
}

func toTipo(e events.PendenzaTypeRegistered) tipoView {
	return tipoView{IDTipoPendenza: e.IDTipoPendenza, Descrizione: e.Descrizione, Abilitato: e.Enabled, PagamentoSpontaneo: e.Spontaneous}
}

func (s *Server) putTipoPendenza(c *echo.Context) error {
	id, err := pathParam(c, "idTipoPendenza", commands.ValidID)
	if err != nil {
		return err
	}
	var body tipoBody
	if err := s.decodeJSON(c, &body); err != nil {
		return err
	}
	if err := samePathID("idTipoPendenza", body.IDTipoPendenza, id); err != nil {
		return err
	}
	enabled, err := requireBool("abilitato", body.Abilitato)
	if err != nil {
		return err
	}
	res, err := s.cmds.PutPendenzaType(c.Request().Context(), s.actor(c), commands.PutPendenzaType{IDTipoPendenza: id,
		Descrizione: body.Descrizione, Enabled: enabled, Spontaneous: body.PagamentoSpontaneo})
	if err != nil {
		return err
	}
	return s.written(c, res, func() (any, error) { return s.tipo(id) })
}

func (s *Server) tipo(id string) (any, error) {
	e, ok := s.model.PendenzaType(id)
	if !ok {
		return nil, errNotFound
	}
	return toTipo(e), nil
}

// getTipoPendenza needs Anagrafica Creditore R. Pendenza types are a
// registry shared by every entity (PUT needs the right, no scope), so reads
// are not filtered by the role's tipiPendenza either.
func (s *Server) getTipoPendenza(c *echo.Context) error {
	id, err := pathParam(c, "idTipoPendenza", commands.ValidID)
	if err != nil {
		return err
	}
	if err := domain.HasServiceRight(callerOf(c).principal, domain.ServiceAnagraficaCreditore, domain.RightRead); err != nil {
		return err
	}
	v, err := s.tipo(id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

func (s *Server) listTipiPendenza(c *echo.Context) error {
	if err := domain.HasServiceRight(callerOf(c).principal, domain.ServiceAnagraficaCreditore, domain.RightRead); err != nil {
		return err
	}
	return pageJSON(c, s.model.PendenzaTypes(), toTipo)
}

// --- intermediari ---

type connettoreBody struct {
	Principal string  `json:"principal"`
	Password  *string `json:"password,omitempty"`
}

type intermediarioBody struct {
	IDIntermediario *string         `json:"idIntermediario,omitempty"` // optional; must equal the path
	Denominazione   string          `json:"denominazione"`
	Abilitato       *bool           `json:"abilitato"`
	ConnettoreNodo  *connettoreBody `json:"connettoreNodo"`
}

type connettoreView struct {
	Principal string `json:"principal"`
}

type intermediarioView struct {
	IDIntermediario string         `json:"idIntermediario"`
	Denominazione   string         `json:"denominazione"`
	Abilitato       bool           `json:"abilitato"`
	ConnettoreNodo  connettoreView `json:"connettoreNodo"`
}

func (s *Server) putIntermediario(c *echo.Context) error {
	id, err := pathParam(c, "idIntermediario", commands.ValidID)
	if err != nil {
		return err
	}
	var body intermediarioBody
	if err := s.decodeJSON(c, &body); err != nil {
		return err
	}
	if err := samePathID("idIntermediario", body.IDIntermediario, id); err != nil {
		return err
	}
	enabled, err := requireBool("abilitato", body.Abilitato)
	if err != nil {
		return err
	}
	if body.ConnettoreNodo == nil {
		return syntaxError("connettoreNodo is required")
	}
	res, err := s.cmds.PutIntermediary(c.Request().Context(), s.actor(c), commands.PutIntermediary{IDIntermediario: id,
		Denominazione: body.Denominazione, Enabled: enabled, ConnectorPrincipal: body.ConnettoreNodo.Principal,
		ConnectorPassword: body.ConnettoreNodo.Password})
	if err != nil {
		return err
	}
	return s.written(c, res, func() (any, error) { return s.intermediario(id) })
}

func toIntermediario(in *projections.Intermediary) intermediarioView {
	e := in.Event
	return intermediarioView{IDIntermediario: e.IDIntermediario, Denominazione: e.Denominazione, Abilitato: e.Enabled,
		ConnettoreNodo: connettoreView{Principal: e.ConnectorPrincipal}}
}

func (s *Server) intermediario(id string) (any, error) {
	in, ok := s.model.Intermediary(id)
	if !ok {
		return nil, errNotFound
	}
	return toIntermediario(in), nil
}

// getIntermediario needs Anagrafica PagoPA R. The connector's password is
// never returned, only its principal.
func (s *Server) getIntermediario(c *echo.Context) error {
	id, err := pathParam(c, "idIntermediario", commands.ValidID)
	if err != nil {
		return err
	}
	if err := domain.HasServiceRight(callerOf(c).principal, domain.ServiceAnagraficaPagoPA, domain.RightRead); err != nil {
		return err
	}
	v, err := s.intermediario(id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

func (s *Server) listIntermediari(c *echo.Context) error {
	if err := domain.HasServiceRight(callerOf(c).principal, domain.ServiceAnagraficaPagoPA, domain.RightRead); err != nil {
		return err
	}
	return pageJSON(c, s.model.Intermediaries(), toIntermediario)
}
