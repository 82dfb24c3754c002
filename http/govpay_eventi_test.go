package httpapi

import (
	"strings"
	"testing"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// TestGovPayEvento: GET /eventi/{id} on the Backoffice reads one event of
// the log, scoped as GET /eventi (Giornale degli Eventi R; an event of a
// place in the role's scope, registry events to a role over every entity
// and type); a missing one is 404 only to a caller who sees the whole log
// (issue 13 §4).
func TestGovPayEvento(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "ev1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "ev2", d2, t1, citizen2)
	var log eventiPage
	w.must(t, "GET", bo+"/eventi?limite=1000", nil, asAdmin()).decode(t, &log)
	find := func(tipo, stream string) operations.EventEntry {
		t.Helper()
		for _, e := range log.Risultati {
			if e.Tipo == tipo && strings.HasSuffix(e.Stream, stream) {
				return e
			}
		}
		t.Fatalf("no %s event on %s in the log", tipo, stream)
		return operations.EventEntry{}
	}
	inD1, inD2, registry := find("PendenzaCreated", "appA/ev1"), find("PendenzaCreated", "appB/ev2"), find("RoleDefined", "opD1")
	missing := operations.EventID(events.Position(log.Risultati[len(log.Risultati)-1].Posizione+1000), 0)
	ev := func(id string) string { return bo + "/eventi/" + id }
	runRows(t, w.harness, []row{
		{"admin_reads_any", "GET", ev(inD2.ID), nil, opts(asAdmin()), 200, ""},
		{"admin_reads_registry_event", "GET", ev(registry.ID), nil, opts(asAdmin()), 200, ""},
		{"admin_missing", "GET", ev(missing), nil, opts(asAdmin()), 404, "404000"},
		{"admin_index_past_the_commit", "GET", ev(inD1.ID + ".7"), nil, opts(asAdmin()), 404, "404000"},
		{"read_only_everywhere_reads_other_entity", "GET", ev(inD2.ID), nil, opts(as("opRO")), 200, ""},
		{"read_only_everywhere_missing", "GET", ev(missing), nil, opts(as("opRO")), 404, "404000"},
		{"scoped_reads_own_entity", "GET", ev(inD1.ID), nil, opts(as("opD1")), 200, ""},
		{"scoped_reads_own_entity_index_0", "GET", ev(inD1.ID + ".0"), nil, opts(as("opD1")), 200, ""},
		{"scoped_denied_other_entity", "GET", ev(inD2.ID), nil, opts(as("opD1")), 403, "403000"},
		{"scoped_denied_registry_event", "GET", ev(registry.ID), nil, opts(as("opD1")), 403, "403000"},
		{"scoped_denied_missing", "GET", ev(missing), nil, opts(as("opD1")), 403, "403000"},
		{"no_role", "GET", ev(inD1.ID), nil, opts(as("opNoRole")), 403, "403000"},
		{"application_without_role", "GET", ev(inD1.ID), nil, opts(as("appA")), 403, "403000"},
		{"bad_id_letters", "GET", ev("abc"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"bad_id_zero", "GET", ev("0"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"bad_id_leading_zero", "GET", ev("0" + inD1.ID), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"bad_id_index", "GET", ev(inD1.ID + ".x"), nil, opts(asAdmin()), 400, "SINTASSI"},
	})
	body := string(w.must(t, "GET", ev(inD1.ID), nil, as("opD1")).Body)
	if !strings.Contains(body, `"id":"`+inD1.ID+`"`) || !strings.Contains(body, `"tipo":"PendenzaCreated"`) || !strings.Contains(body, `"idPendenza":"ev1"`) {
		t.Fatalf("GET /eventi/%s answers %s", inD1.ID, body)
	}
	// Explain knows the read, decided by the same operation on the place named.
	w.explainSays(t, "opD1", "BACKOFFICE", "read-evento", "allow", "idDominio", d1)
	w.explainSays(t, "opD1", "BACKOFFICE", "read-evento", "deny", "idDominio", d2)
	w.explainSays(t, "opD1", "BACKOFFICE", "read-evento", "deny")
	w.explainSays(t, "opRO", "BACKOFFICE", "read-evento", "allow")
}

// explainSays asks the admin's POST /autorizzazioni/verifica about
// principal doing operation on api over the resource named by the
// field/value pairs, and requires the outcome esito.
func (w *world) explainSays(t *testing.T, principal, api, operation, esito string, resource ...string) {
	t.Helper()
	q := map[string]any{"principal": principal, "auth": "basic", "api": api, "operazione": operation}
	for i := 0; i+1 < len(resource); i += 2 {
		q[resource[i]] = resource[i+1]
	}
	got := string(w.must(t, "POST", bo+"/autorizzazioni/verifica", q, asAdmin()).Body)
	if !strings.Contains(got, `"esito":"`+esito+`"`) {
		t.Fatalf("explain %s %s/%s on %v: want %s, got %s", principal, api, operation, resource, esito, got)
	}
}
