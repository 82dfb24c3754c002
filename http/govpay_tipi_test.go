package httpapi

import (
	"net/http"
	"slices"
	"testing"
)

// TestTipiPendenzaTypeScope: writes, reads and the list of pendenza types
// apply the role's tipiPendenza (issue 13 §5). An operator whose role
// gives Anagrafica Creditore RW on [SEGRETERIA] manages that type only.
func TestTipiPendenzaTypeScope(t *testing.T) {
	t.Parallel() // each test runs its own service
	h := newHarness(t)
	h.putType(t, "SEGRETERIA", false)
	h.putType(t, "LIBERO", true)
	h.putRole(t, "segreteria", acl{aclOf("Anagrafica Creditore", "R", "W")}, []string{"*"}, []string{"SEGRETERIA"})
	h.putOperator(t, "opSeg", pw, true, "segreteria")
	seg := asBasic("opSeg", pw)
	tipo := func(abilitato bool) map[string]any {
		return map[string]any{"descrizione": "Tipo", "abilitato": abilitato, "pagamentoSpontaneo": false}
	}

	cases := []struct {
		name   string
		method string
		path   string
		body   any
		opt    reqOpt
		want   int
	}{
		{"create_type_out_of_scope", "PUT", bo + "/tipiPendenza/XXXX", tipo(true), seg, http.StatusForbidden},
		{"disable_type_out_of_scope", "PUT", bo + "/tipiPendenza/LIBERO", tipo(false), seg, http.StatusForbidden},
		{"update_type_in_scope", "PUT", bo + "/tipiPendenza/SEGRETERIA", tipo(true), seg, http.StatusOK},
		{"read_type_in_scope", "GET", bo + "/tipiPendenza/SEGRETERIA", nil, seg, http.StatusOK},
		{"read_type_out_of_scope", "GET", bo + "/tipiPendenza/LIBERO", nil, seg, http.StatusForbidden},
		{"read_unknown_type_out_of_scope", "GET", bo + "/tipiPendenza/GHOST", nil, seg, http.StatusForbidden},
		{"admin_creates_any_type", "PUT", bo + "/tipiPendenza/XXXX", tipo(true), asAdmin(), http.StatusCreated},
		{"admin_disables_any_type", "PUT", bo + "/tipiPendenza/LIBERO", tipo(false), asAdmin(), http.StatusOK},
		{"admin_reads_unknown_type", "GET", bo + "/tipiPendenza/GHOST", nil, asAdmin(), http.StatusNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, c.method, c.path, c.body, c.opt)
			res.expect(t, c.want, codiceOf(c.want))
			if c.want == http.StatusForbidden {
				if fb := res.fault(t); fb.Descrizione == "" {
					t.Fatalf("denial without descrizione: %s", res.Body)
				}
			}
		})
	}

	// A type the operator could not write is unchanged.
	var libero tipoView
	h.must(t, "GET", bo+"/tipiPendenza/LIBERO", nil).decode(t, &libero)
	if libero.Abilitato {
		t.Fatalf("LIBERO should be disabled by the admin only: %+v", libero)
	}

	ids := func(opt reqOpt) []string {
		var page struct {
			Risultati []tipoView `json:"risultati"`
		}
		h.must(t, "GET", bo+"/tipiPendenza", nil, opt).decode(t, &page)
		var out []string
		for _, r := range page.Risultati {
			out = append(out, r.IDTipoPendenza)
		}
		slices.Sort(out)
		return out
	}
	t.Run("list_shows_types_in_scope", func(t *testing.T) {
		if got := ids(seg); !slices.Equal(got, []string{"SEGRETERIA"}) {
			t.Fatalf("opSeg lists %v, want [SEGRETERIA]", got)
		}
	})
	t.Run("list_shows_every_type_to_admin", func(t *testing.T) {
		if got := ids(asAdmin()); !slices.Equal(got, []string{"LIBERO", "SEGRETERIA", "XXXX"}) {
			t.Fatalf("admin lists %v", got)
		}
	})
	t.Run("list_needs_the_right", func(t *testing.T) {
		h.putOperator(t, "opNone", pw, true)
		h.do(t, "GET", bo+"/tipiPendenza", nil, asBasic("opNone", pw)).expect(t, http.StatusForbidden, "403000")
	})
}
