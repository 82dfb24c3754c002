package httpapi

import (
	"maps"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/swaggest/jsonschema-go"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
)

// dominiList is GovPay's domini list of a role, an operator, an
// application or a grant: each entry an idDominio (the whole entity) or an
// object {idDominio, unitaOperative} (only those operational units; an
// object without units is the whole entity). IDs holds the entities named
// whole and is nil when the list was absent; Units the others.
type dominiList struct {
	IDs   []string
	Units map[string][]string
}

// dominioProfilo is GovPay's object form of a domini entry.
type dominioProfilo struct {
	IDDominio      string   `json:"idDominio"`
	UnitaOperative []string `json:"unitaOperative,omitempty"`
}

// dominiOf is the wire form of an entity scope.
func dominiOf(s domain.EntityScope) dominiList { return dominiList{IDs: s.List(), Units: s.Units()} }

// present reports whether the list was in the body.
func (l dominiList) present() bool { return l.IDs != nil || l.Units != nil }

// scope is the entity scope the list names.
func (l dominiList) scope() domain.EntityScope { return domain.EntitiesOf(l.IDs, l.Units) }

// UnmarshalJSONFrom reads the list with the decoder's (strict) options,
// one entry at a time: a list of more than commands.MaxDominiEntries is
// refused at the entry after the last one, with the command's own 400,
// and each form is then bounded apart by the command. 1 MiB of "" or {}
// kept whole would be some 350,000 entries (about 55 and 66 MiB of
// allocations) before any is counted.
func (l *dominiList) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	entries, err := decodeAtMost[dominioEntry](d, commands.MaxDominiEntries, commands.CheckDominiEntries)
	if err != nil || entries == nil { // null: the list is absent
		*l = dominiList{}
		return err
	}
	out := dominiList{IDs: make([]string, 0, len(entries))}
	for _, e := range entries {
		if len(e.UnitaOperative) == 0 {
			out.IDs = append(out.IDs, e.IDDominio)
			continue
		}
		if out.Units == nil {
			out.Units = map[string][]string{}
		}
		out.Units[e.IDDominio] = append(out.Units[e.IDDominio], e.UnitaOperative...)
	}
	*l = out
	return nil
}

// dominioEntry is one entry of a domini list as a body holds it: an
// idDominio, or GovPay's object (without units, the entity named whole).
type dominioEntry struct {
	IDDominio      string
	UnitaOperative []string
}

// UnmarshalJSONFrom reads an idDominio or the object, strictly, its units
// bounded as the command bounds an entity's.
func (e *dominioEntry) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if d.PeekKind() == '"' {
		return json.UnmarshalDecode(d, &e.IDDominio)
	}
	var p struct {
		IDDominio      string    `json:"idDominio"`
		UnitaOperative unitsList `json:"unitaOperative"`
	}
	if err := json.UnmarshalDecode(d, &p, strictJSON); err != nil {
		return err
	}
	*e = dominioEntry{IDDominio: p.IDDominio, UnitaOperative: p.UnitaOperative}
	return nil
}

// unitsList is an entry's unitaOperative.
type unitsList = boundedList[string, unitsBound]

type unitsBound struct{}

func (unitsBound) bound() (int, func(int) error) { return idsBound("domini.unitaOperative") }

// MarshalJSON writes the entities named whole as ids, then each entity
// limited to some units as {idDominio, unitaOperative}, sorted.
func (l dominiList) MarshalJSON() ([]byte, error) {
	entries := make([]any, 0, len(l.IDs)+len(l.Units))
	for _, id := range l.IDs {
		entries = append(entries, id)
	}
	for _, d := range slices.Sorted(maps.Keys(l.Units)) {
		entries = append(entries, dominioProfilo{IDDominio: d, UnitaOperative: l.Units[d]})
	}
	return json.Marshal(entries)
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
	*s = jsonschema.Schema{}
	s.AddType(jsonschema.Array)
	s.Items = &jsonschema.Items{SchemaOrBool: &item}
	return nil
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json's callers.
func (l *dominiList) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, l, strictJSON) }
