package projections

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
)

// scriptedLog is a log touching every projector, with the updates that
// make snapshots tricky: role redefinitions after their holders,
// password changes, grants and revokes, scopes limited to operational
// units (role, personal role, grant), a renamed application principal,
// payer and notice changes (one to a payer who already pays pendenze
// created later), receipts that mark pendenze paid, and commits
// of several events.
func scriptedLog(t testing.TB) [][]events.Event {
	t.Helper()
	hash := mustHash(t, "password-1")
	hash2 := mustHash(t, "password-2")
	var log [][]events.Event
	add := func(evs ...events.Event) { log = append(log, evs) }
	add(events.RoleDefined{IDRuolo: "Amministratore", ACL: adminACL, Domini: []string{"*"}, TipiPendenza: []string{"*"}},
		events.OperatorRegistered{Principal: "admin", RagioneSociale: "Admin", PasswordHash: hash, Enabled: true, Roles: []string{"Amministratore"}})
	add(events.IntermediaryRegistered{IDIntermediario: "INT1", Denominazione: "Int", Enabled: true, ConnectorPrincipal: "conn", ConnectorPasswordHash: hash})
	for d := range 3 {
		add(events.CreditorEntityRegistered{IDDominio: fmt.Sprintf("%011d", d), RagioneSociale: "Ente", IDIntermediario: "INT1", Enabled: true})
	}
	add(events.UnitRegistered{IDDominio: "00000000001", IDUnita: "UO1", RagioneSociale: "Ufficio", Enabled: true,
		Contacts: events.Contacts{Localita: "Roma"}})
	add(events.PendenzaTypeRegistered{IDTipoPendenza: "TARI", Descrizione: "Tari", Enabled: true})
	add(events.PendenzaTypeRegistered{IDTipoPendenza: "DON", Descrizione: "Donazione", Enabled: true, Spontaneous: true})
	add(events.RoleDefined{IDRuolo: "ro", ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}}, Domini: []string{"00000000001"}, TipiPendenza: []string{"*"}})
	add(events.OperatorRegistered{Principal: "op1", RagioneSociale: "Op", PasswordHash: hash, Enabled: true, Roles: []string{"ro"},
		PersonalRole: events.PersonalRole{ACL: []events.ACLEntry{{Service: "Pagamenti", Rights: []string{"R"}}}, Domini: []string{"00000000002"}, TipiPendenza: []string{"*"}}})
	add(events.ApplicationRegistered{IDA2A: "appPers", Principal: "appPers", PasswordHash: hash, Enabled: true, Roles: []string{},
		PersonalRole:      events.PersonalRole{ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R", "W"}}}, Domini: []string{"*"}, TipiPendenza: []string{"TARI"}},
		ApplicationFields: events.ApplicationFields{CodificaAvvisi: &events.CodificaAvvisi{CodificaIuv: "01"}, ServizioIntegrazione: []byte(`{"url":"https://x"}`)}})
	add(events.OperatorRegistered{Principal: "CN=op-ssl, O=Ente, C=IT", RagioneSociale: "Op ssl", Enabled: true, Roles: []string{"ro"}})
	for a := range 4 {
		id := fmt.Sprintf("app%d", a)
		add(events.ApplicationRegistered{IDA2A: id, Principal: id, PasswordHash: hash, Enabled: true, Roles: []string{}},
			events.ApplicationAPIAuthorized{IDA2A: id, API: "PENDENZE", Domini: []string{"*"}, TipiPendenza: []string{"*"}},
			events.ApplicationAPIAuthorized{IDA2A: id, API: "PAGAMENTO", Domini: []string{"00000000000"}, TipiPendenza: []string{"TARI"}})
	}
	// Scopes limited to operational units, in each place a scope is held.
	uo := map[string][]string{"00000000001": {"UO1"}}
	add(events.RoleDefined{IDRuolo: "uo", ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}}, Domini: []string{}, UnitaOperative: uo, TipiPendenza: []string{"*"}})
	add(events.ApplicationRegistered{IDA2A: "appUO", Principal: "appUO", PasswordHash: hash, Enabled: true, Roles: []string{"uo"},
		PersonalRole: events.PersonalRole{ACL: []events.ACLEntry{{Service: "Pagamenti", Rights: []string{"R"}}}, Domini: []string{"00000000002"}, UnitaOperative: uo, TipiPendenza: []string{"*"}}},
		events.ApplicationAPIAuthorized{IDA2A: "appUO", API: "PENDENZE", Domini: []string{"00000000000"}, UnitaOperative: uo, TipiPendenza: []string{"TARI"}})
	add(events.PendenzaCreated{IDA2A: "pagopa-portale", IDPendenza: "anon1", IDDominio: "00000000001", IDTipoPendenza: "DON",
		Causale: "dono", AmountCents: 500, Payer: events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "M"},
		NumeroAvviso: "300000000000000999", UUID: "cafe", SessionHash: "5e55"}) // an anonymous caller's
	add(events.PublicAPIProtectionConfigured{Enabled: true, Captcha: events.CaptchaSettings{ServerURL: "http://captcha", SecretKey: "s", Soglia: 0.5, Parametro: "g", DenyOnFail: true, TimeoutMs: 1000}})
	for i := range 40 {
		app := fmt.Sprintf("app%d", i%4)
		payer := events.Subject{Tipo: "F", Identificativo: fmt.Sprintf("rssmra80a01h50%dU", i%5), Anagrafica: "M"}
		if i%5 == 1 { // GovPay's address fields, which a snapshot must keep too
			payer.Email, payer.Indirizzo, payer.Civico, payer.CAP, payer.Localita = "m@example.it", "Via Roma", "1", "00100", "Roma"
			payer.Provincia, payer.Nazione, payer.Cellulare = "RM", "IT", "+39 333 0000000"
		}
		created := events.PendenzaCreated{IDA2A: app, IDPendenza: fmt.Sprintf("P%03d", i), IDDominio: fmt.Sprintf("%011d", i%3),
			IDTipoPendenza: "TARI", Causale: "c", AmountCents: int64(100 + i),
			Payer:        payer,
			NumeroAvviso: fmt.Sprintf("%018d", i), UUID: fmt.Sprintf("%032x", i)}
		if i%4 == 2 { // GovPay's details, which a snapshot keeps
			created.Voci, created.PendenzaFields = vociOfEveryKind[:1+i%3], fieldsOfEveryKind
		}
		add(created)
		if i%7 == 3 {
			add(events.PaymentStarted{ID: fmt.Sprintf("pay%d", i), CallerKind: "APPLICATION", CallerID: app,
				Remitter: &events.Subject{Tipo: "F", Identificativo: "vrdlgu70b02f205x"},
				Items: []events.PaymentItem{{IDA2A: app, IDPendenza: fmt.Sprintf("P%03d", i), IDDominio: fmt.Sprintf("%011d", i%3),
					IDTipoPendenza: "TARI", NumeroAvviso: fmt.Sprintf("%018d", i), AmountCents: int64(100 + i), PayerID: "x"}}})
		}
		if i%7 == 5 {
			add(events.ReceiptRecorded{IDRicevuta: fmt.Sprintf("R%d", i), IDIntermediario: "INT1", IDDominio: fmt.Sprintf("%011d", (i-2)%3),
				NumeroAvviso: fmt.Sprintf("%018d", i-2), IDA2A: fmt.Sprintf("app%d", (i-2)%4), IDPendenza: fmt.Sprintf("P%03d", i-2),
				PaymentID: fmt.Sprintf("pay%d", i-2), AmountCents: int64(98 + i), Esito: "ESEGUITO", DataPagamento: "2026-11-22"})
		}
		if i%10 == 9 {
			add(events.PendenzaUpdated{IDA2A: app, IDPendenza: fmt.Sprintf("P%03d", i-1), IDDominio: fmt.Sprintf("%011d", (i+1)%3),
				IDTipoPendenza: "TARI", Causale: "changed", AmountCents: 1, Payer: events.Subject{Tipo: "F", Identificativo: "NEWPAYER00000000"},
				NumeroAvviso: fmt.Sprintf("%018d", 1000+i), UUID: "u", PendenzaDetails: events.PendenzaDetails{Voci: vociOfEveryKind[i%3:]}})
		}
		switch i {
		case 10:
			add(events.ApplicationAPIRevoked{IDA2A: "app1", API: "PAGAMENTO"})
		case 12:
			// P000 moves to the payer of P001, P006 and P011, all created
			// after it: a replay and a restore must order that payer's
			// index alike.
			add(events.PendenzaUpdated{IDA2A: "app0", IDPendenza: "P000", IDDominio: "00000000000", IDTipoPendenza: "TARI",
				Causale: "c", AmountCents: 100, Payer: events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "M"},
				NumeroAvviso: fmt.Sprintf("%018d", 0), UUID: fmt.Sprintf("%032x", 0)})
		case 15:
			add(events.RoleDefined{IDRuolo: "ro", ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R", "W"}}}, Domini: []string{"*"}, TipiPendenza: []string{"TARI"}})
		case 20:
			add(events.OperatorUpdated{Principal: "op1", RagioneSociale: "Op", PasswordHash: hash2, Enabled: false, Roles: []string{"ro", "Amministratore"}})
		case 25:
			add(events.ApplicationUpdated{IDA2A: "app2", Principal: "app2-renamed", Enabled: true, Roles: []string{"ro"}})
		case 30:
			add(events.SettlementReportRecorded{IDFlusso: "F1", IDDominio: "00000000000", IDIntermediario: "INT1", DataFlusso: "2026-11-22", TotalCents: 10,
				Items: []events.SettlementItem{{NumeroAvviso: "000000000000000003", AmountCents: 10, Esito: 0}}},
				events.ReconciliationCreated{IDDominio: "00000000000", ID: "RC1", IDA2A: "app0", AmountCents: 10, Causale: "c", IDFlusso: "F1"})
			add(events.IncassoRecorded{IDDominio: "00000000000", IDIncasso: "INC1", Causale: "riversamento", AmountCents: 10, IDFlusso: "F1",
				DataValuta: "2026-11-23"})
			// A cancelled pendenza, and a paid one a cancellation does not reopen.
			add(events.PendenzaStatusChanged{IDA2A: "app1", IDPendenza: "P001", IDDominio: "00000000001", IDTipoPendenza: "TARI", Stato: "ANNULLATA", DescrizioneStato: "duplicata"},
				events.PendenzaStatusChanged{IDA2A: "app3", IDPendenza: "P003", IDDominio: "00000000000", IDTipoPendenza: "TARI", Stato: "ANNULLATA"})
		case 35:
			add(events.IntermediaryUpdated{IDIntermediario: "INT1", Denominazione: "Int 2", Enabled: true, ConnectorPrincipal: "conn"})
			add(events.CreditorEntityUpdated{IDDominio: "00000000001", RagioneSociale: "Ente 1", Enabled: false})
		}
	}
	return log
}

