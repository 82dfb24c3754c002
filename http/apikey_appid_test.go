package httpapi

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// TestOneAppIDNamesOnePrincipal: an X-APP-ID (apikey) names an
// application's idA2A or an operator's principal, never both. Registering
// a new application whose idA2A is an operator's principal, or a new
// operator whose principal is an application's idA2A, is 409 as a
// principal in use, writes nothing, and the key of the one registered
// first keeps working; names that clash with nobody are registered.
func TestOneAppIDNamesOnePrincipal(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	h.putRole(t, "reader", []map[string]any{aclOf("Anagrafica Applicazioni", "R")}, []string{"*"}, []string{"*"})
	// An administrator of applications only: it may not write operators.
	h.putRole(t, "appAdmin", []map[string]any{aclOf("Anagrafica Applicazioni", "R", "W")}, []string{"*"}, []string{"*"})
	h.putOperator(t, "appAdmin", pw, true, "appAdmin")
	const (
		opKey  = "op-key-0123456789"
		appKey = "app-key-0123456789"
		bok    = "/backoffice/rs/apikey/v1"
		pek    = "/pendenze/rs/apikey/v2"
	)
	operator := func(principal string) map[string]any {
		return map[string]any{"ragioneSociale": "Operatore " + principal, "apiKey": opKey, "abilitato": true, "ruoli": []string{"reader"}}
	}
	application := func(principal string) map[string]any {
		return map[string]any{"principal": principal, "apiKey": appKey, "abilitato": true, "ruoli": []string{},
			"autorizzazioniApi": []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})}}
	}
	// refused asserts that the PUT is 409 409000 with dettaglio detail,
	// that the log ends where it did (nothing stored, not even a claim) and
	// that the resource is not there.
	refused := func(t *testing.T, path string, body map[string]any, detail string, opts ...reqOpt) {
		t.Helper()
		end := h.logEnd(t)
		r := h.do(t, "PUT", path, body, opts...)
		r.expect(t, http.StatusConflict, "409000")
		if got := r.fault(t).Dettaglio; got != detail {
			t.Errorf("PUT %s: dettaglio %q, want %q", path, got, detail)
		}
		if got := h.logEnd(t); got != end {
			t.Fatalf("PUT %s was refused but the log moved from %d to %d", path, end, got)
		}
		h.do(t, "GET", path, nil, asAdmin()).expect(t, http.StatusNotFound, "404000")
	}

	t.Run("operator_first", func(t *testing.T) {
		h.must(t, "PUT", bo+"/operatori/opX", operator("opX"))
		h.do(t, "GET", bok+"/profilo", nil, asAPIKey("opX", opKey)).expect(t, http.StatusOK, "")
		for _, by := range []struct {
			name string
			opt  reqOpt
		}{{"by_an_application_administrator", asBasic("appAdmin", pw)}, {"by_the_administrator", asAdmin()}} {
			t.Run(by.name, func(t *testing.T) {
				refused(t, bo+"/applicazioni/opX", application("opX-app"),
					"idA2A opX is the X-APP-ID of another application or operator", by.opt)
				h.do(t, "GET", bok+"/profilo", nil, asAPIKey("opX", opKey)).expect(t, http.StatusOK, "")
				h.do(t, "GET", pek+"/pendenze", nil, asAPIKey("opX", appKey)).expect(t, http.StatusUnauthorized, "401000")
			})
		}
		// Another idA2A is free, and the refused one left its principal free.
		h.must(t, "PUT", bo+"/applicazioni/opX-other", application("opX-app"), asBasic("appAdmin", pw))
		h.do(t, "GET", pek+"/pendenze", nil, asAPIKey("opX-other", appKey)).expect(t, http.StatusOK, "")
		h.must(t, "PUT", bo+"/operatori/opX", operator("opX")) // the holder itself may write again
		h.do(t, "GET", bok+"/profilo", nil, asAPIKey("opX", opKey)).expect(t, http.StatusOK, "")
	})

	t.Run("application_first", func(t *testing.T) {
		h.must(t, "PUT", bo+"/applicazioni/appY", application("appY-user"))
		h.do(t, "GET", pek+"/pendenze", nil, asAPIKey("appY", appKey)).expect(t, http.StatusOK, "")
		refused(t, bo+"/operatori/appY", operator("appY"), "principal appY is the X-APP-ID of another application or operator", asAdmin())
		h.do(t, "GET", pek+"/pendenze", nil, asAPIKey("appY", appKey)).expect(t, http.StatusOK, "")
		h.do(t, "GET", bok+"/profilo", nil, asAPIKey("appY", opKey)).expect(t, http.StatusUnauthorized, "401000")
		// Another principal is free; the holder itself may write again.
		h.must(t, "PUT", bo+"/operatori/opY", operator("opY"))
		h.do(t, "GET", bok+"/profilo", nil, asAPIKey("opY", opKey)).expect(t, http.StatusOK, "")
		h.must(t, "PUT", bo+"/applicazioni/appY", application("appY-user"))
		h.do(t, "GET", pek+"/pendenze", nil, asAPIKey("appY", appKey)).expect(t, http.StatusOK, "")
	})

	t.Run("idA2A_that_is_its_own_principal", func(t *testing.T) {
		h.must(t, "PUT", bo+"/applicazioni/appZ", application("appZ"))
		h.must(t, "PUT", bo+"/applicazioni/appZ", application("appZ"))
		h.do(t, "GET", pek+"/pendenze", nil, asAPIKey("appZ", appKey)).expect(t, http.StatusOK, "")
		refused(t, bo+"/operatori/appZ", operator("appZ"), "the principal is already in use", asAdmin())
	})
}

