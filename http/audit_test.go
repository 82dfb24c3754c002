package httpapi

import (
	"context"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/operations/audit"
)

// decisionCapture is a slog handler keeping the decision log's records by
// request id.
type decisionCapture struct {
	mu   sync.Mutex
	recs map[string]map[string]string
}

func newDecisionCapture() *decisionCapture {
	return &decisionCapture{recs: map[string]map[string]string{}}
}

func (d *decisionCapture) Enabled(context.Context, slog.Level) bool { return true }
func (d *decisionCapture) WithAttrs([]slog.Attr) slog.Handler       { return d }
func (d *decisionCapture) WithGroup(string) slog.Handler            { return d }
func (d *decisionCapture) Handle(_ context.Context, r slog.Record) error {
	attrs := map[string]string{"msg": r.Message}
	r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
	d.mu.Lock()
	d.recs[attrs["request_id"]] = attrs
	d.mu.Unlock()
	return nil
}

func (d *decisionCapture) get(id string) (map[string]string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.recs[id]
	return r, ok
}

// flush waits until every decision recorded before the call is written
// (or ctx ends).
func (l *decisionLog) flush(ctx context.Context) error {
	b := make(chan struct{})
	select {
	case l.ch <- Decision{barrier: b}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-b:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// flushDecisions waits until the decision log wrote every decision so far.
func flushDecisions(t testing.TB, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.decisions.flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// agreeRow is a matrix row and the audit query that stands for it.
type agreeRow struct {
	name   string
	method string
	path   string
	body   any
	opts   []reqOpt
	q      audit.Query
}

func pq(principal string, auth domain.AuthType, api domain.API, op string, r audit.Resource) audit.Query {
	return audit.Query{Principal: principal, Auth: auth, API: api, Operation: op, Resource: r}
}

// TestExplainAgreesWithLiveDecisions sends every row of an authorization
// matrix over HTTP and asks Explain the same question against the live
// read models just before: the outcome and rule in the decision log equal
// the explanation's, row by row.
func TestExplainAgreesWithLiveDecisions(t *testing.T) {
	capture := newDecisionCapture()
	w := newWorld(t, withDecisionLog(slog.New(capture)))
	pa1 := w.createPendenza(t, "appA", "pa1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "pb1", d2, t1, citizen2)
	w.createPendenza(t, "appB", "other", d1, t1, citizen1)
	w.createPendenza(t, "appA", "own", d1, t1, citizen1)
	w.createPendenza(t, "appA", "toCancel", d1, t1, citizen1)
	payID := w.payOwn(t, "appA", "pa1")
	// A payment of citizen1 across d1 and d2: no role of opD1 covers it.
	w.createPendenza(t, "appB", "pc2", d2, t1, citizen1)
	var span struct{ ID string }
	w.must(t, "POST", "/pagamento/rs/spid/v2/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": "appA", "idPendenza": "pa1"}, {"idA2A": "appB", "idPendenza": "pc2"}}},
		asSPID(citizen1)).decode(t, &span)
	sslCert := w.ca.ClientCert(t, sslSubject)
	// An operator that authenticates with a client certificate alone.
	const opSSL = "CN=op-ssl, O=Ente, C=IT"
	w.must(t, "PUT", bo+"/operatori/"+url.PathEscape(opSSL), map[string]any{"ragioneSociale": "Operatore ssl", "abilitato": true, "ruoli": []string{"readOnly"}})
	opSSLCert := w.ca.ClientCert(t, pkix.Name{CommonName: "op-ssl", Organization: []string{"Ente"}, Country: []string{"IT"}})
	w.must(t, "PUT", bo+"/tipiPendenza/SPENTO", map[string]any{"descrizione": "Tipo spento", "abilitato": false, "pagamentoSpontaneo": true})

	// A paid pendenza: d1 served by an intermediary whose connector
	// records its receipt.
	w.must(t, "PUT", bo+"/intermediari/INTP", map[string]any{"denominazione": "P", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": "node-p", "password": "node-p-secret"}})
	w.must(t, "PUT", bo+"/domini/"+d1, map[string]any{"ragioneSociale": "Ente " + d1, "abilitato": true, "idIntermediario": "INTP"})
	paid := w.createPendenza(t, "appA", "paid", d1, t1, citizen1)
	w.must(t, "POST", nd+"/intermediari/INTP/ricevute", ricevuta(paid, "IUR-PAID", 123.45, "ESEGUITO"), asBasic("node-p", "node-p-secret"))

	B, S, P := domain.AuthBasic, domain.AuthSPID, domain.AuthPublic
	pen, pag, rag, bof := domain.APIPendenze, domain.APIPagamento, domain.APIRagioneria, domain.APIBackoffice
	res := audit.Resource{}
	pend := func(a2a, id string) audit.Resource { return audit.Resource{IDA2A: a2a, IDPendenza: id} }
	in := func(a2a, d string) audit.Resource {
		return audit.Resource{IDA2A: a2a, IDDominio: d, IDTipoPendenza: t1}
	}
	svc := func(s, r string, x audit.Resource) audit.Resource { x.Service, x.Right = s, r; return x }
	payRef := func(a2a, id string) map[string]any {
		return map[string]any{"pendenze": []map[string]any{{"idA2A": a2a, "idPendenza": id}}}
	}
	ric := map[string]any{"importo": 10.5, "causale": "quadratura"}
	cancel := []map[string]any{{"op": "REPLACE", "path": "/stato", "value": "ANNULLATA"}}
	const pgSpid, pgPub = "/pagamento/rs/spid/v2", "/pagamento/rs/public/v2"
	spont := func(tipo string) map[string]any {
		return map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "idTipoPendenza": tipo, "importo": 5, "causale": "Dono",
			"soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen2, "anagrafica": "L V"}}}}
	}
	spontIn := func(tipo string) audit.Resource { return audit.Resource{IDDominio: d1, IDTipoPendenza: tipo} }
	conn := map[string]any{"principal": "node-x", "password": "node-x-secret"}
	unit := map[string]any{"ragioneSociale": "Ufficio UO2", "abilitato": true}
	incasso := map[string]any{"causale": "Riversamento", "importo": 10.5, "dataValuta": "2026-01-04", "dataContabile": "2026-01-04"}
	newPassword := []map[string]any{{"op": "REPLACE", "path": "/password", "value": pw}}
	appBody := func(principal string) map[string]any {
		return map[string]any{"principal": principal, "password": pw, "abilitato": true, "ruoli": []string{}}
	}
	patchDomini := []map[string]any{{"op": "REPLACE", "path": "/domini", "value": []string{d1}}}
	patchAbilitato := []map[string]any{{"op": "REPLACE", "path": "/abilitato", "value": true}}
	// Events of the log by position: a pendenza of unit UO1 of d1 and one
	// of d1 without a unit, read by an operator whose role holds UO1 alone.
	w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/UO1", map[string]any{"ragioneSociale": "Ufficio UO1", "abilitato": true})
	w.grantUO1(t, "appRU", "RAGIONERIA", "opGiornaleUO1", aclOf("Giornale degli Eventi", "R"))
	eventOf := func(id, unit string) string {
		b := pendenzaBodyFor(d1, t1, citizen1)
		if unit != "" {
			b["idUnitaOperativa"] = unit
		}
		pos, err := ParseToken(w.store.Backend(), w.must(t, "PUT", pe+"/pendenze/appA/"+id, b, as("appA")).Header.Get(ConsistencyHeader))
		if err != nil {
			t.Fatal(err)
		}
		return bo + "/eventi/" + strconv.FormatUint(uint64(pos), 10)
	}
	inUnit, noUnit := eventOf("evUO1", "UO1"), eventOf("evNoUnit", "")
	// A registry event (a pendenza type's) has no place: only a role on
	// every entity and type reads it.
	regPos, err := ParseToken(w.store.Backend(), w.must(t, "PUT", bo+"/tipiPendenza/REGISTRO", map[string]any{"descrizione": "Registro", "abilitato": true, "pagamentoSpontaneo": false}).Header.Get(ConsistencyHeader))
	if err != nil {
		t.Fatal(err)
	}
	registryEvent := bo + "/eventi/" + strconv.FormatUint(uint64(regPos), 10)
	iuv := domain.IUVOfNotice(pa1.NumeroAvviso)
	// An application whose PENDENZE grant holds unit UO1 of d1 alone
	// updates its pendenza of UO1 only while it stays there.
	w.grantUO1(t, "appPU", "PENDENZE", "opPU", aclOf("Pendenze", "R"))
	inUO1 := pendenzaBodyFor(d1, t1, citizen1)
	inUO1["idUnitaOperativa"] = "UO1"
	w.must(t, "PUT", pe+"/pendenze/appPU/pu1", inUO1, as("appPU"))
	// Pendenze created by their payer on the Pagamento API: an application
	// granted d1 × DONAZIONE, one granted unit UO1 of d1.
	w.putApp(t, "appT", "appT", pw, true, apiGrant("PAGAMENTO", []string{d1}, []string{tSpont}))
	w.grantUO1(t, "appPGU", "PAGAMENTO", "opPGU", aclOf("Pendenze", "R"))
	byPayer := func(unit string) map[string]any {
		b := map[string]any{"causale": "Dono", "importo": 5, "soggettoPagatore": map[string]any{"tipo": "F", "identificativo": citizen1, "anagrafica": "M R"}}
		if unit != "" {
			b["idUnitaOperativa"] = unit
		}
		return b
	}
	createAt := func(tipo, unit string) audit.Resource {
		return audit.Resource{IDDominio: d1, IDTipoPendenza: tipo, IDUnitaOperativa: unit}
	}
	zeroAmount := func(d string) map[string]any {
		b := pendenzaBodyFor(d, t1, citizen1)
		b["importo"] = 0
		return b
	}
	updatePU := func(unit string) audit.Resource {
		return audit.Resource{IDA2A: "appPU", IDPendenza: "pu1", IDDominio: d1, IDUnitaOperativa: unit, IDTipoPendenza: t1}
	}
	// A settlement report of d1 from its intermediary's node, an incasso
	// of d1, and the receipt of paid, read as a receipt and as a
	// collection (item 1).
	const flow, flowDate = "F-D1", "2026-01-03"
	w.must(t, "POST", nd+"/intermediari/INTP/flussiRendicontazione", flusso(flow, d1, 123.45, line(paid.NumeroAvviso, 123.45, 0)),
		asBasic("node-p", "node-p-secret"))
	var inc struct {
		IDIncasso string `json:"idIncasso"`
	}
	w.must(t, "POST", bo+"/incassi/"+d1, incasso, asAdmin()).decode(t, &inc)
	paidIUV := domain.IUVOfNotice(paid.NumeroAvviso)
	receiptOf := func(d, iur string) audit.Resource { return audit.Resource{IDDominio: d, IUV: paidIUV, IDRicevuta: iur} }
	flowAt := func(d string) audit.Resource {
		return audit.Resource{IDDominio: d, IDFlusso: flow, DataOraFlusso: flowDate}
	}
	notice := func(d, avviso string) audit.Resource { return audit.Resource{IDDominio: d, NumeroAvviso: avviso} }
	rows := []agreeRow{
		// PENDENZE
		{"pe_creates_in_scope", "PUT", pe + "/pendenze/appA/new1", pendenzaBodyFor(d1, t1, citizen1), opts(as("appA")), pq("appA", B, pen, "create", in("appA", d1))},
		{"pe_other_ida2a", "PUT", pe + "/pendenze/appB/new2", pendenzaBodyFor(d1, t1, citizen1), opts(as("appA")), pq("appA", B, pen, "create", in("appB", d1))},
		{"pe_out_of_scope_entity", "PUT", pe + "/pendenze/appA/new3", pendenzaBodyFor(d2, t1, citizen1), opts(as("appA")), pq("appA", B, pen, "create", in("appA", d2))},
		{"pe_out_of_scope_entity_zero_amount_403", "PUT", pe + "/pendenze/appA/new5", zeroAmount(d2), opts(as("appA")), pq("appA", B, pen, "create", in("appA", d2))},
		{"pe_create_unknown_type_422", "PUT", pe + "/pendenze/appA/new4", pendenzaBodyFor(d1, "NOPE", citizen1), opts(as("appA")), pq("appA", B, pen, "create", audit.Resource{IDA2A: "appA", IDDominio: d1, IDTipoPendenza: "NOPE"})},
		{"pe_updates_own", "PUT", pe + "/pendenze/appA/own", pendenzaBodyFor(d1, t1, citizen1), opts(as("appA")), pq("appA", B, pen, "update", audit.Resource{IDA2A: "appA", IDPendenza: "own", IDDominio: d1, IDTipoPendenza: t1})},
		{"pe_updates_moving_out_of_scope", "PUT", pe + "/pendenze/appA/own", pendenzaBodyFor(d2, t1, citizen1), opts(as("appA")), pq("appA", B, pen, "update", audit.Resource{IDA2A: "appA", IDPendenza: "own", IDDominio: d2, IDTipoPendenza: t1})},
		{"pe_updates_in_its_unit", "PUT", pe + "/pendenze/appPU/pu1", inUO1, opts(as("appPU")), pq("appPU", B, pen, "update", updatePU("UO1"))},
		{"pe_updates_moving_out_of_its_unit", "PUT", pe + "/pendenze/appPU/pu1", pendenzaBodyFor(d1, t1, citizen1), opts(as("appPU")), pq("appPU", B, pen, "update", updatePU(""))},
		{"pe_reads_own", "GET", pe + "/pendenze/appA/own", nil, opts(as("appA")), pq("appA", B, pen, "read", pend("appA", "own"))},
		{"pe_other_creator", "GET", pe + "/pendenze/appB/other", nil, opts(as("appA")), pq("appA", B, pen, "read", pend("appB", "other"))},
		{"pe_own_missing_404", "GET", pe + "/pendenze/appA/missing", nil, opts(as("appA")), pq("appA", B, pen, "read", pend("appA", "missing"))},
		{"pe_lists_own", "GET", pe + "/pendenze", nil, opts(as("appA")), pq("appA", B, pen, "list", res)},
		{"pe_not_authorized", "GET", pe + "/pendenze", nil, opts(as("appNone")), pq("appNone", B, pen, "list", res)},
		{"pe_authorized_elsewhere", "GET", pe + "/pendenze", nil, opts(as("appC")), pq("appC", B, pen, "list", res)},
		{"pe_disabled", "GET", pe + "/pendenze", nil, opts(as("appDisabled")), pq("appDisabled", B, pen, "list", res)},
		{"pe_operator", "GET", pe + "/pendenze", nil, opts(asAdmin()), pq(adminUser, B, pen, "list", res)},
		{"pe_unknown_principal", "GET", pe + "/pendenze", nil, opts(asBasic("ghost", pw)), pq("ghost", B, pen, "list", res)},
		{"pe_public_not_accepted", "GET", "/pendenze/rs/public/v2/pendenze", nil, nil, pq("", P, pen, "list", res)},
		{"pe_spid_citizen_not_here", "GET", "/pendenze/rs/spid/v2/pendenze", nil, opts(asSPID(citizen1)), pq(citizen1, S, pen, "list", res)},
		{"pe_ssl_app", "GET", "/pendenze/rs/ssl/v2/pendenze", nil, opts(asCert(sslCert)), pq("CN=app-ssl, O=Ente, C=IT", domain.AuthSSL, pen, "list", res)},
		// PAGAMENTO
		{"pg_app_reads_in_scope", "GET", pg + "/pendenze/appA/pa1", nil, opts(as("appA")), pq("appA", B, pag, "read-pendenza", pend("appA", "pa1"))},
		{"pg_app_out_of_scope", "GET", pg + "/pendenze/appB/pb1", nil, opts(as("appA")), pq("appA", B, pag, "read-pendenza", pend("appB", "pb1"))},
		{"pg_app_missing_not_learnt_403", "GET", pg + "/pendenze/appA/missing", nil, opts(as("appA")), pq("appA", B, pag, "read-pendenza", pend("appA", "missing"))},
		{"pg_citizen_payer", "GET", pgSpid + "/pendenze/appA/pa1", nil, opts(asSPID(citizen1)), pq(citizen1, S, pag, "read-pendenza", pend("appA", "pa1"))},
		{"pg_citizen_not_payer", "GET", pgSpid + "/pendenze/appA/pa1", nil, opts(asSPID(citizen2)), pq(citizen2, S, pag, "read-pendenza", pend("appA", "pa1"))},
		{"pg_citizen_missing", "GET", pgSpid + "/pendenze/appA/missing", nil, opts(asSPID(citizen2)), pq(citizen2, S, pag, "read-pendenza", pend("appA", "missing"))},
		{"pg_citizen_spid_prefix_lower_case", "GET", pgSpid + "/pendenze/appA/pa1", nil, opts(asSPID("tinit-" + strings.ToLower(citizen1))), pq("tinit-"+strings.ToLower(citizen1), S, pag, "read-pendenza", pend("appA", "pa1"))},
		{"pg_spid_anonymous_payer_is_no_citizen", "GET", pgSpid + "/pendenze/appA/pa1", nil, opts(asSPID(domain.AnonymousIdentificativo)), pq(domain.AnonymousIdentificativo, S, pag, "read-pendenza", pend("appA", "pa1"))},
		{"pg_spid_not_a_fiscal_code", "GET", pgSpid + "/pendenze", nil, opts(asSPID("X")), pq("X", S, pag, "list-pendenze", res)},
		{"pg_anonymous_lists", "GET", pgPub + "/pendenze", nil, nil, pq("", P, pag, "list-pendenze", res)},
		{"pg_app_lists", "GET", pg + "/pendenze", nil, opts(as("appB")), pq("appB", B, pag, "list-pendenze", res)},
		{"pg_app_without_grant", "GET", pg + "/pendenze", nil, opts(as("appC")), pq("appC", B, pag, "list-pendenze", res)},
		{"pg_app_pays_in_scope", "POST", pg + "/pagamenti", payRef("appA", "pa1"), opts(as("appA")), pq("appA", B, pag, "pay", pend("appA", "pa1"))},
		{"pg_app_creates_pendenza_in_scope", "POST", pg + "/pendenze/" + d1 + "/" + tSpont, byPayer(""), opts(as("appT")), pq("appT", B, pag, "create-pendenza", createAt(tSpont, ""))},
		{"pg_app_creates_pendenza_unknown_type_out_of_scope_403", "POST", pg + "/pendenze/" + d1 + "/NOPE", byPayer(""), opts(as("appT")), pq("appT", B, pag, "create-pendenza", createAt("NOPE", ""))},
		{"pg_app_creates_pendenza_disabled_type_out_of_scope_403", "POST", pg + "/pendenze/" + d1 + "/SPENTO", byPayer(""), opts(as("appT")), pq("appT", B, pag, "create-pendenza", createAt("SPENTO", ""))},
		{"pg_app_creates_pendenza_unknown_type_in_scope_422", "POST", pg + "/pendenze/" + d1 + "/NOPE", byPayer(""), opts(as("appA")), pq("appA", B, pag, "create-pendenza", createAt("NOPE", ""))},
		{"pg_app_creates_pendenza_in_its_unit", "POST", pg + "/pendenze/" + d1 + "/" + tSpont, byPayer("UO1"), opts(as("appPGU")), pq("appPGU", B, pag, "create-pendenza", createAt(tSpont, "UO1"))},
		{"pg_app_creates_pendenza_unknown_unit_out_of_scope_403", "POST", pg + "/pendenze/" + d1 + "/" + tSpont, byPayer("NOPE"), opts(as("appPGU")), pq("appPGU", B, pag, "create-pendenza", createAt(tSpont, "NOPE"))},
		{"pg_app_pays_out_of_scope", "POST", pg + "/pagamenti", payRef("appB", "pb1"), opts(as("appA")), pq("appA", B, pag, "pay", pend("appB", "pb1"))},
		{"pg_anonymous_pays_by_id", "POST", pgPub + "/pagamenti", payRef("appA", "pa1"), nil, pq("", P, pag, "pay", pend("appA", "pa1"))},
		{"pg_citizen_pays_own", "POST", pgSpid + "/pagamenti", payRef("appA", "pa1"), opts(asSPID(citizen1)), pq(citizen1, S, pag, "pay", pend("appA", "pa1"))},
		{"pg_citizen_pays_other", "POST", pgSpid + "/pagamenti", payRef("appB", "pb1"), opts(asSPID(citizen1)), pq(citizen1, S, pag, "pay", pend("appB", "pb1"))},
		{"pg_notice_in_scope", "GET", pg + "/avvisi/" + d1 + "/" + pa1.NumeroAvviso, nil, opts(as("appA")), pq("appA", B, pag, "read-notice", audit.Resource{IDDominio: d1, NumeroAvviso: pa1.NumeroAvviso})},
		{"pg_notice_out_of_scope", "GET", pg + "/avvisi/" + d1 + "/" + pa1.NumeroAvviso, nil, opts(as("appB")), pq("appB", B, pag, "read-notice", audit.Resource{IDDominio: d1, NumeroAvviso: pa1.NumeroAvviso})},
		{"pg_app_reads_own_payment", "GET", pg + "/pagamenti/" + payID, nil, opts(as("appA")), pq("appA", B, pag, "read-payment", audit.Resource{IDPagamento: payID})},
		{"pg_app_reads_other_payment", "GET", pg + "/pagamenti/" + payID, nil, opts(as("appB")), pq("appB", B, pag, "read-payment", audit.Resource{IDPagamento: payID})},
		{"pg_app_lists_payments", "GET", pg + "/pagamenti", nil, opts(as("appA")), pq("appA", B, pag, "list-payments", res)},
		{"pg_citizen_lists_payments", "GET", pgSpid + "/pagamenti", nil, opts(asSPID(citizen1)), pq(citizen1, S, pag, "list-payments", res)},
		{"pg_anonymous_lists_payments", "GET", pgPub + "/pagamenti", nil, nil, pq("", P, pag, "list-payments", res)},
		{"pg_app_without_grant_lists_payments", "GET", pg + "/pagamenti", nil, opts(as("appC")), pq("appC", B, pag, "list-payments", res)},
		{"pg_spontaneous_allowed", "POST", pgPub + "/pagamenti", spont(tSpont), nil, pq("", P, pag, "pay", spontIn(tSpont))},
		{"pg_spontaneous_unknown_type_422", "POST", pgPub + "/pagamenti", spont("NOPE"), nil, pq("", P, pag, "pay", spontIn("NOPE"))},
		{"pg_spontaneous_disabled_type_422", "POST", pgPub + "/pagamenti", spont("SPENTO"), nil, pq("", P, pag, "pay", spontIn("SPENTO"))},
		{"pg_spontaneous_not_spontaneous_type", "POST", pgPub + "/pagamenti", spont(t1), nil, pq("", P, pag, "pay", spontIn(t1))},
		{"pg_app_spontaneous_unknown_type_in_scope_422", "POST", pg + "/pagamenti", spont("NOPE"), opts(as("appA")), pq("appA", B, pag, "pay", spontIn("NOPE"))},
		{"pg_app_spontaneous_unknown_type_out_of_scope_403", "POST", pg + "/pagamenti", spont("NOPE"), opts(as("appB")), pq("appB", B, pag, "pay", spontIn("NOPE"))},
		{"pg_citizen_profile", "GET", pgSpid + "/profilo", nil, opts(asSPID(citizen2)), pq(citizen2, S, pag, "profilo", res)},
		// RAGIONERIA
		{"rg_creates_in_scope", "PUT", rg + "/riconciliazioni/" + d1 + "/r1", ric, opts(as("appC")), pq("appC", B, rag, "write-reconciliation", audit.Resource{IDDominio: d1, IDRiconciliazione: "r1"})},
		{"rg_out_of_scope", "PUT", rg + "/riconciliazioni/" + d2 + "/r2", ric, opts(as("appC")), pq("appC", B, rag, "write-reconciliation", audit.Resource{IDDominio: d2, IDRiconciliazione: "r2"})},
		{"rg_other_creator", "PUT", rg + "/riconciliazioni/" + d1 + "/r1", ric, opts(as("appA")), pq("appA", B, rag, "write-reconciliation", audit.Resource{IDDominio: d1, IDRiconciliazione: "r1"})},
		{"rg_creates_in_scope_repeat", "PUT", rg + "/riconciliazioni/" + d1 + "/r1", ric, opts(as("appC")), pq("appC", B, rag, "write-reconciliation", audit.Resource{IDDominio: d1, IDRiconciliazione: "r1"})},
		{"rg_write_without_grant", "PUT", rg + "/riconciliazioni/" + d1 + "/r3", ric, opts(as("appNone")), pq("appNone", B, rag, "write-reconciliation", audit.Resource{IDDominio: d1, IDRiconciliazione: "r3"})},
		{"rg_reads_own", "GET", rg + "/riconciliazioni/" + d1 + "/r1", nil, opts(as("appC")), pq("appC", B, rag, "read-reconciliation", audit.Resource{IDDominio: d1, IDRiconciliazione: "r1"})},
		{"rg_reads_other", "GET", rg + "/riconciliazioni/" + d1 + "/r1", nil, opts(as("appA")), pq("appA", B, rag, "read-reconciliation", audit.Resource{IDDominio: d1, IDRiconciliazione: "r1"})},
		{"rg_missing_404", "GET", rg + "/riconciliazioni/" + d1 + "/nope", nil, opts(as("appC")), pq("appC", B, rag, "read-reconciliation", audit.Resource{IDDominio: d1, IDRiconciliazione: "nope"})},
		{"rg_flussi_list_of_an_entity", "GET", rg + "/flussiRendicontazione?idDominio=" + d1, nil, opts(as("appC")), pq("appC", B, rag, "list", res)},
		{"rg_riscossioni_list_of_a_unit_scope", "GET", rg + "/riscossioni?idDominio=" + d1, nil, opts(as("appRU")), pq("appRU", B, rag, "list", res)},
		{"rg_reads_reconciliation_without_grant", "GET", rg + "/riconciliazioni/" + d1 + "/r1", nil, opts(as("appNone")), pq("appNone", B, rag, "read-reconciliation", audit.Resource{IDDominio: d1, IDRiconciliazione: "r1"})},
		{"rg_payment_missing_404", "GET", rg + "/pagamenti/" + strings.Repeat("0", 32), nil, opts(as("appC")), pq("appC", B, rag, "read-payment", audit.Resource{IDPagamento: strings.Repeat("0", 32)})},
		{"rg_flussi_out_of_scope", "GET", rg + "/flussiRendicontazione/" + d2 + "/F1", nil, opts(as("appA")), pq("appA", B, rag, "read-dominio", audit.Resource{IDDominio: d2, IDFlusso: "F1"})},
		{"rg_flusso_missing_404", "GET", rg + "/flussiRendicontazione/" + d1 + "/F-NOPE", nil, opts(as("appC")), pq("appC", B, rag, "read-dominio", audit.Resource{IDDominio: d1, IDFlusso: "F-NOPE"})},
		{"rg_lists", "GET", rg + "/riscossioni", nil, opts(as("appB")), pq("appB", B, rag, "list", res)},
		{"rg_not_authorized", "GET", rg + "/riscossioni", nil, opts(as("appNone")), pq("appNone", B, rag, "list", res)},
		{"rg_reads_payment_in_scope", "GET", rg + "/pagamenti/" + payID, nil, opts(as("appC")), pq("appC", B, rag, "read-payment", audit.Resource{IDPagamento: payID})},
		{"rg_reads_payment_out_of_scope", "GET", rg + "/pagamenti/" + payID, nil, opts(as("appB")), pq("appB", B, rag, "read-payment", audit.Resource{IDPagamento: payID})},
		// BACKOFFICE
		{"bo_reads_entity_in_scope", "GET", bo + "/domini/" + d1, nil, opts(as("opD1")), pq("opD1", B, bof, "read-dominio", audit.Resource{IDDominio: d1})},
		{"bo_reads_entity_out_of_scope", "GET", bo + "/domini/" + d2, nil, opts(as("opD1")), pq("opD1", B, bof, "read-dominio", audit.Resource{IDDominio: d2})},
		{"bo_reads_missing_entity_404", "GET", bo + "/domini/99999999999", nil, opts(asAdmin()), pq(adminUser, B, bof, "read-dominio", audit.Resource{IDDominio: "99999999999"})},
		{"bo_scoped_missing_entity_403", "GET", bo + "/domini/99999999999", nil, opts(as("opD1")), pq("opD1", B, bof, "read-dominio", audit.Resource{IDDominio: "99999999999"})},
		{"bo_reads_unit", "GET", bo + "/domini/" + d1 + "/unitaOperative/UO1", nil, opts(as("opD1")), pq("opD1", B, bof, "read-unita-operativa", audit.Resource{IDDominio: d1, IDUnitaOperativa: "UO1"})},
		{"bo_reads_missing_unit_404", "GET", bo + "/domini/" + d1 + "/unitaOperative/NOPE", nil, opts(asAdmin()), pq(adminUser, B, bof, "read-unita-operativa", audit.Resource{IDDominio: d1, IDUnitaOperativa: "NOPE"})},
		{"bo_reads_type", "GET", bo + "/tipiPendenza/" + t1, nil, opts(as("opD1")), pq("opD1", B, bof, "read-tipo-pendenza", audit.Resource{IDTipoPendenza: t1})},
		{"bo_reads_missing_type_404", "GET", bo + "/tipiPendenza/NOPE", nil, opts(asAdmin()), pq(adminUser, B, bof, "read-tipo-pendenza", audit.Resource{IDTipoPendenza: "NOPE"})},
		{"bo_read_only_reads_type_without_the_right", "GET", bo + "/tipiPendenza/" + t1, nil, opts(as("opPU")), pq("opPU", B, bof, "read-tipo-pendenza", audit.Resource{IDTipoPendenza: t1})},
		{"bo_admin_reads_entity", "GET", bo + "/domini/" + d1, nil, opts(asAdmin()), pq(adminUser, B, bof, "servizio", svc("Anagrafica Creditore", "R", audit.Resource{IDDominio: d1}))},
		{"bo_scoped_other_entity", "GET", bo + "/domini/" + d2, nil, opts(as("opD1")), pq("opD1", B, bof, "servizio", svc("Anagrafica Creditore", "R", audit.Resource{IDDominio: d2}))},
		{"bo_read_only_denied_write", "PUT", bo + "/domini/" + d2, map[string]any{"ragioneSociale": "Ente", "abilitato": true}, opts(as("opRO")), pq("opRO", B, bof, "write-dominio", audit.Resource{IDDominio: d2})},
		{"bo_scoped_writes_own_entity", "PUT", bo + "/domini/" + d1, map[string]any{"ragioneSociale": "Ente", "abilitato": true}, opts(as("opD1")), pq("opD1", B, bof, "write-dominio", audit.Resource{IDDominio: d1})},
		{"bo_disabled_operator", "GET", bo + "/domini/" + d1, nil, opts(as("opDisabled")), pq("opDisabled", B, bof, "servizio", svc("Anagrafica Creditore", "R", audit.Resource{IDDominio: d1}))},
		{"bo_operator_without_roles", "GET", bo + "/domini/" + d1, nil, opts(as("opNoRole")), pq("opNoRole", B, bof, "servizio", svc("Anagrafica Creditore", "R", audit.Resource{IDDominio: d1}))},
		{"bo_application_without_roles", "GET", bo + "/domini/" + d1, nil, opts(as("appA")), pq("appA", B, bof, "servizio", svc("Anagrafica Creditore", "R", audit.Resource{IDDominio: d1}))},
		{"bo_pendenza_in_scope", "GET", bo + "/pendenze/appA/pa1", nil, opts(as("opD1")), pq("opD1", B, bof, "servizio", svc("Pendenze", "R", pend("appA", "pa1")))},
		{"bo_pendenza_out_of_scope", "GET", bo + "/pendenze/appB/pb1", nil, opts(as("opD1")), pq("opD1", B, bof, "servizio", svc("Pendenze", "R", pend("appB", "pb1")))},
		{"bo_pendenza_missing", "GET", bo + "/pendenze/appA/missing", nil, opts(asAdmin()), pq(adminUser, B, bof, "servizio", svc("Pendenze", "R", pend("appA", "missing")))},
		{"bo_payment_spanning_entities", "GET", bo + "/pagamenti/" + span.ID, nil, opts(as("opD1")), pq("opD1", B, bof, "servizio", svc("Pagamenti", "R", audit.Resource{IDPagamento: span.ID}))},
		{"bo_pendenza_in_scope_named_other_entity", "GET", bo + "/pendenze/appA/pa1", nil, opts(as("opD1")), pq("opD1", B, bof, "servizio", svc("Pendenze", "R", audit.Resource{IDA2A: "appA", IDPendenza: "pa1", IDDominio: d2}))},
		{"bo_payment_in_scope", "GET", bo + "/pagamenti/" + payID, nil, opts(as("opD1")), pq("opD1", B, bof, "servizio", svc("Pagamenti", "R", audit.Resource{IDPagamento: payID}))},
		{"bo_roles_read", "GET", bo + "/ruoli/opD1", nil, opts(as("opD1")), pq("opD1", B, bof, "servizio", svc("Anagrafica Ruoli", "R", res))},
		// the registry entries a query names: the right, then the lookup
		{"bo_reads_role", "GET", bo + "/ruoli/opD1", nil, opts(as("opRO")), pq("opRO", B, bof, "read-ruolo", audit.Resource{IDRuolo: "opD1"})},
		{"bo_reads_role_without_roles", "GET", bo + "/ruoli/opD1", nil, opts(as("opNoRole")), pq("opNoRole", B, bof, "read-ruolo", audit.Resource{IDRuolo: "opD1"})},
		{"bo_reads_missing_role_404", "GET", bo + "/ruoli/NOPE", nil, opts(asAdmin()), pq(adminUser, B, bof, "read-ruolo", audit.Resource{IDRuolo: "NOPE"})},
		{"bo_reads_missing_role_without_right_403", "GET", bo + "/ruoli/NOPE", nil, opts(as("opPU")), pq("opPU", B, bof, "read-ruolo", audit.Resource{IDRuolo: "NOPE"})},
		{"bo_reads_operator", "GET", bo + "/operatori/opD1", nil, opts(as("opRO")), pq("opRO", B, bof, "read-operatore", audit.Resource{PrincipalOperatore: "opD1"})},
		{"bo_reads_missing_operator_404", "GET", bo + "/operatori/ghost", nil, opts(asAdmin()), pq(adminUser, B, bof, "read-operatore", audit.Resource{PrincipalOperatore: "ghost"})},
		{"bo_reads_application", "GET", bo + "/applicazioni/appA", nil, opts(as("opRO")), pq("opRO", B, bof, "read-applicazione", audit.Resource{IDA2A: "appA"})},
		{"bo_reads_application_without_roles", "GET", bo + "/applicazioni/appA", nil, opts(as("appA")), pq("appA", B, bof, "read-applicazione", audit.Resource{IDA2A: "appA"})},
		{"bo_reads_missing_application_404", "GET", bo + "/applicazioni/NOPE", nil, opts(asAdmin()), pq(adminUser, B, bof, "read-applicazione", audit.Resource{IDA2A: "NOPE"})},
		{"bo_reads_missing_intermediary_404", "GET", bo + "/intermediari/NOPE", nil, opts(asAdmin()), pq(adminUser, B, bof, "read-intermediario", audit.Resource{IDIntermediario: "NOPE"})},
		{"bo_reads_intermediary_without_roles", "GET", bo + "/intermediari/NOPE", nil, opts(as("opNoRole")), pq("opNoRole", B, bof, "read-intermediario", audit.Resource{IDIntermediario: "NOPE"})},
		{"bo_reset_cache_needs_w", "GET", bo + "/operazioni/resetCacheAnagrafica", nil, opts(as("opRO")), pq("opRO", B, bof, "servizio", svc("Configurazione e manutenzione", "W", res))},
		{"bo_events", "GET", bo + "/eventi", nil, opts(as("opRO")), pq("opRO", B, bof, "servizio", svc("Giornale degli Eventi", "R", res))},
		// every Backoffice write: allowed with the right, denied without it
		{"bo_write_tipo", "PUT", bo + "/tipiPendenza/NUOVO", map[string]any{"descrizione": "Nuovo", "abilitato": true, "pagamentoSpontaneo": false}, opts(asAdmin()), pq(adminUser, B, bof, "servizio", svc("Anagrafica Creditore", "W", res))},
		{"bo_write_tipo_read_only", "PUT", bo + "/tipiPendenza/NUOVO", map[string]any{"descrizione": "Nuovo", "abilitato": true, "pagamentoSpontaneo": false}, opts(as("opRO")), pq("opRO", B, bof, "servizio", svc("Anagrafica Creditore", "W", res))},
		{"bo_write_intermediario", "PUT", bo + "/intermediari/INTX", map[string]any{"denominazione": "X", "abilitato": true, "connettoreNodo": conn}, opts(asAdmin()), pq(adminUser, B, bof, "servizio", svc("Anagrafica PagoPA", "W", res))},
		{"bo_write_intermediario_read_only", "PUT", bo + "/intermediari/INTX", map[string]any{"denominazione": "X", "abilitato": true, "connettoreNodo": conn}, opts(as("opRO")), pq("opRO", B, bof, "servizio", svc("Anagrafica PagoPA", "W", res))},
		{"bo_write_ruolo", "PUT", bo + "/ruoli/nuovo", map[string]any{"acl": []map[string]any{{"servizio": "Pendenze", "autorizzazioni": []string{"R"}}}, "domini": []string{"*"}, "tipiPendenza": []string{"*"}}, opts(asAdmin()), pq(adminUser, B, bof, "servizio", svc("Anagrafica Ruoli", "W", res))},
		{"bo_write_ruolo_read_only", "PUT", bo + "/ruoli/nuovo", map[string]any{"acl": []map[string]any{{"servizio": "Pendenze", "autorizzazioni": []string{"R"}}}, "domini": []string{"*"}, "tipiPendenza": []string{"*"}}, opts(as("opRO")), pq("opRO", B, bof, "servizio", svc("Anagrafica Ruoli", "W", res))},
		{"bo_write_operatore", "PUT", bo + "/operatori/opNew", map[string]any{"ragioneSociale": "Nuovo", "password": pw, "abilitato": true, "ruoli": []string{}}, opts(asAdmin()), pq(adminUser, B, bof, "servizio", svc("Anagrafica Ruoli", "W", res))},
		{"bo_write_operatore_read_only", "PUT", bo + "/operatori/opNew", map[string]any{"ragioneSociale": "Nuovo", "password": pw, "abilitato": true, "ruoli": []string{}}, opts(as("opRO")), pq("opRO", B, bof, "servizio", svc("Anagrafica Ruoli", "W", res))},
		{"bo_write_applicazione", "PUT", bo + "/applicazioni/appNew", map[string]any{"principal": "appNew", "password": pw, "abilitato": true, "ruoli": []string{}}, opts(asAdmin()), pq(adminUser, B, bof, "servizio", svc("Anagrafica Applicazioni", "W", res))},
		{"bo_write_applicazione_read_only", "PUT", bo + "/applicazioni/appNew", map[string]any{"principal": "appNew", "password": pw, "abilitato": true, "ruoli": []string{}}, opts(as("opRO")), pq("opRO", B, bof, "servizio", svc("Anagrafica Applicazioni", "W", res))},
		{"bo_write_hardening", "PUT", bo + "/configurazioni/hardening", map[string]any{"abilitato": false}, opts(asAdmin()), pq(adminUser, B, bof, "servizio", svc("Configurazione e manutenzione", "W", res))},
		{"bo_write_hardening_read_only", "PUT", bo + "/configurazioni/hardening", map[string]any{"abilitato": false}, opts(as("opRO")), pq("opRO", B, bof, "servizio", svc("Configurazione e manutenzione", "W", res))},
		{"bo_reads_intermediary", "GET", bo + "/intermediari/INTX", nil, opts(as("opRO")), pq("opRO", B, bof, "read-intermediario", audit.Resource{IDIntermediario: "INTX"})},
		{"bo_patch_role", "PATCH", bo + "/ruoli/nuovo", patchDomini, opts(asAdmin()), pq(adminUser, B, bof, "patch-ruolo", audit.Resource{IDRuolo: "nuovo"})},
		{"bo_patch_role_read_only", "PATCH", bo + "/ruoli/nuovo", patchDomini, opts(as("opRO")), pq("opRO", B, bof, "patch-ruolo", audit.Resource{IDRuolo: "nuovo"})},
		{"bo_patch_missing_role_404", "PATCH", bo + "/ruoli/NOPE", patchDomini, opts(asAdmin()), pq(adminUser, B, bof, "patch-ruolo", audit.Resource{IDRuolo: "NOPE"})},
		{"bo_patch_operator", "PATCH", bo + "/operatori/opNew", patchAbilitato, opts(asAdmin()), pq(adminUser, B, bof, "patch-operatore", audit.Resource{PrincipalOperatore: "opNew"})},
		{"bo_patch_missing_operator_404", "PATCH", bo + "/operatori/ghost", patchAbilitato, opts(asAdmin()), pq(adminUser, B, bof, "patch-operatore", audit.Resource{PrincipalOperatore: "ghost"})},
		{"bo_patch_operator_read_only", "PATCH", bo + "/operatori/ghost", patchAbilitato, opts(as("opRO")), pq("opRO", B, bof, "patch-operatore", audit.Resource{PrincipalOperatore: "ghost"})},
		{"bo_patch_application", "PATCH", bo + "/applicazioni/appNew", patchAbilitato, opts(asAdmin()), pq(adminUser, B, bof, "patch-applicazione", audit.Resource{IDA2A: "appNew"})},
		{"bo_patch_missing_application_404", "PATCH", bo + "/applicazioni/NOPE", patchAbilitato, opts(asAdmin()), pq(adminUser, B, bof, "patch-applicazione", audit.Resource{IDA2A: "NOPE"})},
		{"bo_patch_application_read_only", "PATCH", bo + "/applicazioni/appNew", patchAbilitato, opts(as("opRO")), pq("opRO", B, bof, "patch-applicazione", audit.Resource{IDA2A: "appNew"})},
		{"bo_write_unit_in_scope", "PUT", bo + "/domini/" + d1 + "/unitaOperative/UO2", unit, opts(as("opD1")), pq("opD1", B, bof, "write-unita-operativa", audit.Resource{IDDominio: d1, IDUnitaOperativa: "UO2"})},
		{"bo_write_unit_other_entity", "PUT", bo + "/domini/" + d2 + "/unitaOperative/UO2", unit, opts(as("opD1")), pq("opD1", B, bof, "write-unita-operativa", audit.Resource{IDDominio: d2, IDUnitaOperativa: "UO2"})},
		{"bo_write_unit_read_only", "PUT", bo + "/domini/" + d1 + "/unitaOperative/UO2", unit, opts(as("opRO")), pq("opRO", B, bof, "write-unita-operativa", audit.Resource{IDDominio: d1, IDUnitaOperativa: "UO2"})},
		{"bo_write_unit_of_missing_entity_422", "PUT", bo + "/domini/99999999999/unitaOperative/UO2", unit, opts(asAdmin()), pq(adminUser, B, bof, "write-unita-operativa", audit.Resource{IDDominio: "99999999999", IDUnitaOperativa: "UO2"})},
		{"bo_write_dominio_unknown_intermediary_422", "PUT", bo + "/domini/" + d1, map[string]any{"ragioneSociale": "Ente", "abilitato": true, "idIntermediario": "NOPE"}, opts(asAdmin()), pq(adminUser, B, bof, "write-dominio", audit.Resource{IDDominio: d1, IDIntermediario: "NOPE"})},
		{"bo_write_dominio_other_entity_unknown_intermediary_403", "PUT", bo + "/domini/" + d2, map[string]any{"ragioneSociale": "Ente", "abilitato": true, "idIntermediario": "NOPE"}, opts(as("opD1")), pq("opD1", B, bof, "write-dominio", audit.Resource{IDDominio: d2, IDIntermediario: "NOPE"})},
		{"bo_write_dominio_registered_intermediary", "PUT", bo + "/domini/" + d1, map[string]any{"ragioneSociale": "Ente " + d1, "abilitato": true, "idIntermediario": "INTP"}, opts(as("opD1")), pq("opD1", B, bof, "write-dominio", audit.Resource{IDDominio: d1, IDIntermediario: "INTP"})},
		{"bo_write_dominio_other_entity", "PUT", bo + "/domini/" + d2, map[string]any{"ragioneSociale": "Ente", "abilitato": true}, opts(as("opD1")), pq("opD1", B, bof, "write-dominio", audit.Resource{IDDominio: d2})},
		{"bo_evento_of_its_unit", "GET", inUnit, nil, opts(as("opGiornaleUO1")), pq("opGiornaleUO1", B, bof, "read-evento", audit.Resource{IDDominio: d1, IDUnitaOperativa: "UO1", IDTipoPendenza: t1})},
		{"bo_evento_of_its_entity_without_unit", "GET", noUnit, nil, opts(as("opGiornaleUO1")), pq("opGiornaleUO1", B, bof, "read-evento", audit.Resource{IDDominio: d1, IDTipoPendenza: t1})},
		{"bo_profile", "GET", bo + "/profilo", nil, opts(as("opRO")), pq("opRO", B, bof, "profilo", res)},
		{"bo_pendenza_missing_scoped_role", "GET", bo + "/pendenze/appA/missing", nil, opts(as("opD1")), pq("opD1", B, bof, "servizio", svc("Pendenze", "R", pend("appA", "missing")))},
		{"bo_registry_event_scoped_role", "GET", registryEvent, nil, opts(as("opGiornaleUO1")), pq("opGiornaleUO1", B, bof, "read-evento", res)},
		{"bo_registry_event_admin", "GET", registryEvent, nil, opts(asAdmin()), pq(adminUser, B, bof, "read-evento", res)},
		{"bo_ricevuta_other_entity", "GET", bo + "/ricevute/" + d2 + "/" + iuv + "/IUR-1", nil, opts(as("opD1")), pq("opD1", B, bof, "read-ricevuta", audit.Resource{IDDominio: d2, IUV: iuv, IDRicevuta: "IUR-1"})},
		{"bo_ricevuta_missing_own_entity", "GET", bo + "/ricevute/" + d1 + "/" + iuv + "/IUR-1", nil, opts(as("opD1")), pq("opD1", B, bof, "read-ricevuta", audit.Resource{IDDominio: d1, IUV: iuv, IDRicevuta: "IUR-1"})},
		{"bo_patch_pendenza_read_only", "PATCH", bo + "/pendenze/appA/toCancel", cancel, opts(as("opRO")), pq("opRO", B, bof, "patch-pendenza", pend("appA", "toCancel"))},
		{"bo_patch_pendenza_other_entity", "PATCH", bo + "/pendenze/appB/pb1", cancel, opts(as("opD1")), pq("opD1", B, bof, "patch-pendenza", pend("appB", "pb1"))},
		{"bo_patch_pendenza_in_scope", "PATCH", bo + "/pendenze/appA/toCancel", cancel, opts(as("opD1")), pq("opD1", B, bof, "patch-pendenza", pend("appA", "toCancel"))},
		{"pg_pays_cancelled_422", "POST", pg + "/pagamenti", payRef("appA", "toCancel"), opts(as("appA")), pq("appA", B, pag, "pay", pend("appA", "toCancel"))},
		{"pg_pays_paid_422", "POST", pg + "/pagamenti", payRef("appA", "paid"), opts(as("appA")), pq("appA", B, pag, "pay", pend("appA", "paid"))},
		{"pg_citizen_pays_paid_notice_422", "POST", pgSpid + "/pagamenti", map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "numeroAvviso": paid.NumeroAvviso}}},
			opts(asSPID(citizen1)), pq(citizen1, S, pag, "pay", audit.Resource{IDDominio: d1, NumeroAvviso: paid.NumeroAvviso})},
		{"pg_other_citizen_pays_paid_403", "POST", pgSpid + "/pagamenti", payRef("appA", "paid"), opts(asSPID(citizen2)), pq(citizen2, S, pag, "pay", pend("appA", "paid"))},
		{"bo_patch_paid_422", "PATCH", bo + "/pendenze/appA/paid", cancel, opts(as("opD1")), pq("opD1", B, bof, "patch-pendenza", pend("appA", "paid"))},
		{"bo_patch_paid_read_only_403", "PATCH", bo + "/pendenze/appA/paid", cancel, opts(as("opRO")), pq("opRO", B, bof, "patch-pendenza", pend("appA", "paid"))},
		{"pe_patch_paid_422", "PATCH", pe + "/pendenze/appA/paid", cancel, opts(as("appA")), pq("appA", B, pen, "patch", pend("appA", "paid"))},
		{"pe_update_paid_422", "PUT", pe + "/pendenze/appA/paid", pendenzaBodyFor(d1, t1, citizen1), opts(as("appA")), pq("appA", B, pen, "update", audit.Resource{IDA2A: "appA", IDPendenza: "paid", IDDominio: d1, IDTipoPendenza: t1})},
		{"pe_update_paid_by_another_403", "PUT", pe + "/pendenze/appB/paid", pendenzaBodyFor(d1, t1, citizen1), opts(as("appA")), pq("appA", B, pen, "update", audit.Resource{IDA2A: "appB", IDPendenza: "paid", IDDominio: d1, IDTipoPendenza: t1})},
		{"bo_write_application", "PUT", bo + "/applicazioni/appNew", appBody("appNew"), opts(asAdmin()), pq(adminUser, B, bof, "write-applicazione", audit.Resource{IDA2A: "appNew"})},
		{"bo_write_portal_application_422", "PUT", bo + "/applicazioni/" + domain.PortalIDA2A, appBody("portal-x"), opts(asAdmin()), pq(adminUser, B, bof, "write-applicazione", audit.Resource{IDA2A: domain.PortalIDA2A})},
		{"bo_write_portal_application_read_only_403", "PUT", bo + "/applicazioni/" + domain.PortalIDA2A, appBody("portal-x"), opts(as("opRO")), pq("opRO", B, bof, "write-applicazione", audit.Resource{IDA2A: domain.PortalIDA2A})},
		{"bo_write_incasso_in_scope", "POST", bo + "/incassi/" + d1, incasso, opts(as("opD1")), pq("opD1", B, bof, "write-incasso", audit.Resource{IDDominio: d1})},
		{"bo_write_incasso_other_entity_403", "POST", bo + "/incassi/" + d2, incasso, opts(as("opD1")), pq("opD1", B, bof, "write-incasso", audit.Resource{IDDominio: d2})},
		{"bo_write_incasso_read_only_403", "POST", bo + "/incassi/" + d1, incasso, opts(as("opRO")), pq("opRO", B, bof, "write-incasso", audit.Resource{IDDominio: d1})},
		{"bo_write_incasso_missing_entity_422", "POST", bo + "/incassi/99999999999", incasso, opts(asAdmin()), pq(adminUser, B, bof, "write-incasso", audit.Resource{IDDominio: "99999999999"})},
		{"bo_patch_profilo_application_403", "PATCH", bo + "/profilo", newPassword, opts(as("appA")), pq("appA", B, bof, "patch-profilo", res)},
		{"bo_profile_no_role", "GET", bo + "/profilo", nil, opts(as("opNoRole")), pq("opNoRole", B, bof, "profilo", res)},
		// every operation of the catalogue not asked above
		{"bo_servizi_acl", "GET", bo + "/enumerazioni/serviziACL", nil, opts(as("opRO")), pq("opRO", B, bof, "serviziACL", res)},
		{"bo_logout", "GET", bo + "/logout", nil, opts(as("opRO")), pq("opRO", B, bof, "logout", res)},
		{"bo_list_ricevute", "GET", bo + "/ricevute?idDominio=" + d1, nil, opts(as("opD1")), pq("opD1", B, bof, "list-ricevute", audit.Resource{IDDominio: d1})},
		{"bo_list_ricevute_without_the_right_403", "GET", bo + "/ricevute", nil, opts(as("opPU")), pq("opPU", B, bof, "list-ricevute", res)},
		{"bo_ricevuta_in_scope", "GET", bo + "/ricevute/" + d1 + "/" + paidIUV + "/IUR-PAID", nil, opts(as("opD1")), pq("opD1", B, bof, "read-ricevuta", receiptOf(d1, "IUR-PAID"))},
		{"bo_riscossione_in_scope", "GET", bo + "/riscossioni/" + d1 + "/" + paidIUV + "/IUR-PAID/1", nil, opts(as("opD1")), pq("opD1", B, bof, "read-riscossione", receiptOf(d1, "IUR-PAID"))},
		{"bo_riscossione_other_entity_403", "GET", bo + "/riscossioni/" + d2 + "/" + paidIUV + "/IUR-PAID/1", nil, opts(as("opD1")), pq("opD1", B, bof, "read-riscossione", receiptOf(d2, "IUR-PAID"))},
		{"bo_riscossione_missing_404", "GET", bo + "/riscossioni/" + d1 + "/" + paidIUV + "/IUR-NOPE/1", nil, opts(as("opD1")), pq("opD1", B, bof, "read-riscossione", receiptOf(d1, "IUR-NOPE"))},
		{"bo_flusso_in_scope", "GET", bo + "/flussiRendicontazione/" + d1 + "/" + flow + "/" + flowDate, nil, opts(as("opD1")), pq("opD1", B, bof, "read-flusso", flowAt(d1))},
		{"bo_flusso_other_entity_403", "GET", bo + "/flussiRendicontazione/" + d2 + "/" + flow + "/" + flowDate, nil, opts(as("opD1")), pq("opD1", B, bof, "read-flusso", flowAt(d2))},
		{"bo_incasso_in_scope", "GET", bo + "/incassi/" + d1 + "/" + inc.IDIncasso, nil, opts(as("opD1")), pq("opD1", B, bof, "read-incasso", audit.Resource{IDDominio: d1, IDIncasso: inc.IDIncasso})},
		{"bo_incasso_other_entity_403", "GET", bo + "/incassi/" + d2 + "/" + inc.IDIncasso, nil, opts(as("opD1")), pq("opD1", B, bof, "read-incasso", audit.Resource{IDDominio: d2, IDIncasso: inc.IDIncasso})},
		{"bo_incasso_missing_404", "GET", bo + "/incassi/" + d1 + "/NOPE", nil, opts(as("opD1")), pq("opD1", B, bof, "read-incasso", audit.Resource{IDDominio: d1, IDIncasso: "NOPE"})},
		{"pg_logout_anonymous", "GET", pgPub + "/logout", nil, nil, pq("", P, pag, "logout", res)},
		{"pg_app_payable_domini", "GET", pg + "/domini", nil, opts(as("appA")), pq("appA", B, pag, "payable-domini", res)},
		{"pg_citizen_payable_tipi", "GET", pgSpid + "/domini/" + d1 + "/tipiPendenza", nil, opts(asSPID(citizen1)), pq(citizen1, S, pag, "payable-tipi", audit.Resource{IDDominio: d1})},
		{"pg_app_payable_tipi_out_of_scope_403", "GET", pg + "/domini/" + d1 + "/tipiPendenza", nil, opts(as("appB")), pq("appB", B, pag, "payable-tipi", audit.Resource{IDDominio: d1})},
		{"pg_citizen_payable_units_missing_entity_404", "GET", pgSpid + "/domini/99999999999/unitaOperative", nil, opts(asSPID(citizen1)), pq(citizen1, S, pag, "payable-tipi", audit.Resource{IDDominio: "99999999999"})},
		{"pg_app_by_avviso", "GET", pg + "/pendenze/byAvviso/" + d1 + "/" + pa1.NumeroAvviso, nil, opts(as("appA")), pq("appA", B, pag, "read-by-avviso", notice(d1, pa1.NumeroAvviso))},
		{"pg_app_by_avviso_out_of_scope_403", "GET", pg + "/pendenze/byAvviso/" + d1 + "/" + pa1.NumeroAvviso, nil, opts(as("appB")), pq("appB", B, pag, "read-by-avviso", notice(d1, pa1.NumeroAvviso))},
		{"pe_profile", "GET", pe + "/profilo", nil, opts(as("appA")), pq("appA", B, pen, "profilo", res)},
		{"pe_by_avviso_own", "GET", pe + "/pendenze/byAvviso/" + d1 + "/" + pa1.NumeroAvviso, nil, opts(as("appA")), pq("appA", B, pen, "read-by-avviso", notice(d1, pa1.NumeroAvviso))},
		{"pe_by_avviso_other_creator_403", "GET", pe + "/pendenze/byAvviso/" + d1 + "/" + pa1.NumeroAvviso, nil, opts(as("appB")), pq("appB", B, pen, "read-by-avviso", notice(d1, pa1.NumeroAvviso))},
		{"rg_profile", "GET", rg + "/profilo", nil, opts(as("appC")), pq("appC", B, rag, "profilo", res)},
		{"rg_reads_flusso_in_scope", "GET", rg + "/flussiRendicontazione/" + d1 + "/" + flow, nil, opts(as("appC")), pq("appC", B, rag, "read-dominio", audit.Resource{IDDominio: d1, IDFlusso: flow})},
		{"rg_reads_flusso_at_in_scope", "GET", rg + "/flussiRendicontazione/" + d1 + "/" + flow + "/" + flowDate, nil, opts(as("appC")), pq("appC", B, rag, "read-flusso", flowAt(d1))},
		{"rg_reads_flusso_at_out_of_scope_403", "GET", rg + "/flussiRendicontazione/" + d1 + "/" + flow + "/" + flowDate, nil, opts(as("appB")), pq("appB", B, rag, "read-flusso", flowAt(d1))},
		{"rg_ricevuta_in_scope", "GET", rg + "/ricevute/" + d1 + "/" + paidIUV + "/IUR-PAID", nil, opts(as("appC")), pq("appC", B, rag, "read-ricevuta", receiptOf(d1, "IUR-PAID"))},
		{"rg_ricevuta_out_of_scope_403", "GET", rg + "/ricevute/" + d1 + "/" + paidIUV + "/IUR-PAID", nil, opts(as("appB")), pq("appB", B, rag, "read-ricevuta", receiptOf(d1, "IUR-PAID"))},
		{"rg_ricevuta_missing_404", "GET", rg + "/ricevute/" + d1 + "/" + paidIUV + "/IUR-NOPE", nil, opts(as("appC")), pq("appC", B, rag, "read-ricevuta", receiptOf(d1, "IUR-NOPE"))},
		{"rg_riscossione_in_scope", "GET", rg + "/riscossioni/" + d1 + "/" + paidIUV + "/IUR-PAID/1", nil, opts(as("appC")), pq("appC", B, rag, "read-riscossione", receiptOf(d1, "IUR-PAID"))},
		{"rg_riscossione_out_of_scope_403", "GET", rg + "/riscossioni/" + d1 + "/" + paidIUV + "/IUR-PAID/1", nil, opts(as("appB")), pq("appB", B, rag, "read-riscossione", receiptOf(d1, "IUR-PAID"))},
		{"rg_by_avviso_in_scope", "GET", rg + "/pendenze/byAvviso/" + d1 + "/" + pa1.NumeroAvviso, nil, opts(as("appC")), pq("appC", B, rag, "read-by-avviso", notice(d1, pa1.NumeroAvviso))},
		{"rg_by_avviso_out_of_scope_403", "GET", rg + "/pendenze/byAvviso/" + d1 + "/" + pa1.NumeroAvviso, nil, opts(as("appB")), pq("appB", B, rag, "read-by-avviso", notice(d1, pa1.NumeroAvviso))},
		// The auditors' questions about the whole log: Giornale degli
		// Eventi R on every entity and type, not on some.
		{"bo_what_can_admin", "GET", bo + "/autorizzazioni/principal?principal=appA", nil, opts(asAdmin()), pq(adminUser, B, bof, "audit-whole-log", res)},
		{"bo_what_can_scoped_auditor_403", "GET", bo + "/autorizzazioni/principal?principal=appA", nil, opts(as("opGiornaleUO1")), pq("opGiornaleUO1", B, bof, "audit-whole-log", res)},
		{"bo_what_can_resources_scoped_auditor_403", "GET", bo + "/autorizzazioni/principal/risorse?principal=appA&api=PENDENZE&operazione=read", nil, opts(as("opGiornaleUO1")), pq("opGiornaleUO1", B, bof, "audit-whole-log", res)},
		{"bo_log_checkpoints_scoped_auditor_403", "GET", bo + "/giornale/checkpoint", nil, opts(as("opGiornaleUO1")), pq("opGiornaleUO1", B, bof, "audit-whole-log", res)},
		// A principal without a password (a certificate's operator) or
		// without an API key cannot pass basic or apikey, whatever it sends.
		{"bo_profile_certificate_operator_via_basic", "GET", bo + "/profilo", nil, opts(asBasic(opSSL, pw)), pq(opSSL, B, bof, "profilo", res)},
		{"pe_list_apikey_without_a_key", "GET", "/pendenze/rs/apikey/v2/pendenze", nil, opts(asAPIKey("appA", "any-key-0123456789")), pq("appA", domain.AuthAPIKey, pen, "list", res)},
		// last: opRO sets its password (to the same one)
		{"bo_patch_profilo_without_password_422", "PATCH", "/backoffice/rs/ssl/v1/profilo", newPassword, opts(asCert(opSSLCert)), pq(opSSL, domain.AuthSSL, bof, "patch-profilo", res)},
		{"bo_patch_profilo_password", "PATCH", bo + "/profilo", newPassword, opts(as("opRO")), pq("opRO", B, bof, "patch-profilo", res)},
	}
	// Every operation of the audit catalogue is asked by some row: one
	// added without a row fails here.
	t.Run("every_catalogue_operation_has_a_row", func(t *testing.T) {
		asked := map[*audit.Operation]bool{}
		for _, r := range rows {
			op, err := audit.Lookup(r.q.API, r.q.Operation)
			if err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
			asked[op] = true
		}
		for _, op := range audit.Catalogue() {
			if !asked[op] {
				t.Errorf("%s: no row asks it", op.Key())
			}
		}
	})
	outcomes := map[string]int{}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			x, err := audit.Explain(w.model, r.q)
			if err != nil {
				t.Fatalf("explain: %v", err)
			}
			res := w.do(t, r.method, r.path, r.body, append(r.opts, withHeader("X-Request-ID", r.name))...)
			if res.Status >= 500 || res.Status == 400 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			// A row named for its status (…_403, …_404, …_422) gets it.
			for suffix, want := range map[string]int{"_403": 403, "_404": 404, "_422": 422} {
				if strings.HasSuffix(r.name, suffix) && res.Status != want {
					t.Fatalf("status %d, want %d: %s", res.Status, want, res.Body)
				}
			}
			flushDecisions(t, w.srv)
			d, ok := capture.get(r.name)
			if !ok {
				t.Fatal("no decision logged")
			}
			if d["outcome"] != x.Outcome || d["rule"] != x.Rule {
				t.Fatalf("live %s/%s (status %d), explain %s/%s: %s", d["outcome"], d["rule"], res.Status, x.Outcome, x.Rule, x.Detail)
			}
			// A role's evidence covers when that role alone gives what the
			// decision asked of a role, on every place it rested on: an
			// allowed request has a covering role (none of these rows is a
			// payment whose items need two roles), one denied for its
			// roles' right or scope has none.
			if r.q.API == domain.APIBackoffice {
				covering := slices.ContainsFunc(x.Evidence, func(e audit.Evidence) bool { return e.Covers })
				roleDenial := x.Outcome == audit.OutcomeDeny && (x.Rule == domain.RuleRoleScope || x.Rule == domain.RuleServiceRight)
				if (roleDenial && covering) || (x.Outcome == audit.OutcomeAllow && !covering) {
					t.Fatalf("explain %s/%s, evidence %+v", x.Outcome, x.Rule, x.Evidence)
				}
			}
			// An application's grant on the API covers what it was allowed
			// (or allowed to ask about, when missing); what was denied for
			// the grant's scope it does not, and says why in the denial's
			// words; any other end leaves it undecided.
			for _, e := range x.Evidence {
				if e.Kind != "autorizzazioneApi" {
					continue
				}
				scopeDenial := x.Outcome == audit.OutcomeDeny && x.Rule == domain.RuleAPIScope
				if e.Covers != (x.Outcome == audit.OutcomeAllow || x.Outcome == audit.OutcomeNotFound) || (scopeDenial && e.Why != x.Detail) {
					t.Fatalf("explain %s/%s (%s), grant evidence %+v", x.Outcome, x.Rule, x.Detail, e)
				}
			}
			t.Logf("%s/%s, status %d", x.Outcome, x.Rule, res.Status)
			outcomes[x.Outcome]++
		})
	}
	if outcomes["allow"] == 0 || outcomes["deny"] == 0 || outcomes["not-found"] == 0 || outcomes["unauthenticated"] == 0 || outcomes["unprocessable"] == 0 {
		t.Fatalf("the matrix must exercise every outcome: %v", outcomes)
	}
	// Who-can asks about each principal through the credential it has:
	// the certificate's operator, which has no password, through ssl.
	who, err := audit.WhoCan(w.model, bof, "profilo", res)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range who.Holders {
		if h.Principal == opSSL && h.Auth != domain.AuthSSL.String() {
			t.Fatalf("who-can lists %s through %s, which it cannot pass", opSSL, h.Auth)
		}
	}
	if !hasHolder(*who, opSSL) {
		t.Fatalf("who-can does not list %s: %+v", opSSL, who.Holders)
	}
}

