package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// registerNodo mounts the node API (API.md section 9) on /nodo/rs/ssl/v1
// and /nodo/rs/basic/v1 (the other auth types are refused by the mount).
// Every endpoint lives under /intermediari/{idIntermediario} and admits
// only the exact principal of that intermediary's node connector, for an
// entity that intermediary serves (domain.CanActAsNode).
func (s *Server) registerNodo(g *echo.Group) {
	g.GET("/intermediari/:idIntermediario/avvisi/:idDominio/:numeroAvviso", s.nodoVerifica)
	g.POST("/intermediari/:idIntermediario/ricevute", s.nodoRicevuta)
	g.POST("/intermediari/:idIntermediario/flussiRendicontazione", s.nodoFlusso)
}

// nodeGate is what admitting a node caller established: the intermediary
// named in the path (as a view for decisions) and the caller's facts.
type nodeGate struct {
	id     string
	interm *domain.IntermediaryView // nil: not registered
	caller domain.NodeCaller
}

// admitNode authenticates the node caller against the intermediary named
// in the path and checks that it is that intermediary's connector, before
// any entity is considered.
//
// Basic credentials are authenticated first (API.md section 1: a wrong
// password or an unknown user is 401): when the user is this
// intermediary's connector principal, the password must verify against the
// connector's hash; any other user must be the credentials of some
// registered party (another intermediary's connector, an application or an
// operator), which then fails the connector rule with 403. An ssl caller
// is authenticated by its verified certificate (middleware) and matched by
// canonical DN. Every verification uses the read model's verified-credential
// cache, so argon2id runs once per connector and password.
func (s *Server) admitNode(c *echo.Context) (nodeGate, error) {
	id, err := pathParam(c, "idIntermediario", commands.ValidID)
	if err != nil {
		return nodeGate{}, err
	}
	g := nodeGate{id: id}
	in, found := s.model.Intermediary(id)
	if found {
		v := in.View()
		g.interm = &v
	}
	cl := callerOf(c)
	g.caller = domain.NodeCaller{Auth: cl.auth}
	switch cl.auth {
	case domain.AuthBasic:
		g.caller.Username = cl.node.user
		if found && in.Event.ConnectorPrincipal != "" && domain.ConstantTimeEqual(cl.node.user, in.Event.ConnectorPrincipal) {
			if ok, err := s.model.VerifyConnectorPasswordGated(s.logins, c.Request().RemoteAddr, in, cl.node.password); !ok {
				return nodeGate{}, authError(err)
			}
			g.caller.PasswordOK = true
		} else if ok, err := s.model.KnownNodeCredentialsGated(s.logins, c.Request().RemoteAddr, cl.node.user, cl.node.password); !ok {
			return nodeGate{}, authError(err)
		}
	case domain.AuthSSL:
		g.caller.DN = cl.node.dn
	}
	if err := domain.CanActAsNode(g.caller, g.interm, nil, false); err != nil {
		return nodeGate{}, err
	}
	return g, nil
}

// servesEntity decides whether the admitted connector may act for
// idDominio: the entity must be registered and served by the intermediary
// (403 otherwise, also for an unknown entity, so that a connector learns
// nothing about entities it does not serve).
func (s *Server) servesEntity(g nodeGate, idDominio string) error {
	var ev *domain.EntityView
	if v, ok := s.model.EntityView(idDominio); ok {
		ev = &v
	}
	return domain.CanActAsNode(g.caller, g.interm, ev, true)
}

// nodeActor is the command actor of a node call: the intermediary, so that
// the event log says which connector recorded what.
func nodeActor(c *echo.Context, g nodeGate) commands.Actor {
	return commands.Actor{Principal: domain.Principal{Name: "nodo:" + g.id}, CorrelationID: requestID(c)}
}

