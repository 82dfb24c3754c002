package events

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fill sets every string of v, at any depth, to secret+name for a field
// tagged secret and to "visible" otherwise (a json.RawMessage, kept as
// given, to that JSON string); pointers are allocated and slices get one
// element, so every field appears in the payload. It returns how many
// secret fields it set.
func fill(v reflect.Value, secret bool, name string) int {
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		if secret {
			v.SetBytes([]byte(`"SECRET-` + name + `"`))
			return 1
		}
		v.SetBytes([]byte(`"visible"`))
		return 0
	}
	switch v.Kind() {
	case reflect.String:
		if secret {
			v.SetString("SECRET-" + name)
			return 1
		}
		v.SetString("visible")
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		return fill(v.Elem(), secret, name)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		return fill(v.Index(0), secret, name)
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() {
				n += fill(v.Field(i), f.Tag.Get("secret") == "true", f.Name)
			}
		}
		return n
	}
	return 0
}

func TestRedactDropsEverySecretFieldOfEveryEvent(t *testing.T) {
	withSecrets := 0
	for _, e := range catalogue {
		typ := e(nil)
		t.Run(typ.Name(), func(t *testing.T) {
			v := reflect.New(typ).Elem()
			secrets := fill(v, false, "")
			if secrets > 0 {
				withSecrets++
			}
			data, err := DefaultCodec.Encode(v.Interface().(Event))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(string(data), "SECRET-"); got != secrets {
				t.Fatalf("payload holds %d secrets, want %d: %s", got, secrets, data)
			}
			red := string(Redact(data))
			if strings.Contains(red, "SECRET-") {
				t.Fatalf("redacted payload still holds a secret: %s", red)
			}
			if strings.Contains(string(data), "visible") && !strings.Contains(red, "visible") {
				t.Fatalf("redaction removed more than the secrets: %s", red)
			}
		})
	}
	// The tags are there: hashes of operators, applications and node
	// connectors, their API keys, the captcha key, and the connectors an
	// entity or application notifies through (which may carry credentials).
	for _, name := range []string{"passwordHash", "connettorePasswordHash", "secretKey", "apiKeyHash",
		"servizioMyPivot", "servizioSecim", "servizioGovPay", "servizioIntegrazione"} {
		if !isSecretField(name) {
			t.Errorf("%s is not a secret field", name)
		}
	}
	if withSecrets < 6 {
		t.Errorf("%d event types with secrets, want at least 6", withSecrets)
	}
}

// secretTags counts the fields of t tagged secret, at any depth, as
// collectSecrets finds them.
func secretTags(t reflect.Type) int {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return 0
	}
	n := 0
	for f := range t.Fields() {
		switch {
		case !f.IsExported():
		case f.Tag.Get("secret") == "true":
			n++
		default:
			n += secretTags(f.Type)
		}
	}
	return n
}

// TestRedactTestSeesEverySecretField: fill puts a secret in every field
// tagged secret of every event, whatever its type, so that
// TestRedactDropsEverySecretFieldOfEveryEvent checks each is redacted.
func TestRedactTestSeesEverySecretField(t *testing.T) {
	for _, e := range catalogue {
		typ := e(nil)
		if got, want := fill(reflect.New(typ).Elem(), false, ""), secretTags(typ); got != want {
			t.Errorf("%s: fill sets %d secret fields, the type tags %d", typ.Name(), got, want)
		}
	}
}

func TestCatalogueIsWhatTheCodecKnows(t *testing.T) {
	var names []string
	for _, e := range catalogue {
		names = append(names, reflect.Zero(e(nil)).Interface().(Event).EventName())
	}
	if got := DefaultCodec.Names(); len(got) != len(names) {
		t.Fatalf("codec knows %d events, the catalogue lists %d", len(got), len(names))
	}
}
