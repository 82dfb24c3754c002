package events

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// secretFields are the JSON names of the fields tagged `secret:"true"` on
// the catalogue's event types, at any depth: they never leave the service,
// even hashed.
var secretFields = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, e := range catalogue {
		collectSecrets(e(nil), names, map[reflect.Type]bool{})
	}
	return names
})

// collectSecrets adds the secret fields of t and of the types it holds.
func collectSecrets(t reflect.Type, names map[string]bool, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for f := range t.Fields() {
		if f.Tag.Get("secret") == "true" {
			names[strings.ToLower(jsonName(f))] = true
		}
		collectSecrets(f.Type, names, seen)
	}
}

// jsonName is the name encoding/json gives field f.
func jsonName(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
		return name
	}
	return f.Name
}

func isSecretField(name string) bool { return secretFields()[strings.ToLower(name)] }

// Redact returns an event payload without its secret fields (password
// hashes, the captcha secret), at any depth, for every reader outside the
// service: the Backoffice's event log and the audit CLI. Numbers keep
// every digit. A payload that is not JSON becomes {}.
func Redact(data []byte) json.RawMessage {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage(`{}`)
	}
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for k := range t {
				if isSecretField(k) {
					delete(t, k)
				}
			}
			for _, child := range t {
				walk(child)
			}
		case []any:
			for _, child := range t {
				walk(child)
			}
		}
	}
	walk(v)
	out, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return out
}