func feedAll(t testing.TB, m *ReadModel, log [][]events.Event, from, to int) {
	t.Helper()
	base := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for c := from; c < to; c++ {
		pos := events.Position(c + 1)
		for i, e := range log[c] {
			env := events.Envelope{ID: fmt.Sprintf("e%d-%d", pos, i), Name: e.EventName(), Position: pos, Version: events.Version(pos),
				Index: i, CommitSize: len(log[c]), Time: base.Add(time.Duration(c) * time.Second), Event: e}
			if err := m.Apply(env); err != nil {
				t.Fatalf("apply %s at %d: %v", e.EventName(), pos, err)
			}
		}
	}
}

// encodedState is the canonical encoding of every read model: a
// snapshot's body.
func encodedState(t testing.TB, m *ReadModel) []byte {
	t.Helper()
	st, err := m.state()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := encodeBody(&b, st); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// assertSameModels compares two read models: their snapshot encoding and
// their whole structures, every table and index (see modelDiff).
func assertSameModels(t *testing.T, got, want *ReadModel) {
	t.Helper()
	if !bytes.Equal(encodedState(t, got), encodedState(t, want)) {
		t.Errorf("state differs:\n got %s\nwant %s", encodedState(t, got), encodedState(t, want))
	}
	if d := diffModels(got, want); len(d) > 0 {
		t.Errorf("models differ:\n%s", strings.Join(d, "\n"))
	}
}

func TestSnapshotPlusTailEqualsFullReplay(t *testing.T) {
	log := scriptedLog(t)
	full := New()
	feedAll(t, full, log, 0, len(log))
	for _, cut := range []int{0, 1, len(log) / 3, len(log) / 2, len(log) - 1, len(log)} {
		t.Run(fmt.Sprintf("snapshot_at_commit_%d", cut), func(t *testing.T) {
			dir := t.TempDir()
			head := New()
			feedAll(t, head, log, 0, cut)
			pos, err := head.WriteSnapshot(dir)
			if err != nil {
				t.Fatal(err)
			}
			if pos != events.Position(cut) {
				t.Fatalf("snapshot covers %d, want %d", pos, cut)
			}
			loaded, err := LoadSnapshot(dir)
			if err != nil {
				t.Fatal(err)
			}
			if loaded.AppliedPosition() != pos {
				t.Fatalf("loaded model at %d, want %d", loaded.AppliedPosition(), pos)
			}
			feedAll(t, loaded, log, cut, len(log))
			assertSameModels(t, loaded, full)
			// The loaded model still authenticates (its credential cache starts empty).
			if _, err := loaded.Authenticate("app0", "password-1"); err != nil {
				t.Fatalf("app0 with the right password: %v", err)
			}
			if _, err := loaded.Authenticate("app0", "wrong"); !errors.Is(err, ErrUnauthenticated) {
				t.Fatalf("app0 with a wrong password: %v", err)
			}
		})
	}
}

// TestRestoreRebuildsPayerIndexAsReplay: a pendenza moved to a payer who
// already pays another one comes back from a snapshot in the same place of
// that payer's index as the replay put it.
func TestRestoreRebuildsPayerIndexAsReplay(t *testing.T) {
	x := events.Subject{Tipo: "F", Identificativo: "RSSMRA80A01H501U", Anagrafica: "X"}
	y := events.Subject{Tipo: "F", Identificativo: "VRDLGU70B02F205X", Anagrafica: "Y"}
	pendenza := func(id string, payer events.Subject, avviso string) events.PendenzaCreated {
		return events.PendenzaCreated{IDA2A: "app", IDPendenza: id, IDDominio: "01234567890", IDTipoPendenza: "TARI",
			Causale: id, AmountCents: 100, Payer: payer, NumeroAvviso: avviso, UUID: "u" + id}
	}
	log := [][]events.Event{
		{events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "Ente", Enabled: true}},
		{events.PendenzaTypeRegistered{IDTipoPendenza: "TARI", Descrizione: "Tari", Enabled: true}},
		{pendenza("A", x, "300000000000000001")},
		{pendenza("B", y, "300000000000000002")},
		{events.PendenzaUpdated(pendenza("A", y, "300000000000000001"))}, // A moves to Y, who already pays B
	}
	full := New()
	feedAll(t, full, log, 0, len(log))
	assertSameModels(t, restored(t, full), full)
}

