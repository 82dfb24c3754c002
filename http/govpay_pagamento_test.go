package httpapi

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/commands"
)

// TestGovPayNuovoPagamentoIsAccepted sends POST /pagamenti the members of
// GovPay's NuovoPagamento (Pagamento v2) that a portal sends besides the
// references (urlRitorno, contoAddebito, dataEsecuzionePagamento,
// credenzialiPagatore, autenticazioneSoggetto) and a notice reference's
// idDebitore (RiferimentoAvviso): the contract accepts GovPay's body, so
// each is 201 on every mount; a value GovPay's schema refuses is 400
// SINTASSI naming the field, and writes nothing; a member in no GovPay
// schema stays 400.
func TestGovPayNuovoPagamentoIsAccepted(t *testing.T) {
	w := newWorld(t)
	const pg, pgSpid, pgPub = "/pagamento/rs/basic/v2", "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"
	notice := func(p pendenzaView, extra ...any) map[string]any {
		ref := map[string]any{"idDominio": p.IDDominio, "numeroAvviso": p.NumeroAvviso}
		for i := 0; i+1 < len(extra); i += 2 {
			ref[extra[i].(string)] = extra[i+1]
		}
		return ref
	}
	body := func(ref map[string]any, members ...any) map[string]any {
		b := map[string]any{"pendenze": []map[string]any{ref}}
		for i := 0; i+1 < len(members); i += 2 {
			b[members[i].(string)] = members[i+1]
		}
		return b
	}
	mounts := []struct {
		name, path string
		as         reqOpt
	}{{"basic", pg, as("appA")}, {"spid", pgSpid, asSPID(citizen1)}, {"public", pgPub, func(*request) {}}}
	accepted := []struct {
		name    string
		members []any
		ref     []any
	}{
		{"urlRitorno", []any{"urlRitorno", "https://www.comune.it/pagopa/ritorno?x=1"}, nil},
		{"contoAddebito", []any{"contoAddebito", map[string]any{"iban": "IT60X0542811101000000123456", "bic": "DABAIE2D"}}, nil},
		{"dataEsecuzionePagamento", []any{"dataEsecuzionePagamento", "2026-12-31"}, nil},
		{"credenzialiPagatore", []any{"credenzialiPagatore", "codice-bilaterale-1"}, nil},
		{"autenticazioneSoggetto", []any{"autenticazioneSoggetto", "N/A"}, nil},
		{"portal_body", []any{"urlRitorno", "https://www.comune.it/r", "autenticazioneSoggetto", "USR",
			"soggettoVersante", map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi"}}, nil},
		{"idDebitore", nil, []any{"idDebitore", citizen1}},
	}
	for _, m := range mounts {
		for _, c := range accepted {
			t.Run(m.name+"_"+c.name, func(t *testing.T) {
				p := w.createPendenza(t, "appA", "gp-"+m.name+"-"+c.name, d1, t1, citizen1)
				r := w.do(t, "POST", m.path+"/pagamenti", body(notice(p, c.ref...), c.members...), m.as)
				r.expect(t, 201, "")
				var created pagamentoCreated
				r.decode(t, &created)
				if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(created.ID) || created.Stato != "IN_CORSO" ||
					created.Location != m.path+"/pagamenti/"+created.ID {
					t.Fatalf("created = %+v, want a random id, IN_CORSO and its location on this mount", created)
				}
				read := []reqOpt{m.as}
				for _, ck := range r.Cookies {
					read = append(read, withCookie(ck))
				}
				w.do(t, "GET", created.Location, nil, read...).expect(t, 200, "")
			})
		}
	}
	p := w.createPendenza(t, "appA", "gp-refused", d1, t1, citizen1)
	refused := []struct {
		name, field string
		members     []any
		ref         []any
	}{
		{"autenticazioneSoggetto_not_govpays", "autenticazioneSoggetto", []any{"autenticazioneSoggetto", "SPID"}, nil},
		{"contoAddebito_without_iban", "contoAddebito.iban", []any{"contoAddebito", map[string]any{"bic": "DABAIE2D"}}, nil},
		{"contoAddebito_bad_iban", "contoAddebito.iban", []any{"contoAddebito", map[string]any{"iban": "not an iban"}}, nil},
		{"contoAddebito_bad_bic", "contoAddebito.bic", []any{"contoAddebito", map[string]any{"iban": "IT60X0542811101000000123456", "bic": "x"}}, nil},
		{"dataEsecuzionePagamento_not_a_date", "dataEsecuzionePagamento", []any{"dataEsecuzionePagamento", "31/12/2026"}, nil},
		{"idDebitore_on_a_pendenza_reference", "", nil, nil},
		{"member_in_no_schema", "redirect", []any{"redirect", "https://www.comune.it/r"}, nil},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			before := w.logEnd(t)
			b := body(notice(p, c.ref...), c.members...)
			if c.name == "idDebitore_on_a_pendenza_reference" {
				b = body(map[string]any{"idA2A": "appA", "idPendenza": p.IDPendenza, "idDebitore": citizen1})
			}
			r := w.do(t, "POST", pg+"/pagamenti", b, as("appA"))
			r.expect(t, 400, "SINTASSI")
			if fb := r.fault(t); c.field != "" && !strings.Contains(fb.Dettaglio, c.field) {
				t.Fatalf("dettaglio %q does not name %s", fb.Dettaglio, c.field)
			}
			if after := w.logEnd(t); after != before {
				t.Fatalf("a refused payment wrote: log end %v, was %v", after, before)
			}
		})
	}
}

