package httpapi

import (
	"fmt"
	"strings"
	"testing"
)

// soggettoCase is one GovPay Soggetto and the answer every body carrying
// it gets: its status and, for a refusal, the member the FaultBean's
// dettaglio names (after the body's own prefix).
type soggettoCase struct {
	name     string
	soggetto map[string]any
	status   int
	field    string
}

// withSoggetto is the payer a soggettoCase tries: a valid one with the
// given members set.
func withSoggetto(fields ...any) map[string]any {
	s := map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "Luigi Verdi"}
	for i := 0; i+1 < len(fields); i += 2 {
		s[fields[i].(string)] = fields[i+1]
	}
	return s
}

// runSoggettoCases sends each case's Soggetto in every body that carries
// one (GovPay's Soggetto of Pendenze v2 and Pagamento v2): a pendenza's
// payer, a spontaneous payment's payer, a payment's remitter, and the
// payer of a pendenza created on the Pagamento API. A refusal is 400
// SINTASSI naming the field, and writes nothing: the pendenze and the
// payments the Backoffice lists are those the accepted cases wrote.
func runSoggettoCases(t *testing.T, w *world, cases []soggettoCase) {
	t.Helper()
	count := func(list string) int {
		var page struct {
			NumRisultati int `json:"numRisultati"`
		}
		w.must(t, "GET", bo+"/"+list+"?risultatiPerPagina=1", nil, asAdmin()).decode(t, &page)
		return page.NumRisultati
	}
	pendenze, pagamenti := count("pendenze"), count("pagamenti")
	for i, c := range cases {
		spontaneous := map[string]any{"idDominio": d1, "idTipoPendenza": tSpont, "importo": 5, "causale": "Dono", "soggettoPagatore": c.soggetto}
		own := map[string]any{"pendenze": []map[string]any{spontaneous}}
		for _, b := range []struct {
			place, method, path, prefix string
			body                        any
			pendenza, payment           bool // what it writes
		}{
			{"pendenza_payer", "PUT", fmt.Sprintf("%s/pendenze/appA/sogg-%d", pe, i), "soggettoPagatore",
				withField(pendenzaBodyFor(d1, t1, citizen1), "soggettoPagatore", c.soggetto), true, false},
			{"spontaneous_payer", "POST", pg + "/pagamenti", "pendenze[0].soggettoPagatore", own, false, true},
			{"remitter", "POST", pg + "/pagamenti", "soggettoVersante", map[string]any{"pendenze": []map[string]any{
				withField(spontaneous, "soggettoPagatore", withSoggetto())}, "soggettoVersante": c.soggetto}, false, true},
			{"pagamento_pendenza_payer", "POST", pg + "/pendenze/" + d1 + "/" + tSpont, "soggettoPagatore",
				map[string]any{"causale": "Dono", "importo": 5, "soggettoPagatore": c.soggetto}, true, false},
		} {
			t.Run(c.name+"/"+b.place, func(t *testing.T) {
				r := w.do(t, b.method, b.path, b.body, as("appA"))
				if c.status >= 400 {
					r.expect(t, c.status, "SINTASSI")
					if d := r.fault(t).Dettaglio; !strings.Contains(d, b.prefix+"."+c.field) {
						t.Fatalf("dettaglio %q does not name %s.%s", d, b.prefix, c.field)
					}
					return
				}
				r.expect(t, c.status, "")
				if b.pendenza {
					pendenze++
				}
				if b.payment {
					pagamenti++
				}
			})
		}
	}
	if got := count("pendenze"); got != pendenze {
		t.Fatalf("the Backoffice lists %d pendenze, want %d: a refused body wrote one", got, pendenze)
	}
	if got := count("pagamenti"); got != pagamenti {
		t.Fatalf("the Backoffice lists %d payments, want %d: a refused body wrote one", got, pagamenti)
	}
}

// TestSoggettoAnagraficaIsGovPays: a payer's or remitter's anagrafica is
// at most 70 characters (GovPay's Soggetto, maxLength 70, its column
// VARCHAR(70)), counted as characters; 71 is 400 wherever a Soggetto is
// taken, and nothing is written.
func TestSoggettoAnagraficaIsGovPays(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	letters := func(n int) string { return strings.Repeat("è", n) }
	runSoggettoCases(t, w, []soggettoCase{
		{"anagrafica_of_70_letters", withSoggetto("anagrafica", letters(70)), 201, ""},
		{"anagrafica_of_71_letters", withSoggetto("anagrafica", letters(71)), 400, "anagrafica"},
		{"anagrafica_of_140_letters", withSoggetto("anagrafica", letters(140)), 400, "anagrafica"},
		{"anagrafica_empty", withSoggetto("anagrafica", ""), 400, "anagrafica"},
	})
}

// TestSoggettoEmailIsGovPays: a payer's or remitter's email follows the
// pattern of GovPay's Soggetto (Pendenze v2, Pagamento v2), the whole
// value: local parts of letters, digits and _ joined by - + . ', a domain
// with at least one dot; anything else is 400 wherever a Soggetto is
// taken, and nothing is written.
func TestSoggettoEmailIsGovPays(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	runSoggettoCases(t, w, []soggettoCase{
		{"plain", withSoggetto("email", "mario.rossi@example.org"), 201, ""},
		{"apostrophe_plus_and_hyphens", withSoggetto("email", "d'angelo+tari@posta-cert.comune.example.it"), 201, ""},
		{"no_at", withSoggetto("email", "mario.rossi.example.org"), 400, "email"},
		{"two_ats", withSoggetto("email", "mario@@example.org"), 400, "email"},
		{"no_local_part", withSoggetto("email", "@example.org"), 400, "email"},
		{"domain_without_dot", withSoggetto("email", "mario@localhost"), 400, "email"},
		{"space_inside", withSoggetto("email", "mario rossi@example.org"), 400, "email"},
		{"text_after_the_address", withSoggetto("email", "mario@example.org, luigi@example.org"), 400, "email"},
		{"dot_before_at", withSoggetto("email", "mario.@example.org"), 400, "email"},
		{"newline_inside", withSoggetto("email", "mario@example.org\nBcc: x@example.org"), 400, "email"},
	})
}
