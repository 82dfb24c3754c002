package projections

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/internal/durable"
)

// A snapshot file is the read models as of one log position, so that a
// restart replays only the tail of the log:
//
//	magic "PAYAUTHZ-SNAPSHOT\n" | version uint32 | body length uint64 | SHA-256 of body | body
//
// (big-endian). The body is
//
//	uvarint head length | head | PendenzeCount pendenza records
//
// The head is a gob of snapshotState: everything but the pendenze, which
// are most of a large snapshot and are written as flat records (see
// appendPendenza) so that loading them is parsing, not reflection: every
// string of a loaded pendenza is a slice of the body, read into one string,
// so a million of them cost no allocation but their index entries. A file
// of another version, a wrong checksum or a body that does not parse to
// the end is ignored (the models are rebuilt from the log), never trusted.
// A snapshot only ever holds whole commits.

// SnapshotVersion is the format version this build writes and reads.
// Version 6 keeps a grant's operational units: a version 5 file decodes
// without them (gob ignores what is absent), so it must be refused and
// rebuilt, not read as a grant to no unit. Version 7 keeps the latest
// event time (LatestAt), which names a snapshot in the history. Version 8
// keeps the id of the last event applied (LastID), which tells whether
// the log the snapshot is loaded against is the one it was taken from.
// Version 9 keeps when each application and operator was registered
// (Registered), which decides an X-APP-ID that names both: a version 8
// file would read as all registered at 0. Version 10 keeps when each
// pendenza was created (its record's created): a version 9 record lacks
// it, and a pendenza without it would answer no dataCaricamento and pass
// no dataDa or dataA filter. Version 11 keeps each pendenza's voci (its
// record's voci): a version 10 record ends before them, so it is refused
// and the log replayed, not read as pendenze without voci. Version 12
// keeps the rest of each pendenza's GovPay details in the same packed
// string (dataScadenza, annoRiferimento, documento, ...; see
// packDetails): a version 11 string holds voci alone, read as details it
// would misplace them, so it is refused and the log replayed.
const SnapshotVersion uint32 = 12

// SnapshotFile is the snapshot's file name inside its directory.
const SnapshotFile = "readmodels.snapshot"

var snapshotMagic = []byte("PAYAUTHZ-SNAPSHOT\n")

// ErrSnapshotUnusable reports a snapshot that is missing, of an unknown
// version, corrupt or ahead of the log: the caller replays the whole log.
var ErrSnapshotUnusable = errors.New("projections: snapshot unusable")

type snapshotState struct {
	Applied   uint64
	Events    uint64
	AppliedAt int64
	LatestAt  int64  // the latest event time covered, later than AppliedAt when clocks differed
	LastID    string // the id of the last event applied (see SameLog)

	Roles      []snapRole
	Operators  []Operator
	Apps       []snapApp
	Records    []snapRecord // every principal record: its name and the position that built it
	Entities   []events.CreditorEntityRegistered
	Units      []events.UnitRegistered // absent from older snapshots: none
	Types      []events.PendenzaTypeRegistered
	Interms    []snapIntermediary
	Protection *events.PublicAPIProtectionConfigured

	// Names are the interned entities and types the pendenze records
	// refer to by index; PendenzeCount records follow the head.
	Names         []string
	PendenzeCount int
	Descrizioni   map[string]string // pendenza key → descrizioneStato (absent before PATCH existed)
	Sessioni      map[string]string // pendenza key → the creating anonymous session's hash
	pendenze      []ownership       // in creation order (not in the head)
	details       *detailsLog       // their details (entries never change)

	Payments        []snapPayment // in order
	Receipts        []Receipt
	Reports         []SettlementReport
	Reconciliations []Reconciliation
	Incassi         []Incasso // absent from snapshots written before incassi existed
}

type snapRole struct {
	Event    events.RoleDefined
	Position events.Position
}

type snapGrant struct {
	API          string
	Domini, Tipi []string
	// Units are the entities the grant covers only in some of their
	// units (Domini lists the entities covered whole).
	Units map[string][]string
}

type snapApp struct {
	IDA2A, Principal, PasswordHash string
	Enabled                        bool
	Roles                          []string
	Grants                         []snapGrant
	Position                       events.Position
	Registered                     events.Position
	APIKeyHash                     string                   // absent from older snapshots: no key
	Personal                       events.PersonalRole      // absent from older snapshots: none
	Fields                         events.ApplicationFields // absent from older snapshots: none
}

