package httpapi

import (
	"slices"
	"testing"
)

// TestGovPayPayable: Pagamento GET /domini and /domini/{idDominio}/
// tipiPendenza list what the caller may pay, by the rules the payment is
// decided by (issue 13 §4).
func TestGovPayPayable(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const pg, pgSpid, pgPublic = "/pagamento/rs/basic/v2", "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"
	runRows(t, w.harness, []row{
		{"domini_application", "GET", pg + "/domini", nil, opts(as("appA")), 200, ""},
		{"domini_application_without_pagamento", "GET", pg + "/domini", nil, opts(as("appC")), 403, "403000"},
		{"tipi_application_in_grant", "GET", pg + "/domini/" + d1 + "/tipiPendenza", nil, opts(as("appA")), 200, ""},
		{"tipi_application_outside_grant", "GET", pg + "/domini/" + d2 + "/tipiPendenza", nil, opts(as("appA")), 403, "403000"},
		{"tipi_unknown_entity_outside_grant", "GET", pg + "/domini/" + dNone + "/tipiPendenza", nil, opts(as("appA")), 403, "403000"},
		{"tipi_citizen_unknown_entity", "GET", pgSpid + "/domini/" + dNone + "/tipiPendenza", nil, opts(asSPID(citizen1)), 404, "404000"},
		{"tipi_anonymous", "GET", pgPublic + "/domini/" + d1 + "/tipiPendenza", nil, nil, 200, ""},
	})
	ids := func(path string, opt reqOpt, field string) []string {
		var page struct {
			Risultati []map[string]string `json:"risultati"`
		}
		w.must(t, "GET", path, nil, opt).decode(t, &page)
		var out []string
		for _, r := range page.Risultati {
			out = append(out, r[field])
		}
		return out
	}
	for _, c := range []struct {
		name, path string
		opt        reqOpt
		field      string
		want       []string
	}{
		{"application_sees_its_grant", pg + "/domini", as("appA"), "idDominio", []string{d1}},
		{"citizen_sees_every_enabled_entity", pgSpid + "/domini", asSPID(citizen1), "idDominio", []string{d1, d2}},
		{"only_spontaneous_types", pg + "/domini/" + d1 + "/tipiPendenza", as("appA"), "idTipoPendenza", []string{tSpont}},
		{"citizen_spontaneous_types", pgSpid + "/domini/" + d2 + "/tipiPendenza", asSPID(citizen1), "idTipoPendenza", []string{tSpont}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ids(c.path, c.opt, c.field)
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Fatalf("%s lists %v, want %v", c.path, got, c.want)
			}
		})
	}
}