// restored writes a snapshot of m and returns the model loaded from it.
func restored(t *testing.T, m *ReadModel) *ReadModel {
	t.Helper()
	dir := t.TempDir()
	if _, err := m.WriteSnapshot(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

// An application's grant limited to some operational units of an entity
// (ApplicationAPIAuthorized.UnitaOperative) must survive a snapshot: after
// a restart from the snapshot the application may still act in its unit.
func TestSnapshotKeepsGrantUnits(t *testing.T) {
	hash := mustHash(t, "password-1")
	full := New()
	f := &feeder{m: full}
	f.commit(t, events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "Ente", Enabled: true})
	f.commit(t, events.UnitRegistered{IDDominio: "01234567890", IDUnita: "UO1", RagioneSociale: "Ufficio", Enabled: true})
	f.commit(t, events.ApplicationRegistered{IDA2A: "gest", Principal: "gest", PasswordHash: hash, Enabled: true, Roles: []string{}},
		events.ApplicationAPIAuthorized{IDA2A: "gest", API: "PENDENZE", Domini: []string{},
			UnitaOperative: map[string][]string{"01234567890": {"UO1"}}, TipiPendenza: []string{"*"}})

	covers := func(m *ReadModel) bool {
		rec, ok := m.Lookup("gest")
		if !ok {
			t.Fatal("gest not found")
		}
		g, ok := rec.Principal.Grant(domain.APIPendenze)
		return ok && g.Domini.ContainsUnit("01234567890", "UO1")
	}
	if !covers(full) {
		t.Fatal("live model: grant does not cover 01234567890/UO1")
	}
	loaded := restored(t, full)
	if !covers(loaded) {
		app, _ := loaded.Application("gest")
		t.Errorf("after snapshot restore the PENDENZE grant no longer covers unit UO1 of 01234567890: grants %+v", app.Grants)
	}
	assertSameModels(t, loaded, full)
}

func TestLoadSnapshotRefusesWhatItCannotTrust(t *testing.T) {
	log := scriptedLog(t)
	m := New()
	feedAll(t, m, log, 0, len(log))
	good := t.TempDir()
	if _, err := m.WriteSnapshot(good); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(good, SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	verOff := len(snapshotMagic)
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), raw...)) }
	cases := []struct {
		name string
		data []byte // nil: no file
	}{
		{"missing_file", nil},
		{"unknown_version", mutate(func(b []byte) []byte { binary.BigEndian.PutUint32(b[verOff:], SnapshotVersion+1); return b })},
		{"previous_version", mutate(func(b []byte) []byte { binary.BigEndian.PutUint32(b[verOff:], SnapshotVersion-1); return b })}, // an upgrade
		{"version_zero", mutate(func(b []byte) []byte { binary.BigEndian.PutUint32(b[verOff:], 0); return b })},
		{"flipped_body_byte", mutate(func(b []byte) []byte { b[len(b)-10] ^= 0xff; return b })},
		{"flipped_checksum_byte", mutate(func(b []byte) []byte { b[verOff+12] ^= 0x01; return b })},
		{"truncated", raw[:len(raw)-100]},
		{"extra_bytes", append(append([]byte(nil), raw...), 0)},
		{"not_a_snapshot", []byte("hello world, this is not a snapshot at all, really not")},
		{"empty", []byte{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.data != nil {
				if err := os.WriteFile(filepath.Join(dir, SnapshotFile), c.data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := LoadSnapshot(dir)
			if !errors.Is(err, ErrSnapshotUnusable) || got != nil {
				t.Fatalf("LoadSnapshot = %v, %v; want nil, ErrSnapshotUnusable", got, err)
			}
		})
	}
	t.Run("intact_file_loads", func(t *testing.T) {
		got, err := LoadSnapshot(good)
		if err != nil {
			t.Fatal(err)
		}
		assertSameModels(t, got, m)
	})
	t.Run("rewrite_replaces_atomically", func(t *testing.T) {
		if _, err := m.WriteSnapshot(good); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(good)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !reflect.DeepEqual(names, []string{HistoryDir, SnapshotFile}) {
			t.Fatalf("snapshot dir holds %v, want only %s and %s (no temporary file left)", names, HistoryDir, SnapshotFile)
		}
		if fi, _ := os.Stat(filepath.Join(good, SnapshotFile)); fi.Mode().Perm() != 0o600 {
			t.Fatalf("snapshot mode %v, want 0600 (it holds password hashes)", fi.Mode().Perm())
		}
	})
}

// BenchmarkSnapshot measures writing and loading a snapshot of
// PAYAUTHZ_BENCH_EVENTS pendenze (default 100000) without any log I/O.
func BenchmarkSnapshot(b *testing.B) {
	n := jetstreamtest.BenchEvents()
	m := New()
	for i := range n {
		e := events.PendenzaCreated{IDA2A: fmt.Sprintf("app%05d", i%1000), IDPendenza: fmt.Sprintf("P%07d", i),
			IDDominio: fmt.Sprintf("%011d", i%100), IDTipoPendenza: "TARI", Causale: "Tassa rifiuti", AmountCents: 12345,
			Payer:        events.Subject{Tipo: "F", Identificativo: fmt.Sprintf("RSSMRA80A01H%04d", i%10000), Anagrafica: "Mario Rossi"},
			NumeroAvviso: fmt.Sprintf("%018d", i), UUID: fmt.Sprintf("%032x", i)}
		if err := m.Apply(events.Envelope{Position: events.Position(i + 1), CommitSize: 1, Name: e.EventName(), Event: e}); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	if _, err := m.WriteSnapshot(dir); err != nil {
		b.Fatal(err)
	}
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.WriteSnapshot(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			got, err := LoadSnapshot(dir)
			if err != nil {
				b.Fatal(err)
			}
			if got.PendenzeCount() != n {
				b.Fatalf("loaded %d pendenze, want %d", got.PendenzeCount(), n)
			}
		}
	})
}

