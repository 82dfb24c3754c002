package httpapi

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
)

// The answers' shapes as a client generated from GovPay's published
// specs parses them: a member's type, format and enum values are GovPay's.

// TestGovPayAvvisoStatoIsStatoAvviso: the Pagamento API's notice answers
// GovPay's StatoAvviso (Pagamento v2), whose paid notice is DUPLICATA; a
// pendenza's ESEGUITA is no StatoAvviso. The node API, this service's
// own, keeps the pendenza's state.
func TestGovPayAvvisoStatoIsStatoAvviso(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	open := w.createPendenza(t, "appA", "av-open", d1, t1, citizen1)
	cancelled := w.createPendenza(t, "appA", "av-cancelled", d1, t1, citizen1)
	w.must(t, "PATCH", pe+"/pendenze/appA/av-cancelled", patchStato("ANNULLATA"), as("appA"))
	w.must(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(w.p1, "RIC-AV", 123.45, "ESEGUITO"), asBasic(nodeB, nodeBPass))

	for _, c := range []struct {
		name, numero, pagamento, nodo string
	}{
		{"paid", w.p1.NumeroAvviso, "DUPLICATA", "ESEGUITA"},
		{"open", open.NumeroAvviso, "NON_ESEGUITA", "NON_ESEGUITA"},
		{"cancelled", cancelled.NumeroAvviso, "ANNULLATA", "ANNULLATA"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var pg1, nd1 avvisoView
			w.must(t, "GET", pg+"/avvisi/"+d1+"/"+c.numero, nil, as("appA")).decode(t, &pg1)
			if pg1.Stato != c.pagamento {
				t.Errorf("the Pagamento API's notice says stato %q, GovPay's StatoAvviso %q", pg1.Stato, c.pagamento)
			}
			w.must(t, "GET", nd+"/intermediari/"+intB+"/avvisi/"+d1+"/"+c.numero, nil, asBasic(nodeB, nodeBPass)).decode(t, &nd1)
			if nd1.Stato != c.nodo {
				t.Errorf("the node API's notice says stato %q, want %q", nd1.Stato, c.nodo)
			}
		})
	}
}

// TestGovPayPendenzaTipo: every API's pendenza answers GovPay's required
// tipo (TipoPendenzaTipologia): spontaneo for one its payer created
// through the Pagamento API (GovPay's SPONTANEO), dovuto for one an
// application loaded (GovPay's DOVUTO), in each read and list.
func TestGovPayPendenzaTipo(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	w.createPendenza(t, "appA", "tipo-dovuto", d1, t1, citizen1)
	var spont pendenzaCreata
	w.must(t, "POST", pg+"/pendenze/"+d1+"/"+tSpont, map[string]any{"causale": "Donazione", "importo": 25,
		"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi"}}, as("appA")).decode(t, &spont)

	tipoOf := func(t *testing.T, path string, opt reqOpt) string {
		t.Helper()
		var v struct {
			Tipo *string `json:"tipo"`
		}
		w.must(t, "GET", path, nil, opt).decode(t, &v)
		if v.Tipo == nil {
			t.Fatalf("%s answers no tipo", path)
		}
		return *v.Tipo
	}
	listed := func(t *testing.T, path string, opt reqOpt) map[string]string {
		t.Helper()
		var page Page[struct {
			IDPendenza string  `json:"idPendenza"`
			Tipo       *string `json:"tipo"`
		}]
		w.must(t, "GET", path, nil, opt).decode(t, &page)
		out := map[string]string{}
		for _, r := range page.Risultati {
			if r.Tipo == nil {
				t.Fatalf("%s lists %s without tipo", path, r.IDPendenza)
			}
			out[r.IDPendenza] = *r.Tipo
		}
		return out
	}
	for _, c := range []struct {
		name, path string
		opt        reqOpt
		want       string
	}{
		{"backoffice_dovuto", bo + "/pendenze/appA/tipo-dovuto", asAdmin(), "dovuto"},
		{"backoffice_spontaneo", bo + "/pendenze/" + spont.IDA2A + "/" + spont.IDPendenza, asAdmin(), "spontaneo"},
		{"pendenze_dovuto", pe + "/pendenze/appA/tipo-dovuto", as("appA"), "dovuto"},
		{"pagamento_dovuto", pg + "/pendenze/appA/tipo-dovuto", as("appA"), "dovuto"},
		{"pagamento_spontaneo", pg + "/pendenze/" + spont.IDA2A + "/" + spont.IDPendenza, as("appA"), "spontaneo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := tipoOf(t, c.path, c.opt); got != c.want {
				t.Fatalf("%s: tipo %q, want %q", c.path, got, c.want)
			}
		})
	}
	for _, c := range []struct {
		name, path string
		opt        reqOpt
	}{
		{"backoffice_list", bo + "/pendenze", asAdmin()},
		{"pagamento_list", pg + "/pendenze", as("appA")},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := listed(t, c.path, c.opt)
			if got["tipo-dovuto"] != "dovuto" || got[spont.IDPendenza] != "spontaneo" {
				t.Fatalf("%s lists tipo %v", c.path, got)
			}
		})
	}
}

