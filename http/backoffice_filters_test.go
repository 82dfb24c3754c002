package httpapi

import (
	"reflect"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
)

// boListed answers the key member of each result of the Backoffice list
// path?query as caller, in order, checking that numRisultati counts them.
func boListed(t *testing.T, h *harness, path, query, key string, caller reqOpt) []string {
	t.Helper()
	var page struct {
		NumRisultati int              `json:"numRisultati"`
		Risultati    []map[string]any `json:"risultati"`
	}
	h.must(t, "GET", bo+path+"?"+query, nil, caller).decode(t, &page)
	got := []string{}
	for _, r := range page.Risultati {
		got = append(got, r[key].(string))
	}
	if page.NumRisultati != len(got) {
		t.Errorf("%s?%s counts %d results, lists %v", path, query, page.NumRisultati, got)
	}
	return got
}

// boFilterCase is one filtered Backoffice list and what it must list.
type boFilterCase struct {
	name, caller, path, query string
	want                      []string
}

func runBoFilterCases(t *testing.T, h *harness, key map[string]string, cases []boFilterCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			caller := asAdmin()
			if c.caller != "" {
				caller = as(c.caller)
			}
			if got := boListed(t, h, c.path, c.query, key[c.path], caller); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s?%s lists %v, want %v", c.path, c.query, got, c.want)
			}
		})
	}
}

