package httpapi

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// admitNode reads the intermediary named in the path and admits the
// caller with operations.AdmitNode, then answers for its consistency
// token (answerToken), as the other mounts do after authentication; a
// refusal before that is answered 503 while its token is not reached
// (consistency). Every password verification uses the
// read model's verified-credential cache, so argon2id runs once per
// connector and password.
func (s *Server) admitNode(c *echo.Context) (operations.NodeGate, error) {
	id, err := pathParam(c, "idIntermediario", commands.ValidID)
	if err != nil {
		return operations.NodeGate{}, err
	}
	cl := callerOf(c)
	g, err := operations.AdmitNode(s.model, operations.NodeCredentials{Auth: cl.auth, User: cl.node.user,
		Password: cl.node.password, DN: cl.node.dn, Gate: s.logins, From: c.Request().RemoteAddr}, id, nil)
	var denied *domain.ForbiddenError
	cl.nodeVerified = err == nil || errors.As(err, &denied) // a denial comes only after the credentials verified
	if err != nil {
		return g, err
	}
	return g, s.answerToken(c) // the caller is authenticated only now
}

// admitNodeWrite admits the node caller, then decodes the body of its
// write and checks the format of the body's idDominio (400).
func (s *Server) admitNodeWrite(c *echo.Context, body any, idDominio *string) (operations.NodeGate, error) {
	g, err := s.admitNode(c)
	if err != nil {
		return g, err
	}
	if err := s.decodeJSON(c, body); err != nil {
		return g, err
	}
	if !commands.ValidDominio(*idDominio) {
		return g, syntaxError("idDominio must be 11 digits")
	}
	return g, nil
}

// nodeActor is the command actor of a node call: the intermediary, so that
// the event log says which connector recorded what.
func nodeActor(c *echo.Context, g operations.NodeGate) commands.Actor {
	return commands.Actor{Principal: domain.Principal{Name: "nodo:" + g.ID}, CorrelationID: requestID(c)}
}

// nodoVerifica answers GET /avvisi/{idDominio}/{numeroAvviso}: the
// notice's amount and status (no UUID, no payer).
func (s *Server) nodoVerifica(c *echo.Context) error {
	g, err := s.admitNode(c)
	if err != nil {
		return err
	}
	dominio, avviso, err := pathPair(c, pIDDominio, pAvviso)
	if err != nil {
		return err
	}
	pd, err := g.VerifyNotice(s.model, dominio, avviso, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toAvviso(pd))
}

type ricevutaBody struct {
	IDDominio     string   `json:"idDominio"`
	NumeroAvviso  string   `json:"numeroAvviso"`
	IDRicevuta    string   `json:"idRicevuta"`
	Importo       *Importo `json:"importo"`
	Esito         string   `json:"esito"`
	DataPagamento string   `json:"dataPagamento"`
}

func (b *ricevutaBody) required() error { return need("importo", b.Importo) }

// ricevutaView is a receipt as the node sees it: what it sent and the
// status of the pendenza it was recorded for (omitted once that pendenza no
// longer holds the receipt's notice); no ids internal to the creditor.
type ricevutaView struct {
	IDDominio     string  `json:"idDominio"`
	NumeroAvviso  string  `json:"numeroAvviso"`
	IDRicevuta    string  `json:"idRicevuta"`
	Importo       Importo `json:"importo"`
	Esito         string  `json:"esito"`
	DataPagamento string  `json:"dataPagamento"`
	StatoPendenza string  `json:"statoPendenza,omitempty"`
}

