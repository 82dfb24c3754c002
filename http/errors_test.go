package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payauthz/payauthz/commands"
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

// TestServerFaultsOverHTTP: the rows of API.md section 2 that only the
// server's side brings about, reached through real requests: a write that
// another writer keeps overtaking (its retries cannot resolve the
// conflict) is 409 RICHIESTA 409000; a write the event store does not
// take, a consistency token not reached in --consistency-wait and a write
// not applied in it are 503 INTERNO 503000 with Retry-After. Each is a
// FaultBean in application/json (expect).
func TestServerFaultsOverHTTP(t *testing.T) {
	t.Parallel() // each test runs its own service
	const raced, refused = "conflict-409", "unavailable-503"
	var (
		w      atomic.Pointer[harness]
		flips  atomic.Int64
		failed atomic.Bool
	)
	// Another writer redefines the role each time the raced request is
	// about to append: the stream has moved on at every attempt.
	overtake := func(_ string, recs []events.Record) {
		if len(recs) == 0 || recs[0].CorrelationID != raced {
			return
		}
		h := w.Load()
		admin, _ := h.model.Lookup(adminUser)
		rights := []string{"R"}
		if flips.Add(1)%2 == 1 {
			rights = []string{"R", "W"}
		}
		if _, err := h.cmds.DefineRole(context.Background(), commands.Actor{Principal: admin.Principal, CorrelationID: "overtaker"},
			commands.DefineRole{IDRuolo: "contested", Domini: []string{"*"}, TipiPendenza: []string{"*"},
				ACL: []events.ACLEntry{{Service: "Pendenze", Rights: rights}}}); err != nil {
			t.Errorf("the other writer: %v", err)
		}
	}
	refuse := func(_ string, pos events.Position, err error) (events.Position, error) {
		if failed.Load() {
			return 0, fmt.Errorf("%w: not connected", events.ErrUnavailable)
		}
		return pos, err
	}
	gate := newProjectionGate()
	h := newHarness(t, withConsistencyWait(200*time.Millisecond), withProjectionGate(gate),
		withBeforeAppend(overtake), withAfterAppend(refuse))
	w.Store(h)
	h.putRole(t, "contested", acl{aclOf("Pendenze", "R")}, []string{"*"}, []string{"*"})
	role := map[string]any{"acl": acl{aclOf("Giornale degli Eventi", "R")}, "domini": []string{"*"}, "tipiPendenza": []string{"*"}}

	check := func(t *testing.T, r *response, status int, categoria, codice string) {
		t.Helper()
		r.expect(t, status, codice)
		if fb := r.fault(t); fb.Categoria != categoria || fb.Descrizione == "" {
			t.Fatalf("FaultBean %+v, want categoria %s and a descrizione", fb, categoria)
		}
		if ra := r.Header.Get("Retry-After"); (status == http.StatusServiceUnavailable) != (ra != "") {
			t.Fatalf("status %d with Retry-After %q: a 503 sets it, nothing else here does", status, ra)
		}
	}
	t.Run("conflict_retries_could_not_resolve_409", func(t *testing.T) {
		r := h.do(t, "PUT", bo+"/ruoli/contested", role, asAdmin(), withHeader("X-Request-ID", raced))
		check(t, r, http.StatusConflict, "RICHIESTA", "409000")
		if n := flips.Load(); n != commands.MaxConflictRetries+1 {
			t.Fatalf("the other writer overtook %d attempts, want every one of %d", n, commands.MaxConflictRetries+1)
		}
	})
	t.Run("store_unavailable_for_a_write_503", func(t *testing.T) {
		failed.Store(true)
		defer failed.Store(false)
		r := h.do(t, "PUT", bo+"/domini/"+d1, map[string]any{"ragioneSociale": "Ente", "abilitato": true}, asAdmin())
		check(t, r, http.StatusServiceUnavailable, "INTERNO", "503000")
		if d := r.fault(t).Dettaglio; d != "the event store is unavailable" {
			t.Fatalf("dettaglio %q, want the store's", d)
		}
	})
	t.Run("token_not_reached_503", func(t *testing.T) {
		gate.shut()
		defer gate.reopen()
		// Another replica's write, which this one has not applied.
		pos, err := h.store.Append(t.Context(), events.StreamRuolo+"elsewhere", events.ExpectNoStream(), events.Record{
			ID: "elsewhere-role", Event: events.RoleDefined{IDRuolo: "elsewhere", Domini: []string{"*"}, TipiPendenza: []string{"*"},
				ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}}}})
		if err != nil {
			t.Fatal(err)
		}
		r := h.do(t, "GET", bo+"/profilo", nil, asAdmin(), withToken(Token(h.store.Backend(), pos)))
		check(t, r, http.StatusServiceUnavailable, "INTERNO", "503000")
	})
	t.Run("write_not_applied_in_time_503", func(t *testing.T) {
		gate.shut()
		defer gate.reopen()
		r := h.do(t, "PUT", bo+"/domini/"+d2, map[string]any{"ragioneSociale": "Ente lento", "abilitato": true}, asAdmin())
		check(t, r, http.StatusServiceUnavailable, "INTERNO", "503000")
	})
}