// TestGovPayRiscossioneDataFormat: a collection's data, the payment date
// the node recorded (a date or an RFC 3339 date-time), is answered in the
// format GovPay's schema gives it: a date on the Backoffice v1 (its day in
// Rome), a date-time on Ragioneria v3 (a date its midnight in Rome).
// dataPagamento, this service's own, stays as written.
func TestGovPayRiscossioneDataFormat(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	node := asBasic(nodeB, nodeBPass)
	late := w.createPendenza(t, "appA", "late", d1, t1, citizen1)
	dated := w.createPendenza(t, "appA", "dated", d1, t1, citizen1)
	paid := func(p pendenzaView, id, when string) {
		b := ricevuta(p, id, 123.45, "ESEGUITO")
		b["dataPagamento"] = when
		w.must(t, "POST", nd+"/intermediari/"+intB+"/ricevute", b, node)
	}
	paid(w.p1, "RIC-DT", "2026-01-02T10:00:00Z")
	paid(late, "RIC-LATE", "2026-01-02T23:30:00Z") // 3 January in Rome
	paid(dated, "RIC-DATE", "2026-01-05")
	ris := func(prefix string, p pendenzaView, id string) string {
		return prefix + "/riscossioni/" + d1 + "/" + iuvOf(p) + "/" + id + "/1"
	}
	for _, c := range []struct {
		name, path, data, dataPagamento string
	}{
		{"backoffice_datetime", ris(bo, w.p1, "RIC-DT"), "2026-01-02", "2026-01-02T10:00:00Z"},
		{"backoffice_datetime_next_day_in_rome", ris(bo, late, "RIC-LATE"), "2026-01-03", "2026-01-02T23:30:00Z"},
		{"backoffice_date", ris(bo, dated, "RIC-DATE"), "2026-01-05", "2026-01-05"},
		{"ragioneria_datetime", ris(rg, w.p1, "RIC-DT"), "2026-01-02T10:00:00Z", "2026-01-02T10:00:00Z"},
		{"ragioneria_date", ris(rg, dated, "RIC-DATE"), "2026-01-05T00:00:00+01:00", "2026-01-05"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v struct{ Data, DataPagamento string }
			w.must(t, "GET", c.path, nil, asAdmin(), withAppIfRagioneria(c.path)).decode(t, &v)
			if v.Data != c.data || v.DataPagamento != c.dataPagamento {
				t.Fatalf("%s: data %q dataPagamento %q, want %q and %q", c.path, v.Data, v.DataPagamento, c.data, c.dataPagamento)
			}
		})
	}
	t.Run("lists", func(t *testing.T) {
		for path, want := range map[string]string{bo + "/riscossioni?iur=RIC-DATE": "2026-01-05", rg + "/riscossioni?iur=RIC-DATE": "2026-01-05T00:00:00+01:00"} {
			var page Page[struct{ Data string }]
			w.must(t, "GET", path, nil, asAdmin(), withAppIfRagioneria(path)).decode(t, &page)
			if len(page.Risultati) != 1 || page.Risultati[0].Data != want {
				t.Fatalf("%s lists %+v, want data %q", path, page.Risultati, want)
			}
		}
	})

}

// TestGovPayFlussoDataFlussoFormat: a report's dataFlusso, as the node
// recorded it (a date or an RFC 3339 date-time), is answered as GovPay's
// FlussoRendicontazioneIndex has it, a date-time (Backoffice v1 and
// Ragioneria v3): a date is its midnight in Rome, under which the report
// is found.
func TestGovPayFlussoDataFlussoFormat(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	node := asBasic(nodeB, nodeBPass)
	late := w.createPendenza(t, "appA", "late", d1, t1, citizen1)
	const fDate, fTime = "2026-01-03ABI00001-S1", "2026-01-04ABI00001-S2"
	w.must(t, "POST", nd+"/intermediari/"+intB+"/flussiRendicontazione", flusso(fDate, d1, 123.45, line(w.p1.NumeroAvviso, 123.45, 0)), node)
	timed := flusso(fTime, d1, 123.45, line(late.NumeroAvviso, 123.45, 0))
	timed["dataFlusso"] = "2026-01-04T10:00:00Z"
	w.must(t, "POST", nd+"/intermediari/"+intB+"/flussiRendicontazione", timed, node)

	for _, c := range []struct {
		name, prefix, id, day, dataFlusso string
	}{
		{"backoffice_date", bo, fDate, "2026-01-03", "2026-01-03T00:00:00+01:00"},
		{"backoffice_datetime", bo, fTime, "2026-01-04T11:00:00", "2026-01-04T10:00:00Z"},
		{"ragioneria_date", rg, fDate, "2026-01-03", "2026-01-03T00:00:00+01:00"},
	} {
		t.Run("flusso_"+c.name, func(t *testing.T) {
			at := c.prefix + "/flussiRendicontazione/" + d1 + "/" + c.id + "/"
			var v struct{ DataFlusso string }
			w.must(t, "GET", at+c.day, nil, asAdmin(), withAppIfRagioneria(at)).decode(t, &v)
			if v.DataFlusso != c.dataFlusso {
				t.Fatalf("%s: dataFlusso %q, want %q", at, v.DataFlusso, c.dataFlusso)
			}
			w.must(t, "GET", at+url.PathEscape(v.DataFlusso), nil, asAdmin(), withAppIfRagioneria(at)) // found under what it answers
			var page Page[struct{ IDFlusso, DataFlusso string }]
			w.must(t, "GET", c.prefix+"/flussiRendicontazione?idFlusso="+c.id, nil, asAdmin(), withAppIfRagioneria(at)).decode(t, &page)
			if len(page.Risultati) != 1 || page.Risultati[0].DataFlusso != c.dataFlusso {
				t.Fatalf("the list answers %+v, want dataFlusso %q", page.Risultati, c.dataFlusso)
			}
		})
	}
}

