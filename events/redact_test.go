package events

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fill sets every string of v, at any depth, to secret+name for a field
// tagged secret and to "visible" otherwise; pointers are allocated and
// slices get one element, so every field appears in the payload. It
// returns how many secret fields it set.
func fill(v reflect.Value, secret bool, name string) int {
	if v.Type() == reflect.TypeFor[json.RawMessage]() { // kept as given: a JSON value
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
	// connectors, their API keys, and the captcha key.
	for _, name := range []string{"passwordHash", "connettorePasswordHash", "secretKey", "apiKeyHash"} {
		if !isSecretField(name) {
			t.Errorf("%s is not a secret field", name)
		}
	}
	if withSecrets < 6 {
		t.Errorf("%d event types with secrets, want at least 6", withSecrets)
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
