package httpapi

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
)

// pendenzaPatch is the body of PATCH /pendenze/{idA2A}/{idPendenza}.
type pendenzaPatch []patchOp

// UnmarshalJSONFrom reads the operations as patchOps does.
func (b *pendenzaPatch) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	return (*patchOps)(b).UnmarshalJSONFrom(d)
}

// command reads the patch: REPLACE of /stato (required) and of
// /descrizioneStato (a non-empty string). Other paths and ops are 400, as
// GovPay answers a patch it does not apply to a pendenza; a path is judged
// before its value.
func (b pendenzaPatch) command(api domain.API, idA2A, idPendenza string) (commands.PatchPendenza, error) {
	c := commands.PatchPendenza{API: api, IDA2A: idA2A, IDPendenza: idPendenza}
	if len(b) == 0 {
		return c, syntaxError("the patch is empty")
	}
	for _, op := range b {
		if op.Op != "REPLACE" {
			return c, syntaxError("op " + op.Op + " is not supported on " + op.Path + " (only REPLACE)")
		}
		if op.Path != "/stato" && op.Path != "/descrizioneStato" {
			return c, syntaxError("path " + op.Path + " cannot be patched (only /stato and /descrizioneStato)")
		}
		var v string
		if err := json.Unmarshal(op.Value, &v); err != nil {
			return c, syntaxError("the value of " + op.Path + " must be a string")
		}
		switch op.Path {
		case "/stato":
			c.Stato = v
		default: // "/descrizioneStato"
			// GovPay refuses an empty or null value for the path; read as
			// no description, it would keep the one held on a 200.
			if v == "" {
				return c, syntaxError("the value of /descrizioneStato must be a non-empty string")
			}
			c.DescrizioneStato = v
		}
	}
	if c.Stato == "" {
		return c, syntaxError("the patch must replace /stato")
	}
	return c, nil
}

// patchPendenza answers PATCH /pendenze/{idA2A}/{idPendenza} on api: the
// gate of api's patch (operations.PatchPendenza) decides before the body
// is read, the command decides the rest with the same patch's operation.
// An API without the patch is a mistake of the route table.
func (s *Server) patchPendenza(api domain.API) echo.HandlerFunc {
	op, ok := operations.PatchPendenza(api)
	if !ok {
		panic("httpapi: the " + api.String() + " API has no PATCH of pendenze")
	}
	return func(c *echo.Context) error {
		var body pendenzaPatch
		idA2A, idPendenza, err := s.gatedBody(c, pIDA2A, pIDPendenza, op.Gate, &body)
		if err != nil {
			return err
		}
		cmd, err := body.command(api, idA2A, idPendenza)
		if err != nil {
			return err
		}
		res, err := s.cmds.PatchPendenza(c.Request().Context(), s.actor(c), cmd)
		res.Created = false // a patch never creates
		return s.written(c, res, err, stored(s.model.Pendenza, idA2A, idPendenza, s.pendenza))
	}
}
