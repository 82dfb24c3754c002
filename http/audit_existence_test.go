package httpapi

import (
	"bytes"
	"net/url"
	"testing"
)

// TestScopedAuditorCannotTellMissingFromOutOfScope: an auditor scoped to
// d1 asking who-can or explain about a pendenza or a payment of d2 is
// answered exactly as when it names one that does not exist — status and
// body — so no denial tells it which resources exist outside its scope
// (as GET /eventi/{id} denies a missing id like another's event). The
// whole log's auditor is answered both (200).
func TestScopedAuditorCannotTellMissingFromOutOfScope(t *testing.T) {
	w := newWorld(t)
	w.createPendenza(t, "appB", "pb1", d2, t1, citizen1)
	payB := w.payOwn(t, "appB", "pb1")
	who := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return bo + "/autorizzazioni?" + v.Encode()
	}
	explain := func(api, op string, res map[string]any) map[string]any {
		b := map[string]any{"principal": "appB", "auth": "basic", "api": api, "operazione": op}
		for k, v := range res {
			b[k] = v
		}
		return b
	}
	type question struct {
		method, path string
		body         any
	}
	for _, tc := range []struct {
		name              string
		existing, missing question
	}{
		{"who_can_pendenza",
			question{"GET", who("api", "PENDENZE", "operazione", "read", "idA2A", "appB", "idPendenza", "pb1"), nil},
			question{"GET", who("api", "PENDENZE", "operazione", "read", "idA2A", "appB", "idPendenza", "nope"), nil}},
		{"who_can_pendenza_named_own_entity",
			question{"GET", who("api", "BACKOFFICE", "operazione", "servizio", "servizio", "Pendenze", "idA2A", "appB", "idPendenza", "pb1", "idDominio", d1), nil},
			question{"GET", who("api", "BACKOFFICE", "operazione", "servizio", "servizio", "Pendenze", "idA2A", "appB", "idPendenza", "nope", "idDominio", d1), nil}},
		{"explain_pendenza",
			question{"POST", bo + "/autorizzazioni/verifica", explain("PAGAMENTO", "read-pendenza", map[string]any{"idA2A": "appB", "idPendenza": "pb1"})},
			question{"POST", bo + "/autorizzazioni/verifica", explain("PAGAMENTO", "read-pendenza", map[string]any{"idA2A": "appB", "idPendenza": "nope"})}},
		{"who_can_payment",
			question{"GET", who("api", "PAGAMENTO", "operazione", "read-payment", "idPagamento", payB), nil},
			question{"GET", who("api", "PAGAMENTO", "operazione", "read-payment", "idPagamento", "nope"), nil}},
		{"explain_payment_named_own_entity",
			question{"POST", bo + "/autorizzazioni/verifica", explain("RAGIONERIA", "read-payment", map[string]any{"idPagamento": payB, "idDominio": d1})},
			question{"POST", bo + "/autorizzazioni/verifica", explain("RAGIONERIA", "read-payment", map[string]any{"idPagamento": "nope", "idDominio": d1})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := w.do(t, tc.existing.method, tc.existing.path, tc.existing.body, as("opD1"))
			ex.expect(t, 403, "403000")
			mi := w.do(t, tc.missing.method, tc.missing.path, tc.missing.body, as("opD1"))
			mi.expect(t, 403, "403000")
			if !bytes.Equal(ex.Body, mi.Body) {
				t.Fatalf("a scoped auditor tells them apart:\n existing out of scope: %s\n missing:               %s", ex.Body, mi.Body)
			}
			w.must(t, tc.existing.method, tc.existing.path, tc.existing.body, as("opRO"))
			w.must(t, tc.missing.method, tc.missing.path, tc.missing.body, as("opRO"))
		})
	}
}
