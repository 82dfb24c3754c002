package httpapi

import (
	"net/http"
	"testing"
)

// TestAForbiddenMissingResourceReadsAsAnothers: a caller that may not
// learn that a resource is missing gets, for it, the very 403 it gets for
// an existing resource outside its scope — status and body, dettaglio
// included — so no answer tells the two apart (API.md section 2).
func TestAForbiddenMissingResourceReadsAsAnothers(t *testing.T) {
	w := newWorld(t)
	w.createPendenza(t, "appB", "pb1", d2, t1, citizen2)
	for _, c := range []struct {
		name             string
		existing, absent string
		opts             []reqOpt
	}{
		{"backoffice_pendenza", bo + "/pendenze/appB/pb1", bo + "/pendenze/appB/nope", opts(as("opD1"))},
		{"pagamento_pendenza_of_an_application", pg + "/pendenze/appB/pb1", pg + "/pendenze/appB/nope", opts(as("appA"))},
		{"pagamento_pendenza_of_a_citizen", "/pagamento/rs/spid/v2/pendenze/appB/pb1", "/pagamento/rs/spid/v2/pendenze/appB/nope", opts(asSPID(citizen1))},
		{"pendenze_under_another_ida2a", pe + "/pendenze/appB/pb1", pe + "/pendenze/appB/nope", opts(as("appA"))},
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
