package audit_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/payauthz/payauthz/operations/audit"
)

// TestResourceFieldsAreNamedStrings: every field of audit.Resource is a
// string with a JSON name, and ResourceFrom and Fields name each one as
// its JSON encoding does, so the console's form, the who-can query and
// the CLI ask and show every field the explain API takes.
func TestResourceFieldsAreNamedStrings(t *testing.T) {
	typ := reflect.TypeFor[audit.Resource]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type.Kind() != reflect.String || f.Tag.Get("json") == "" {
			t.Errorf("Resource.%s: %s %q, want a string with a JSON name", f.Name, f.Type, f.Tag.Get("json"))
		}
	}
	// Each field set to its own wire name, read back through JSON.
	r := audit.ResourceFrom(func(name string) string { return "v-" + name })
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var wire map[string]string
	if err := json.Unmarshal(b, &wire); err != nil {
		t.Fatal(err)
	}
	fields := r.Fields()
	if len(fields) != typ.NumField() || len(wire) != typ.NumField() {
		t.Fatalf("%d fields, %d on the wire, Resource has %d", len(fields), len(wire), typ.NumField())
	}
	for _, f := range fields {
		if f.Value != "v-"+f.Name || wire[f.Name] != f.Value {
			t.Errorf("field %s = %q, on the wire %q", f.Name, f.Value, wire[f.Name])
		}
	}
	if got := (audit.Resource{}).Fields(); got[0].Value != "" || len(got) != len(fields) {
		t.Fatalf("empty resource: %+v", got)
	}
}

// TestWithIDsNamesEveryID: WithIDs fills every empty id field, keeps those
// set, and leaves the service, the right and the place alone.
func TestWithIDsNamesEveryID(t *testing.T) {
	r := audit.Resource{IDA2A: "appA", IDDominio: "11111111111"}.WithIDs("*")
	notIDs := map[string]string{"servizio": "", "autorizzazione": "", "idDominio": "11111111111", "idUnitaOperativa": "", "idTipoPendenza": "", "idA2A": "appA"}
	for _, f := range r.Fields() {
		want, kept := notIDs[f.Name]
		if !kept {
			want = "*"
		}
		if f.Value != want {
			t.Errorf("%s = %q, want %q", f.Name, f.Value, want)
		}
	}
}