type snapRecord struct {
	Name     string
	Position events.Position
}

type snapIntermediary struct {
	Event    events.IntermediaryRegistered
	Position events.Position
}

type snapPayment struct {
	Event     events.PaymentStarted
	Stato     string
	Paid      int
	PaidItems []bool
	Time      time.Time
	Position  events.Position
}

// state copies the read models. It holds wmu, so Apply waits (readers do
// not) and the copy is at a commit boundary. Of the pendenze it copies the
// 40-byte records only: their strings, names and details never change
// once written.
func (m *ReadModel) state() (*snapshotState, error) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.Stopped(); err != nil {
		return nil, err // it may hold part of a commit: never saved
	}
	st := &snapshotState{Applied: m.applied.Load(), Events: m.eventsCount.Load(), AppliedAt: m.appliedAt.Load(),
		LatestAt: m.latestAt, LastID: m.lastID}
	p := m.principals
	p.roles.each(func(_ string, r *RoleRecord) bool {
		st.Roles = append(st.Roles, snapRole{Event: r.Event, Position: r.Position})
		return true
	})
	sort.Slice(st.Roles, func(i, j int) bool { return st.Roles[i].Event.IDRuolo < st.Roles[j].Event.IDRuolo })
	p.ops.each(func(_ string, o *Operator) bool { st.Operators = append(st.Operators, *o); return true })
	sort.Slice(st.Operators, func(i, j int) bool { return st.Operators[i].Principal < st.Operators[j].Principal })
	p.apps.each(func(_ string, a *Application) bool {
		sa := snapApp{IDA2A: a.IDA2A, Principal: a.Principal, PasswordHash: a.PasswordHash, Enabled: a.Enabled,
			Roles: a.Roles, Position: a.Position, Registered: a.Registered, APIKeyHash: a.APIKeyHash, Personal: a.Personal, Fields: a.Fields}
		for _, g := range a.Grants {
			sa.Grants = append(sa.Grants, snapGrant{API: g.API.String(), Domini: g.Domini.List(), Units: g.Domini.Units(), Tipi: g.Tipi.List()})
		}
		st.Apps = append(st.Apps, sa)
		return true
	})
	sort.Slice(st.Apps, func(i, j int) bool { return st.Apps[i].IDA2A < st.Apps[j].IDA2A })
	p.byName.each(func(name string, r *PrincipalRecord) bool {
		st.Records = append(st.Records, snapRecord{Name: name, Position: r.Position})
		return true
	})
	sort.Slice(st.Records, func(i, j int) bool { return st.Records[i].Name < st.Records[j].Name })

	r := m.registry
	st.Entities = sortedValues(r.entities, func(e events.CreditorEntityRegistered) string { return e.IDDominio })
	st.Units = sortedValues(r.units, func(u events.UnitRegistered) string { return u.IDDominio + "/" + u.IDUnita })
	st.Types = sortedValues(r.types, func(t events.PendenzaTypeRegistered) string { return t.IDTipoPendenza })
	for _, in := range sortedValues(r.intermediaries, func(i *Intermediary) string { return i.Event.IDIntermediario }) {
		st.Interms = append(st.Interms, snapIntermediary{Event: in.Event, Position: in.Position})
	}
	st.Protection = r.protection.Load()

	pe := m.pendenze
	st.Names = *pe.names.all.Load()
	st.details = &pe.details
	pe.listMu.RLock()
	st.pendenze = make([]ownership, 0, len(pe.order))
	for _, key := range pe.order {
		o, _ := pe.own.get(key) // every listed key is in the table
		st.pendenze = append(st.pendenze, *o)
	}
	pe.listMu.RUnlock()
	st.PendenzeCount = len(st.pendenze)
	st.Descrizioni = map[string]string{}
	pe.descr.each(func(k, v string) bool { st.Descrizioni[k] = v; return true })
	st.Sessioni = map[string]string{}
	pe.sessions.each(func(k, v string) bool { st.Sessioni[k] = v; return true })

	mo := m.money
	mo.listMu.RLock()
	for _, id := range mo.paymentOrder {
		pm, _ := mo.payments.get(id)
		st.Payments = append(st.Payments, snapPayment{Event: pm.Event, Stato: pm.Stato, Paid: pm.Paid,
			PaidItems: pm.paidItems, Time: pm.Time, Position: pm.Position})
	}
	st.Receipts = inOrder(st.Receipts, mo.receipts, mo.receiptOrder)
	st.Reports = inOrder(st.Reports, mo.reports, mo.reportOrder)
	st.Reconciliations = inOrder(st.Reconciliations, mo.reconciliations, mo.reconcilOrder)
	st.Incassi = inOrder(st.Incassi, mo.incassi, mo.incassoOrder)
	mo.listMu.RUnlock()
	return st, nil
}