// TestDecisionLogRecordsWithoutSecrets checks that every decision reaches
// both the slog stream and the NATS subject with who, what and why, and
// never a password.
func TestDecisionLogRecordsWithoutSecrets(t *testing.T) {
	capture := newDecisionCapture()
	w := newWorld(t, withDecisionLog(slog.New(capture)), withDecisionSubject("payauthz.decisions"))
	sub, err := w.store.(*jetstream.Store).Conn().SubscribeSync("payauthz.decisions")
	if err != nil {
		t.Fatal(err)
	}
	w.createPendenza(t, "appA", "p1", d1, t1, citizen1)
	w.do(t, "GET", pe+"/pendenze/appA/p1", nil, as("appA"), withHeader("X-Request-ID", "allowed-1")).expect(t, 200, "")
	w.do(t, "GET", pe+"/pendenze/appA/p1", nil, as("appB"), withHeader("X-Request-ID", "denied-1")).expect(t, 403, "403000")
	w.do(t, "GET", pe+"/pendenze", nil, asBasic("appA", "wrong-password-9"), withHeader("X-Request-ID", "unauth-1")).expect(t, 401, "401000")
	// A method the route does not have is no allow (it was logged "allow
	// granted" with status 405): the request itself is refused.
	if r := w.do(t, "DELETE", pe+"/pendenze/appA/p1", nil, as("appA"), withHeader("X-Request-ID", "method-1")); r.Status != 405 {
		t.Fatalf("DELETE: %d, want 405", r.Status)
	}
	flushDecisions(t, w.srv)

	want := map[string][3]string{"allowed-1": {"appA", "allow", "granted"}, "denied-1": {"appB", "deny", domain.RuleCreator},
		"unauth-1": {"", "unauthenticated", "authentication"}, "method-1": {"appA", "invalid", "request"}}
	for id, exp := range want {
		d, ok := capture.get(id)
		if !ok {
			t.Fatalf("%s: not in the slog stream", id)
		}
		if d["principal"] != exp[0] || d["outcome"] != exp[1] || d["rule"] != exp[2] || d["api"] != "PENDENZE" || d["auth"] != "basic" || d["stream"] != "decision" {
			t.Fatalf("%s: slog record %v", id, d)
		}
	}
	if d, _ := capture.get("allowed-1"); d["resource"] != "[appA p1]" || d["position"] == "0" || !strings.Contains(d["route"], ":idPendenza") {
		t.Fatalf("allowed-1 resource/position/route: %v", d)
	}
	seen := map[string]Decision{}
	for len(seen) < len(want) {
		msg, err := sub.NextMsg(10 * time.Second)
		if err != nil {
			t.Fatalf("NATS: %v (seen %v)", err, seen)
		}
		for _, secret := range []string{pw, "wrong-password-9", "Basic ", "passwordHash"} {
			if strings.Contains(string(msg.Data), secret) {
				t.Fatalf("decision leaks %q: %s", secret, msg.Data)
			}
		}
		var d Decision
		if err := json.Unmarshal(msg.Data, &d); err != nil {
			t.Fatal(err)
		}
		if _, ok := want[d.RequestID]; ok {
			seen[d.RequestID] = d
		}
	}
	if d := seen["denied-1"]; d.Principal != "appB" || d.Outcome != "deny" || d.Rule != domain.RuleCreator || d.Status != 403 {
		t.Fatalf("denied-1 on NATS: %+v", d)
	}
	for id, d := range capture.recs {
		for _, v := range d {
			if strings.Contains(v, pw) || strings.Contains(v, "wrong-password-9") {
				t.Fatalf("%s: slog record leaks a password: %v", id, d)
			}
		}
	}
}