// TestGovPayPagamentiFilters lists GET /pagamenti of the Pagamento API with
// GovPay's filters stato (StatoPagamento) and idVersante (the remitter's
// fiscal code, without case): each narrows the list to what matches, as
// the caller is shown it (a payer that is not the remitter is not shown
// the remitter, so idVersante finds nothing it could not read, and the
// stato is that of its items); a stato outside GovPay's StatoPagamento is
// 400. The list answered every payment whatever the filters.
func TestGovPayPagamentiFilters(t *testing.T) {
	w := newBackofficeWorld(t)
	const pg, pgSpid = "/pagamento/rs/basic/v2", "/pagamento/rs/spid/v2"
	pay := func(path string, opt reqOpt, p pendenzaView, versante string) string {
		t.Helper()
		b := map[string]any{"pendenze": []map[string]any{{"idDominio": p.IDDominio, "numeroAvviso": p.NumeroAvviso}}}
		if versante != "" {
			b["soggettoVersante"] = map[string]any{"tipo": "F", "identificativo": versante, "anagrafica": "Versante"}
		}
		var created pagamentoCreated
		w.must(t, "POST", path+"/pagamenti", b, opt).decode(t, &created)
		return created.ID
	}
	// The Backoffice world's own payments are left out of what is compared.
	before := w.listed(t, bo+"/pagamenti?risultatiPerPagina=200", "id")
	byCitizen := pay(pgSpid, asSPID(citizen1), w.createPendenza(t, "appA", "f-1", d1, t1, citizen1), "")
	paid := w.createPendenza(t, "appA", "f-2", d1, t1, citizen1)
	byAppForCitizen2 := pay(pg, as("appA"), paid, citizen2)
	byAppNoRemitter := pay(pg, as("appA"), w.createPendenza(t, "appA", "f-3", d1, t1, citizen1), "")
	res, err := w.cmds.RecordReceipt(context.Background(), commands.System, commands.RecordReceipt{IDIntermediario: intID,
		IDDominio: paid.IDDominio, NumeroAvviso: paid.NumeroAvviso, IDRicevuta: "F2", AmountCents: int64(paid.Importo),
		Esito: "ESEGUITO", DataPagamento: "2026-01-02"})
	if err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, res.Position)

	for _, c := range []struct {
		name, path string
		as         reqOpt
		want       []string
	}{
		{"app_unfiltered", pg + "/pagamenti", as("appA"), []string{byAppForCitizen2, byAppNoRemitter}},
		{"app_stato_eseguito", pg + "/pagamenti?stato=ESEGUITO", as("appA"), []string{byAppForCitizen2}},
		{"app_stato_in_corso", pg + "/pagamenti?stato=IN_CORSO", as("appA"), []string{byAppNoRemitter}},
		{"app_stato_never_reached", pg + "/pagamenti?stato=ANNULLATO", as("appA"), nil},
		{"app_idVersante_without_case", pg + "/pagamenti?idVersante=" + strings.ToLower(citizen2), as("appA"), []string{byAppForCitizen2}},
		{"app_both", pg + "/pagamenti?idVersante=" + citizen2 + "&stato=IN_CORSO", as("appA"), nil},
		{"citizen_unfiltered", pgSpid + "/pagamenti", asSPID(citizen1), []string{byCitizen, byAppForCitizen2, byAppNoRemitter}},
		{"citizen_stato_eseguito", pgSpid + "/pagamenti?stato=ESEGUITO", asSPID(citizen1), []string{byAppForCitizen2}},
		{"citizen_idVersante_itself", pgSpid + "/pagamenti?idVersante=" + citizen1, asSPID(citizen1), []string{byCitizen}},
		{"citizen_idVersante_a_remitter_it_is_not_shown", pgSpid + "/pagamenti?idVersante=" + citizen2, asSPID(citizen1), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			listed := w.listed(t, c.path, "id", c.as)
			got := slices.DeleteFunc(slices.Clone(listed), func(id string) bool { return slices.Contains(before, id) })
			want := slices.Clone(c.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("listed %v, want %v", got, want)
			}
			var page Page[pagamentoView]
			w.must(t, "GET", c.path, nil, c.as).decode(t, &page)
			if page.NumRisultati != len(listed) {
				t.Fatalf("numRisultati %d, listed %d", page.NumRisultati, len(listed))
			}
		})
	}
	t.Run("stato_not_govpays", func(t *testing.T) {
		w.do(t, "GET", pg+"/pagamenti?stato=ESEGUITA", nil, as("appA")).expect(t, 400, "SINTASSI")
	})
}
