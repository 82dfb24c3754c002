package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// The list benchmark renders the Pendenze page server-side (handler,
// scope decisions, template) against read models holding 1,000,000
// pendenze over 100 entities, for an operator scoped to one entity.

const (
	benchEntities = 100
	benchPendenze = 1_000_000
)

type feeder struct {
	m   *projections.ReadModel
	pos events.Position
}

func (f *feeder) commit(tb testing.TB, evs ...events.Event) {
	tb.Helper()
	f.pos++
	if err := f.m.ApplyCommit(f.pos, evs...); err != nil {
		tb.Fatal(err)
	}
}

func entityID(i int) string { return fmt.Sprintf("%011d", 10_000_000_000+i) }

var bench struct {
	once sync.Once
	m    *projections.ReadModel
}

// benchModel builds (once per test binary) the read models: entities, a
// role over entity 7 only, its operator, and the pendenze.
func benchModel(tb testing.TB, pendenze int) *projections.ReadModel {
	build := func() *projections.ReadModel {
		m := projections.New()
		f := &feeder{m: m}
		for i := range benchEntities {
			f.commit(tb, events.CreditorEntityRegistered{IDDominio: entityID(i), RagioneSociale: fmt.Sprintf("Comune %d", i), Enabled: true})
		}
		f.commit(tb, events.PendenzaTypeRegistered{IDTipoPendenza: "TARI", Descrizione: "Tassa rifiuti", Enabled: true})
		f.commit(tb, events.RoleDefined{IDRuolo: "ente7", ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}},
			Domini: []string{entityID(7)}, TipiPendenza: []string{"*"}})
		f.commit(tb, events.OperatorRegistered{Principal: "op7", RagioneSociale: "Operatore", Enabled: true, Roles: []string{"ente7"}})
		for i := range pendenze {
			f.commit(tb, events.PendenzaCreated{IDA2A: fmt.Sprintf("app%02d", i%50), IDPendenza: fmt.Sprintf("P%07d", i),
				IDDominio: entityID(i % benchEntities), IDTipoPendenza: "TARI", Causale: "Tassa rifiuti",
				AmountCents: 12345, Payer: events.Subject{Tipo: "F", Identificativo: fmt.Sprintf("RSSMRA80A01H%04d", i%10000), Anagrafica: "Mario Rossi"},
				NumeroAvviso: fmt.Sprintf("%018d", i), UUID: fmt.Sprintf("%032x", i)})
		}
		return m
	}
	if pendenze != benchPendenze {
		return build()
	}
	bench.once.Do(func() { bench.m = build() })
	return bench.m
}

// internalFault answers every error 500: these tests render no failure
// (the HTTP layer's mapping is Deps.Fault in production and in the
// console tests of package httpapi).
func internalFault(error) Fault {
	return Fault{Status: http.StatusInternalServerError, Codice: "500000"}
}

// noImporto reads no amount: these tests record no incasso (the HTTP
// layer's reading is Deps.Importo in production and in the console tests
// of package httpapi).
func noImporto(string) (int64, error) { return 0, errors.New("no amounts in these tests") }

// sessionFor returns a console over m and a session cookie of principal.
func sessionFor(tb testing.TB, m *projections.ReadModel, principal string) (*Console, *http.Cookie) {
	tb.Helper()
	c, err := New(Config{}, Deps{Model: m, Token: func(p events.Position) string { return fmt.Sprint(p) }, Fault: internalFault, Importo: noImporto})
	if err != nil {
		tb.Fatal(err)
	}
	rec, ok := m.Lookup(principal)
	if !ok {
		tb.Fatalf("no principal %s", principal)
	}
	id, _ := c.sessions.start(rec, domain.AuthSPID)
	return c, &http.Cookie{Name: CookieName, Value: id}
}

func listPage(tb testing.TB, c *Console, ck *http.Cookie, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	req.AddCookie(ck)
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, req)
	return rec
}

func TestPendenzeListScopedAndPaged(t *testing.T) {
	m := benchModel(t, 2_000) // 20 per entity
	c, ck := sessionFor(t, m, "op7")
	rec := listPage(t, c, ck, "/console/pendenze?idDominio="+entityID(7))
	body := rec.Body.String()
	if rec.Code != 200 || strings.Count(body, `<tr><td><a href="/console/pendenze/`) != 20 {
		t.Fatalf("status %d, rows %d", rec.Code, strings.Count(body, `<tr><td><a href="/console/pendenze/`))
	}
	if !strings.Contains(body, "P0001907") || strings.Contains(body, "P0001908") {
		t.Fatal("the page shows another entity's pendenze or misses the newest")
	}
	// Another entity lists nothing, as GET /pendenze?idDominio= does.
	if rec := listPage(t, c, ck, "/console/pendenze?idDominio="+entityID(8)); rec.Code != http.StatusOK ||
		!strings.Contains(rec.Body.String(), "Nessuna pendenza.") || strings.Contains(rec.Body.String(), "P0001908") {
		t.Fatalf("another entity: status %d", rec.Code)
	}
}

func BenchmarkConsolePendenzeList(b *testing.B) {
	m := benchModel(b, benchPendenze)
	c, ck := sessionFor(b, m, "op7")
	path := "/console/pendenze?idDominio=" + entityID(7) + "&pagina=3"
	if rec := listPage(b, c, ck, path); rec.Code != 200 ||
		strings.Count(rec.Body.String(), `<tr><td><a href="/console/pendenze/`) != perPage {
		b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		listPage(b, c, ck, path)
	}
}

// BenchmarkPendenzeFullScan is, for comparison, the same entity's
// pendenze found by scanning every pendenza (what a list without the
// entity index costs).
func BenchmarkPendenzeFullScan(b *testing.B) {
	m := benchModel(b, benchPendenze)
	d := entityID(7)
	b.ResetTimer()
	for b.Loop() {
		m.Pendenze(projections.PendenzeFilter{Keep: func(v domain.PendenzaView) bool { return v.IDDominio == d }})
	}
}