// TestDecisionLogBoundsCallerChosenValues: an unauthenticated caller
// chooses the path, up to 32 KiB; a decision keeps at most
// loggedResourceBytes of each path parameter and of an {auth} segment
// that named no caller, so a record (and the 8192 of them the buffer
// holds) stays small whatever the path.
func TestDecisionLogBoundsCallerChosenValues(t *testing.T) {
	capture := newDecisionCapture()
	w := newWorld(t, withDecisionLog(slog.New(capture)))
	long := strings.Repeat("x", 20000)
	w.do(t, "GET", pe+"/pendenze/appA/"+long, nil, withHeader("X-Request-ID", "long-id")).expect(t, 401, "401000")
	w.do(t, "GET", "/pendenze/rs/"+long+"/v2/pendenze", nil, withHeader("X-Request-ID", "long-auth")).expect(t, 403, "403")
	flushDecisions(t, w.srv)
	for _, id := range []string{"long-id", "long-auth"} {
		d, ok := capture.get(id)
		if !ok {
			t.Fatalf("%s: no decision", id)
		}
		if len(d["resource"]) > 4*loggedResourceBytes || len(d["auth"]) > loggedResourceBytes {
			t.Errorf("%s: resource of %d bytes, auth of %d: the caller's path is not bounded", id, len(d["resource"]), len(d["auth"]))
		}
		if !strings.Contains(d["resource"], strings.Repeat("x", loggedResourceBytes)) {
			t.Errorf("%s: resource %.80q... does not keep the first %d bytes", id, d["resource"], loggedResourceBytes)
		}
	}
}

