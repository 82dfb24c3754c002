package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/operations/audit"
)

// givenTwiceDetail is the dettaglio of a query parameter given more than
// once (API.md section 2).
func givenTwiceDetail(param string) string {
	return param + " is given more than once: it takes one value"
}

// withTwice is q with param given twice: its value (one is made up when q
// has none) then second.
func withTwice(q url.Values, param, second string) url.Values {
	d := url.Values{}
	for k, vs := range q {
		d[k] = slices.Clone(vs)
	}
	first := "x"
	if v := q.Get(param); v != "" {
		first = v
	}
	d[param] = []string{first, second}
	return d
}

// TestQueryParamGivenTwice: every query parameter of one value that is
// no list's filter (pagination, the event log's da and limite, who-can's,
// what-can's, the log proofs') was read at its first value, the others
// silently ignored: pagina=1&pagina=abc answered 200. Each, given twice
// (even twice the same), is now 400 SINTASSI naming it in the filters'
// words, after the operation's gate: a caller that may not call it is
// still 403 whatever its query. Each given once is read (200).
func TestQueryParamGivenTwice(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withVerifiableLog())
	w.createPendenza(t, "appA", "once-1", d1, t1, citizen1)
	ctx := context.Background()
	sign := func() {
		t.Helper()
		w.logCaughtUp(t)
		if _, ok, err := w.log.Checkpoint(ctx); err != nil || !ok {
			t.Fatalf("checkpoint: %v %v", ok, err)
		}
		w.logCaughtUp(t)
	}
	sign()
	w.createPendenza(t, "appA", "once-2", d1, t1, citizen1)
	sign()
	var st logState
	w.must(t, "GET", bo+"/giornale/checkpoint", nil).decode(t, &st)
	if len(st.Checkpoints) != 2 {
		t.Fatalf("checkpoints: %+v", st.Checkpoints)
	}
	older, newer := strconv.FormatUint(uint64(st.Checkpoints[0].Position), 10), strconv.FormatUint(uint64(st.Checkpoints[1].Position), 10)
	last, err := w.store.LastPosition(ctx)
	if err != nil {
		t.Fatal(err)
	}
	posizione, data := strconv.FormatUint(uint64(last), 10), time.Now().UTC().Format(time.RFC3339Nano)

	var resourceParams []string // every field who-can reads from its query
	for _, f := range (audit.Resource{}).Fields() {
		resourceParams = append(resourceParams, f.Name)
	}
	paging := url.Values{"pagina": {"1"}, "risultatiPerPagina": {"5"}}
	for _, op := range []struct {
		name   string
		path   string
		query  url.Values // each given once: 200
		caller reqOpt
		denied reqOpt // 403 whatever its query
		params []string
	}{
		{"eventi", bo + "/eventi", url.Values{"da": {"1"}, "limite": {"10"}}, asAdmin(), as("opNoRole"), []string{"da", "limite"}},
		{"bo_pendenze_paging", bo + "/pendenze", paging, asAdmin(), as("opNoRole"), []string{"pagina", "risultatiPerPagina"}},
		{"pe_pendenze_paging", pe + "/pendenze", paging, as("appA"), as("appNone"), []string{"pagina", "risultatiPerPagina"}},
		{"rg_riscossioni_paging", rg + "/riscossioni", paging, as("appA"), as("appNone"), []string{"pagina", "risultatiPerPagina"}},
		{"who_can", bo + "/autorizzazioni",
			url.Values{"api": {"PENDENZE"}, "operazione": {"create"}, "idDominio": {d1}, "idTipoPendenza": {t1}, "posizione": {posizione}, "data": {data}},
			asAdmin(), as("opNoRole"), append([]string{"api", "operazione", "posizione", "data"}, resourceParams...)},
		{"what_can", bo + "/autorizzazioni/principal", url.Values{"principal": {"appA"}, "posizione": {posizione}, "data": {data}},
			asAdmin(), as("opD1"), []string{"principal", "posizione", "data"}},
		{"what_can_resources", bo + "/autorizzazioni/principal/risorse",
			url.Values{"principal": {"opD1"}, "api": {"BACKOFFICE"}, "operazione": {"servizio"}, "servizio": {"Pendenze"}, "autorizzazione": {"R"},
				"dopo": {"0"}, "limite": {"10"}, "posizione": {posizione}, "data": {data}},
			asAdmin(), as("opD1"), []string{"principal", "api", "operazione", "servizio", "autorizzazione", "dopo", "limite", "posizione", "data"}},
		{"inclusion_proof", bo + "/giornale/prove/inclusione", url.Values{"posizione": {"2"}, "indice": {"0"}, "checkpoint": {newer}},
			asAdmin(), as("opD1"), []string{"posizione", "indice", "checkpoint"}},
		{"consistency_proof", bo + "/giornale/prove/consistenza", url.Values{"da": {older}, "a": {newer}},
			asAdmin(), as("opNoRole"), []string{"da", "a"}},
	} {
		t.Run(op.name+"/once", func(t *testing.T) {
			w.do(t, "GET", op.path+"?"+op.query.Encode(), nil, op.caller).expect(t, http.StatusOK, "")
		})
		all := op.query
		for _, p := range op.params {
			for _, second := range []string{"", "abc"} {
				d := withTwice(op.query, p, second)
				if second == "" { // twice the same
					d[p][1] = d[p][0]
				}
				all = withTwice(all, p, d[p][1])
				t.Run(op.name+"?"+d.Encode(), func(t *testing.T) {
					w.do(t, "GET", op.path+"?"+d.Encode(), nil, op.caller).expectDetail(t, http.StatusBadRequest, "SINTASSI", givenTwiceDetail(p))
				})
			}
		}
		t.Run(op.name+"/gate_first", func(t *testing.T) {
			w.do(t, "GET", op.path+"?"+all.Encode(), nil, op.denied).expect(t, http.StatusForbidden, "403000")
			w.do(t, "GET", op.path+"?"+all.Encode(), nil).expect(t, http.StatusUnauthorized, "401000")
		})
	}
	// An empty value is no value, as a filter's: the other one is read.
	w.do(t, "GET", bo+"/eventi?limite=&limite=abc", nil, asAdmin()).expect(t, http.StatusBadRequest, "SINTASSI")
	w.do(t, "GET", bo+"/pendenze?pagina=&pagina=1", nil, asAdmin()).expect(t, http.StatusOK, "")
}

