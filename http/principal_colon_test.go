package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// TestPasswordNeedsAPrincipalWithoutColon: HTTP basic ends the username
// at its first colon (RFC 7617), so a principal holding ':' could never
// present its password there. A write that gives such a principal a
// password (an operator's, an application's, a node connector's) is 400
// SINTASSI saying why, and stores nothing; without a password the name
// is accepted (a certificate subject may hold ':', an X-APP-ID too) and
// its API key works. A log written before the refusal keeps folding: its
// operator with ':' and a password is read and may still be written
// without a new password.
func TestPasswordNeedsAPrincipalWithoutColon(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	h.putRole(t, "reader", []map[string]any{aclOf("Anagrafica Applicazioni", "R")}, []string{"*"}, []string{"*"})
	const key = "colon-key-0123456789"
	refused := func(t *testing.T, path string, body map[string]any, field string) {
		t.Helper()
		end := h.logEnd(t)
		r := h.do(t, "PUT", path, body, asAdmin())
		r.expect(t, http.StatusBadRequest, "SINTASSI")
		if d := r.fault(t).Dettaglio; !strings.Contains(d, field) || !strings.Contains(d, "':'") || !strings.Contains(d, "basic") {
			t.Errorf("PUT %s: dettaglio %q, want it to name %s, ':' and basic", path, d, field)
		}
		if got := h.logEnd(t); got != end {
			t.Fatalf("PUT %s was refused but the log moved from %d to %d", path, end, got)
		}
	}
	operator := func(password bool) map[string]any {
		b := map[string]any{"ragioneSociale": "Operatore", "apiKey": key, "abilitato": true, "ruoli": []string{"reader"}}
		if password {
			b["password"] = pw
		}
		return b
	}
	t.Run("operator", func(t *testing.T) {
		refused(t, bo+"/operatori/op:1", operator(true), "principal")
		h.do(t, "GET", bo+"/operatori/op:1", nil, asAdmin()).expect(t, http.StatusNotFound, "404000")
		h.must(t, "PUT", bo+"/operatori/op:1", operator(false))
		h.do(t, "GET", "/backoffice/rs/apikey/v1/profilo", nil, asAPIKey("op:1", key)).expect(t, http.StatusOK, "")
		refused(t, bo+"/operatori/op:1", operator(true), "principal")
	})
	t.Run("application", func(t *testing.T) {
		app := func(password bool) map[string]any {
			b := map[string]any{"principal": "CN=gestionale:8443, O=Ente, C=IT", "apiKey": key, "abilitato": true, "ruoli": []string{},
				"autorizzazioniApi": []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})}}
			if password {
				b["password"] = pw
			}
			return b
		}
		refused(t, bo+"/applicazioni/gestionale", app(true), "principal")
		h.do(t, "GET", bo+"/applicazioni/gestionale", nil, asAdmin()).expect(t, http.StatusNotFound, "404000")
		h.must(t, "PUT", bo+"/applicazioni/gestionale", app(false))
		h.do(t, "GET", "/pendenze/rs/apikey/v2/pendenze", nil, asAPIKey("gestionale", key)).expect(t, http.StatusOK, "")
	})
	t.Run("node_connector", func(t *testing.T) {
		body := func(conn map[string]any) map[string]any {
			return map[string]any{"denominazione": "Intermediario", "abilitato": true, "connettoreNodo": conn}
		}
		refused(t, bo+"/intermediari/INTC", body(map[string]any{"principal": "nodo:1", "password": pw}), "connettoreNodo.principal")
		h.must(t, "PUT", bo+"/intermediari/INTC", body(map[string]any{"principal": "CN=nodo:1, O=PagoPA, C=IT"}))
	})
	t.Run("older_log", func(t *testing.T) {
		hash, err := domain.HashPassword(pw)
		if err != nil {
			t.Fatal(err)
		}
		pos, err := h.store.Append(t.Context(), events.StreamOperatore+"old:1", events.ExpectNoStream(), events.Record{ID: "old-colon",
			Event: events.OperatorRegistered{Principal: "old:1", RagioneSociale: "Operatore", PasswordHash: hash, Enabled: true, Roles: []string{"reader"}}})
		if err != nil {
			t.Fatal(err)
		}
		waitApplied(t, h, pos)
		if r := h.must(t, "GET", bo+"/operatori/old:1", nil); !strings.Contains(string(r.Body), `"principal":"old:1"`) {
			t.Fatalf("the older operator is not read: %s", r.Body)
		}
		kept := operator(false)
		kept["ragioneSociale"] = "Operatore rinominato"
		h.must(t, "PUT", bo+"/operatori/old:1", kept)
		if r := h.must(t, "GET", bo+"/operatori/old:1", nil); !strings.Contains(string(r.Body), "Operatore rinominato") {
			t.Fatalf("the older operator was not written: %s", r.Body)
		}
		refused(t, bo+"/operatori/old:1", operator(true), "principal")
	})
}