// iuvOf is the IUV of p's notice.
func iuvOf(p pendenzaView) string { return domain.IUVOfNotice(p.NumeroAvviso) }

// withAppIfRagioneria reads a Ragioneria path as appC (RAGIONERIA on d1);
// the Backoffice as the administrator given before it.
func withAppIfRagioneria(path string) reqOpt {
	if strings.HasPrefix(path, rg) {
		return as("appC")
	}
	return func(*request) {}
}

// TestGovPayPendenzaVoci: a pendenza's detail answers its voci, which the
// pendenza schemas of GovPay's Backoffice v1 and Pendenze v2 require and
// Pagamento v2's has: each voce as it was written, under GovPay's member
// names, with its indice (1 up, in the order written) and stato (Eseguito
// once the pendenza is paid, else Non eseguito). An update replaces them,
// a pendenza written without voci answers none, the lists (GovPay's
// PendenzaIndex has no voci) answer none, and a replica restarted from a
// snapshot answers the same.
func TestGovPayPendenzaVoci(t *testing.T) {
	t.Parallel() // each test runs its own service
	dataDir, snapDir := t.TempDir(), t.TempDir()
	w := &nodeWorld{world: newWorld(t, withDataDir(dataDir))}
	w.putIntermediary(t, intB, nodeB, nodeBPass, true)
	w.putServedEntity(t, d1, intB)

	twoVoci := []map[string]any{
		{"idVocePendenza": "v1", "importo": 100.00, "descrizione": "Tassa", "descrizioneCausaleRPT": "TARI 2026",
			"codEntrata": "SRV-1", "datiAllegati": map[string]any{"riga": 1}},
		{"idVocePendenza": "v2", "importo": 23.45, "descrizione": "Addizionale", "idDominio": d2,
			"ibanAccredito": "IT60X0542811101000000123456", "ibanAppoggio": "IT60X0542811101000000654321",
			"tipoContabilita": "SIOPE", "codiceContabilita": "3321",
			"contabilita": map[string]any{"quote": []any{map[string]any{"capitolo": "C1", "annoEsercizio": 2026, "importo": 23.45}}}},
	}
	answered := func(stato string) []map[string]any {
		return []map[string]any{
			{"indice": 1, "idVocePendenza": "v1", "importo": 100, "descrizione": "Tassa", "stato": stato,
				"descrizioneCausaleRPT": "TARI 2026", "codEntrata": "SRV-1", "datiAllegati": map[string]any{"riga": 1}},
			{"indice": 2, "idVocePendenza": "v2", "importo": 23.45, "descrizione": "Addizionale", "stato": stato,
				"idDominio": d2, "dominio": map[string]any{"idDominio": d2, "ragioneSociale": "Ente " + d2},
				"ibanAccredito": "IT60X0542811101000000123456", "ibanAppoggio": "IT60X0542811101000000654321",
				"tipoContabilita": "SIOPE", "codiceContabilita": "3321",
				"contabilita": map[string]any{"quote": []any{map[string]any{"capitolo": "C1", "annoEsercizio": 2026, "importo": 23.45}}}},
		}
	}
	bollo := []map[string]any{{"idVocePendenza": "b1", "importo": 123.45, "descrizione": "Bollo", "tipoBollo": "01",
		"hashDocumento": "aGFzaA==", "provinciaResidenza": "RM"}}
	bolloAnswered := []map[string]any{{"indice": 1, "idVocePendenza": "b1", "importo": 123.45, "descrizione": "Bollo",
		"stato": "Non eseguito", "tipoBollo": "01", "hashDocumento": "aGFzaA==", "provinciaResidenza": "RM"}}

	put := func(t *testing.T, id string, voci []map[string]any) pendenzaView {
		t.Helper()
		var v pendenzaView
		w.must(t, "PUT", pe+"/pendenze/appA/"+id, withField(pendenzaBodyFor(d1, t1, citizen1), "voci", voci), as("appA")).decode(t, &v)
		return v
	}
	paid := put(t, "voci-paid", twoVoci)
	w.must(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(paid, "RIC-VOCI", 123.45, "ESEGUITO"), asBasic(nodeB, nodeBPass))
	open := put(t, "voci-open", twoVoci)
	replaced := put(t, "voci-replaced", twoVoci)
	put(t, "voci-replaced", bollo) // an update replaces the voci
	none := put(t, "voci-none", nil)

	type read struct {
		name, path string
		opt        reqOpt
	}
	details := func(p pendenzaView) []read {
		return []read{
			{"pendenze", pe + "/pendenze/appA/" + p.IDPendenza, as("appA")},
			{"pendenze_by_avviso", pe + "/pendenze/byAvviso/" + d1 + "/" + p.NumeroAvviso, as("appA")},
			{"backoffice", bo + "/pendenze/appA/" + p.IDPendenza, asAdmin()},
			{"pagamento", pg + "/pendenze/appA/" + p.IDPendenza, as("appA")},
			{"pagamento_citizen", "/pagamento/rs/spid/v2/pendenze/appA/" + p.IDPendenza, asSPID(citizen1)},
			{"pagamento_by_avviso", pg + "/pendenze/byAvviso/" + d1 + "/" + p.NumeroAvviso, as("appA")},
		}
	}
	check := func(t *testing.T, w *nodeWorld) {
		for _, c := range []struct {
			name string
			p    pendenzaView
			want []map[string]any
		}{
			{"paid", paid, answered("Eseguito")},
			{"open", open, answered("Non eseguito")},
			{"replaced", replaced, bolloAnswered},
			{"none", none, []map[string]any{}},
		} {
			for _, r := range details(c.p) {
				t.Run(c.name+"/"+r.name, func(t *testing.T) {
					var got struct {
						Voci *[]any `json:"voci"`
					}
					w.must(t, "GET", r.path, nil, r.opt).decode(t, &got)
					if got.Voci == nil {
						t.Fatalf("%s answers no voci", r.path)
					}
					if g, want := asDecoded(t, *got.Voci), asDecoded(t, c.want); !reflect.DeepEqual(g, want) {
						t.Fatalf("%s answers voci\n%v\nwant\n%v", r.path, g, want)
					}
				})
			}
		}
		for _, l := range []read{
			{"backoffice_list", bo + "/pendenze", asAdmin()},
			{"pendenze_list", pe + "/pendenze", as("appA")},
			{"pagamento_list", pg + "/pendenze", as("appA")},
		} {
			t.Run(l.name, func(t *testing.T) {
				if body := string(w.must(t, "GET", l.path, nil, l.opt).Body); strings.Contains(body, `"voci"`) {
					t.Fatalf("%s lists voci, which GovPay's PendenzaIndex has not: %s", l.path, body)
				}
			})
		}
	}
	check(t, w)

	at, err := w.model.WriteSnapshot(snapDir)
	if err != nil {
		t.Fatal(err)
	}
	w.stop()
	restarted := &nodeWorld{world: &world{harness: newHarness(t, withDataDir(dataDir), fromSnapshot(snapDir))}}
	if restarted.startedAt != at {
		t.Fatalf("the restarted replica started at position %d, not at the snapshot's %d", restarted.startedAt, at)
	}
	t.Run("restarted", func(t *testing.T) { check(t, restarted) })
}

