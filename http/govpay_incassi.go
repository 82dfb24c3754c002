package httpapi

import (
	"time"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// Incassi on the Backoffice (GovPay's riaccrediti): record one, read one,
// list them, under Rendicontazioni e Incassi on the entity.

// incassoBody is GovPay's NuovoRiaccredito.
type incassoBody struct {
	Causale       string   `json:"causale"`
	Importo       *Importo `json:"importo"`
	IDFlusso      string   `json:"idFlusso,omitempty"`
	DataValuta    string   `json:"dataValuta,omitempty"`
	DataContabile string   `json:"dataContabile,omitempty"`
	IBANAccredito string   `json:"ibanAccredito,omitempty"`
	SCT           string   `json:"sct,omitempty"`
}

func (b *incassoBody) required() error { return need("importo", b.Importo) }

// incassoView is GovPay's Incasso (the Backoffice's incassoIndex), for
// the fields held: the entity as an object (and its idDominio) and stato
// ACQUISITO, since an incasso is recorded whole when written.
type incassoView struct {
	IDDominio     string     `json:"idDominio"`
	Dominio       dominioRef `json:"dominio"`
	IDIncasso     string     `json:"idIncasso"`
	Stato         string     `json:"stato"`
	Causale       string     `json:"causale"`
	Importo       Importo    `json:"importo"`
	IDFlusso      string     `json:"idFlusso,omitempty"`
	DataValuta    string     `json:"dataValuta,omitempty"`
	DataContabile string     `json:"dataContabile,omitempty"`
	IBANAccredito string     `json:"ibanAccredito,omitempty"`
	SCT           string     `json:"sct,omitempty"`
	Data          time.Time  `json:"data"`
}

const statoIncassoAcquisito = "ACQUISITO"

func (s *Server) incasso(r *projections.Incasso) incassoView {
	e := r.Event
	return incassoView{IDDominio: e.IDDominio, Dominio: s.dominioOf(e.IDDominio), IDIncasso: e.IDIncasso,
		Stato: statoIncassoAcquisito, Causale: e.Causale, Importo: Importo(e.AmountCents), IDFlusso: e.IDFlusso,
		DataValuta: e.DataValuta, DataContabile: e.DataContabile, IBANAccredito: e.IBANAccredito, SCT: e.SCT, Data: r.Time.UTC()}
}

var pIDIncasso = param{"idIncasso", commands.ValidID}

// postIncasso answers POST /incassi/{idDominio}: the gate on idDominio
// before the body is read, then the command; 201 with the incasso.
func (s *Server) postIncasso(c *echo.Context) error {
	dominio, err := gatedParam(c, pIDDominio, operations.AskWriteIncasso)
	if err != nil {
		return err
	}
	var body incassoBody
	if err := s.decodeJSON(c, &body); err != nil {
		return err
	}
	res, id, err := s.cmds.RecordIncasso(c.Request().Context(), s.actor(c), commands.RecordIncasso{IDDominio: dominio,
		Causale: body.Causale, AmountCents: int64(*body.Importo), IDFlusso: body.IDFlusso, DataValuta: body.DataValuta,
		DataContabile: body.DataContabile, IBANAccredito: body.IBANAccredito, SCT: body.SCT})
	return s.written(c, res, err, stored(s.model.Incasso, dominio, id, s.incasso))
}

func (s *Server) getIncasso(c *echo.Context) error {
	return read2[operations.IncassiStore](c, s.model, pIDDominio, pIDIncasso, operations.ReadIncasso, s.incasso)
}

func (s *Server) listIncassi(c *echo.Context) error {
	sc, err := entityScope(c, operations.RendicontazioniList)
	if err != nil {
		return err
	}
	return filteredPage(c, s.model.Incassi(func(r *projections.Incasso) bool { return sc.Admits(r.Event.IDDominio) }), incassiFilters, s.incasso)
}