// FuzzSnapshotBody feeds decodeBody bodies that passed the checksum (as a
// bug or a hand-made file could): any of them must give consistent models
// or an error, never a panic, and a model it gives must read back whole.
func FuzzSnapshotBody(f *testing.F) {
	m := New()
	log := scriptedLog(f)
	feedAll(f, m, log, 0, len(log))
	body := encodedState(f, m)
	f.Add(body)
	f.Add(body[:len(body)/2])
	empty := encodedState(f, New())
	f.Add(empty)
	f.Add(append(append([]byte(nil), empty...), 0x03, 'a', '/', 'b'))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeBody(string(b))
		if err != nil {
			return
		}
		for _, p := range got.Pendenze(PendenzeFilter{}) {
			if v, ok := got.PendenzaView(p.IDA2A, p.IDPendenza); !ok || v.IDDominio != p.IDDominio {
				t.Fatalf("pendenza %s/%s listed but not found", p.IDA2A, p.IDPendenza)
			}
			if p.NumeroAvviso != "" {
				got.PendenzaByNotice(p.IDDominio, p.NumeroAvviso)
			}
			// What a read answers of it encodes (else that read is a 500).
			if _, err := json.Marshal(p.Details()); err != nil {
				t.Fatalf("pendenza %s/%s loaded with details its reads cannot encode: %v", p.IDA2A, p.IDPendenza, err)
			}
		}
		// What loaded encodes again to a body that loads the same.
		again := encodedState(t, got)
		reloaded, err := decodeBody(string(again))
		if err != nil {
			t.Fatalf("re-encoded body does not load: %v", err)
		}
		if !bytes.Equal(encodedState(t, reloaded), again) {
			t.Fatal("re-encoded body loads to other models")
		}
	})
}

