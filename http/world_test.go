package httpapi

import (
	"crypto/x509/pkix"
	"encoding/json"
	"testing"
)

// world is a populated service shared by the matrix tests: two entities,
// types, roles of different scopes, operators and applications of every
// kind the contract distinguishes.
type world struct {
	*harness
}

const (
	d1     = "11111111111"
	d2     = "22222222222"
	dNone  = "99999999999" // never registered
	t1     = "TARI"
	tSpont = "DONAZIONE"
	pw     = "password-123"

	citizen1 = "RSSMRA80A01H501U" // payer of pendenze of appA
	citizen2 = "VRDLGU70B02F205X" // payer of nothing
)

var allServices = []string{"Anagrafica PagoPA", "Anagrafica Creditore", "Anagrafica Applicazioni", "Anagrafica Ruoli",
	"Pagamenti", "Pendenze", "Rendicontazioni e Incassi", "Giornale degli Eventi", "Configurazione e manutenzione"}

func fullACL(rights ...string) acl {
	var out acl
	for _, s := range allServices {
		out = append(out, aclOf(s, rights...))
	}
	return out
}

// sslSubject is the DN of the application that authenticates with a
// client certificate.
var sslSubject = pkix.Name{CommonName: "app-ssl", Organization: []string{"Ente"}, Country: []string{"IT"}}

func newWorld(t testing.TB, opts ...harnessOption) *world {
	t.Helper()
	h := newHarness(t, opts...)
	h.putEntity(t, d1)
	h.putEntity(t, d2)
	h.putType(t, t1, false)
	h.putType(t, tSpont, true)

	h.putRole(t, "opD1", fullACL("R", "W"), []string{d1}, []string{"*"})
	h.putRole(t, "readOnly", fullACL("R"), []string{"*"}, []string{"*"})
	h.putOperator(t, "opD1", pw, true, "opD1")
	h.putOperator(t, "opRO", pw, true, "readOnly")
	h.putOperator(t, "opDisabled", pw, false, "Amministratore")
	h.putOperator(t, "opNoRole", pw, true)

	h.putApp(t, "appA", "appA", pw, true,
		apiGrant("PENDENZE", []string{d1}, []string{"*"}),
		apiGrant("PAGAMENTO", []string{d1}, []string{"*"}),
		apiGrant("RAGIONERIA", []string{d1}, []string{"*"}))
	h.putApp(t, "appB", "appB", pw, true,
		apiGrant("PENDENZE", []string{"*"}, []string{"*"}),
		apiGrant("PAGAMENTO", []string{d2}, []string{"*"}),
		apiGrant("RAGIONERIA", []string{d2}, []string{"*"}))
	h.putApp(t, "appC", "appC", pw, true, apiGrant("RAGIONERIA", []string{d1}, []string{"*"}))
	h.putApp(t, "appNone", "appNone", pw, true)
	h.putApp(t, "appDisabled", "appDisabled", pw, false, apiGrant("PENDENZE", []string{"*"}, []string{"*"}),
		apiGrant("PAGAMENTO", []string{"*"}, []string{"*"}), apiGrant("RAGIONERIA", []string{"*"}, []string{"*"}))
	h.putApp(t, "appSSL", "CN=app-ssl, O=Ente, C=IT", "", true, apiGrant("PENDENZE", []string{d1}, []string{"*"}))
	return &world{harness: h}
}

func as(user string) reqOpt { return asBasic(user, pw) }

// pendenzaBodyFor is a valid pendenza body.
func pendenzaBodyFor(dominio, tipo, payer string) map[string]any {
	return map[string]any{"idTipoPendenza": tipo, "idDominio": dominio, "causale": "Tassa rifiuti 2026",
		"importo": 123.45, "soggettoPagatore": map[string]any{"tipo": "F", "identificativo": payer, "anagrafica": "Mario Rossi"}}
}

// payOwn starts, as app, the payment of its pendenza id and returns the
// payment's id.
func (w *world) payOwn(t testing.TB, app, id string) string {
	t.Helper()
	var pay struct{ ID string }
	w.must(t, "POST", "/pagamento/rs/basic/v2/pagamenti", map[string]any{"pendenze": []map[string]any{{"idA2A": app, "idPendenza": id}}}, as(app)).decode(t, &pay)
	return pay.ID
}

// createPendenza creates a pendenza as app and returns its view.
func (w *world) createPendenza(t testing.TB, app, id, dominio, tipo, payer string) pendenzaView {
	t.Helper()
	r := w.must(t, "PUT", "/pendenze/rs/basic/v2/pendenze/"+app+"/"+id, pendenzaBodyFor(dominio, tipo, payer), as(app))
	var v pendenzaView
	r.decode(t, &v)
	return v
}

// payAcrossEntities has citizen1 pay, in one payment on the spid mount,
// a pendenza of appA at d1 and one of appB at d2 (ids prefix-1, prefix-2):
// a payment whose items lie in two entities' scopes.
func (w *world) payAcrossEntities(t testing.TB, prefix string) (pa, pb pendenzaView, pay pagamentoCreated) {
	t.Helper()
	pa = w.createPendenza(t, "appA", prefix+"-1", d1, t1, citizen1)
	pb = w.createPendenza(t, "appB", prefix+"-2", d2, t1, citizen1)
	w.must(t, "POST", "/pagamento/rs/spid/v2/pagamenti", map[string]any{"pendenze": []map[string]any{
		{"idDominio": d1, "numeroAvviso": pa.NumeroAvviso}, {"idDominio": d2, "numeroAvviso": pb.NumeroAvviso}}},
		asSPID(citizen1)).decode(t, &pay)
	return pa, pb, pay
}

func sslSubject2() pkix.Name {
	return pkix.Name{CommonName: "stranger", Organization: []string{"Ente"}, Country: []string{"IT"}}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