// TestGovPayPendenzaDati: the members of GovPay's NuovaPendenza that bear
// on no decision (dataScadenza, annoRiferimento, tassonomia, documento,
// proprieta, ...), which PUT stores, are answered by the reads of one
// pendenza under GovPay's names, each API the members its detail schema
// has (Pendenze v2 Pendenza: PendenzaBase's; Pagamento v2: the same but
// documento; Backoffice v1 pendenza: pendenzaBase's, dataNotificaAvviso
// and dataPromemoriaScadenza too); allegati, whose read GovPay answers as
// a path to a file this service does not serve, none; an update replaces
// them; lists answer none; a caller who cannot read the pendenza is
// answered none; a replica restarted from a snapshot answers the same.
func TestGovPayPendenzaDati(t *testing.T) {
	t.Parallel() // each test runs its own service
	dataDir, snapDir := t.TempDir(), t.TempDir()
	w := newWorld(t, withDataDir(dataDir))

	common := map[string]any{"dataValidita": "2026-12-01", "dataScadenza": "2026-12-31", "annoRiferimento": 2026,
		"cartellaPagamento": "CART-1", "datiAllegati": map[string]any{"pratica": "P-7", "righe": []any{1, 2}},
		"tassonomia": "Tributi", "tassonomiaAvviso": "Imposte e tasse", "direzione": "Dir-1", "divisione": "Div-2",
		"proprieta": map[string]any{"lineaTestoRicevuta1": "Grazie", "descrizioneImporto": []any{map[string]any{"voce": "Tassa", "importo": 123.45}}}}
	documento := map[string]any{"identificativo": "DOC-1", "descrizione": "Rate TARI", "rata": 1}
	promemoria := map[string]any{"dataNotificaAvviso": "2026-11-15", "dataPromemoriaScadenza": "2026-12-20"}
	allegati := []any{map[string]any{"nome": "a.pdf", "contenuto": "aGVsbG8="}}
	all := maps.Clone(common)
	maps.Copy(all, promemoria)
	all["documento"], all["allegati"] = documento, allegati

	put := func(t *testing.T, id string, members map[string]any) pendenzaView {
		t.Helper()
		body := pendenzaBodyFor(d1, t1, citizen1)
		for k, v := range members {
			body = withField(body, k, v)
		}
		var v pendenzaView
		w.must(t, "PUT", pe+"/pendenze/appA/"+id, body, as("appA")).decode(t, &v)
		return v
	}
	full := put(t, "dati-full", all)
	replaced := put(t, "dati-replaced", all)
	later := map[string]any{"dataScadenza": "2027-01-31", "annoRiferimento": 2027, "documento": map[string]any{"identificativo": "DOC-2", "descrizione": "Saldo"}}
	put(t, "dati-replaced", later) // an update replaces them all
	none := put(t, "dati-none", nil)

	// only is the members of m named in names (of m's, every one).
	only := func(m map[string]any, names ...string) map[string]any {
		out := map[string]any{}
		for _, n := range names {
			if v, ok := m[n]; ok {
				out[n] = v
			}
		}
		return out
	}
	pendenzeMembers := append(slices.Collect(maps.Keys(common)), "documento")
	backofficeMembers := append(slices.Clone(pendenzeMembers), "dataNotificaAvviso", "dataPromemoriaScadenza")
	pagamentoMembers := slices.Collect(maps.Keys(common))
	everyMember := slices.Collect(maps.Keys(all))

	type read struct {
		name, path string
		opt        reqOpt
		members    []string // the members its schema has
	}
	reads := func(p pendenzaView) []read {
		return []read{
			{"pendenze", pe + "/pendenze/appA/" + p.IDPendenza, as("appA"), pendenzeMembers},
			{"pendenze_by_avviso", pe + "/pendenze/byAvviso/" + d1 + "/" + p.NumeroAvviso, as("appA"), pendenzeMembers},
			{"backoffice", bo + "/pendenze/appA/" + p.IDPendenza, asAdmin(), backofficeMembers},
			{"pagamento", pg + "/pendenze/appA/" + p.IDPendenza, as("appA"), pagamentoMembers},
			{"pagamento_citizen", "/pagamento/rs/spid/v2/pendenze/appA/" + p.IDPendenza, asSPID(citizen1), pagamentoMembers},
			{"pagamento_by_avviso", pg + "/pendenze/byAvviso/" + d1 + "/" + p.NumeroAvviso, as("appA"), pagamentoMembers},
		}
	}
	check := func(t *testing.T, w *world) {
		for _, c := range []struct {
			name    string
			p       pendenzaView
			written map[string]any
		}{
			{"full", full, all},
			{"replaced", replaced, later},
			{"none", none, nil},
		} {
			for _, r := range reads(c.p) {
				t.Run(c.name+"/"+r.name, func(t *testing.T) {
					var got map[string]any
					w.must(t, "GET", r.path, nil, r.opt).decode(t, &got)
					if g, want := asDecoded(t, only(got, everyMember...)), asDecoded(t, only(c.written, r.members...)); !reflect.DeepEqual(g, want) {
						t.Fatalf("%s answers\n%v\nwant\n%v", r.path, g, want)
					}
				})
			}
		}
		for _, l := range []struct {
			name, path string
			opt        reqOpt
		}{
			{"backoffice_list", bo + "/pendenze", asAdmin()},
			{"pendenze_list", pe + "/pendenze", as("appA")},
			{"pagamento_list", pg + "/pendenze", as("appA")},
		} {
			t.Run(l.name, func(t *testing.T) {
				body := string(w.must(t, "GET", l.path, nil, l.opt).Body)
				for _, m := range everyMember {
					if strings.Contains(body, `"`+m+`"`) {
						t.Fatalf("%s lists %s: %s", l.path, m, body)
					}
				}
			})
		}
		// Who cannot read the pendenza is answered none of it.
		for _, d := range []struct {
			name, path string
			opt        reqOpt
		}{
			{"other_application", pe + "/pendenze/appA/" + full.IDPendenza, as("appB")},
			{"other_application_by_avviso", pe + "/pendenze/byAvviso/" + d1 + "/" + full.NumeroAvviso, as("appB")},
			{"other_citizen", "/pagamento/rs/spid/v2/pendenze/appA/" + full.IDPendenza, asSPID(citizen2)},
		} {
			t.Run("denied/"+d.name, func(t *testing.T) {
				r := w.do(t, "GET", d.path, nil, d.opt)
				if r.Status < 400 {
					t.Fatalf("%s answered %d: %s", d.path, r.Status, r.Body)
				}
				for _, m := range everyMember {
					if bytes.Contains(r.Body, []byte(`"`+m+`"`)) {
						t.Fatalf("%s, denied (%d), answers %s: %s", d.path, r.Status, m, r.Body)
					}
				}
			})
		}
	}
	check(t, w)

	at, err := w.model.WriteSnapshot(snapDir)
	if err != nil {
		t.Fatal(err)
	}
	w.stop()
	restarted := &world{harness: newHarness(t, withDataDir(dataDir), fromSnapshot(snapDir))}
	if restarted.startedAt != at {
		t.Fatalf("the restarted replica started at position %d, not at the snapshot's %d", restarted.startedAt, at)
	}
	t.Run("restarted", func(t *testing.T) { check(t, restarted) })
}