// fromState builds read models, but the pendenze, from a decoded head. It
// goes through the functions Apply uses, record by record, so every index
// Apply maintains (principal records, DN and connector indexes, role
// holders, notices of payments, list orders) is rebuilt by the same code;
// only the principal records' positions, which role redefinitions move,
// are set from the snapshot afterwards, again with Apply's rebuild. A
// state that does not hold together returns an error and must not be used.
func fromState(st *snapshotState) (*ReadModel, error) {
	m := New()
	m.applied.Store(st.Applied)
	m.eventsCount.Store(st.Events)
	m.appliedAt.Store(st.AppliedAt)
	m.latestAt = st.LatestAt
	m.lastID = st.LastID
	p := m.principals
	for _, r := range st.Roles {
		if err := p.defineRole(r.Event, r.Position); err != nil {
			return nil, fmt.Errorf("role %s: %w", r.Event.IDRuolo, err)
		}
	}
	for _, op := range st.Operators {
		e := events.OperatorRegistered{Principal: op.Principal, RagioneSociale: op.RagioneSociale,
			PasswordHash: op.PasswordHash, APIKeyHash: op.APIKeyHash, Enabled: op.Enabled, Roles: op.Roles,
			PersonalRole: op.Personal}
		if err := p.putOperatorSince(e, op.Registered, op.Position); err != nil {
			return nil, fmt.Errorf("operator %s: %w", op.Principal, err)
		}
	}
	for _, sa := range st.Apps {
		e := events.ApplicationRegistered{IDA2A: sa.IDA2A, Principal: sa.Principal, PasswordHash: sa.PasswordHash,
			APIKeyHash: sa.APIKeyHash, Enabled: sa.Enabled, Roles: sa.Roles, PersonalRole: sa.Personal, ApplicationFields: sa.Fields}
		if err := p.putApplicationSince(e, sa.Registered, sa.Position); err != nil {
			return nil, fmt.Errorf("application %s: %w", sa.IDA2A, err)
		}
		for _, g := range sa.Grants {
			grant := events.ApplicationAPIAuthorized{IDA2A: sa.IDA2A, API: g.API, Domini: g.Domini, UnitaOperative: g.Units,
				TipiPendenza: g.Tipi}
			if err := p.authorize(grant, sa.Position); err != nil {
				return nil, fmt.Errorf("application %s: %w", sa.IDA2A, err)
			}
		}
	}
	for _, r := range st.Records {
		if _, ok := p.byName.get(r.Name); !ok {
			return nil, fmt.Errorf("principal %q has a record but no application or operator", r.Name)
		}
		p.rebuild(r.Name, r.Position)
	}
	if n := p.byName.len(); n != len(st.Records) {
		return nil, fmt.Errorf("%d principal records, the snapshot lists %d", n, len(st.Records))
	}

	reg := m.registry
	for _, e := range st.Entities {
		reg.putEntity(e)
	}
	for _, u := range st.Units {
		reg.putUnit(u)
	}
	for _, t := range st.Types {
		reg.putType(t)
	}
	for _, in := range st.Interms {
		reg.putIntermediary(in.Event, in.Position)
	}
	if st.Protection != nil {
		reg.putProtection(*st.Protection)
	}

	mo := m.money
	mo.payments.reserve(len(st.Payments))
	mo.receipts.reserve(len(st.Receipts))
	for _, sp := range st.Payments {
		mo.startPayment(sp.Event, events.Envelope{Time: sp.Time, Position: sp.Position})
	}
	for _, r := range st.Receipts {
		mo.recordReceipt(r.Event, events.Envelope{Time: r.Time, Position: r.Position})
	}
	for _, sp := range st.Payments { // the receipts settled them again: the same way?
		if pm, ok := mo.payments.get(sp.Event.ID); !ok || pm.Stato != sp.Stato || pm.Paid != sp.Paid {
			return nil, fmt.Errorf("payment %s: its receipts do not settle it as the snapshot says", sp.Event.ID)
		}
	}
	for _, r := range st.Reports {
		mo.recordSettlement(r.Event, events.Envelope{Time: r.Time, Position: r.Position})
	}
	for _, r := range st.Reconciliations {
		mo.createReconciliation(r.Event, events.Envelope{Time: r.Time, Position: r.Position})
	}
	for _, r := range st.Incassi {
		mo.recordIncasso(r.Event, events.Envelope{Time: r.Time, Position: r.Position})
	}
	for k, v := range st.Descrizioni {
		m.pendenze.setDescr(k, v)
	}
	return m, nil
}

