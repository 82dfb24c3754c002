package httpapi

import (
	"strings"
	"testing"
)

// TestWriteGatesNameTheirRule checks that a write refused before its body
// is read is refused by the rule of what it gates, and that the rule's
// detail reaches the client: a pendenza under another application's idA2A
// by the own-idA2A rule (even with a body that is not JSON), a
// reconciliation outside the RAGIONERIA scope by the scope rule.
func TestWriteGatesNameTheirRule(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ric := map[string]any{"importo": 10.5, "causale": "quadratura"}
	cases := []struct {
		name   string
		path   string
		body   any
		user   string
		status int
		detail string
	}{
		{"pendenza_under_other_ida2a", pe + "/pendenze/appB/x1", pendenzaBodyFor(d1, t1, citizen1), "appA", 403, "only under its own idA2A"},
		{"pendenza_under_other_ida2a_before_the_body", pe + "/pendenze/appB/x2", "{not json", "appA", 403, "only under its own idA2A"},
		{"pendenza_under_own_ida2a", pe + "/pendenze/appA/x3", pendenzaBodyFor(d1, t1, citizen1), "appA", 201, ""},
		{"reconciliation_out_of_scope", rg + "/riconciliazioni/" + d2 + "/r1", ric, "appC", 403, "RAGIONERIA scope"},
		{"reconciliation_out_of_scope_before_the_body", rg + "/riconciliazioni/" + d2 + "/r2", "{not json", "appC", 403, "RAGIONERIA scope"},
		{"reconciliation_in_scope", rg + "/riconciliazioni/" + d1 + "/r3", ric, "appC", 201, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := w.do(t, "PUT", tc.path, tc.body, as(tc.user))
			if tc.status != 403 {
				r.expect(t, tc.status, "")
				return
			}
			r.expect(t, 403, "403000")
			if d := r.fault(t).Dettaglio; !strings.Contains(d, tc.detail) {
				t.Fatalf("dettaglio = %q, want it to contain %q", d, tc.detail)
			}
		})
	}
}