// TestGovPayTipiPagabiliTipo: the Pagamento API's list of the types an
// entity may be paid spontaneously answers each as GovPay's TipoPendenza
// of Pagamento v2, which requires tipo (TipoPendenzaTipologia): every type
// it lists is spontaneo, for every caller it lists types to.
func TestGovPayTipiPagabiliTipo(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	for _, c := range []struct {
		name, path string
		opt        reqOpt
	}{
		{"application", pg + "/domini/" + d1 + "/tipiPendenza", as("appA")},
		{"citizen", "/pagamento/rs/spid/v2/domini/" + d1 + "/tipiPendenza", asSPID(citizen1)},
		{"anonymous", "/pagamento/rs/public/v2/domini/" + d1 + "/tipiPendenza", func(*request) {}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var page Page[struct {
				IDTipoPendenza string  `json:"idTipoPendenza"`
				Tipo           *string `json:"tipo"`
			}]
			w.must(t, "GET", c.path, nil, c.opt).decode(t, &page)
			if len(page.Risultati) == 0 {
				t.Fatalf("%s lists no type", c.path)
			}
			for _, r := range page.Risultati {
				if r.Tipo == nil || *r.Tipo != "spontaneo" {
					t.Fatalf("%s lists %s with tipo %v, want spontaneo", c.path, r.IDTipoPendenza, r.Tipo)
				}
			}
		})
	}
}