// TestDecisionLogNamesNoUnverifiedNodeUser: a node request whose basic
// credentials did not verify, or were never checked (a bad path id or an
// unknown route answered before the node handler admits the caller), is
// logged like any unauthenticated one, with no principal: the username
// it claimed is the caller's to choose (some 3,000 bytes of it, or a
// password typed in the wrong field). A connector whose password verified
// is named, also when it is denied.
func TestDecisionLogNamesNoUnverifiedNodeUser(t *testing.T) {
	capture := newDecisionCapture()
	w := newWorld(t, withDecisionLog(slog.New(capture)))
	w.must(t, "PUT", bo+"/intermediari/int1", map[string]any{"denominazione": "Intermediario 1", "abilitato": true,
		"connettoreNodo": map[string]any{"principal": nodeUser, "password": nodeSecr}})
	claimed := "Secret-Typed-As-User-" + strings.Repeat("y", 2000)
	const notice = "/avvisi/" + d1 + "/001234567890123456"
	cases := []struct {
		name, path, user, password string
		status                     int
		principal                  string
	}{
		{"wrong_credentials", "/nodo/rs/basic/v1/intermediari/int1" + notice, claimed, "whatever-1", http.StatusUnauthorized, ""},
		{"bad_intermediary_id", "/nodo/rs/basic/v1/intermediari/bad!id" + notice, claimed, "whatever-1", http.StatusBadRequest, ""},
		{"unknown_route", "/nodo/rs/basic/v1/nothing/here", claimed, "whatever-1", http.StatusNotFound, ""},
		{"connector_of_another_intermediary", "/nodo/rs/basic/v1/intermediari/int2" + notice, nodeUser, nodeSecr, http.StatusForbidden, nodeUser},
	}
	for _, c := range cases {
		w.do(t, "GET", c.path, nil, asBasic(c.user, c.password), withHeader("X-Request-ID", "node-"+c.name)).
			expect(t, c.status, codiceOf(c.status))
	}
	flushDecisions(t, w.srv)
	for _, c := range cases {
		d, ok := capture.get("node-" + c.name)
		if !ok {
			t.Fatalf("%s: no decision", c.name)
		}
		if d["principal"] != c.principal || d["status"] != strconv.Itoa(c.status) {
			t.Errorf("%s: status %s, principal of %d bytes %.40q, want %d and %q", c.name, d["status"], len(d["principal"]), d["principal"], c.status, c.principal)
		}
	}
}