// WriteSnapshot writes the read models to dir/SnapshotFile durably (a
// crash leaves the old snapshot or the whole new one, mode 0600) and
// returns the position it covers. Apply waits while the models are copied;
// encoding and writing happen after.
func (m *ReadModel) WriteSnapshot(dir string) (_ events.Position, err error) {
	defer func(start time.Time) { m.snapStats.wrote(start, filepath.Join(dir, SnapshotFile), err) }(time.Now())
	st, err := m.state()
	if err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("snapshot dir: %w", err)
	}
	f, err := durable.Create(filepath.Join(dir, SnapshotFile), 0o600)
	if err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	defer f.Cleanup()
	if err := writeSnapshotFile(f.File, st); err != nil {
		return 0, fmt.Errorf("write snapshot: %w", err)
	}
	if err := f.Commit(); err != nil {
		return 0, fmt.Errorf("install snapshot: %w", err)
	}
	m.snapStats.covered.Store(st.Events)
	keepInHistory(dir, st) // best effort: the snapshot itself is installed
	return events.Position(st.Applied), nil
}

// HistoryDir is the folder, inside a snapshot dir, of the recent snapshots
// kept for auditors' questions about the past: each written snapshot is
// hard-linked there (no copy) as <position>-<latest event time>.snapshot,
// and only the newest SnapshotHistory are kept.
const HistoryDir = "history"

// SnapshotHistory is how many past snapshots HistoryDir keeps.
const SnapshotHistory = 16

type historyEntry struct {
	name     string
	position events.Position
	latestAt int64 // unix nanos of the latest event it covers
}

func keepInHistory(dir string, st *snapshotState) {
	hist := filepath.Join(dir, HistoryDir)
	if err := os.MkdirAll(hist, 0o700); err != nil {
		return
	}
	name := fmt.Sprintf("%020d-%020d.snapshot", st.Applied, st.LatestAt)
	_ = os.Link(filepath.Join(dir, SnapshotFile), filepath.Join(hist, name))
	entries := history(hist)
	for _, e := range entries[min(len(entries), SnapshotHistory):] {
		_ = os.Remove(filepath.Join(hist, e.name))
	}
}

// history lists the snapshots of a history dir, newest position first.
func history(hist string) []historyEntry {
	des, _ := os.ReadDir(hist)
	var out []historyEntry
	for _, de := range des {
		var pos uint64
		var at int64
		if _, err := fmt.Sscanf(de.Name(), "%020d-%020d.snapshot", &pos, &at); err != nil || !de.Type().IsRegular() {
			continue
		}
		out = append(out, historyEntry{name: de.Name(), position: events.Position(pos), latestAt: at})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].position > out[j].position })
	return out
}