// TestPendenzeReadWhileWritten reads pendenze and writes snapshots while
// they are created and updated past a details block boundary: under the
// race detector this proves the append-only details log needs no lock,
// and every read sees a pendenza's details matching its own version.
func TestPendenzeReadWhileWritten(t *testing.T) {
	m := New()
	const n = detailsBlockLen + 500
	version := func(i, v int) events.PendenzaCreated {
		return events.PendenzaCreated{IDA2A: "app", IDPendenza: fmt.Sprintf("P%05d", i), IDDominio: "00000000001",
			IDTipoPendenza: "TARI", Causale: fmt.Sprintf("v%d", v), AmountCents: int64(v),
			Payer: events.Subject{Tipo: "F", Identificativo: fmt.Sprintf("PAYER%d", v)}, NumeroAvviso: fmt.Sprintf("%018d", i)}
	}
	done := make(chan struct{})
	errs := make(chan error, 3)
	// untilDone runs step until done is closed or step fails, then sends
	// the failure (or nil) on errs.
	untilDone := func(step func() error) {
		for {
			select {
			case <-done:
				errs <- nil
				return
			default:
			}
			if err := step(); err != nil {
				errs <- err
				return
			}
		}
	}
	read := func() error {
		for _, p := range m.Pendenze(PendenzeFilter{Creator: "app"}) {
			if p.Causale != fmt.Sprintf("v%d", p.AmountCents) || p.View().PayerID != fmt.Sprintf("PAYER%d", p.AmountCents) {
				return fmt.Errorf("pendenza %s mixes versions: %+v", p.IDPendenza, p)
			}
		}
		return nil
	}
	go untilDone(read)
	go untilDone(read)
	dir := t.TempDir()
	go untilDone(func() error {
		_, err := m.WriteSnapshot(dir)
		return err
	})
	pos := events.Position(0)
	apply := func(e events.Event) {
		pos++
		if err := m.Apply(events.Envelope{Position: pos, CommitSize: 1, Name: e.EventName(), Event: e}); err != nil {
			t.Error(err)
		}
	}
	for i := range n {
		apply(version(i, 1))
		if i%3 == 0 {
			u := version(i, 2)
			apply(events.PendenzaUpdated{IDA2A: u.IDA2A, IDPendenza: u.IDPendenza, IDDominio: u.IDDominio,
				IDTipoPendenza: u.IDTipoPendenza, Causale: u.Causale, AmountCents: u.AmountCents, Payer: u.Payer,
				NumeroAvviso: u.NumeroAvviso})
		}
	}
	close(done)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := m.PendenzeCount(); got != n {
		t.Fatalf("%d pendenze, want %d", got, n)
	}
	if p, ok := m.Pendenza("app", "P00003"); !ok || p.Causale != "v2" || p.AmountCents != 2 {
		t.Fatalf("updated pendenza reads %+v", p)
	}
	if p, ok := m.Pendenza("app", "P00004"); !ok || p.Causale != "v1" {
		t.Fatalf("pendenza reads %+v", p)
	}
}

