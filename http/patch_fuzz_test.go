package httpapi

import (
	"strings"
	"testing"
)

// patchTargets are the PATCH endpoints fuzzed, each with its caller: the
// Backoffice registries and pendenze as the administrator, the Pendenze
// API's pendenze as their creator, the profile as an operator.
var patchTargets = []struct {
	path string
	as   reqOpt
}{
	{bo + "/applicazioni/appB", asAdmin()},
	{bo + "/operatori/opD1", asAdmin()},
	{bo + "/ruoli/opD1", asAdmin()},
	{bo + "/pendenze/appA/FZ1", asAdmin()},
	{"/pendenze/rs/basic/v2/pendenze/appA/FZ1", as("appA")},
	{bo + "/profilo", as("opRO")},
}

// FuzzPatchBodies sends arbitrary bodies to every PATCH of the API (the
// registries' ADD/DELETE/REPLACE applied to the entry then written as its
// PUT, a pendenza's stato, the profile's password): bad input must be
// the contract's 4xx, never a 5xx, and every answer must be one the
// OpenAPI document describes (harness.do checks it).
// Run: go test ./http -run '^$' -fuzz FuzzPatchBodies -fuzztime 1m -parallel 1
func FuzzPatchBodies(f *testing.F) {
	w := newWorld(f)
	w.createPendenza(f, "appA", "FZ1", d1, t1, citizen1)
	seeds := []string{
		`[{"op":"REPLACE","path":"/abilitato","value":false}]`,
		`[{"op":"ADD","path":"/domini","value":"` + d2 + `"}]`,
		`[{"op":"DELETE","path":"/ruoli","value":"opD1"}]`,
		`[{"op":"ADD","path":"/acl","value":{"servizio":"Pendenze","autorizzazioni":["R"]}}]`,
		`[{"op":"REPLACE","path":"/domini","value":[{"idDominio":"` + d1 + `","unitaOperative":["U1"]}]}]`,
		`[{"op":"REPLACE","path":"/tipiPendenza","value":null}]`,
		`[{"op":"REPLACE","path":"/autorizzazioniApi","value":[{"api":"PENDENZE","domini":["*"]}]}]`,
		`[{"op":"REPLACE","path":"/principal","value":"CN=x, O=y"}]`,
		`[{"op":"REPLACE","path":"/password","value":"password-456"}]`,
		`[{"op":"REPLACE","path":"/apiKey","value":{}}]`,
		`[{"op":"REPLACE","path":"/stato","value":"ANNULLATA"},{"op":"REPLACE","path":"/descrizioneStato","value":"x"}]`,
		`[{"op":"REPLACE","path":"/stato","value":"NON_ESEGUITA"}]`,
		`[{"op":"REPLACE","path":"/codificaAvvisi","value":{"codificaIuv":"99","regExpIuv":"(a+)+$"}}]`,
		`[{"op":"REPLACE","path":"/servizioIntegrazione","value":{"url":"http://x","auth":{"username":"u"}}}]`,
		`[{"op":"ADD","path":"/domini","value":1e400}]`, `[{"op":"NOPE","path":"x"}]`, `[]`, `{}`, `null`, ``,
		`[{"op":"REPLACE","path":"/stato","value":"ANNULLATA"},{"op":"REPLACE","path":"/descrizioneStato","value":"` + strings.Repeat("è", 255) + `"}]`,
		`[{"op":"REPLACE","path":"/domini","value":` + strings.Repeat("[", maxBodyDepth) + strings.Repeat("]", maxBodyDepth) + `}]`,
		// Escapes in names and paths (JSON's and JSON Pointer's), a member
		// given twice, invalid UTF-8, a lone surrogate, trailing data.
		`[{"op":"REPLACE","path":"/\u0061bilitato","v\u0061lue":false}]`, `[{"op":"ADD","path":"/domini~1x~0","value":"x"}]`,
		`[{"op":"REPLACE","path":"","value":{}}]`, `[{"op":"REPLACE","op":"ADD","path":"/abilitato","value":false}]`,
		"[{\"op\":\"REPLACE\",\"path\":\"/descrizioneStato\",\"value\":\"\xff\"}]",
		`[{"op":"REPLACE","path":"/password","value":"\ud800\u0000"}]`, `[{"op":"REPLACE","path":"/abilitato","value":true}] [`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, target uint8, body string) {
		tg := patchTargets[int(target)%len(patchTargets)]
		r := w.do(t, "PATCH", tg.path, body, tg.as)
		if r.Status >= 500 {
			t.Fatalf("PATCH %s %q: %d %s", tg.path, body, r.Status, r.Body)
		}
	})
}
