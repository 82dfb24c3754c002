package projections_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections"
)

// logFixture is a JetStream log written by the first wire format (one JSON
// array of {id, name, actor, correlationId, time, data} per commit), kept
// byte for byte: events already written must stay readable forever.
// PAYAUTHZ_WRITE_LOG_FIXTURE=1 writes it again from fixtureCommits with
// the current Append (only ever do so to add a fixture of a new format).
const logFixture = "testdata/log-format1.jsonl"

// fixtureLine is one stored message: its subject's stream and its bytes.
type fixtureLine struct {
	Stream string `json:"stream"`
	Data   string `json:"data"`
}

const fixturePassword = "fixture-password-1"

type fixtureCommit struct {
	stream string
	evs    []events.Event
}

// fixtureCommits is the world of the fixture: every kind of event the read
// models fold, a multi-event commit, an update and a payment that settles
// a pendenza.
func fixtureCommits(hash string) []fixtureCommit {
	payer := events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "Mario Rossi", Email: "mario@example.org"}
	return []fixtureCommit{
		{"entity/01234567890", []events.Event{events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "Comune di Prova", IDIntermediario: "INT01", Enabled: true}}},
		{"type/TARI", []events.Event{events.PendenzaTypeRegistered{IDTipoPendenza: "TARI", Descrizione: "Tassa rifiuti", Enabled: true}}},
		{"intermediary/INT01", []events.Event{events.IntermediaryRegistered{IDIntermediario: "INT01", Denominazione: "Intermediario", Enabled: true, ConnectorPrincipal: "nodo"}}},
		{"role/Lettore", []events.Event{events.RoleDefined{IDRuolo: "Lettore", ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}},
			Domini: []string{"01234567890"}, TipiPendenza: []string{}}}},
		{"application/gestionale", []events.Event{
			events.ApplicationRegistered{IDA2A: "gestionale", Principal: "gestionale", PasswordHash: hash, Enabled: true, Roles: []string{}},
			events.ApplicationAPIAuthorized{IDA2A: "gestionale", API: "PENDENZE", Domini: []string{"01234567890"}, TipiPendenza: []string{"*"}},
			events.ApplicationAPIAuthorized{IDA2A: "gestionale", API: "PAGAMENTO", Domini: []string{"*"}, TipiPendenza: []string{}},
		}},
		{"application/gestionale", []events.Event{events.ApplicationAPIRevoked{IDA2A: "gestionale", API: "PAGAMENTO"}}},
		{"operator/mario", []events.Event{events.OperatorRegistered{Principal: "mario", RagioneSociale: "Mario", PasswordHash: hash, Enabled: true, Roles: []string{"Lettore"}}}},
		{"pendenza/gestionale/P001", []events.Event{events.PendenzaCreated{IDA2A: "gestionale", IDPendenza: "P001", IDDominio: "01234567890",
			IDTipoPendenza: "TARI", Causale: "Tassa rifiuti 2026", AmountCents: 12345, Payer: payer, NumeroAvviso: "301000000000000001", UUID: "c0ffee"}}},
		{"pendenza/gestionale/P002", []events.Event{events.PendenzaCreated{IDA2A: "gestionale", IDPendenza: "P002", IDDominio: "01234567890",
			IDTipoPendenza: "TARI", Causale: "Tassa \"rifiuti\" è € 2026", AmountCents: 500, NumeroAvviso: "301000000000000002", UUID: "beef"}}},
		{"pendenza/gestionale/P002", []events.Event{events.PendenzaUpdated{IDA2A: "gestionale", IDPendenza: "P002", IDDominio: "01234567890",
			IDTipoPendenza: "TARI", Causale: "Tassa rifiuti, rettifica", AmountCents: 700, Payer: payer, NumeroAvviso: "301000000000000002", UUID: "beef"}}},
		{"payment/PAY1", []events.Event{events.PaymentStarted{ID: "PAY1", CallerKind: "APPLICATION", CallerID: "gestionale",
			Items: []events.PaymentItem{{IDA2A: "gestionale", IDPendenza: "P001", IDDominio: "01234567890", IDTipoPendenza: "TARI",
				NumeroAvviso: "301000000000000001", AmountCents: 12345}}}}},
		{"receipt/01234567890/R1", []events.Event{events.ReceiptRecorded{IDRicevuta: "R1", IDIntermediario: "INT01", IDDominio: "01234567890",
			NumeroAvviso: "301000000000000001", IDA2A: "gestionale", IDPendenza: "P001", PaymentID: "PAY1", AmountCents: 12345,
			Esito: "ESEGUITO", DataPagamento: "2026-11-22"}}},
	}
}