// TestBackofficeMoneyListFilters: the Backoffice's lists of collections,
// settlement reports, receipts and reconciliations take GovPay's filters,
// as the Ragioneria API's lists of the same records do (findRiscossioni
// adds iuv, idA2A and idPendenza), each narrowing what the caller's scope
// shows and counted; a bad value is 400 SINTASSI after the gate (403 for a
// caller without the right); a caller scoped to another entity lists
// nothing. They read idDominio alone, answering every record for any
// other filter and 200 for a bad value.
func TestBackofficeMoneyListFilters(t *testing.T) {
	t.Parallel()
	w := newNodeWorld(t)
	w.putRole(t, "opD2", fullACL("R"), []string{d2}, []string{"*"})
	w.putOperator(t, "opD2", pw, true, "opD2")
	pa2 := w.recordMoney(t)

	key := map[string]string{"/riscossioni": "iur", "/flussiRendicontazione": "idFlusso", "/ricevute": "idRicevuta", "/riconciliazioni": "id"}
	iuv1, iuv2 := domain.IUVOfNotice(w.p1.NumeroAvviso), domain.IUVOfNotice(pa2.NumeroAvviso)
	both := []string{"RIC-A", "RIC-B"}
	flows := []string{"2026-01-03ABI-FA", "2026-01-03ABI-FB"}
	runBoFilterCases(t, w.harness, key, []boFilterCase{
		{"riscossioni_all", "opD1", "/riscossioni", "", both},
		{"riscossioni_from", "opD1", "/riscossioni", "dataDa=2026-02-01", []string{"RIC-B"}},
		{"riscossioni_until", "opD1", "/riscossioni", "dataA=2026-01-31", []string{"RIC-A"}},
		{"riscossioni_from_a_time", "opD1", "/riscossioni", "dataDa=2026-01-02T11:00:00Z", []string{"RIC-B"}},
		{"riscossioni_iur", "opD1", "/riscossioni", "iur=RIC-B", []string{"RIC-B"}},
		{"riscossioni_iuv", "opD1", "/riscossioni", "iuv=" + iuv1, []string{"RIC-A"}},
		{"riscossioni_idA2A", "opD1", "/riscossioni", "idA2A=appA", both},
		{"riscossioni_other_idA2A", "opD1", "/riscossioni", "idA2A=appB", []string{}},
		{"riscossioni_idPendenza", "opD1", "/riscossioni", "idPendenza=n1b", []string{"RIC-B"}},
		{"riscossioni_riscossa", "opD1", "/riscossioni", "stato=RISCOSSA", both},
		{"riscossioni_incassata", "opD1", "/riscossioni", "stato=INCASSATA", []string{}},
		{"riscossioni_mbt_or_entrata", "opD1", "/riscossioni", "tipo=MBT&tipo=ENTRATA", both},
		{"riscossioni_mbt", "opD1", "/riscossioni", "tipo=MBT", []string{}},
		{"riscossioni_admin_iur_of_d2", "", "/riscossioni", "iur=RIC-D2", []string{"RIC-D2"}},
		{"riscossioni_other_scope_iur", "opD2", "/riscossioni", "iur=RIC-A", []string{}},
		{"riscossioni_other_scope_idPendenza", "opD2", "/riscossioni", "idPendenza=n1b", []string{}},
		{"flussi_all", "opD1", "/flussiRendicontazione", "", flows},
		{"flussi_id_without_case", "opD1", "/flussiRendicontazione", "idFlusso=2026-01-03abi-fb", []string{"2026-01-03ABI-FB"}},
		{"flussi_iuv", "opD1", "/flussiRendicontazione", "iuv=" + iuv2, []string{"2026-01-03ABI-FB"}},
		{"flussi_acquisito", "opD1", "/flussiRendicontazione", "stato=Acquisito", flows},
		{"flussi_anomalo", "opD1", "/flussiRendicontazione", "stato=Anomalo", []string{}},
		{"flussi_escludi_obsoleti", "opD1", "/flussiRendicontazione", "escludiObsoleti=true", flows},
		{"flussi_acquired_later", "opD1", "/flussiRendicontazione", "dataDa=2099-01-01", []string{}},
		{"flussi_other_scope_id", "opD2", "/flussiRendicontazione", "idFlusso=2026-01-03ABI-FA", []string{}},
		{"ricevute_all", "opD1", "/ricevute", "", []string{"RIC-A", "RIC-B", "RIC-KO"}},
		{"ricevute_iuv", "opD1", "/ricevute", "iuv=" + iuv1, []string{"RIC-A"}},
		{"ricevute_id", "opD1", "/ricevute", "idRicevuta=RIC-KO", []string{"RIC-KO"}},
		{"ricevute_avviso", "opD1", "/ricevute", "numeroAvviso=" + pa2.NumeroAvviso, []string{"RIC-B"}},
		{"ricevute_later", "opD1", "/ricevute", "dataA=2000-01-01", []string{}},
		{"ricevute_other_scope_id", "opD2", "/ricevute", "idRicevuta=RIC-A", []string{}},
		{"riconciliazioni_all", "opD1", "/riconciliazioni", "", []string{"R1", "R2"}},
		{"riconciliazioni_sct", "opD1", "/riconciliazioni", "sct=S2", []string{"R2"}},
		{"riconciliazioni_later", "opD1", "/riconciliazioni", "dataDa=2099-01-01T00:00:00", []string{}},
		{"riconciliazioni_other_scope_sct", "opD2", "/riconciliazioni", "sct=S1", []string{}},
	})
	runBadFilters(t, w.harness, bo+"/", as("opD1"), as("opNoRole"), []string{"riscossioni?dataDa=garbage", "riscossioni?dataA=2026-13-01", "riscossioni?stato=PAGATO",
		"riscossioni?tipo=X", "riscossioni?iur=a%2Fb", "riscossioni?iuv=a%20b", "riscossioni?idA2A=a%2Fb", "riscossioni?idPendenza=a%20b",
		"flussiRendicontazione?stato=ACQUISITO", "flussiRendicontazione?iuv=a%20b", "flussiRendicontazione?idFlusso=a%20b",
		"flussiRendicontazione?dataDa=x", "flussiRendicontazione?escludiObsoleti=si", "ricevute?numeroAvviso=12",
		"ricevute?iuv=a%2Fb", "ricevute?idRicevuta=a%2Fb", "ricevute?dataA=x", "riconciliazioni?dataDa=x"},
		"riscossioni?dataDa=garbage", "flussiRendicontazione?dataDa=garbage", "ricevute?dataDa=garbage", "riconciliazioni?dataDa=garbage")
}