// nodoRicevuta records a receipt (POST /ricevute): 201 when recorded, 200
// for an identical repeat of the idRicevuta, 409 for a repeat with
// different content, 404 for an unknown notice of a served entity.
func (s *Server) nodoRicevuta(c *echo.Context) error {
	var body ricevutaBody
	g, err := s.admitNodeWrite(c, &body, &body.IDDominio)
	if err != nil {
		return err
	}
	if err := g.ServesEntity(s.model, body.IDDominio, nil); err != nil {
		return err
	}
	res, err := s.cmds.RecordReceipt(c.Request().Context(), nodeActor(c, g), commands.RecordReceipt{
		IDIntermediario: g.ID, IDDominio: body.IDDominio, NumeroAvviso: body.NumeroAvviso, IDRicevuta: body.IDRicevuta,
		AmountCents: int64(*body.Importo), Esito: body.Esito, DataPagamento: body.DataPagamento})
	return s.written(c, res, err, stored(s.model.Receipt, body.IDDominio, body.IDRicevuta, s.toRicevuta))
}

func (s *Server) toRicevuta(r *projections.Receipt) ricevutaView {
	e := r.Event
	v := ricevutaView{IDDominio: e.IDDominio, NumeroAvviso: e.NumeroAvviso, IDRicevuta: e.IDRicevuta,
		Importo: Importo(e.AmountCents), Esito: e.Esito, DataPagamento: e.DataPagamento}
	// The state of the pendenza the receipt was recorded for, while it still
	// holds the receipt's notice: the number may since have moved with it and
	// been given to another pendenza, whose state is not this receipt's.
	if pd, ok := s.model.PendenzaByNotice(e.IDDominio, e.NumeroAvviso); ok && pd.IDA2A == e.IDA2A && pd.IDPendenza == e.IDPendenza {
		v.StatoPendenza = pd.Stato
	}
	return v
}

type rendicontazioneBody struct {
	NumeroAvviso string   `json:"numeroAvviso"`
	Importo      *Importo `json:"importo"`
	Esito        *int     `json:"esito"`
}

type flussoBody struct {
	IDFlusso        string              `json:"idFlusso"`
	IDDominio       string              `json:"idDominio"`
	DataFlusso      string              `json:"dataFlusso"`
	ImportoTotale   *Importo            `json:"importoTotale"`
	Rendicontazioni rendicontazioniBody `json:"rendicontazioni"`
}

// rendicontazioniBody are a settlement report's lines, at most
// commands.MaxSettlementLines.
type rendicontazioniBody = boundedList[rendicontazioneBody, linesBound]

type linesBound struct{}

func (linesBound) bound() (int, func(int) error) {
	return commands.MaxSettlementLines, commands.CheckSettlementLines
}

func (b *flussoBody) required() error { return need("importoTotale", b.ImportoTotale) }

// nodoFlusso records a settlement report (POST /flussiRendicontazione):
// 201 when recorded, 200 for an identical repeat of the idFlusso, 409 for a
// repeat with different content.
func (s *Server) nodoFlusso(c *echo.Context) error {
	var body flussoBody
	g, err := s.admitNodeWrite(c, &body, &body.IDDominio)
	if err != nil {
		return err
	}
	items := make([]events.SettlementItem, 0, len(body.Rendicontazioni))
	for _, r := range body.Rendicontazioni {
		if r.Importo == nil || r.Esito == nil {
			return syntaxError("every rendicontazione needs numeroAvviso, importo and esito")
		}
		items = append(items, events.SettlementItem{NumeroAvviso: r.NumeroAvviso, AmountCents: int64(*r.Importo), Esito: *r.Esito})
	}
	if err := g.ServesEntity(s.model, body.IDDominio, nil); err != nil {
		return err
	}
	res, err := s.cmds.RecordSettlementReport(c.Request().Context(), nodeActor(c, g), commands.RecordSettlementReport{
		IDIntermediario: g.ID, IDFlusso: body.IDFlusso, IDDominio: body.IDDominio, DataFlusso: body.DataFlusso,
		TotalCents: int64(*body.ImportoTotale), Items: items})
	return s.written(c, res, err, stored(s.model.SettlementReport, body.IDDominio, body.IDFlusso, s.flusso))
}