// TestWriteLogFixture writes logFixture with the current Append when
// PAYAUTHZ_WRITE_LOG_FIXTURE=1; otherwise it is skipped.
func TestWriteLogFixture(t *testing.T) {
	if os.Getenv("PAYAUTHZ_WRITE_LOG_FIXTURE") != "1" {
		t.Skip("set PAYAUTHZ_WRITE_LOG_FIXTURE=1 to write " + logFixture)
	}
	ctx := context.Background()
	s := jetstreamtest.Open(t)
	hash, err := domain.HashPassword(fixturePassword)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	versions := map[string]events.Version{}
	for i, c := range fixtureCommits(hash) {
		recs := make([]events.Record, len(c.evs))
		for j, e := range c.evs {
			recs[j] = events.Record{Event: e, Actor: "APPLICATION:gestionale", CorrelationID: "corr-fixture",
				Time: at.Add(time.Duration(i) * time.Minute)}
		}
		pos, err := s.Append(ctx, c.stream, events.ExpectVersion(versions[c.stream]), recs...)
		if err != nil {
			t.Fatal(err)
		}
		versions[c.stream] = events.Version(pos)
	}
	f, err := os.Create(logFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	last, err := s.LastPosition(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := s.JetStream().Stream(ctx, s.StreamName())
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= uint64(last); seq++ {
		msg, err := stream.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		name, err := jetstream.StreamFor("payauthz.ev", msg.Subject)
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(fixtureLine{Stream: name, Data: string(msg.Data)}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReplayFirstFormatLog stores the fixture's messages as they were
// written and replays them into every read model.
func TestReplayFirstFormatLog(t *testing.T) {
	ctx := context.Background()
	s := jetstreamtest.Open(t)
	f, err := os.Open(filepath.FromSlash(logFixture))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var stored [][]byte
	for sc.Scan() {
		var l fixtureLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if _, err := s.JetStream().PublishMsg(ctx, &nats.Msg{Subject: s.Subject(l.Stream), Data: []byte(l.Data)}); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, []byte(l.Data))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(fixtureCommits("")) {
		t.Fatalf("fixture holds %d commits, want %d", len(stored), len(fixtureCommits("")))
	}

	m := projections.New()
	if err := m.CatchUp(ctx, s, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	if got, want := m.AppliedEvents(), uint64(14); got != want {
		t.Fatalf("applied %d events, want %d", got, want)
	}

	p1, ok := m.Pendenza("gestionale", "P001")
	if !ok || p1.Stato != projections.StatoEseguita || p1.AmountCents != 12345 || p1.Payer.Email != "mario@example.org" ||
		p1.IDDominio != "01234567890" || p1.NumeroAvviso != "301000000000000001" || p1.UUID != "c0ffee" {
		t.Fatalf("P001 = %+v, %v; want the paid pendenza", p1, ok)
	}
	p2, ok := m.Pendenza("gestionale", "P002")
	if !ok || p2.Stato != projections.StatoNonEseguita || p2.Causale != "Tassa rifiuti, rettifica" || p2.AmountCents != 700 ||
		p2.Payer.Identificativo != "RSSMRA80A01H501U" {
		t.Fatalf("P002 = %+v, %v; want the updated pendenza", p2, ok)
	}
	if _, ok := m.Pendenza("gestionale", "P003"); ok {
		t.Fatal("P003 found; the fixture has no such pendenza")
	}
	if got := m.Pendenze(projections.PendenzeFilter{Payer: "RSSMRA80A01H501U"}); len(got) != 2 {
		t.Fatalf("payer's pendenze = %d, want 2", len(got))
	}

	app, ok := m.Application("gestionale")
	if !ok || !app.Enabled || len(app.Grants) != 1 || len(app.Roles) != 0 {
		t.Fatalf("application = %+v, %v; want one grant (PAGAMENTO revoked) and no roles", app, ok)
	}
	if _, err := m.Authenticate("gestionale", fixturePassword); err != nil {
		t.Fatalf("authenticate with the fixture's password: %v", err)
	}
	if _, err := m.Authenticate("gestionale", "wrong-password-1"); err == nil {
		t.Fatal("authenticate with a wrong password succeeded")
	}
	role, ok := m.Role("Lettore")
	if !ok || role.Event.TipiPendenza == nil || len(role.Event.TipiPendenza) != 0 || len(role.Event.Domini) != 1 {
		t.Fatalf("role = %+v, %v; want one entity and an empty (not absent) type list", role, ok)
	}
	if ent, ok := m.Entity("01234567890"); !ok || ent.RagioneSociale != "Comune di Prova" || !ent.Enabled {
		t.Fatalf("entity = %+v, %v", ent, ok)
	}
	if pay, ok := m.Payment("PAY1"); !ok || pay.Paid != 1 {
		t.Fatalf("payment = %+v, %v; want one item paid", pay, ok)
	}
	if r, ok := m.Receipt("01234567890", "R1"); !ok || r.Event.Esito != "ESEGUITO" {
		t.Fatalf("receipt = %+v, %v", r, ok)
	}

	// Read hands each event's payload out as stored, with the envelope
	// fields of the commit.
	var envs []events.Envelope
	if err := s.Read(ctx, 0, func(_ context.Context, env events.Envelope) error {
		envs = append(envs, env)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, env := range envs {
		var commit []struct {
			ID   string          `json:"id"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(stored[env.Position-1], &commit); err != nil {
			t.Fatal(err)
		}
		w := commit[env.Index]
		if env.ID != w.ID || string(env.Data) != string(w.Data) || env.CommitSize != len(commit) {
			t.Fatalf("envelope at %d/%d = %s %q, want %s %q", env.Position, env.Index, env.ID, env.Data, w.ID, w.Data)
		}
		if env.Actor != "APPLICATION:gestionale" || env.CorrelationID != "corr-fixture" || env.Time.Year() != 2026 {
			t.Fatalf("envelope at %d: actor %q, correlation %q, time %v", env.Position, env.Actor, env.CorrelationID, env.Time)
		}
	}
}
