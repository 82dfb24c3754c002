package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestAForbiddenMissingResourceReadsAsAnothers: a caller that may not
// learn that a resource is missing gets, for it, the very 403 it gets for
// an existing resource outside its scope — status and body, dettaglio
// included — so no answer tells the two apart (API.md section 2).
func TestAForbiddenMissingResourceReadsAsAnothers(t *testing.T) {
	w := newWorld(t)
	pb1 := w.createPendenza(t, "appB", "pb1", d2, t1, citizen2)
	// Events by position: a pendenza's and an entity's of d2, a registry
	// event (a type's), and a position past the log's end.
	eventAt := func(r *response) string {
		t.Helper()
		pos, err := ParseToken(w.store.Backend(), r.Header.Get(ConsistencyHeader))
		if err != nil {
			t.Fatal(err)
		}
		return bo + "/eventi/" + strconv.FormatUint(uint64(pos), 10)
	}
	pendenzaEvent := eventAt(w.must(t, "PUT", pe+"/pendenze/appB/pb2", pendenzaBodyFor(d2, t1, citizen2), as("appB")))
	entityEvent := eventAt(w.must(t, "PUT", bo+"/domini/"+d2, map[string]any{"ragioneSociale": "Ente due", "abilitato": true}))
	registryEvent := eventAt(w.must(t, "PUT", bo+"/tipiPendenza/REGISTRO", map[string]any{"descrizione": "Registro", "abilitato": true, "pagamentoSpontaneo": false}))
	missingEvent := bo + "/eventi/" + strconv.FormatUint(uint64(w.logEnd(t))+1000, 10)
	// A pendenza an anonymous session created, read by id by another
	// session; a portal id no pendenza holds.
	const pgPub = "/pagamento/rs/public/v2"
	var anons pendenzaCreata
	w.must(t, "POST", pgPub+"/pendenze/"+d1+"/"+tSpont, map[string]any{"causale": "Dono", "importo": 5,
		"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}}, withHeader("X-Nothing", "1")).decode(t, &anons)
	missingPortal := pgPub + "/pendenze/" + anons.IDA2A + "/" + strings.Repeat("0", 32)
	for _, c := range []struct {
		name             string
		existing, absent string
		opts             []reqOpt
	}{
		{"backoffice_pendenza", bo + "/pendenze/appB/pb1", bo + "/pendenze/appB/nope", opts(as("opD1"))},
		{"pagamento_pendenza_of_an_application", pg + "/pendenze/appB/pb1", pg + "/pendenze/appB/nope", opts(as("appA"))},
		{"pagamento_pendenza_of_a_citizen", "/pagamento/rs/spid/v2/pendenze/appB/pb1", "/pagamento/rs/spid/v2/pendenze/appB/nope", opts(asSPID(citizen1))},
		{"public_pendenza_of_another_session", pgPub + "/pendenze/" + anons.IDA2A + "/" + anons.IDPendenza, missingPortal, nil},
		{"public_pendenza_of_an_application", pgPub + "/pendenze/appB/pb1", missingPortal, nil},
		{"pendenze_under_another_ida2a", pe + "/pendenze/appB/pb1", pe + "/pendenze/appB/nope", opts(as("appA"))},
		{"pendenze_by_avviso_outside_the_grant", pe + "/pendenze/byAvviso/" + d2 + "/" + pb1.NumeroAvviso, pe + "/pendenze/byAvviso/" + d2 + "/999999999999999999", opts(as("appA"))},
		{"evento_of_a_pendenza", pendenzaEvent, missingEvent, opts(as("opD1"))},
		{"evento_of_an_entity", entityEvent, missingEvent, opts(as("opD1"))},
		{"evento_of_a_registry", registryEvent, missingEvent, opts(as("opD1"))},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := w.do(t, "GET", c.existing, nil, c.opts...)
			got.expect(t, http.StatusForbidden, "403000")
			other := w.do(t, "GET", c.absent, nil, c.opts...)
			other.expect(t, http.StatusForbidden, "403000")
			if string(got.Body) != string(other.Body) {
				t.Fatalf("an existing resource outside the scope and a missing one answer apart:\n%s\n%s", got.Body, other.Body)
			}
		})
	}
}