// SameLog checks that r is the log m was built from, as a snapshot's
// loader must before it trusts the snapshot: the commit at m's applied
// position must end with the event m applied last. A snapshot taken from
// another log (another --nats-url or --store, a log reset and written
// again) whose position the log reaches would otherwise be served as this
// log's state: its principals, grants and ownership. An error matching
// ErrSnapshotUnusable says the log differs; any other, that it could not
// be read.
func (m *ReadModel) SameLog(ctx context.Context, r events.Reader) error {
	m.wmu.Lock()
	applied, lastID := events.Position(m.applied.Load()), m.lastID
	m.wmu.Unlock()
	if applied == 0 {
		return nil
	}
	var found string
	err := r.ReadFrom(ctx, applied, func(_ context.Context, env events.Envelope) error {
		if env.Position != applied {
			return errReached // past the commit
		}
		found = env.ID
		return nil
	})
	if errors.Is(err, events.ErrInvalidPosition) {
		return fmt.Errorf("%w: the log has no commit at position %d (another or a reset log)", ErrSnapshotUnusable, applied)
	}
	if err != nil && !errors.Is(err, errReached) {
		return fmt.Errorf("read the commit at %d: %w", applied, err)
	}
	if found == "" || found != lastID {
		return fmt.Errorf("%w: the log holds another commit at position %d (another or a reset log)", ErrSnapshotUnusable, applied)
	}
	return nil
}

// SnapshotAtOrBefore loads the newest snapshot of dir's history that
// covers no more of the log than u (its position at or before u.Position,
// every event it holds at or before u.Time) and at most last (the log's
// last position: a snapshot ahead of the log belongs to another log). An
// unusable snapshot is skipped for the next older one; none at all
// returns an error matching ErrSnapshotUnusable. The time cut is judged
// on the latest event, not the last: Rebuild stops at the first commit
// after u.Time, and with replicas' clocks apart a snapshot whose last
// commit is before u.Time may hold an earlier one after it.
func SnapshotAtOrBefore(dir string, u Until, last events.Position) (*ReadModel, error) {
	for _, e := range history(filepath.Join(dir, HistoryDir)) {
		if e.position > last || (u.Position != 0 && e.position > u.Position) ||
			(u.hasTime() && time.Unix(0, e.latestAt).After(u.Time)) {
			continue
		}
		if m, err := loadSnapshotFile(filepath.Join(dir, HistoryDir, e.name)); err == nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%w: no snapshot at or before %s", ErrSnapshotUnusable, u)
}

// writeSnapshotFile streams the body after a blank header, hashing it on
// the way, then fills the header in.
func writeSnapshotFile(f *os.File, st *snapshotState) error {
	headLen := int64(len(snapshotMagic) + 12 + sha256.Size)
	if _, err := f.Seek(headLen, io.SeekStart); err != nil {
		return err
	}
	h := sha256.New()
	cw := &countingWriter{w: io.MultiWriter(f, h)}
	bw := bufio.NewWriterSize(cw, 1<<20)
	if err := encodeBody(bw, st); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	hdr := make([]byte, 0, headLen)
	hdr = append(hdr, snapshotMagic...)
	hdr = binary.BigEndian.AppendUint32(hdr, SnapshotVersion)
	hdr = binary.BigEndian.AppendUint64(hdr, uint64(cw.n))
	hdr = h.Sum(hdr)
	_, err := f.WriteAt(hdr, 0)
	return err
}

// encodeBody writes the body: the head, then the pendenze records.
func encodeBody(w io.Writer, st *snapshotState) error {
	var head bytes.Buffer
	if err := gob.NewEncoder(&head).Encode(st); err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	buf := binary.AppendUvarint(make([]byte, 0, 4096), uint64(head.Len()))
	if _, err := w.Write(buf); err != nil {
		return err
	}
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	buf = buf[:0]
	for _, o := range st.pendenze {
		buf = appendPendenza(buf, o, st.details.at(o.details))
		if len(buf) >= 1<<16 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// LoadSnapshot reads dir/SnapshotFile. Any problem (no file, unknown
// version, bad checksum, undecodable or inconsistent state) returns an
// error matching ErrSnapshotUnusable and no model: the caller starts from
// an empty model and replays the whole log.
func LoadSnapshot(dir string) (*ReadModel, error) {
	start, path := time.Now(), filepath.Join(dir, SnapshotFile)
	m, err := loadSnapshotFile(path)
	if err == nil {
		m.snapStats.loaded(start, path, m.AppliedEvents())
	}
	return m, err
}

func loadSnapshotFile(path string) (*ReadModel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshotUnusable, err)
	}
	defer f.Close()
	head := make([]byte, len(snapshotMagic)+12+sha256.Size)
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrSnapshotUnusable, err)
	}
	if !bytes.Equal(head[:len(snapshotMagic)], snapshotMagic) {
		return nil, fmt.Errorf("%w: not a payauthz snapshot", ErrSnapshotUnusable)
	}
	h := head[len(snapshotMagic):]
	if v := binary.BigEndian.Uint32(h[:4]); v != SnapshotVersion {
		return nil, fmt.Errorf("%w: format version %d, this build reads %d", ErrSnapshotUnusable, v, SnapshotVersion)
	}
	n := binary.BigEndian.Uint64(h[4:12])
	if fi, err := f.Stat(); err != nil || n != uint64(fi.Size())-uint64(len(head)) {
		return nil, fmt.Errorf("%w: truncated or oversized body", ErrSnapshotUnusable)
	}
	// The body is read into one string (a Builder grown to size hands its
	// bytes over without a copy) that the loaded pendenze slice.
	var body strings.Builder
	body.Grow(int(n))
	sum := sha256.New()
	if _, err := io.Copy(io.MultiWriter(&body, sum), io.LimitReader(f, int64(n))); err != nil || uint64(body.Len()) != n {
		return nil, fmt.Errorf("%w: body: %v", ErrSnapshotUnusable, err)
	}
	if !bytes.Equal(sum.Sum(nil), h[12:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrSnapshotUnusable)
	}
	m, err := decodeBody(body.String())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshotUnusable, err)
	}
	return m, nil
}