// The Snapshotter saves what was applied since the newest snapshot, not
// since it began: a replica that replayed its whole log before the
// Snapshotter ran, and stopped with no write meanwhile, wrote no final
// snapshot, and replayed the whole log again at its next start. A model
// loaded from a snapshot, with nothing applied since, writes none again.
func TestSnapshotterSavesWhatNoSnapshotHolds(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	stopped := func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // Run writes its final snapshot, if any, and returns
		return ctx
	}
	dir := t.TempDir()
	m := New()
	if err := m.ApplyCommit(1, events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "Ente", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	Snapshotter{Dir: dir, Interval: time.Hour, Logger: logger, Final: true}.Run(stopped(), m)
	loaded, err := LoadSnapshot(dir)
	if err != nil || loaded.AppliedPosition() != 1 {
		t.Fatalf("no final snapshot of the replayed log: %v", err)
	}
	Snapshotter{Dir: dir, Interval: time.Hour, Logger: logger, Final: true}.Run(stopped(), loaded)
	if n := loaded.SnapshotStats().Writes; n != 0 {
		t.Errorf("a model loaded from a snapshot, nothing applied since, wrote %d snapshots; want none", n)
	}
}

// TestSnapshotterRemovesUnfinishedWrites: a snapshot write a crash cut
// short leaves its temporary file (as large as a snapshot); the next
// Snapshotter removes it before it writes, and keeps the snapshot.
func TestSnapshotterRemovesUnfinishedWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := New()
	if err := m.ApplyCommit(1, events.CreditorEntityRegistered{IDDominio: "01234567890", RagioneSociale: "Ente", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.WriteSnapshot(dir); err != nil {
		t.Fatal(err)
	}
	unfinished := filepath.Join(dir, "."+SnapshotFile+"8462937161")
	if err := os.WriteFile(unfinished, []byte("half a snapshot"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Run cleans up, then returns at once
	Snapshotter{Dir: dir, Interval: time.Hour, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}.Run(ctx, m)
	if _, err := os.Stat(unfinished); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the unfinished snapshot file is still there (%v)", err)
	}
	if got, err := LoadSnapshot(dir); err != nil || got.AppliedPosition() != 1 {
		t.Fatalf("the snapshot after the clean-up: %v", err)
	}
}

// TestRestoreRebuildsConnectorIndexAsReplay: two intermediaries sharing a
// node connector, registered against their ids' order, come back from a
// snapshot in the connector index as the replay put them.
func TestRestoreRebuildsConnectorIndexAsReplay(t *testing.T) {
	hash := mustHash(t, "password-1")
	log := [][]events.Event{
		{events.IntermediaryRegistered{IDIntermediario: "INT2", Denominazione: "B", Enabled: true, ConnectorPrincipal: "conn", ConnectorPasswordHash: hash}},
		{events.IntermediaryRegistered{IDIntermediario: "INT1", Denominazione: "A", Enabled: true, ConnectorPrincipal: "conn"}},
		{events.IntermediaryRegistered{IDIntermediario: "INT3", Denominazione: "C", Enabled: true, ConnectorPrincipal: "other"}},
		{events.IntermediaryUpdated{IDIntermediario: "INT3", Denominazione: "C", Enabled: true, ConnectorPrincipal: "conn"}},
	}
	full := New()
	feedAll(t, full, log, 0, len(log))
	loaded := restored(t, full)
	assertSameModels(t, loaded, full)
	if !loaded.KnownNodeCredentials("conn", "password-1") {
		t.Error("the shared connector's password is not known after the restore")
	}
}

// TestAppIDOfAnApplicationAndAnOperator: a log written before the
// commands refused it may hold an application and an operator that one
// X-APP-ID names. The one registered first answers the X-APP-ID, in either
// order, however often the other was written since, and after a snapshot
// (which restores operators before applications) as after the replay.
func TestAppIDOfAnApplicationAndAnOperator(t *testing.T) {
	appKey, opKey := mustHash(t, "app-key-0123456789"), mustHash(t, "op-key-0123456789")
	app := events.ApplicationRegistered{IDA2A: "x", Principal: "x-app", APIKeyHash: appKey, Enabled: true, Roles: []string{}}
	op := events.OperatorRegistered{Principal: "x", RagioneSociale: "Op", APIKeyHash: opKey, Enabled: true, Roles: []string{}}
	for _, tc := range []struct {
		name string
		log  [][]events.Event
		want domain.PrincipalKind
		key  string
	}{
		{"operator_first", [][]events.Event{{op}, {app}, {events.ApplicationUpdated(app)}}, domain.KindOperator, "op-key-0123456789"},
		{"application_first", [][]events.Event{{app}, {op}, {events.OperatorUpdated(op)}}, domain.KindApplication, "app-key-0123456789"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			feedAll(t, m, tc.log, 0, len(tc.log))
			loaded := restored(t, m)
			assertSameModels(t, loaded, m)
			for name, model := range map[string]*ReadModel{"replay": m, "snapshot": loaded} {
				rec, ok := model.LookupAppID("x")
				if !ok || rec.Principal.Kind != tc.want {
					t.Fatalf("%s: X-APP-ID x names %+v (%v), want the %v registered first", name, rec, ok, tc.want)
				}
				for _, key := range []string{"app-key-0123456789", "op-key-0123456789"} {
					_, err := model.AuthenticateAs(nil, "", CredentialAPIKey, "x", key)
					if (key == tc.key) != (err == nil) {
						t.Fatalf("%s: apikey x with %s: %v", name, key, err)
					}
				}
			}
		})
	}
}