// TestPublicProtectionParamsGivenTwice: the protection of the public mount
// read the first UUID and the first captcha token of the query, the others
// ignored. Each given twice, even twice the same, is now 400 SINTASSI
// naming it before anything is compared or sent to the captcha service:
// one request never tries two UUIDs or two tokens, and a notice that does
// not exist answers as one that does. Where the protection reads neither
// (switched off, another mount) they are ignored as any unread parameter.
func TestPublicProtectionParamsGivenTwice(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sv := newSiteverify(t)
	p := w.createPendenza(t, "appA", "twice-1", d1, t1, citizen1)
	avviso := pgPublic + "/avvisi/" + d1 + "/" + p.NumeroAvviso
	unknown := pgPublic + "/avvisi/" + d1 + "/000000000000000009"
	byAvviso := pgPublic + "/pendenze/byAvviso/" + d1 + "/" + p.NumeroAvviso
	wrong := "00000000000000000000000000000000"
	tok := commands.DefaultCaptchaParam
	w.protect(t, true, sv.URL, true, nil)
	type tcase struct {
		name   string
		method string
		path   string
		opts   []reqOpt
		status int
		param  string // named by the 400
	}
	run := func(t *testing.T, cases []tcase) {
		t.Helper()
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				var body any
				if tc.method == "POST" {
					body = noticeRef(p)
				}
				sv.mu.Lock()
				calls := sv.calls
				sv.mu.Unlock()
				r := w.do(t, tc.method, tc.path, body, tc.opts...)
				if tc.status != http.StatusBadRequest {
					r.expect(t, tc.status, codiceOf(tc.status))
					return
				}
				r.expectDetail(t, http.StatusBadRequest, "SINTASSI", givenTwiceDetail(tc.param))
				sv.mu.Lock()
				defer sv.mu.Unlock()
				if sv.calls != calls {
					t.Fatalf("the captcha service was asked %d times", sv.calls-calls)
				}
			})
		}
	}
	t.Run("protection_on", func(t *testing.T) {
		run(t, []tcase{
			{"uuid_once_passes", "GET", avviso + "?UUID=" + p.UUID, nil, 200, ""},
			{"wrong_then_right_uuid", "GET", avviso + "?UUID=" + wrong + "&UUID=" + p.UUID, nil, 400, "UUID"},
			{"right_then_wrong_uuid", "GET", avviso + "?UUID=" + p.UUID + "&UUID=" + wrong, nil, 400, "UUID"},
			{"right_uuid_twice", "GET", avviso + "?UUID=" + p.UUID + "&UUID=" + p.UUID, nil, 400, "UUID"},
			{"uuid_twice_beside_a_passing_token", "GET", avviso + "?UUID=" + wrong + "&UUID=" + p.UUID, []reqOpt{withHeader(tok, "v2-ok")}, 400, "UUID"},
			{"uuid_twice_unknown_notice", "GET", unknown + "?UUID=" + wrong + "&UUID=" + p.UUID, nil, 400, "UUID"},
			{"uuid_twice_by_avviso", "GET", byAvviso + "?UUID=" + wrong + "&UUID=" + p.UUID, nil, 400, "UUID"},
			{"token_once_passes", "GET", avviso + "?" + tok + "=v2-ok", nil, 200, ""},
			{"failing_then_passing_token", "GET", avviso + "?" + tok + "=v2-fail&" + tok + "=v2-ok", nil, 400, tok},
			{"passing_token_twice", "GET", avviso + "?" + tok + "=v2-ok&" + tok + "=v2-ok", nil, 400, tok},
			{"token_twice_beside_the_right_uuid", "GET", avviso + "?UUID=" + p.UUID + "&" + tok + "=v2-fail&" + tok + "=v2-ok", nil, 400, tok},
			{"token_twice_on_a_payment", "POST", pgPublic + "/pagamenti?" + tok + "=v2-ok&" + tok + "=v2-ok", nil, 400, tok},
			{"token_header_once_passes", "GET", avviso, []reqOpt{withHeader(tok, "v2-ok")}, 200, ""},
			{"failing_then_passing_token_header", "GET", avviso, []reqOpt{withHeader(tok, "v2-fail"), alsoHeader(tok, "v2-ok")}, 400, tok},
			{"token_header_twice_beside_the_right_uuid", "GET", avviso + "?UUID=" + p.UUID, []reqOpt{withHeader(tok, "v2-ok"), alsoHeader(tok, "v2-ok")}, 400, tok},
			{"token_header_twice_on_a_payment", "POST", pgPublic + "/pagamenti", []reqOpt{withHeader(tok, "v2-ok"), alsoHeader(tok, "v2-ok")}, 400, tok},
			{"query_token_leaves_the_header_unread", "GET", avviso + "?" + tok + "=v2-ok", []reqOpt{withHeader(tok, "v2-fail"), alsoHeader(tok, "v2-fail")}, 200, ""},
			{"uuid_is_no_parameter_of_a_payment", "POST", pgPublic + "/pagamenti?UUID=a&UUID=b&" + tok + "=v2-ok", nil, 201, ""},
			{"other_mount_reads_no_uuid", "GET", pg + "/avvisi/" + d1 + "/" + p.NumeroAvviso + "?UUID=a&UUID=b", []reqOpt{as("appA")}, 200, ""},
		})
	})
	w.protect(t, true, sv.URL, true, map[string]any{"parametro": "captcha"})
	t.Run("protection_on_other_parametro", func(t *testing.T) {
		run(t, []tcase{
			{"token_twice", "GET", avviso + "?captcha=v2-ok&captcha=v2-ok", nil, 400, "captcha"},
			{"default_name_unread", "GET", avviso + "?" + tok + "=v2-ok&" + tok + "=v2-ok", nil, 403, ""},
		})
	})
	w.protect(t, false, sv.URL, true, nil)
	t.Run("protection_off", func(t *testing.T) {
		run(t, []tcase{
			{"uuid_twice_unread", "GET", avviso + "?UUID=" + wrong + "&UUID=" + p.UUID, nil, 200, ""},
			{"token_twice_unread", "GET", avviso + "?" + tok + "=v2-fail&" + tok + "=v2-ok", nil, 200, ""},
		})
	})
}