// TestBackofficeIncassiFilters: GET /incassi takes GovPay Backoffice
// findRiconciliazioni's filters: dataDa and dataA over when the incasso
// was recorded (its data), sct (a part, without case), idFlusso (without
// case) and stato (each here ACQUISITO), narrowing the caller's scope and
// counted; a bad value is 400 after the gate. It read idDominio alone.
func TestBackofficeIncassiFilters(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.putRole(t, "opD2", fullACL("R"), []string{d2}, []string{"*"})
	w.putOperator(t, "opD2", pw, true, "opD2")
	incasso := func(dominio string, body map[string]any) string {
		t.Helper()
		var v struct{ IDIncasso string }
		w.must(t, "POST", bo+"/incassi/"+dominio, body, asAdmin()).decode(t, &v)
		return v.IDIncasso
	}
	i1 := incasso(d1, map[string]any{"causale": "c", "importo": 10, "idFlusso": "2026-01-03ABI-FA", "sct": "SCT-AAA-111"})
	i2 := incasso(d1, map[string]any{"causale": "c", "importo": 20, "sct": "SCT-BBB-222"})
	i3 := incasso(d2, map[string]any{"causale": "c", "importo": 30, "idFlusso": "2026-01-03ABI-FA", "sct": "SCT-AAA-333"})
	key := map[string]string{"/incassi": "idIncasso"}
	runBoFilterCases(t, w.harness, key, []boFilterCase{
		{"all", "opD1", "/incassi", "", []string{i1, i2}},
		{"sct_part_without_case", "opD1", "/incassi", "sct=bbb", []string{i2}},
		{"sct_whole", "opD1", "/incassi", "sct=SCT-AAA-111", []string{i1}},
		{"idFlusso_without_case", "opD1", "/incassi", "idFlusso=2026-01-03abi-fa", []string{i1}},
		{"acquisito", "opD1", "/incassi", "stato=ACQUISITO", []string{i1, i2}},
		{"in_elaborazione", "opD1", "/incassi", "stato=IN_ELABORAZIONE", []string{}},
		{"recorded_later", "opD1", "/incassi", "dataDa=2099-01-01", []string{}},
		{"recorded_since", "opD1", "/incassi", "dataDa=2000-01-01&dataA=2099-12-31", []string{i1, i2}},
		{"admin_sct_across_entities", "", "/incassi", "sct=AAA", []string{i1, i3}},
		{"other_scope_sct", "opD2", "/incassi", "sct=SCT-AAA-111", []string{}},
		{"other_scope_flusso", "opD2", "/incassi", "idFlusso=2026-01-03ABI-FA", []string{i3}},
	})
	runBadFilters(t, w.harness, bo+"/incassi?", as("opD1"), as("opNoRole"),
		[]string{"dataDa=garbage", "dataA=2026-13-01", "stato=Acquisito", "idFlusso=a%20b"}, "dataDa=garbage")
}

// TestBackofficePagamentiFilters: GET /pagamenti takes GovPay Backoffice
// findPagamenti's filters: stato (StatoPagamento), id, dataDa and dataA
// over the request (dataRichiestaPagamento), versante (the remitter's
// fiscal code, without case), and, over the pendenze paid, idDominio,
// iuv, idA2A, idPendenza and idDebitore (without case); each narrows the
// caller's scope and is counted; a bad value is 400 after the gate. The
// list read no filter at all, not even idDominio.
func TestBackofficePagamentiFilters(t *testing.T) {
	t.Parallel()
	w := newNodeWorld(t)
	w.putRole(t, "opD2", fullACL("R"), []string{d2}, []string{"*"})
	w.putOperator(t, "opD2", pw, true, "opD2")
	pay1 := w.payOwn(t, "appA", "n1")
	pa2 := w.createPendenza(t, "appA", "n1b", d1, t1, citizen2)
	pay2 := w.payOwn(t, "appA", "n1b")
	w.do(t, "POST", nd+"/intermediari/"+intB+"/ricevute", ricevuta(pa2, "RIC-B", 123.45, "ESEGUITO"), asBasic(nodeB, nodeBPass)).expect(t, 201, "")
	_, _, payX := w.payAcrossEntities(t, "x")
	pay4 := w.payOwn(t, "appB", "n2")
	key := map[string]string{"/pagamenti": "id"}
	lower := strings.ToLower
	runBoFilterCases(t, w.harness, key, []boFilterCase{
		{"all", "", "/pagamenti", "", []string{pay1, pay2, payX.ID, pay4}},
		{"scope_whole_payments_only", "opD1", "/pagamenti", "", []string{pay1, pay2}},
		{"eseguito", "opD1", "/pagamenti", "stato=ESEGUITO", []string{pay2}},
		{"in_corso", "opD1", "/pagamenti", "stato=IN_CORSO", []string{pay1}},
		{"fallito", "opD1", "/pagamenti", "stato=FALLITO", []string{}},
		{"id", "opD1", "/pagamenti", "id=" + pay2, []string{pay2}},
		{"entity_of_an_item", "", "/pagamenti", "idDominio=" + d1, []string{pay1, pay2, payX.ID}},
		{"entity_out_of_scope", "opD1", "/pagamenti", "idDominio=" + d2, []string{}},
		{"entity_admin", "", "/pagamenti", "idDominio=" + d2, []string{payX.ID, pay4}},
		{"iuv", "opD1", "/pagamenti", "iuv=" + domain.IUVOfNotice(pa2.NumeroAvviso), []string{pay2}},
		{"idA2A", "", "/pagamenti", "idA2A=appB", []string{payX.ID, pay4}},
		{"idA2A_out_of_scope", "opD1", "/pagamenti", "idA2A=appB", []string{}},
		{"idPendenza", "opD1", "/pagamenti", "idPendenza=n1b", []string{pay2}},
		{"idPendenza_and_idA2A", "", "/pagamenti", "idA2A=appB&idPendenza=n1b", []string{}},
		{"debitore_without_case", "opD1", "/pagamenti", "idDebitore=" + lower(citizen2), []string{pay2}},
		{"versante_without_case", "", "/pagamenti", "versante=" + lower(citizen1), []string{payX.ID}},
		{"debitore_with_blanks", "opD1", "/pagamenti", "idDebitore=%20" + citizen2 + "%20", []string{pay2}},
		{"versante_with_blanks", "", "/pagamenti", "versante=%20" + citizen1 + "%20", []string{payX.ID}},
		{"requested_later", "opD1", "/pagamenti", "dataDa=2099-01-01", []string{}},
		{"requested_until", "opD1", "/pagamenti", "dataA=2099-01-01", []string{pay1, pay2}},
		{"other_scope_id", "opD2", "/pagamenti", "id=" + pay1, []string{}},
		{"other_scope_idPendenza", "opD2", "/pagamenti", "idPendenza=n1b", []string{}},
	})
	runBadFilters(t, w.harness, bo+"/pagamenti?", as("opD1"), as("opNoRole"), []string{"stato=PAGATO", "id=xyz", "idDominio=1",
		"iuv=a%20b", "idA2A=a%2Fb", "idPendenza=a%20b", "dataDa=garbage", "dataA=2026-13-01"}, "stato=PAGATO")
}