// nodoVerifica answers GET /avvisi/{idDominio}/{numeroAvviso}: the
// notice's amount and status (no UUID, no payer).
func (s *Server) nodoVerifica(c *echo.Context) error {
	g, err := s.admitNode(c)
	if err != nil {
		return err
	}
	dominio, err := pathParam(c, "idDominio", commands.ValidDominio)
	if err != nil {
		return err
	}
	avviso, err := pathParam(c, "numeroAvviso", commands.ValidAvviso)
	if err != nil {
		return err
	}
	if err := s.servesEntity(g, dominio); err != nil {
		return err
	}
	pd, ok := s.model.PendenzaByNotice(dominio, avviso)
	if !ok {
		return errNotFound
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

// ricevutaView is a receipt as the node sees it: what it sent and the
// pendenza's resulting status; no ids internal to the creditor.
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
	g, err := s.admitNode(c)
	if err != nil {
		return err
	}
	var body ricevutaBody
	if err := s.decodeJSON(c, &body); err != nil {
		return err
	}
	if !commands.ValidDominio(body.IDDominio) {
		return syntaxError("idDominio must be 11 digits")
	}
	if body.Importo == nil {
		return syntaxError("importo is required")
	}
	if err := s.servesEntity(g, body.IDDominio); err != nil {
		return err
	}
	res, err := s.cmds.RecordReceipt(c.Request().Context(), nodeActor(c, g), commands.RecordReceipt{
		IDIntermediario: g.id, IDDominio: body.IDDominio, NumeroAvviso: body.NumeroAvviso, IDRicevuta: body.IDRicevuta,
		AmountCents: int64(*body.Importo), Esito: body.Esito, DataPagamento: body.DataPagamento})
	if err != nil {
		return err
	}
	return s.written(c, res, func() (any, error) {
		r, ok := s.model.Receipt(body.IDDominio, body.IDRicevuta)
		if !ok {
			return nil, errNotFound
		}
		return s.toRicevuta(r), nil
	})
}

func (s *Server) toRicevuta(r *projections.Receipt) ricevutaView {
	e := r.Event
	v := ricevutaView{IDDominio: e.IDDominio, NumeroAvviso: e.NumeroAvviso, IDRicevuta: e.IDRicevuta,
		Importo: Importo(e.AmountCents), Esito: e.Esito, DataPagamento: e.DataPagamento}
	if pd, ok := s.model.PendenzaByNotice(e.IDDominio, e.NumeroAvviso); ok {
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
	IDFlusso        string                `json:"idFlusso"`
	IDDominio       string                `json:"idDominio"`
	DataFlusso      string                `json:"dataFlusso"`
	ImportoTotale   *Importo              `json:"importoTotale"`
	Rendicontazioni []rendicontazioneBody `json:"rendicontazioni"`
}

// nodoFlusso records a settlement report (POST /flussiRendicontazione):
// 201 when recorded, 200 for an identical repeat of the idFlusso, 409 for a
// repeat with different content.
func (s *Server) nodoFlusso(c *echo.Context) error {
	g, err := s.admitNode(c)
	if err != nil {
		return err
	}
	var body flussoBody
	if err := s.decodeJSON(c, &body); err != nil {
		return err
	}
	if !commands.ValidDominio(body.IDDominio) {
		return syntaxError("idDominio must be 11 digits")
	}
	if body.ImportoTotale == nil {
		return syntaxError("importoTotale is required")
	}
	items := make([]events.SettlementItem, 0, len(body.Rendicontazioni))
	for _, r := range body.Rendicontazioni {
		if r.Importo == nil || r.Esito == nil {
			return syntaxError("every rendicontazione needs numeroAvviso, importo and esito")
		}
		items = append(items, events.SettlementItem{NumeroAvviso: r.NumeroAvviso, AmountCents: int64(*r.Importo), Esito: *r.Esito})
	}
	if err := s.servesEntity(g, body.IDDominio); err != nil {
		return err
	}
	res, err := s.cmds.RecordSettlementReport(c.Request().Context(), nodeActor(c, g), commands.RecordSettlementReport{
		IDIntermediario: g.id, IDFlusso: body.IDFlusso, IDDominio: body.IDDominio, DataFlusso: body.DataFlusso,
		TotalCents: int64(*body.ImportoTotale), Items: items})
	if err != nil {
		return err
	}
	return s.written(c, res, func() (any, error) {
		r, ok := s.model.SettlementReport(body.IDDominio, body.IDFlusso)
		if !ok {
			return nil, errNotFound
		}
		return toFlusso(r), nil
	})
}