// TestGovPayRendicontazioneIUV: a report's line answers the iuv GovPay's
// rendicontazione requires (Backoffice v1, Ragioneria v3): pagoPA's IUV of
// its notice number (domain.IUVOfNotice: without the aux digit, for aux
// digit 0 without the application code too; for aux digit 3 the
// segregation code is the IUV's first two digits), in every answer that
// holds the lines (the reads, the lists, the node's own answer).
func TestGovPayRendicontazioneIUV(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	node := asBasic(nodeB, nodeBPass)
	const id, aux0, aux3 = "2026-01-03ABI00001-IUV", "001123456789012345", "312345678901234567"
	want := map[string]string{w.p1.NumeroAvviso: iuvOf(w.p1), aux0: "123456789012345", aux3: "12345678901234567"}
	body := flusso(id, d1, 3, line(w.p1.NumeroAvviso, 1, 0), line(aux0, 1, 0), line(aux3, 1, 9))

	type report struct {
		IDFlusso        string `json:"idFlusso"`
		Rendicontazioni []struct {
			NumeroAvviso string  `json:"numeroAvviso"`
			IUV          *string `json:"iuv"`
		} `json:"rendicontazioni"`
	}
	check := func(t *testing.T, where string, r report) {
		t.Helper()
		if len(r.Rendicontazioni) != len(want) {
			t.Fatalf("%s: %d lines, want %d", where, len(r.Rendicontazioni), len(want))
		}
		for _, l := range r.Rendicontazioni {
			if l.IUV == nil || *l.IUV != want[l.NumeroAvviso] {
				t.Errorf("%s: line %s answers iuv %v, want %q", where, l.NumeroAvviso, l.IUV, want[l.NumeroAvviso])
			}
		}
	}
	var written report
	w.must(t, "POST", nd+"/intermediari/"+intB+"/flussiRendicontazione", body, node).decode(t, &written)
	check(t, "the node's answer", written)
	for name, prefix := range map[string]string{"backoffice": bo, "ragioneria": rg} {
		t.Run(name, func(t *testing.T) {
			at := prefix + "/flussiRendicontazione/" + d1 + "/" + id + "/2026-01-03"
			var r report
			w.must(t, "GET", at, nil, asAdmin(), withAppIfRagioneria(at)).decode(t, &r)
			check(t, at, r)
			var page Page[report]
			w.must(t, "GET", prefix+"/flussiRendicontazione?idFlusso="+id, nil, asAdmin(), withAppIfRagioneria(at)).decode(t, &page)
			listed := 0
			for _, r := range page.Risultati {
				if r.IDFlusso == id {
					check(t, prefix+" list", r)
					listed++
				}
			}
			if listed != 1 {
				t.Fatalf("%s list holds the report %d times, want once", prefix, listed)
			}
		})
	}
}

