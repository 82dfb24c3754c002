package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/events"
)

// TestStoreErrorsAreUnavailable: an event store that cannot answer —
// unreachable, or closed while a request outlived the server's shutdown
// grace — is 503 503000 (with Retry-After, a reply to retry), never a 500.
// A closed JetStream store's reads once answered ErrUnavailable and now
// answer ErrClosed, as its Append and the KurrentDB store always did.
func TestStoreErrorsAreUnavailable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		err  error
	}{
		{"unavailable", fmt.Errorf("load x: %w: not connected to NATS", events.ErrUnavailable)},
		{"closed", fmt.Errorf("read the log: %w", events.ErrClosed)},
		{"deadline", context.DeadlineExceeded},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if status, fb := fault(c.err); status != http.StatusServiceUnavailable || fb.Codice != "503000" {
				t.Fatalf("fault(%v) = %d %+v, want 503 503000", c.err, status, fb)
			}
		})
	}
}

// TestFaultBeanOfEveryStatus: each error status of API.md section 2 is
// answered with its FaultBean's categoria and codice, the descrizione the
// contract fixes (401, 403000), and a 403000 whose dettaglio says why;
// the 503 of a consistency token not reached in time is INTERNO 503000.
func TestFaultBeanOfEveryStatus(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	for _, c := range []struct {
		name              string
		method, path      string
		body              any
		opts              []reqOpt
		status            int
		categoria, codice string
		descrizione       string // "" where the contract fixes none
	}{
		{"malformed_json_400", "PUT", bo + "/domini/" + d1, `{"ragioneSociale":`, opts(asAdmin()), 400, "RICHIESTA", "SINTASSI", ""},
		{"bad_path_id_400", "GET", bo + "/domini/abc", nil, opts(asAdmin()), 400, "RICHIESTA", "SINTASSI", ""},
		{"no_credentials_401", "GET", bo + "/domini/" + d1, nil, nil, 401, "AUTORIZZAZIONE", "401000", "Utenza non autenticata"},
		{"wrong_password_401", "GET", pe + "/pendenze", nil, opts(asBasic("appA", "wrong-password")), 401, "AUTORIZZAZIONE", "401000", "Utenza non autenticata"},
		{"auth_not_accepted_403", "GET", "/ragioneria/rs/public/v3/riscossioni", nil, nil, 403, "AUTORIZZAZIONE", "403", ""},
		{"not_allowed_403000", "GET", bo + "/domini/" + d2, nil, opts(as("opD1")), 403, "AUTORIZZAZIONE", "403000", "Operazione non autorizzata"},
		{"not_allowed_on_an_api_403000", "GET", rg + "/riscossioni", nil, opts(as("appNone")), 403, "AUTORIZZAZIONE", "403000", "Operazione non autorizzata"},
		{"missing_404", "GET", bo + "/domini/" + dNone, nil, opts(asAdmin()), 404, "RICHIESTA", "404000", ""},
		{"principal_in_use_409", "PUT", bo + "/applicazioni/clash", map[string]any{"principal": "opRO", "abilitato": true, "ruoli": []string{}},
			opts(asAdmin()), 409, "RICHIESTA", "409000", ""},
		{"unknown_entity_422", "PUT", pe + "/pendenze/appB/ghost-entity", pendenzaBodyFor(dNone, t1, citizen1), opts(as("appB")), 422, "RICHIESTA", "422000", ""},
		{"amount_not_positive_422", "PUT", pe + "/pendenze/appA/zero", strings.Replace(mustJSON(t, pendenzaBodyFor(d1, t1, citizen1)), "123.45", "0", 1),
			opts(as("appA")), 422, "RICHIESTA", "422000", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := w.do(t, c.method, c.path, c.body, c.opts...)
			res.expect(t, c.status, c.codice)
			fb := res.fault(t)
			if fb.Categoria != c.categoria || fb.Descrizione == "" || (c.descrizione != "" && fb.Descrizione != c.descrizione) {
				t.Fatalf("FaultBean = %+v, want categoria %s, descrizione %q", fb, c.categoria, c.descrizione)
			}
			if c.codice == "403000" && fb.Dettaglio == "" {
				t.Fatalf("a 403000 without dettaglio: %s", res.Body)
			}
		})
	}
	if status, fb := fault(errConsistencyTimeout); status != http.StatusServiceUnavailable || fb.Categoria != "INTERNO" || fb.Codice != "503000" {
		t.Fatalf("fault(consistency timeout) = %d %+v, want 503 INTERNO 503000", status, fb)
	}
}

// TestAPIAnswersAreNotStored: every answer of the APIs, an error's too,
// is Cache-Control: no-store: the answers carry personal data and are
// decided per caller, so no shared cache may keep one for another caller.
func TestAPIAnswersAreNotStored(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "ns-1", d1, t1, citizen1)
	for _, c := range []struct {
		name   string
		path   string
		opts   []reqOpt
		status int
	}{
		{"allowed", pe + "/pendenze/appA/ns-1", opts(as("appA")), http.StatusOK},
		{"not_authenticated", pe + "/pendenze/appA/ns-1", opts(asBasic("appA", "wrong")), http.StatusUnauthorized},
		{"forbidden", pe + "/pendenze/appA/ns-1", opts(as("appB")), http.StatusForbidden},
		{"no_such_route", pe + "/nothing", opts(as("appA")), http.StatusNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := w.do(t, "GET", c.path, nil, c.opts...)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d: %s", r.Status, c.status, r.Body)
			}
			if got := r.Header.Values("Cache-Control"); len(got) != 1 || got[0] != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", got)
			}
		})
	}
}
