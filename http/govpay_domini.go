package httpapi

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/swaggest/jsonschema-go"

	"github.com/payauthz/payauthz/operations"
)

// dominiList is GovPay's domini list of an operator or application: each
// entry an idDominio or an object {idDominio, unitaOperative}
// (dominioProfiloPost). It holds the ids; absent stays nil.
type dominiList []string

// dominioProfilo is GovPay's object form of a domini entry.
type dominioProfilo struct {
	IDDominio      string   `json:"idDominio"`
	UnitaOperative []string `json:"unitaOperative,omitempty"`
}

// errUnits refuses a scope by operational unit, a dimension payauthz does
// not have yet: an entity named without units covers all of them, so a
// list of units would silently widen the scope.
var errUnits = operations.Unprocessable("domini: unitaOperative are not a scope this service holds yet; name the entity alone for all of its units")

// UnmarshalJSONFrom reads the list with the decoder's (strict) options.
func (l *dominiList) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if d.PeekKind() == 'n' {
		*l = nil
		_, err := d.ReadToken()
		return err
	}
	var entries []jsontext.Value
	if err := json.UnmarshalDecode(d, &entries); err != nil {
		return err
	}
	out := make(dominiList, 0, len(entries))
	for _, v := range entries {
		if v.Kind() == '"' {
			var id string
			if err := json.Unmarshal(v, &id); err != nil {
				return err
			}
			out = append(out, id)
			continue
		}
		var p dominioProfilo
		if err := json.Unmarshal(v, &p, strictJSON); err != nil {
			return err
		}
		if len(p.UnitaOperative) > 0 {
			return errUnits
		}
		out = append(out, p.IDDominio)
	}
	*l = out
	return nil
}

// PrepareJSONSchema documents the list as GovPay does: an array whose
// entries are an idDominio or {idDominio, unitaOperative}.
func (dominiList) PrepareJSONSchema(s *jsonschema.Schema) error {
	var str, obj jsonschema.Schema
	str.AddType(jsonschema.String)
	obj.AddType(jsonschema.Object)
	obj.WithProperties(map[string]jsonschema.SchemaOrBool{
		"idDominio":      (&jsonschema.Schema{}).WithType(jsonschema.String.Type()).ToSchemaOrBool(),
		"unitaOperative": (&jsonschema.Schema{}).WithType(jsonschema.Array.Type()).ToSchemaOrBool(),
	})
	obj.WithRequired("idDominio")
	item := (&jsonschema.Schema{}).WithOneOf(str.ToSchemaOrBool(), obj.ToSchemaOrBool()).ToSchemaOrBool()
	s.Items = &jsonschema.Items{SchemaOrBool: &item}
	return nil
}