// TestGovPayPagamentoItemDominioTipo: a payment's items (GovPay's
// PendenzaIndex in Pagamento v2) answer the dominio and tipo GovPay
// requires, derived from what the item already shows (its idDominio, its
// pendenza's creator, or no pendenza for a spontaneous reference), to
// every caller that reads the payment: the application that started it,
// a remitter paying another's notice by its number, the payer of an item
// and the anonymous session. What the caller may not read of a pendenza
// it paid by notice number, its payer and its dataCaricamento, stays out.
func TestGovPayPagamentoItemDominioTipo(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	const pgSpid, pgPub = "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"
	loaded := w.createPendenza(t, "appA", "item-loaded", d1, t1, citizen1)
	byNotice := w.createPendenza(t, "appA", "item-notice", d1, t1, citizen1)
	byAnon := w.createPendenza(t, "appA", "item-anon", d1, t1, citizen1)
	spontaneous := map[string]any{"idDominio": d1, "idTipoPendenza": tSpont, "importo": 5, "causale": "Donazione",
		"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "Luigi Verdi"}}
	pay := func(t *testing.T, path string, refs []map[string]any, opt reqOpt) (pagamentoCreated, reqOpt) {
		t.Helper()
		var created pagamentoCreated
		r := w.must(t, "POST", path+"/pagamenti", map[string]any{"pendenze": refs}, opt)
		r.decode(t, &created)
		if ck := sessionCookieOf(r); ck != nil {
			return created, withCookie(ck)
		}
		return created, opt
	}
	var portal pendenzaCreata // a pendenza its payer created: spontaneo too
	w.must(t, "POST", pg+"/pendenze/"+d1+"/"+tSpont, map[string]any{"causale": "Donazione", "importo": 25,
		"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "Mario Rossi"}}, as("appA")).decode(t, &portal)
	byApp, app := pay(t, pg, []map[string]any{{"idA2A": "appA", "idPendenza": loaded.IDPendenza}, spontaneous,
		{"idA2A": portal.IDA2A, "idPendenza": portal.IDPendenza}}, as("appA"))
	byRemitter, remitter := pay(t, pgSpid, []map[string]any{{"idDominio": d1, "numeroAvviso": byNotice.NumeroAvviso}}, asSPID(citizen2))
	byAnonymous, anonymous := pay(t, pgPub, []map[string]any{{"idDominio": d1, "numeroAvviso": byAnon.NumeroAvviso}, spontaneous}, func(*request) {})

	for _, c := range []struct {
		name, path string
		opt        reqOpt
		tipi       []string
	}{
		{"application", pg + "/pagamenti/" + byApp.ID, app, []string{"dovuto", "spontaneo", "spontaneo"}},
		{"remitter_by_notice", pgSpid + "/pagamenti/" + byRemitter.ID, remitter, []string{"dovuto"}},
		{"payer_only", pgSpid + "/pagamenti/" + byRemitter.ID, asSPID(citizen1), []string{"dovuto"}},
		{"anonymous_session", pgPub + "/pagamenti/" + byAnonymous.ID, anonymous, []string{"dovuto", "spontaneo"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v struct {
				Pendenze []map[string]any `json:"pendenze"`
			}
			w.must(t, "GET", c.path, nil, c.opt).decode(t, &v)
			if len(v.Pendenze) != len(c.tipi) {
				t.Fatalf("%s shows %d items, want %d", c.path, len(v.Pendenze), len(c.tipi))
			}
			for i, it := range v.Pendenze {
				dominio, _ := it["dominio"].(map[string]any)
				if dominio["idDominio"] != d1 || dominio["ragioneSociale"] != "Ente "+d1 {
					t.Errorf("item %d answers dominio %v, want {%s, Ente %s}", i, it["dominio"], d1, d1)
				}
				if it["tipo"] != c.tipi[i] {
					t.Errorf("item %d answers tipo %v, want %s", i, it["tipo"], c.tipi[i])
				}
				for _, hidden := range []string{"soggettoPagatore", "dataCaricamento"} {
					if _, ok := it[hidden]; ok {
						t.Errorf("item %d answers %s", i, hidden)
					}
				}
			}
		})
	}
}

// TestGovPayIntermediarioPrincipalPagoPa: an intermediary answers, read,
// listed and written, GovPay's required principalPagoPa (Backoffice v1
// intermediario: the principal authenticating what pagoPA sends), the
// principal of its node connector; and, what GET answers PUT accepts, a
// PUT takes it in place of connettoreNodo or next to it when both name
// one principal (a connector without password keeps the one it has), two
// principals being 400 with nothing written.
func TestGovPayIntermediarioPrincipalPagoPa(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newNodeWorld(t)
	at := bo + "/intermediari/" + intB
	type view struct {
		IDIntermediario string  `json:"idIntermediario"`
		PrincipalPagoPa *string `json:"principalPagoPa"`
		ConnettoreNodo  struct {
			Principal string `json:"principal"`
		} `json:"connettoreNodo"`
	}
	agree := func(t *testing.T, where string, v view, want string) {
		t.Helper()
		if v.PrincipalPagoPa == nil || *v.PrincipalPagoPa != want || v.ConnettoreNodo.Principal != want {
			t.Fatalf("%s answers principalPagoPa %v and connettoreNodo.principal %q, want both %q", where, v.PrincipalPagoPa, v.ConnettoreNodo.Principal, want)
		}
	}
	t.Run("read_and_list", func(t *testing.T) {
		var v view
		w.must(t, "GET", at, nil, asAdmin()).decode(t, &v)
		agree(t, at, v, nodeB)
		var page Page[view]
		w.must(t, "GET", bo+"/intermediari", nil, asAdmin()).decode(t, &page)
		listed := 0
		for _, r := range page.Risultati {
			if r.IDIntermediario == intB {
				agree(t, "the list", r, nodeB)
				listed++
			}
		}
		if listed != 1 {
			t.Fatalf("the list holds %s %d times, want once", intB, listed)
		}
	})
	body := func(members ...any) map[string]any {
		b := map[string]any{"denominazione": "Intermediario " + intB, "abilitato": true}
		for i := 0; i < len(members); i += 2 {
			b[members[i].(string)] = members[i+1]
		}
		return b
	}
	node := func(principal, password string) reqOpt { return asBasic(principal, password) }
	verifica := nd + "/intermediari/" + intB + "/avvisi/" + d1 + "/" + w.p1.NumeroAvviso
	t.Run("put_govpay_name_alone_keeps_the_password", func(t *testing.T) {
		var v view
		w.must(t, "PUT", at, body("principalPagoPa", nodeB), asAdmin()).decode(t, &v)
		agree(t, "the PUT's answer", v, nodeB)
		w.must(t, "GET", verifica, nil, node(nodeB, nodeBPass))
	})
	t.Run("put_both_agreeing", func(t *testing.T) {
		var v view
		w.must(t, "PUT", at, body("principalPagoPa", nodeB, "connettoreNodo", map[string]any{"principal": nodeB, "password": nodeBPass}), asAdmin()).decode(t, &v)
		agree(t, "the PUT's answer", v, nodeB)
		w.must(t, "GET", verifica, nil, node(nodeB, nodeBPass))
	})
	t.Run("put_govpay_name_with_a_password_only_connector", func(t *testing.T) {
		var v view
		w.must(t, "PUT", at, body("principalPagoPa", nodeB, "connettoreNodo", map[string]any{"password": nodeBPass}), asAdmin()).decode(t, &v)
		agree(t, "the PUT's answer", v, nodeB)
		w.must(t, "GET", verifica, nil, node(nodeB, nodeBPass))
	})
	t.Run("put_both_differing_is_400", func(t *testing.T) {
		before := w.logEnd(t)
		w.do(t, "PUT", at, body("principalPagoPa", "node-other", "connettoreNodo", map[string]any{"principal": nodeB}), asAdmin()).
			expect(t, 400, "SINTASSI")
		if after := w.logEnd(t); after != before {
			t.Fatalf("a refused PUT wrote: log at %v, was %v", after, before)
		}
	})
	t.Run("get_answer_put_back_writes_nothing", func(t *testing.T) {
		var got map[string]any
		w.must(t, "GET", at, nil, asAdmin()).decode(t, &got)
		before := w.logEnd(t)
		w.must(t, "PUT", at, got, asAdmin())
		if after := w.logEnd(t); after != before {
			t.Fatalf("PUT of the GET's answer wrote: log at %v, was %v", after, before)
		}
	})
	t.Run("put_govpay_name_renames", func(t *testing.T) {
		var v view
		w.must(t, "PUT", at, body("principalPagoPa", "node-renamed"), asAdmin()).decode(t, &v)
		agree(t, "the PUT's answer", v, "node-renamed")
		// The password held was the previous principal's: it opens the
		// node API neither under the new one nor, the rename undone, again.
		w.do(t, "GET", verifica, nil, node("node-renamed", nodeBPass)).expect(t, 401, "401000")
		w.must(t, "PUT", at, body("principalPagoPa", nodeB), asAdmin())
		w.do(t, "GET", verifica, nil, node(nodeB, nodeBPass)).expect(t, 401, "401000")
	})
}

// TestGovPayPendenzaNullIsAbsent: a JSON null for one of a pendenza's free
// JSON values (datiAllegati, documento, proprieta, a voce's datiAllegati
// and contabilita) is the value absent, as it is for a pendenza type's:
// the log kept null, the reads answered "datiAllegati": null where the
// docs say an absent member is not answered, and a repeat of the PUT
// without those members appended an update.
func TestGovPayPendenzaNullIsAbsent(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newWorld(t)
	body := func(null bool) map[string]any {
		voce := map[string]any{"idVocePendenza": "v1", "importo": 10.0, "descrizione": "Tassa", "codEntrata": "SRV-1"}
		b := withField(withField(pendenzaBodyFor(d1, t1, citizen1), "importo", 10.0), "voci", []any{voce})
		if null {
			voce["datiAllegati"], voce["contabilita"] = nil, nil
			b["datiAllegati"], b["documento"], b["proprieta"] = nil, nil, nil
		}
		return b
	}
	w.do(t, "PUT", pe+"/pendenze/appA/null-1", body(true), as("appA")).expect(t, 201, "")
	var got map[string]any
	w.must(t, "GET", pe+"/pendenze/appA/null-1", nil, as("appA")).decode(t, &got)
	for _, m := range []string{"datiAllegati", "documento", "proprieta"} {
		if v, ok := got[m]; ok {
			t.Errorf("the read answers %s: %v, want it absent", m, v)
		}
	}
	voci, _ := got["voci"].([]any)
	if len(voci) != 1 {
		t.Fatalf("voci %v", got["voci"])
	}
	for _, m := range []string{"datiAllegati", "contabilita"} {
		if v, ok := voci[0].(map[string]any)[m]; ok {
			t.Errorf("the voce answers %s: %v, want it absent", m, v)
		}
	}
	// The same pendenza written without those members is a repeat: 200,
	// nothing appended; and with them null again, too.
	end := w.logEnd(t)
	w.do(t, "PUT", pe+"/pendenze/appA/null-1", body(false), as("appA")).expect(t, 200, "")
	w.do(t, "PUT", pe+"/pendenze/appA/null-1", body(true), as("appA")).expect(t, 200, "")
	if w.logEnd(t) != end {
		t.Fatalf("a repeat without the null members appended (log end %d, was %d)", w.logEnd(t), end)
	}
}

// asDecoded is v as encoding/json decodes its encoding (maps, []any,
// float64), so that an expected value compares with an answered one.
func asDecoded(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
