package httpapi

import (
	"slices"
	"testing"
)

// TestRegistryListFilters: the Backoffice registry lists take GovPay's
// filters, within the caller's scope: abilitato keeps only the enabled
// (true) or the disabled (false) entries, and any other value is 400
// SINTASSI; a text filter keeps the entries holding its value, in any
// case, as GovPay's (an ilike anywhere; a type's descrizione is also
// looked for in its id). The lists answered every entry in scope whatever
// the filters.
func TestRegistryListFilters(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const d3 = "33333333333"
	w.must(t, "PUT", bo+"/domini/"+d3, map[string]any{"ragioneSociale": "Comune di Prova", "abilitato": false})
	w.must(t, "PUT", bo+"/tipiPendenza/MULTA", map[string]any{"descrizione": "Sanzioni al codice della strada",
		"abilitato": false, "pagamentoSpontaneo": false})
	for id, on := range map[string]bool{"INT1": true, "INT2": false} {
		w.must(t, "PUT", bo+"/intermediari/"+id, map[string]any{"denominazione": id, "abilitato": on,
			"connettoreNodo": map[string]any{"principal": "node-" + id}})
	}
	uo := bo + "/domini/" + d1 + "/unitaOperative"
	w.must(t, "PUT", uo+"/UO1", map[string]any{"ragioneSociale": "Ufficio tributi", "abilitato": true})
	w.must(t, "PUT", uo+"/UO2", map[string]any{"ragioneSociale": "Ufficio anagrafe", "abilitato": false})

	for _, l := range []struct{ path, id, disabled string }{
		{bo + "/domini", "idDominio", d3},
		{bo + "/tipiPendenza", "idTipoPendenza", "MULTA"},
		{bo + "/intermediari", "idIntermediario", "INT2"},
		{bo + "/applicazioni", "idA2A", "appDisabled"},
		{bo + "/operatori", "principal", "opDisabled"},
		{uo, "idUnita", "UO2"},
	} {
		t.Run(l.path, func(t *testing.T) {
			var page struct {
				Risultati []map[string]any `json:"risultati"`
			}
			w.must(t, "GET", l.path+"?risultatiPerPagina=200", nil).decode(t, &page)
			want := map[bool][]string{}
			for _, r := range page.Risultati {
				on, _ := r["abilitato"].(bool)
				id, _ := r[l.id].(string)
				want[on] = append(want[on], id)
			}
			for _, on := range []bool{true, false} {
				slices.Sort(want[on])
				q := "?risultatiPerPagina=200&abilitato=" + map[bool]string{true: "true", false: "false"}[on]
				sameVerdict(t, w, l.path+q, false, asAdmin())
				if got := w.listed(t, l.path+q, l.id); len(got) == 0 || !slices.Equal(got, want[on]) {
					t.Errorf("GET %s lists %v, want %v", l.path+q, got, want[on])
				}
			}
			if !slices.Contains(want[false], l.disabled) {
				t.Fatalf("%s is not listed as disabled: %v", l.disabled, want)
			}
			sameVerdict(t, w, l.path+"?abilitato=maybe", true, asAdmin())
		})
	}

	for _, c := range []struct {
		name, path, id string
		caller         reqOpt
		want           []string
	}{
		{"domini_ragioneSociale", bo + "/domini?ragioneSociale=comune%20DI", "idDominio", asAdmin(), []string{d3}},
		{"domini_ragioneSociale_in_scope", bo + "/domini?ragioneSociale=ENTE", "idDominio", as("opD1"), []string{d1}},
		{"domini_idDominio", bo + "/domini?idDominio=" + d2, "idDominio", asAdmin(), []string{d2}},
		{"domini_idDominio_part", bo + "/domini?idDominio=" + d3[:4], "idDominio", asAdmin(), []string{d3}},
		{"domini_enabled_and_named", bo + "/domini?abilitato=true&ragioneSociale=comune", "idDominio", asAdmin(), nil},
		{"tipiPendenza_idTipoPendenza", bo + "/tipiPendenza?idTipoPendenza=nazio", "idTipoPendenza", asAdmin(), []string{tSpont}},
		{"tipiPendenza_descrizione", bo + "/tipiPendenza?descrizione=CODICE%20della", "idTipoPendenza", asAdmin(), []string{"MULTA"}},
		{"tipiPendenza_descrizione_in_the_id", bo + "/tipiPendenza?descrizione=tar", "idTipoPendenza", asAdmin(), []string{t1}},
		{"applicazioni_idA2A", bo + "/applicazioni?idA2A=APPN", "idA2A", asAdmin(), []string{"appNone"}},
		{"applicazioni_principal", bo + "/applicazioni?principal=APP-SSL", "idA2A", asAdmin(), []string{"appSSL"}},
		{"unitaOperative_ragioneSociale", uo + "?ragioneSociale=TRIBUTI", "idUnita", asAdmin(), []string{"UO1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sameVerdict(t, w, c.path, false, c.caller)
			if got := w.listed(t, c.path, c.id, c.caller); !slices.Equal(got, c.want) {
				t.Fatalf("GET %s lists %v, want %v", c.path, got, c.want)
			}
		})
	}
}