func TestAuditEndpoints(t *testing.T) {
	w := newWorld(t)
	pa1 := w.createPendenza(t, "appA", "pa1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "pb1", d2, t1, citizen1)
	don := w.createPendenza(t, "appA", "donazione", d1, tSpont, citizen1)
	const noNotice = "399999999999999999"
	// An auditor of d1 × TARI alone: it asks about what it could read in
	// the event log, by entity and by type.
	w.putRole(t, "audTARI", acl{aclOf("Giornale degli Eventi", "R")}, []string{d1}, []string{t1})
	w.putOperator(t, "opAudTARI", pw, true, "audTARI")
	const who = bo + "/autorizzazioni"
	const verifica = bo + "/autorizzazioni/verifica"
	q := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return who + "?" + v.Encode()
	}
	explainBody := func(principal, api, op string, extra map[string]any) map[string]any {
		b := map[string]any{"principal": principal, "auth": "basic", "api": api, "operazione": op}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	runRows(t, w.harness, []row{
		{"admin_who_can", "GET", q("api", "PENDENZE", "operazione", "create", "idDominio", d1, "idTipoPendenza", t1), nil, opts(asAdmin()), 200, ""},
		{"scoped_auditor_own_entity", "GET", q("api", "PENDENZE", "operazione", "create", "idDominio", d1, "idTipoPendenza", t1), nil, opts(as("opD1")), 200, ""},
		{"scoped_auditor_other_entity", "GET", q("api", "PENDENZE", "operazione", "create", "idDominio", d2, "idTipoPendenza", t1), nil, opts(as("opD1")), 403, "403000"},
		{"scoped_auditor_other_entitys_pendenza", "GET", q("api", "PENDENZE", "operazione", "read", "idA2A", "appB", "idPendenza", "pb1"), nil, opts(as("opD1")), 403, "403000"},
		// A named idDominio adds to the stored resource's entities; it never
		// stands for them. A pendenza that does not exist names no entity.
		{"scoped_auditor_own_entitys_pendenza", "GET", q("api", "PENDENZE", "operazione", "read", "idA2A", "appA", "idPendenza", "pa1", "idDominio", d1), nil, opts(as("opD1")), 200, ""},
		{"scoped_auditor_other_entitys_pendenza_named_own_entity", "GET", q("api", "PENDENZE", "operazione", "read", "idA2A", "appB", "idPendenza", "pb1", "idDominio", d1), nil, opts(as("opD1")), 403, "403000"},
		{"scoped_auditor_own_entitys_pendenza_named_other_entity", "GET", q("api", "PENDENZE", "operazione", "read", "idA2A", "appA", "idPendenza", "pa1", "idDominio", d2), nil, opts(as("opD1")), 403, "403000"},
		{"scoped_auditor_missing_pendenza_named_own_entity", "GET", q("api", "PENDENZE", "operazione", "read", "idA2A", "appB", "idPendenza", "nope", "idDominio", d1), nil, opts(as("opD1")), 403, "403000"},
		{"admin_missing_pendenza", "GET", q("api", "PENDENZE", "operazione", "read", "idA2A", "appB", "idPendenza", "nope", "idDominio", d1), nil, opts(asAdmin()), 200, ""},
		{"explain_scoped_other_entitys_pendenza_named_own_entity", "POST", verifica, explainBody("appB", "PENDENZE", "read", map[string]any{"idA2A": "appB", "idPendenza": "pb1", "idDominio": d1}), opts(as("opD1")), 403, "403000"},
		{"explain_scoped_missing_pendenza_named_own_entity", "POST", verifica, explainBody("appB", "PENDENZE", "read", map[string]any{"idA2A": "appB", "idPendenza": "nope", "idDominio": d1}), opts(as("opD1")), 403, "403000"},
		{"type_auditor_pendenza_of_its_type", "GET", q("api", "PENDENZE", "operazione", "read", "idA2A", "appA", "idPendenza", "pa1"), nil, opts(as("opAudTARI")), 200, ""},
		{"type_auditor_pendenza_of_another_type", "GET", q("api", "PENDENZE", "operazione", "read", "idA2A", "appA", "idPendenza", "donazione"), nil, opts(as("opAudTARI")), 403, "403000"},
		{"type_auditor_place_of_another_type", "GET", q("api", "PENDENZE", "operazione", "create", "idDominio", d1, "idTipoPendenza", tSpont), nil, opts(as("opAudTARI")), 403, "403000"},
		{"type_auditor_place_of_its_type", "GET", q("api", "PENDENZE", "operazione", "create", "idDominio", d1, "idTipoPendenza", t1), nil, opts(as("opAudTARI")), 200, ""},
		{"explain_type_auditor_pendenza_of_another_type", "POST", verifica, explainBody("appA", "PENDENZE", "read", map[string]any{"idA2A": "appA", "idPendenza": "donazione"}), opts(as("opAudTARI")), 403, "403000"},
		{"explain_type_auditor_pendenza_of_its_type", "POST", verifica, explainBody("appA", "PENDENZE", "read", map[string]any{"idA2A": "appA", "idPendenza": "pa1"}), opts(as("opAudTARI")), 200, ""},
		// A pendenza named by its notice lies where it lies, as named by
		// id; a missing notice at d1 needs every type of d1.
		{"type_auditor_notice_of_its_type", "GET", q("api", "PAGAMENTO", "operazione", "read-notice", "idDominio", d1, "numeroAvviso", pa1.NumeroAvviso), nil, opts(as("opAudTARI")), 200, ""},
		{"type_auditor_notice_of_another_type", "GET", q("api", "PAGAMENTO", "operazione", "read-notice", "idDominio", d1, "numeroAvviso", don.NumeroAvviso), nil, opts(as("opAudTARI")), 403, "403000"},
		{"type_auditor_missing_notice", "GET", q("api", "PAGAMENTO", "operazione", "read-notice", "idDominio", d1, "numeroAvviso", noNotice), nil, opts(as("opAudTARI")), 403, "403000"},
		{"explain_type_auditor_by_avviso_of_another_type", "POST", verifica, explainBody("appA", "PENDENZE", "read-by-avviso", map[string]any{"idDominio": d1, "numeroAvviso": don.NumeroAvviso}), opts(as("opAudTARI")), 403, "403000"},
		{"explain_type_auditor_by_avviso_of_its_type", "POST", verifica, explainBody("appA", "RAGIONERIA", "read-by-avviso", map[string]any{"idDominio": d1, "numeroAvviso": pa1.NumeroAvviso}), opts(as("opAudTARI")), 200, ""},
		{"type_auditor_another_type_named_beside_its_own_notice", "GET", q("api", "BACKOFFICE", "operazione", "servizio", "servizio", "Pendenze", "autorizzazione", "R", "idDominio", d1, "idTipoPendenza", tSpont, "numeroAvviso", pa1.NumeroAvviso), nil, opts(as("opAudTARI")), 403, "403000"},
		{"entity_auditor_notice_of_any_type", "GET", q("api", "PAGAMENTO", "operazione", "read-notice", "idDominio", d1, "numeroAvviso", don.NumeroAvviso), nil, opts(as("opD1")), 200, ""},
		{"entity_auditor_missing_notice", "GET", q("api", "PAGAMENTO", "operazione", "read-notice", "idDominio", d1, "numeroAvviso", noNotice), nil, opts(as("opD1")), 200, ""},
		{"entity_auditor_notice_of_another_entity", "GET", q("api", "PAGAMENTO", "operazione", "read-notice", "idDominio", d2, "numeroAvviso", noNotice), nil, opts(as("opD1")), 403, "403000"},
		// A registry entry lies at no place, whatever entity the question
		// also names: only the whole log's auditor learns which exist.
		{"entity_auditor_role_named_with_own_entity", "GET", q("api", "BACKOFFICE", "operazione", "read-ruolo", "idRuolo", "audTARI", "idDominio", d1), nil, opts(as("opD1")), 403, "403000"},
		{"entity_auditor_missing_role_named_with_own_entity", "GET", q("api", "BACKOFFICE", "operazione", "read-ruolo", "idRuolo", "nope", "idDominio", d1), nil, opts(as("opD1")), 403, "403000"},
		{"explain_entity_auditor_application_named_with_own_entity", "POST", verifica, explainBody("opD1", "BACKOFFICE", "read-applicazione", map[string]any{"idA2A": "appB", "idDominio": d1}), opts(as("opD1")), 403, "403000"},
		{"explain_entity_auditor_operator_named_with_own_entity", "POST", verifica, explainBody("opD1", "BACKOFFICE", "read-operatore", map[string]any{"principalOperatore": "opRO", "idDominio": d1}), opts(as("opD1")), 403, "403000"},
		{"entity_auditor_intermediary_named_with_own_entity", "GET", q("api", "BACKOFFICE", "operazione", "write-dominio", "idDominio", d1, "idIntermediario", "nope"), nil, opts(as("opD1")), 403, "403000"},
		{"whole_log_auditor_role", "GET", q("api", "BACKOFFICE", "operazione", "read-ruolo", "idRuolo", "audTARI", "idDominio", d1), nil, opts(as("opRO")), 200, ""},
		{"whole_log_auditor_missing_role", "GET", q("api", "BACKOFFICE", "operazione", "read-ruolo", "idRuolo", "nope"), nil, opts(as("opRO")), 200, ""},
		{"scoped_auditor_no_entity_needs_all", "GET", q("api", "PENDENZE", "operazione", "list"), nil, opts(as("opD1")), 403, "403000"},
		{"read_only_auditor_no_entity", "GET", q("api", "PENDENZE", "operazione", "list"), nil, opts(as("opRO")), 200, ""},
		{"no_role_denied", "GET", q("api", "PENDENZE", "operazione", "list"), nil, opts(as("opNoRole")), 403, "403000"},
		{"application_without_roles_denied", "GET", q("api", "PENDENZE", "operazione", "list"), nil, opts(as("appA")), 403, "403000"},
		{"unauthenticated", "GET", q("api", "PENDENZE", "operazione", "list"), nil, nil, 401, "401000"},
		{"unknown_api_400", "GET", q("api", "NOPE", "operazione", "list"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"nodo_api_400", "GET", q("api", "NODO", "operazione", "list"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"unknown_operation_400", "GET", q("api", "PENDENZE", "operazione", "fly"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"missing_operation_400", "GET", q("api", "PENDENZE"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"bad_position_400", "GET", q("api", "PENDENZE", "operazione", "list", "posizione", "x"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"zero_position_400", "GET", q("api", "PENDENZE", "operazione", "list", "posizione", "0"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"bad_time_400", "GET", q("api", "PENDENZE", "operazione", "list", "data", "yesterday"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"missing_field_400", "GET", q("api", "PENDENZE", "operazione", "read", "idA2A", "appA"), nil, opts(asAdmin()), 400, "SINTASSI"},
		{"explain_admin", "POST", verifica, explainBody("appA", "PENDENZE", "read", map[string]any{"idA2A": "appA", "idPendenza": "pa1"}), opts(asAdmin()), 200, ""},
		{"explain_scoped_in_scope", "POST", verifica, explainBody("appA", "PENDENZE", "read", map[string]any{"idA2A": "appA", "idPendenza": "pa1"}), opts(as("opD1")), 200, ""},
		{"explain_scoped_out_of_scope", "POST", verifica, explainBody("appB", "PENDENZE", "read", map[string]any{"idA2A": "appB", "idPendenza": "pb1"}), opts(as("opD1")), 403, "403000"},
		{"explain_no_role", "POST", verifica, explainBody("appA", "PENDENZE", "list", nil), opts(as("opNoRole")), 403, "403000"},
		{"explain_right_lower_case", "POST", verifica, explainBody("opD1", "BACKOFFICE", "servizio", map[string]any{"servizio": "Pendenze", "autorizzazione": "r", "idDominio": d1}), opts(asAdmin()), 200, ""}, // was 400 here while what-can took "r"
		{"explain_unknown_right_400", "POST", verifica, explainBody("opD1", "BACKOFFICE", "servizio", map[string]any{"servizio": "Pendenze", "autorizzazione": "X"}), opts(asAdmin()), 400, "SINTASSI"},
		{"explain_unknown_field_400", "POST", verifica, `{"principal":"appA","api":"PENDENZE","operazione":"list","nope":1}`, opts(asAdmin()), 400, "SINTASSI"},
		{"explain_bad_auth_400", "POST", verifica, explainBody("appA", "PENDENZE", "list", map[string]any{"auth": "kerberos"}), opts(asAdmin()), 400, "SINTASSI"},
		{"explain_zero_position_400", "POST", verifica, explainBody("appA", "PENDENZE", "list", map[string]any{"posizione": 0}), opts(asAdmin()), 400, "SINTASSI"},
		{"explain_malformed_400", "POST", verifica, `{`, opts(asAdmin()), 400, "SINTASSI"},
	})

	t.Run("who_can_lists_holders_with_grants", func(t *testing.T) {
		var r audit.WhoCanResult
		w.must(t, "GET", q("api", "PENDENZE", "operazione", "create", "idDominio", d2, "idTipoPendenza", t1), nil, asAdmin()).decode(t, &r)
		got := map[string]audit.Holder{}
		for _, h := range r.Holders {
			got[h.Principal] = h
		}
		if _, ok := got["appB"]; !ok || len(got) != 1 {
			t.Fatalf("holders = %+v, want only appB", r.Holders)
		}
		if ev := got["appB"].Evidence; len(ev) != 1 || ev[0].ID != "PENDENZE" || !ev[0].Covers {
			t.Fatalf("appB evidence = %+v", ev)
		}
	})
	t.Run("time_travel_does_not_leak_the_present", func(t *testing.T) {
		before := uint64(w.model.AppliedPosition())
		w.putApp(t, "appLate", "appLate", pw, true, apiGrant("PENDENZE", []string{"*"}, []string{"*"}))
		var now, then audit.WhoCanResult
		w.must(t, "GET", q("api", "PENDENZE", "operazione", "list"), nil, asAdmin()).decode(t, &now)
		w.must(t, "GET", q("api", "PENDENZE", "operazione", "list", "posizione", jsonNumber(before)), nil, asAdmin()).decode(t, &then)
		if !hasHolder(now, "appLate") || hasHolder(then, "appLate") || then.Position != before {
			t.Fatalf("now %v, then (at %d) %v", now.Holders, then.Position, then.Holders)
		}
		var x audit.Explanation
		w.must(t, "POST", verifica, explainBody("appLate", "PENDENZE", "list", map[string]any{"posizione": before}), asAdmin()).decode(t, &x)
		if x.Outcome != "unauthenticated" || x.Position != before {
			t.Fatalf("appLate before registration = %+v", x)
		}
	})
	t.Run("explain_trail", func(t *testing.T) {
		var x audit.Explanation
		w.must(t, "POST", verifica, explainBody("appA", "PENDENZE", "create", map[string]any{"idDominio": d2, "idTipoPendenza": t1}), asAdmin()).decode(t, &x)
		if x.Outcome != "deny" || x.Rule != domain.RuleAPIScope || len(x.Trail) != 4 || x.Trail[3].Passed || len(x.Evidence) != 1 {
			t.Fatalf("explanation = %+v", x)
		}
	})
}

// TestAuditPointsOfHistoryTheLogDoesNotHold: who-can, explain and what-can
// refuse a point of history the log does not hold — a posizione beyond its
// last, a data before its first event — with 400, as the audit CLI refuses
// it (one rule, projections.CheckPoint), instead of answering at the end of
// the log or in the empty state. Its last position, its first event's own
// time and a time after its end are held.
func TestAuditPointsOfHistoryTheLogDoesNotHold(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	last, err := w.store.LastPosition(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var first time.Time
	stop := errors.New("first event read")
	if err := w.store.Read(ctx, 0, func(_ context.Context, env events.Envelope) error {
		first = env.Time
		return stop
	}); !errors.Is(err, stop) {
		t.Fatalf("read the first event: %v", err)
	}
	beyond := strconv.FormatUint(uint64(last)+1, 10)
	point := func(k, v string) (url.Values, map[string]any) {
		q, body := url.Values{}, map[string]any{}
		switch k {
		case "posizione":
			n, _ := strconv.ParseUint(v, 10, 64)
			q.Set(k, v)
			body[k] = n
		case "data":
			q.Set(k, v)
			body[k] = v
		}
		return q, body
	}
	// At the log's first points no principal exists yet: who-can lists no
	// one, explain answers unauthenticated, what-can does not know appA.
	asks := []struct {
		name  string
		early int // the status at the log's first points
		ask   func(k, v string) *response
	}{
		{"who_can", 200, func(k, v string) *response {
			q, _ := point(k, v)
			q.Set("api", "PENDENZE")
			q.Set("operazione", "create")
			q.Set("idDominio", d1)
			q.Set("idTipoPendenza", t1)
			return w.do(t, "GET", bo+"/autorizzazioni?"+q.Encode(), nil, asAdmin())
		}},
		{"explain", 200, func(k, v string) *response {
			_, body := point(k, v)
			body["principal"], body["api"], body["operazione"] = "appA", "PENDENZE", "create"
			body["idDominio"], body["idTipoPendenza"] = d1, t1
			return w.do(t, "POST", bo+"/autorizzazioni/verifica", body, asAdmin())
		}},
		{"what_can", 404, func(k, v string) *response {
			q, _ := point(k, v)
			q.Set("principal", "appA")
			return w.do(t, "GET", bo+"/autorizzazioni/principal?"+q.Encode(), nil, asAdmin())
		}},
	}
	for _, c := range []struct {
		name, k, v string
		status     int
		early      bool // a point before any principal
		dettaglio  string
	}{
		{"position_beyond_the_end_refused", "posizione", beyond, 400, false,
			"posizione " + beyond + " is beyond the end of the log (its last position is " + strconv.FormatUint(uint64(last), 10) + ")"},
		{"position_far_beyond_the_end_refused", "posizione", strconv.FormatUint(uint64(last)+1000, 10), 400, false, "is beyond the end of the log"},
		{"last_position_answered", "posizione", strconv.FormatUint(uint64(last), 10), 200, false, ""},
		{"first_position_answered", "posizione", "1", 200, true, ""},
		{"time_before_the_first_event_refused", "data", "2000-01-01T00:00:00Z", 400, false,
			"data 2000-01-01T00:00:00Z is before the log's first event (" + first.Format(time.RFC3339Nano) + ")"},
		{"time_just_before_the_first_event_refused", "data", first.Add(-time.Nanosecond).Format(time.RFC3339Nano), 400, false, "is before the log's first event"},
		// time.Time's zero instant is a time like any other, not "no time".
		{"zero_time_refused", "data", "0001-01-01T00:00:00Z", 400, false,
			"data 0001-01-01T00:00:00Z is before the log's first event (" + first.Format(time.RFC3339Nano) + ")"},
		{"time_of_the_first_event_answered", "data", first.Format(time.RFC3339Nano), 200, true, ""},
		{"time_after_the_end_answered", "data", time.Now().Add(time.Hour).UTC().Format(time.RFC3339), 200, false, ""},
	} {
		for _, a := range asks {
			t.Run(c.name+"/"+a.name, func(t *testing.T) {
				r := a.ask(c.k, c.v)
				if c.status != 200 {
					r.expect(t, c.status, "SINTASSI")
					if fb := r.fault(t); !strings.Contains(fb.Dettaglio, c.dettaglio) {
						t.Fatalf("dettaglio %q, want one saying %q", fb.Dettaglio, c.dettaglio)
					}
					return
				}
				if c.early {
					r.expect(t, a.early, "")
					return
				}
				r.expect(t, 200, "")
			})
		}
	}
}

func hasHolder(r audit.WhoCanResult, name string) bool {
	for _, h := range r.Holders {
		if h.Principal == name {
			return true
		}
	}
	return false
}

func jsonNumber(n uint64) string { b, _ := json.Marshal(n); return strings.TrimSpace(string(b)) }

// TestDecisionJSONMatchesEncodingJSON: the hand-written encoding of a
// decision is byte-for-byte encoding/json's, whatever the strings hold.
func TestDecisionJSONMatchesEncodingJSON(t *testing.T) {
	for name, d := range map[string]Decision{
		"full": {Time: time.Date(2026, 11, 23, 1, 2, 3, 456, time.UTC), RequestID: "r1", Principal: "CN=a, O=b\\c, C=IT",
			Kind: "APPLICATION", Auth: "ssl", API: "PENDENZE", Method: "GET", Route: "/p/:a", Resource: []string{"a\"b", "<&>"},
			Outcome: "deny", Rule: "api-scope", Status: 403, Position: 42, ClientAddr: "127.0.0.1:54321", DurationMS: 1.234},
		"slow_and_fast":   {Time: time.Unix(1, 0).UTC(), ClientAddr: "[::1]:1", DurationMS: 123456.789},
		"sub_ms":          {Time: time.Unix(1, 0).UTC(), DurationMS: 0.001},
		"empty_optionals": {Time: time.Unix(0, 0).UTC(), Auth: "public", API: "PAGAMENTO", Method: "POST", Outcome: "allow", Rule: "granted"},
		"odd_bytes":       {Principal: "tab\there\nnl\x01\u2028\u2029è\xff", Resource: []string{"\x7f"}, Time: time.Now()},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.appendJSON(nil); string(got) != string(want) {
				t.Fatalf("\ngot  %s\nwant %s", got, want)
			}
		})
	}
}

// TestAuditReceiptNamedBesideANotice: a question naming a receipt lies at
// the receipt's place (or its whole entity, missing) whatever else it
// names: a notice named beside it adds the notice's place, it never stands
// for the receipt's. An auditor over unit UO1 alone asking about the
// receipt of a pendenza of UO2, or a missing one, gets the same 403 with
// or without a notice of UO1 beside it; over the whole entity it asks.
func TestAuditReceiptNamedBesideANotice(t *testing.T) {
	t.Parallel() // each test runs its own service
	w := newBackofficeWorld(t)
	for _, u := range []string{"UO1", "UO2"} {
		w.must(t, "PUT", bo+"/domini/"+d1+"/unitaOperative/"+u, map[string]any{"ragioneSociale": "Ufficio " + u, "abilitato": true})
	}
	in := func(id, unit string) pendenzaView {
		b := pendenzaBodyFor(d1, t1, citizen1)
		b["idUnitaOperativa"] = unit
		var v pendenzaView
		w.must(t, "PUT", pe+"/pendenze/appA/"+id, b, as("appA")).decode(t, &v)
		return v
	}
	p1, p2 := in("au-u1", "UO1"), in("au-u2", "UO2")
	res, err := w.cmds.RecordReceipt(context.Background(), commands.System, commands.RecordReceipt{IDIntermediario: intID,
		IDDominio: d1, NumeroAvviso: p2.NumeroAvviso, IDRicevuta: "RIC-U2", AmountCents: int64(p2.Importo * 100),
		Esito: "ESEGUITO", DataPagamento: "2026-01-02"})
	if err != nil {
		t.Fatalf("record receipt: %v", err)
	}
	w.waitFor(t, res.Position)
	var iuv string
	for _, it := range func() []map[string]any { items, _ := listAll(t, w.harness, bo+"/ricevute", asAdmin()); return items }() {
		if str(it, "idRicevuta") == "RIC-U2" {
			iuv = str(it, "iuv")
		}
	}
	if iuv == "" {
		t.Fatal("receipt RIC-U2 not listed")
	}
	onUO1 := []any{map[string]any{"idDominio": d1, "unitaOperative": []string{"UO1"}}}
	w.must(t, "PUT", bo+"/ruoli/audUO1", map[string]any{"acl": acl{aclOf("Giornale degli Eventi", "R")}, "domini": onUO1, "tipiPendenza": []string{"*"}})
	w.putOperator(t, "audUO1", pw, true, "audUO1")
	w.putRole(t, "audD1", acl{aclOf("Giornale degli Eventi", "R")}, []string{d1}, []string{"*"})
	w.putOperator(t, "audD1", pw, true, "audD1")

	who := func(ricevuta, notice string) string {
		v := url.Values{"api": {"BACKOFFICE"}, "operazione": {"read-ricevuta"}, "idDominio": {d1}, "iuv": {iuv}, "idRicevuta": {ricevuta}}
		if notice != "" {
			v.Set("numeroAvviso", notice)
		}
		return bo + "/autorizzazioni?" + v.Encode()
	}
	explain := func(ricevuta, notice string) map[string]any {
		b := map[string]any{"principal": adminUser, "auth": "basic", "api": "BACKOFFICE", "operazione": "read-ricevuta",
			"idDominio": d1, "iuv": iuv, "idRicevuta": ricevuta}
		if notice != "" {
			b["numeroAvviso"] = notice
		}
		return b
	}
	const verifica = bo + "/autorizzazioni/verifica"
	runRows(t, w.harness, []row{
		{"unit_auditor_other_units_receipt", "GET", who("RIC-U2", ""), nil, opts(as("audUO1")), 403, "403000"},
		{"unit_auditor_other_units_receipt_beside_its_notice", "GET", who("RIC-U2", p1.NumeroAvviso), nil, opts(as("audUO1")), 403, "403000"},
		{"unit_auditor_missing_receipt", "GET", who("NOPE", ""), nil, opts(as("audUO1")), 403, "403000"},
		{"unit_auditor_missing_receipt_beside_its_notice", "GET", who("NOPE", p1.NumeroAvviso), nil, opts(as("audUO1")), 403, "403000"},
		{"explain_unit_auditor_other_units_receipt_beside_its_notice", "POST", verifica, explain("RIC-U2", p1.NumeroAvviso), opts(as("audUO1")), 403, "403000"},
		{"explain_unit_auditor_missing_receipt_beside_its_notice", "POST", verifica, explain("NOPE", p1.NumeroAvviso), opts(as("audUO1")), 403, "403000"},
		{"entity_auditor_receipt_beside_a_notice", "GET", who("RIC-U2", p1.NumeroAvviso), nil, opts(as("audD1")), 200, ""},
		{"explain_entity_auditor_missing_receipt_beside_a_notice", "POST", verifica, explain("NOPE", p1.NumeroAvviso), opts(as("audD1")), 200, ""},
	})
}