// decodeBody builds read models from a snapshot body. Any body, even one
// that passed the checksum by chance or by design, gives either consistent
// models or an error, never a panic.
func decodeBody(body string) (*ReadModel, error) {
	r := snapReader{s: body}
	head := r.str()
	if r.err != nil {
		return nil, fmt.Errorf("head: %w", r.err)
	}
	var st snapshotState
	if err := gob.NewDecoder(strings.NewReader(head)).Decode(&st); err != nil {
		return nil, fmt.Errorf("decode head: %w", err)
	}
	m, err := fromState(&st)
	if err != nil {
		return nil, err
	}
	if err := m.pendenze.restoreAll(&r, st.PendenzeCount, st.Names, st.Sessioni); err != nil {
		return nil, fmt.Errorf("pendenze: %w", err)
	}
	return m, nil
}

// Snapshotter writes a snapshot every Interval when at least MinEvents
// events were applied since the last one.
type Snapshotter struct {
	Dir       string
	Interval  time.Duration
	MinEvents uint64
	Logger    *slog.Logger
	// Final writes one more snapshot when Run's context ends, if anything
	// was applied since the last one (a graceful stop then restarts with
	// no tail to replay).
	Final bool
}

// Run writes snapshots of m until ctx ends (stop the projections first
// for an exact final snapshot), then returns. A failed write
// is logged and retried at the next tick; the previous snapshot stays.
func (s Snapshotter) Run(ctx context.Context, m *ReadModel) {
	if s.Interval <= 0 {
		return
	}
	logger := s.Logger
	if logger == nil {
		logger = slog.Default()
	}
	// The writer before this one may have died in the middle of a write.
	if n, err := durable.RemoveLeftovers(filepath.Join(s.Dir, SnapshotFile)); err != nil {
		logger.Warn("removing unfinished snapshot files", "error", err)
	} else if n > 0 {
		logger.Info("removed unfinished snapshot files", "files", n)
	}
	// Events applied since the newest snapshot, loaded or written: a
	// model that replayed the log before Run began still has them to save.
	unsaved := func() uint64 { return m.AppliedEvents() - m.snapStats.covered.Load() }
	write := func() {
		start := time.Now()
		pos, err := m.WriteSnapshot(s.Dir)
		if err != nil {
			logger.Error("snapshot failed", "error", err)
			return
		}
		logger.Info("snapshot written", "position", uint64(pos), "took", time.Since(start))
	}
	t := time.NewTicker(s.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if s.Final && unsaved() > 0 {
				write()
			}
			return
		case <-t.C:
		}
		if unsaved() >= max(s.MinEvents, 1) {
			write()
		}
	}
}

// inOrder appends to out the values of t under keys, in that order.
func inOrder[V any](out []V, t *table[*V], keys []string) []V {
	for _, k := range keys {
		v, _ := t.get(k)
		out = append(out, *v)
	}
	return out
}
