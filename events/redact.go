package events

import (
	"bytes"
	"encoding/json"
	"strings"
)

// secretFields never leave the service, even hashed.
var secretFields = []string{"passwordHash", "connettorePasswordHash", "secretKey", "apiKeyHash"}

func isSecretField(name string) bool {
	for _, f := range secretFields {
		if strings.EqualFold(name, f) {
			return true
		}
	}
	return false
}

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