// TestAppIDClashInAnOlderLog: a log written before such registrations
// were refused may hold an application and an operator that one X-APP-ID
// names. The one registered first answers it, as the refusal would have
// decided; the other's key does not. Both may still be written (the
// other, say, given a basic password to use instead).
func TestAppIDClashInAnOlderLog(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putEntity(t, d1)
	h.putRole(t, "reader", []map[string]any{aclOf("Anagrafica Applicazioni", "R")}, []string{"*"}, []string{"*"})
	const (
		opKey  = "op-key-0123456789"
		appKey = "app-key-0123456789"
		bok    = "/backoffice/rs/apikey/v1"
		pek    = "/pendenze/rs/apikey/v2"
	)
	operator := map[string]any{"ragioneSociale": "Operatore", "apiKey": opKey, "abilitato": true, "ruoli": []string{"reader"}}
	application := func(principal string) map[string]any {
		return map[string]any{"principal": principal, "apiKey": appKey, "abilitato": true, "ruoli": []string{},
			"autorizzazioniApi": []map[string]any{apiGrant("PENDENZE", []string{d1}, []string{"*"})}}
	}
	// older appends, as a build without the refusal stored them, the
	// events of a registration the service refuses now.
	older := func(t *testing.T, stream string, evs ...events.Event) {
		t.Helper()
		var recs []events.Record
		for i, e := range evs {
			recs = append(recs, events.Record{ID: fmt.Sprintf("%s-%d", stream, i), Event: e})
		}
		pos, err := h.store.Append(t.Context(), stream, events.ExpectNoStream(), recs...)
		if err != nil {
			t.Fatal(err)
		}
		waitApplied(t, h, pos)
	}
	hash := func(t *testing.T, key string) string {
		t.Helper()
		s, err := domain.HashPassword(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	t.Run("operator_first", func(t *testing.T) {
		h.must(t, "PUT", bo+"/operatori/old1", operator)
		older(t, events.StreamApplicazione+"old1",
			events.ApplicationRegistered{IDA2A: "old1", Principal: "old1-app", APIKeyHash: hash(t, appKey), Enabled: true, Roles: []string{}},
			events.ApplicationAPIAuthorized{IDA2A: "old1", API: "PENDENZE", Domini: []string{d1}, TipiPendenza: []string{"*"}})
		check := func(t *testing.T) {
			t.Helper()
			h.do(t, "GET", bok+"/profilo", nil, asAPIKey("old1", opKey)).expect(t, http.StatusOK, "")
			h.do(t, "GET", pek+"/pendenze", nil, asAPIKey("old1", appKey)).expect(t, http.StatusUnauthorized, "401000")
		}
		check(t)
		h.must(t, "PUT", bo+"/applicazioni/old1", application("old1-app"))
		h.must(t, "PUT", bo+"/operatori/old1", operator)
		check(t)
	})

	t.Run("application_first", func(t *testing.T) {
		h.must(t, "PUT", bo+"/applicazioni/old2", application("old2-app"))
		older(t, events.StreamOperatore+"old2", events.OperatorRegistered{Principal: "old2", RagioneSociale: "Operatore",
			APIKeyHash: hash(t, opKey), Enabled: true, Roles: []string{"reader"}})
		check := func(t *testing.T) {
			t.Helper()
			h.do(t, "GET", pek+"/pendenze", nil, asAPIKey("old2", appKey)).expect(t, http.StatusOK, "")
			h.do(t, "GET", bok+"/profilo", nil, asAPIKey("old2", opKey)).expect(t, http.StatusUnauthorized, "401000")
		}
		check(t)
		h.must(t, "PUT", bo+"/operatori/old2", operator)
		h.must(t, "PUT", bo+"/applicazioni/old2", application("old2-app"))
		check(t)
		// Its basic password, which X-APP-ID has no part in, works.
		h.must(t, "PUT", bo+"/operatori/old2", map[string]any{"ragioneSociale": "Operatore", "password": pw, "abilitato": true, "ruoli": []string{"reader"}})
		h.do(t, "GET", bo+"/profilo", nil, asBasic("old2", pw)).expect(t, http.StatusOK, "")
	})
}