// TestMalformedQueryIsRefused: a query pair Go's url.ParseQuery cannot
// read (a bad percent-escape, a ';', which Go no longer takes for '&')
// was silently left out, so GET /domini?idDominio=%zz or
// ?idDominio=111;x answered the list unfiltered, and
// ?pagina=1&pagina=2;x page 1 without the 400 of a parameter given twice.
// An operation that reads its query now answers such a query 400 SINTASSI,
// after its gate; one that reads none ignores it, as it ignores any
// parameter it does not read (API.md section 2).
func TestMalformedQueryIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.putEntity(t, d1)
	h.putEntity(t, d2)
	const detail = "the query string is malformed: a pair holds a ';' or a bad %-escape, or there are more than 10000"
	for _, c := range []struct {
		name, path string
		opt        reqOpt
		status     int
		codice     string
	}{
		{"bad_escape_in_a_filter", bo + "/domini?idDominio=%zz", asAdmin(), 400, "SINTASSI"},
		{"semicolon_in_a_filter", bo + "/domini?idDominio=" + d1 + ";x", asAdmin(), 400, "SINTASSI"},
		{"semicolon_hides_a_second_value", bo + "/domini?pagina=1&pagina=2;x", asAdmin(), 400, "SINTASSI"},
		{"bad_escape_in_a_name", bo + "/domini?%zz=1&idDominio=" + d1, asAdmin(), 400, "SINTASSI"},
		{"more_pairs_than_go_parses", bo + "/domini?idDominio=" + d1 + strings.Repeat("&", 10000), asAdmin(), 400, "SINTASSI"},
		{"gate_first", bo + "/domini?idDominio=%zz", nil, 401, "401000"},
		{"empty_pairs_are_no_pairs", bo + "/domini?&&idDominio=" + d1 + "&&", asAdmin(), 200, ""},
		{"operation_reading_no_query", bo + "/domini/" + d1 + "?x=%zz", asAdmin(), 200, ""},
		{"escapes_that_decode_are_read", bo + "/domini?idDominio=%31", asAdmin(), 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var opts []reqOpt
			if c.opt != nil {
				opts = append(opts, c.opt)
			}
			res := h.do(t, "GET", c.path, nil, opts...)
			if c.status == 400 {
				res.expectDetail(t, c.status, c.codice, detail)
				return
			}
			res.expect(t, c.status, c.codice)
		})
	}
}
