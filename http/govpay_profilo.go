package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
)

// govpayProfilo is GovPay's Profilo (Pendenze v2, Ragioneria v3): nome, the
// entities and types the caller's grant on the API reaches, as objects,
// and acl; plus what our Backoffice profile shows (additions).
type govpayProfilo struct {
	Nome         string        `json:"nome"`
	Domini       []dominioRef  `json:"domini"`
	TipiPendenza []tipoRef     `json:"tipiPendenza"`
	ACL          []profiloACL  `json:"acl"`
	Additions    profiloExtras `json:"payauthz"`
}

// profiloExtras is our profile beyond GovPay's shape.
type profiloExtras struct {
	Principal         string              `json:"principal"`
	Tipo              string              `json:"tipo"`
	IDA2A             string              `json:"idA2A,omitempty"`
	AutorizzazioniAPI []autorizzazioneAPI `json:"autorizzazioniApi,omitempty"`
}

type dominioRef struct {
	IDDominio      string `json:"idDominio"`
	RagioneSociale string `json:"ragioneSociale"`
}

type tipoRef struct {
	IDTipoPendenza string `json:"idTipoPendenza"`
	Descrizione    string `json:"descrizione"`
}

// scopeRefs lists, as GovPay's objects, the registered entities and types
// a profile's scope holds (inDomini, inTipi; nil holds none).
func (s *Server) scopeRefs(inDomini, inTipi func(id string) bool) ([]dominioRef, []tipoRef) {
	domini, tipi := []dominioRef{}, []tipoRef{}
	for _, e := range s.model.Entities() {
		if inDomini != nil && inDomini(e.IDDominio) {
			domini = append(domini, dominioRef{IDDominio: e.IDDominio, RagioneSociale: e.RagioneSociale})
		}
	}
	for _, t := range s.model.PendenzaTypes() {
		if inTipi != nil && inTipi(t.IDTipoPendenza) {
			tipi = append(tipi, tipoRef{IDTipoPendenza: t.IDTipoPendenza, Descrizione: t.Descrizione})
		}
	}
	return domini, tipi
}

// apiProfilo answers GET /profilo of api in GovPay's shape.
func (s *Server) apiProfilo(api domain.API) echo.HandlerFunc {
	return func(c *echo.Context) error {
		p := callerOf(c).principal
		if err := operations.ProfiloAPI(p, api, nil); err != nil {
			return err
		}
		bo := profileOf(p)
		v := govpayProfilo{Nome: p.Name, ACL: bo.ACL,
			Additions: profiloExtras{Principal: bo.Principal, Tipo: bo.Tipo, IDA2A: bo.IDA2A, AutorizzazioniAPI: bo.AutorizzazioniAPI}}
		v.Domini, v.TipiPendenza = s.scopeRefs(operations.ProfiloAPIDomini(p, api), operations.ProfiloAPITipi(p, api))
		return c.JSON(http.StatusOK, v)
	}
}

// patchProfilo is GovPay's PATCH /profilo on the Backoffice: an operator
// changes its own password (REPLACE of /password, value the new one), and
// nothing else (operations.ChangeOwnProfile: 403 own-profile for acl,
// domini, tipiPendenza or ruoli, which only Anagrafica Ruoli W grants).
// It becomes the same OperatorUpdated a PUT with a password writes.
func (s *Server) patchProfilo(c *echo.Context) error {
	p := callerOf(c).principal
	var ops patchOps
	if err := s.decodeJSON(c, &ops); err != nil {
		return err
	}
	members := make([]string, 0, len(ops))
	for _, op := range ops {
		member, ok := strings.CutPrefix(op.Path, "/")
		if !ok {
			return syntaxError("path " + op.Path + " names no member (the patch of /profilo is one REPLACE of /password)")
		}
		members = append(members, member)
	}
	if err := operations.ChangeOwnProfile(p, members, nil); err != nil {
		return err
	}
	if len(ops) != 1 || ops[0].Op != "REPLACE" {
		return syntaxError("the patch of /profilo is one REPLACE of /password")
	}
	var password string
	if err := json.Unmarshal(ops[0].Value, &password); err != nil || password == "" {
		return syntaxError("the value of /password is the new password, a non-empty string")
	}
	res, err := s.cmds.ChangeOwnPassword(c.Request().Context(), s.actor(c), password)
	return s.written(c, res, err, func() (any, error) { return profileOf(p), nil })
}