// TestBackofficePendenzeFilters: GET /pendenze takes, besides idDominio,
// stato, idDebitore, dataDa and dataA, GovPay Backoffice findPendenze's
// idA2A, idPendenza, iuv and idTipoPendenza (repeatable, each value
// kept), narrowing the caller's scope and counted; a bad value is 400
// after the gate. It ignored them, answering every pendenza in scope.
func TestBackofficePendenzeFilters(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.putType(t, "IMU", false)
	w.putRole(t, "opD2", fullACL("R"), []string{d2}, []string{"*"})
	w.putOperator(t, "opD2", pw, true, "opD2")
	w.putRole(t, "opTari", fullACL("R"), []string{"*"}, []string{t1})
	w.putOperator(t, "opTari", pw, true, "opTari")
	a1 := w.createPendenza(t, "appA", "a1", d1, t1, citizen1)
	w.createPendenza(t, "appA", "a2", d1, "IMU", citizen1)
	w.createPendenza(t, "appB", "a1", d2, t1, citizen2)
	w.createPendenza(t, "appB", "b2", d2, tSpont, citizen2)
	key := map[string]string{"/pendenze": "idPendenza"}
	runBoFilterCases(t, w.harness, key, []boFilterCase{
		{"all", "", "/pendenze", "", []string{"a1", "a2", "a1", "b2"}},
		{"idA2A", "", "/pendenze", "idA2A=appB", []string{"a1", "b2"}},
		{"idPendenza", "", "/pendenze", "idPendenza=a1", []string{"a1", "a1"}},
		{"idA2A_and_idPendenza", "", "/pendenze", "idA2A=appA&idPendenza=a1", []string{"a1"}},
		{"iuv", "", "/pendenze", "iuv=" + domain.IUVOfNotice(a1.NumeroAvviso), []string{"a1"}},
		{"tipo", "", "/pendenze", "idTipoPendenza=IMU", []string{"a2"}},
		{"tipi_repeated", "", "/pendenze", "idTipoPendenza=IMU&idTipoPendenza=" + tSpont, []string{"a2", "b2"}},
		{"tipo_and_entity", "", "/pendenze", "idTipoPendenza=" + t1 + "&idDominio=" + d2, []string{"a1"}},
		{"scope_entity_idPendenza", "opD1", "/pendenze", "idPendenza=a1", []string{"a1"}},
		{"other_scope_idA2A", "opD2", "/pendenze", "idA2A=appA", []string{}},
		{"other_scope_iuv", "opD2", "/pendenze", "iuv=" + domain.IUVOfNotice(a1.NumeroAvviso), []string{}},
		{"type_scope_other_type", "opTari", "/pendenze", "idTipoPendenza=IMU", []string{}},
		{"type_scope_types", "opTari", "/pendenze", "idTipoPendenza=IMU&idTipoPendenza=" + t1, []string{"a1", "a1"}},
	})
	runBadFilters(t, w.harness, bo+"/pendenze?", as("opD1"), as("opNoRole"), []string{"idA2A=a%2Fb", "idPendenza=a%20b", "iuv=a%20b",
		"idTipoPendenza=a%2Fb", "idTipoPendenza=IMU&idTipoPendenza=a%20b"}, "idA2A=a%2Fb")
}
