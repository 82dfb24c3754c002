package projections

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// Pendenza states, as Pendenza.Stato names them (domain.PendenzaStato).
var (
	StatoNonEseguita = domain.StatoNonEseguita.String()
	StatoEseguita    = domain.StatoEseguita.String()
	StatoAnnullata   = domain.StatoAnnullata.String()
)

// stato is a pendenza's state in its ownership record; the values are
// those of a snapshot record's state byte (0 and 1 were "paid" before
// cancellation existed, so older snapshots load unchanged).
type stato uint8

const (
	statoOpen      stato = iota // NON_ESEGUITA
	statoPaid                   // ESEGUITA
	statoCancelled              // ANNULLATA
	statoCount
)

func (s stato) String() string { return s.pendenzaStato().String() }

// pendenzaStato is s as decisions name it.
func (s stato) pendenzaStato() domain.PendenzaStato {
	switch s {
	case statoPaid:
		return domain.StatoEseguita
	case statoCancelled:
		return domain.StatoAnnullata
	}
	return domain.StatoNonEseguita
}

// ownership is the compact ownership record of one pendenza: what every
// decision needs, in 40 bytes plus one packed string. rec holds
// "idA2A/idPendenza" (the table key, which shares rec's bytes), then the
// payer id, the notice number and the UUID, back to back; the views slice
// it, so reading a record never allocates. Entities and types, shared by
// many pendenze, are ids into pendenze.names.
type ownership struct {
	rec       string
	dominio   uint32
	tipo      uint32
	unita     uint32 // the operational unit's names id + 1; 0 for none
	keyEnd    uint16 // rec[:keyEnd] is the key
	payerEnd  uint16 // rec[keyEnd:payerEnd] is the payer id
	avvisoEnd uint16 // rec[payerEnd:avvisoEnd] is the notice number; the UUID follows
	stato     stato
	anonymous bool   // an anonymous session created it (its hash is in pendenze.sessions)
	details   uint32 // index of the pendenza's details in pendenze.details
}

// maxPacked bounds rec so its offsets fit in uint16; longer fields are
// refused by the commands' validation long before this.
const maxPacked = 1<<16 - 1

// details is the rest of a pendenza, read only to build responses and
// the lists' filters.
type details struct {
	causale  string
	amount   int64
	payer    string // packed (packSubject)
	position events.Position
	// created is when the pendenza was created, in unix nanoseconds (0:
	// unknown): the time the log recorded in the envelope of its first
	// event, so every replica, a replay and a restored snapshot hold the
	// same; its updates keep it (GovPay's dataCaricamento).
	created int64
	// govpay is its version's GovPay details (its voci, dataScadenza,
	// ...), packed (packDetails): "" for none.
	govpay string
}

// detailsLog holds the details of every version of every pendenza,
// append-only, in blocks that never move: an entry is written once, before
// the ownership record pointing at it is published in the table, so a
// reader that found the record reads a complete entry without a lock. A
// growing slice instead of a second map keyed by pendenza saves a hash
// insert per pendenza (the cost of loading a snapshot) and ~50 bytes.
type detailsLog struct {
	blocks atomic.Pointer[[]*detailsBlock] // readers load; only the writer stores
	n      uint32                          // entries written (writer only)
}

const detailsBlockLen = 4096

type detailsBlock [detailsBlockLen]details

// add appends d and returns its index. Writer only.
func (l *detailsLog) add(d details) uint32 {
	i := l.n
	blocks := l.blocks.Load()
	if blocks == nil || int(i/detailsBlockLen) == len(*blocks) {
		var grown []*detailsBlock
		if blocks != nil {
			grown = append(make([]*detailsBlock, 0, len(*blocks)+1), *blocks...)
		}
		grown = append(grown, new(detailsBlock))
		l.blocks.Store(&grown)
		blocks = &grown
	}
	(*blocks)[i/detailsBlockLen][i%detailsBlockLen] = d
	l.n++
	return i
}

// at returns entry i, which the caller read from a published record.
func (l *detailsLog) at(i uint32) details {
	return (*l.blocks.Load())[i/detailsBlockLen][i%detailsBlockLen]
}

// Pendenza is a pendenza as read by handlers.
type Pendenza struct {
	IDA2A          string
	IDPendenza     string
	IDDominio      string
	IDTipoPendenza string
	Causale        string
	AmountCents    int64
	Payer          events.Subject
	NumeroAvviso   string
	UUID           string
	// IDUnitaOperativa is its entity's operational unit ("" for none).
	IDUnitaOperativa string
	// SessionHash is the anonymous session that created it ("" for none).
	SessionHash string
	Stato       string
	// DescrizioneStato is why its state was last set by a caller (GovPay's
	// descrizioneStato of a PATCH), "" when none was given.
	DescrizioneStato string
	Position         events.Position
	// Created is when it was created: the time the log recorded for the
	// event that created it, kept by its updates (zero: unknown).
	Created time.Time
	// govpay are its GovPay details, packed (packDetails): unpacked by
	// Details, for the reads that answer them, never for a list.
	govpay string
}

// Details returns its GovPay details as written (its voci in the order
// written, nil for none; its fields that bear on no decision), but its
// allegati, which are not kept. Each call returns new values: the caller
// may change them.
func (p Pendenza) Details() events.PendenzaDetails {
	d, _ := unpackDetails(p.govpay) // checked when it was restored or packed
	return d
}

// DataCaricamento is GovPay's dataCaricamento of the pendenza: the date
// (YYYY-MM-DD) of Created in Rome (domain.DateOf), "" when that is
// unknown.
func (p Pendenza) DataCaricamento() string {
	if p.Created.IsZero() {
		return ""
	}
	return domain.DateOf(p.Created)
}

// Spontaneous reports whether its payer created it (POST
// /pendenze/{idDominio}/{idTipoPendenza} of the Pagamento API, under the
// reserved domain.PortalIDA2A) rather than an application loading a debt:
// GovPay's SPONTANEO, else DOVUTO.
func (p Pendenza) Spontaneous() bool { return spontaneousCreator(p.IDA2A) }

// spontaneousCreator reports whether idA2A is the creator of the pendenze
// payers create (domain.PortalIDA2A).
func spontaneousCreator(idA2A string) bool { return idA2A == domain.PortalIDA2A }

// View returns the facts decisions need (a state ParsePendenzaStato does
// not read is the zero state).
func (p Pendenza) View() domain.PendenzaView {
	st, _ := domain.ParsePendenzaStato(p.Stato)
	return domain.PendenzaView{IDA2A: p.IDA2A, IDPendenza: p.IDPendenza, IDDominio: p.IDDominio, IDUnita: p.IDUnitaOperativa,
		IDTipoPendenza: p.IDTipoPendenza, PayerID: strings.ToUpper(p.Payer.Identificativo),
		NumeroAvviso: p.NumeroAvviso, UUID: p.UUID, SessionHash: p.SessionHash, Stato: st}
}

// noticeKey indexes a notice: the (interned) entity and the 18-digit
// notice number as an integer, so the index allocates nothing per entry.
type noticeKey struct {
	dominio string
	avviso  uint64
}

// names interns the strings many pendenze share (entities, types) as dense
// ids. The writer appends under the model's apply lock; readers load the
// published slice, which only ever grows, so they never lock.
type names struct {
	ids map[string]uint32 // writer only
	all atomic.Pointer[[]string]
}

func (n *names) id(s string) uint32 {
	if id, ok := n.ids[s]; ok {
		return id
	}
	list := append(*n.all.Load(), s)
	id := uint32(len(list) - 1)
	n.ids[s] = id
	n.all.Store(&list)
	return id
}

func (n *names) name(id uint32) string { return (*n.all.Load())[id] }

type pendenze struct {
	own     *table[*ownership] // idA2A "/" idPendenza → ownership; a record is never changed once published
	details detailsLog         // ownership.details → details
	names   names

	descr *table[string] // key → descrizioneStato, only for pendenze that have one
	// anyDescr is set once descr holds an entry: until then reads skip it.
	anyDescr atomic.Bool

	sessions *table[string] // key → the creating anonymous session's hash, only for such pendenze

	noticeMu sync.RWMutex         // guards notices
	notices  map[noticeKey]string // (entity, notice number) → key

	listMu    sync.RWMutex       // guards the three lists below (list endpoints only)
	order     []string           // keys in creation order (each shares its record's bytes)
	byCreator map[string][]int32 // idA2A → indexes into order
	byPayer   map[string][]int32 // payer id → indexes into order, ascending
	byDominio map[uint32][]int32 // entity (names id) → indexes into order, ascending (pendenze_dominio.go)
}

func newPendenze() *pendenze {
	p := &pendenze{own: newTable[*ownership](), descr: newTable[string](), sessions: newTable[string](), notices: map[noticeKey]string{},
		byCreator: map[string][]int32{}, byPayer: map[string][]int32{}, names: names{ids: map[string]uint32{}}}
	p.names.all.Store(&[]string{})
	return p
}

func pendenzaKey(idA2A, idPendenza string) string { return idA2A + "/" + idPendenza }

// parseAvviso returns the notice number as an integer; ok is false for
// anything but 18 digits.
func parseAvviso(s string) (uint64, bool) {
	if len(s) != 18 {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

func (o ownership) key() string    { return o.rec[:o.keyEnd] }
func (o ownership) payer() string  { return o.rec[o.keyEnd:o.payerEnd] }
func (o ownership) avviso() string { return o.rec[o.payerEnd:o.avvisoEnd] }
func (o ownership) uuid() string   { return o.rec[o.avvisoEnd:] }

// creator and idPendenza split the key at its first '/': an idA2A never
// holds one.
func (o ownership) creator() string {
	k := o.key()
	return k[:strings.IndexByte(k, '/')]
}

func (o ownership) idPendenza() string {
	k := o.key()
	return k[strings.IndexByte(k, '/')+1:]
}

func (p *pendenze) noticeKey(dominio, avviso string) (noticeKey, bool) {
	n, ok := parseAvviso(avviso)
	return noticeKey{dominio: dominio, avviso: n}, ok
}

// pack builds the ownership record of e; ok is false for fields too long
// to pack, which a validated command never writes.
func (p *pendenze) pack(e *events.PendenzaCreated, payer string) (ownership, bool) {
	keyLen := len(e.IDA2A) + 1 + len(e.IDPendenza)
	if keyLen+len(payer)+len(e.NumeroAvviso)+len(e.UUID) > maxPacked {
		return ownership{}, false
	}
	var b strings.Builder
	b.Grow(keyLen + len(payer) + len(e.NumeroAvviso) + len(e.UUID))
	b.WriteString(e.IDA2A)
	b.WriteByte('/')
	b.WriteString(e.IDPendenza)
	b.WriteString(payer)
	b.WriteString(e.NumeroAvviso)
	b.WriteString(e.UUID)
	o := ownership{rec: b.String(), dominio: p.names.id(e.IDDominio), tipo: p.names.id(e.IDTipoPendenza),
		keyEnd: uint16(keyLen)}
	if e.IDUnitaOperativa != "" {
		o.unita = p.names.id(e.IDUnitaOperativa) + 1
	}
	o.payerEnd = o.keyEnd + uint16(len(payer))
	o.avvisoEnd = o.payerEnd + uint16(len(e.NumeroAvviso))
	return o, true
}

// put folds a PendenzaCreated or PendenzaUpdated at pos, whose envelope
// recorded at (its time in the log: a pendenza created there is created
// then).
func (p *pendenze) put(e events.PendenzaCreated, pos events.Position, at time.Time) {
	payer := strings.ToUpper(e.Payer.Identificativo)
	o, ok := p.pack(&e, payer)
	if !ok {
		return
	}
	key := o.key() // the record's own bytes: the table and the lists share them

	old, existed := p.own.get(key)
	d := details{causale: e.Causale, amount: e.AmountCents, payer: packSubject(e.Payer), position: pos, created: unixNanos(at),
		govpay: packDetails(e.PendenzaDetails)}
	if existed {
		o.stato, o.anonymous = old.stato, old.anonymous
		d.created = p.details.at(old.details).created
	}
	// A new entry even for an update: readers may be reading the old one.
	o.details = p.details.add(d)
	if e.SessionHash != "" && !existed { // a pendenza's session is the one that created it
		p.putSession(&o, e.SessionHash)
	}
	p.own.put(key, &o)

	p.noticeMu.Lock()
	if existed {
		p.unindexNotice(old)
	}
	p.indexNotice(&o)
	p.noticeMu.Unlock()

	p.listMu.Lock()
	defer p.listMu.Unlock()
	if !existed {
		p.list(o)
		return
	}
	if old.dominio != o.dominio {
		p.moveDominio(key, old.creator(), old.dominio, o.dominio)
	}
	if old.payer() == payer {
		return
	}
	idx := p.indexOf(key, old.creator())
	if idx < 0 {
		return
	}
	if old.payer() != "" {
		p.byPayer[old.payer()] = without(p.byPayer[old.payer()], idx)
	}
	if payer != "" {
		enlist(p.byPayer, o.payer(), idx)
	}
}

// putSession records that the anonymous session hash created o, before o
// is published.
func (p *pendenze) putSession(o *ownership, hash string) {
	p.sessions.put(o.key(), hash)
	o.anonymous = true
}

// indexNotice points o's notice number at its entity to o; unindexNotice
// removes that entry (noticeMu held, or a model not yet shared).
func (p *pendenze) indexNotice(o *ownership) {
	if k, ok := p.noticeKey(p.names.name(o.dominio), o.avviso()); ok {
		p.notices[k] = o.key()
	}
}

func (p *pendenze) unindexNotice(o *ownership) {
	if k, ok := p.noticeKey(p.names.name(o.dominio), o.avviso()); ok {
		delete(p.notices, k)
	}
}

// enlist inserts idx into lists[k], which it keeps in creation order
// (ascending): where a pendenza moved to lies in the list of its new
// entity or payer then depends on when it was created, not on when it
// moved, so a restore builds every list as the replay did (listMu held,
// or a model not yet shared).
func enlist[K comparable](lists map[K][]int32, k K, idx int32) {
	list := lists[k]
	at, _ := slices.BinarySearch(list, idx)
	lists[k] = slices.Insert(list, at, idx)
}

// list appends a new pendenza to the creation order and to its creator's
// and payer's lists (listMu held, or a model not yet shared).
func (p *pendenze) list(o ownership) {
	idx := int32(len(p.order))
	p.order = append(p.order, o.key())
	p.byCreator[o.creator()] = append(p.byCreator[o.creator()], idx)
	p.indexDominio(o.dominio, idx)
	if payer := o.payer(); payer != "" {
		p.byPayer[payer] = append(p.byPayer[payer], idx)
	}
}

// indexOf finds key among its creator's pendenze (listMu held).
func (p *pendenze) indexOf(key, creator string) int32 {
	for _, i := range p.byCreator[creator] {
		if p.order[i] == key {
			return i
		}
	}
	return -1
}

// markPaid records a receipt with esito ESEGUITO: the money was
// collected, so the pendenza is paid whatever state it was in.
func (p *pendenze) markPaid(idA2A, idPendenza string) { p.setStato(idA2A, idPendenza, statoPaid) }

// setStato sets the state of a stored pendenza (none: nothing).
func (p *pendenze) setStato(idA2A, idPendenza string, s stato) {
	p.own.modify(pendenzaKey(idA2A, idPendenza), func(o *ownership) (*ownership, bool) {
		if o.stato == s {
			return o, false
		}
		n := *o
		n.stato = s
		return &n, true
	})
}

// changeStato applies a PendenzaStatusChanged: a paid pendenza stays paid
// (the command refuses the change; a receipt that came in between wins).
func (p *pendenze) changeStato(e events.PendenzaStatusChanged) {
	s := statoOpen
	if e.Stato == StatoAnnullata {
		s = statoCancelled
	}
	key := pendenzaKey(e.IDA2A, e.IDPendenza)
	applied := false
	p.own.modify(key, func(o *ownership) (*ownership, bool) {
		if o.stato == statoPaid {
			return o, false
		}
		n := *o
		n.stato, applied = s, true
		return &n, true
	})
	if applied {
		p.setDescr(key, e.DescrizioneStato)
	}
}

// setDescr sets the descrizioneStato of the pendenza key ("" for none).
func (p *pendenze) setDescr(key, descr string) {
	if descr == "" {
		p.descr.del(key)
		return
	}
	p.anyDescr.Store(true)
	p.descr.put(key, descr)
}

// view is the decision view of o, the pendenza idA2A/idPendenza (its key
// as looked up: no need to split the record's), created by the anonymous
// session session ("" for none).
func (p *pendenze) view(o *ownership, idA2A, idPendenza, session string) domain.PendenzaView {
	return domain.PendenzaView{IDA2A: idA2A, IDPendenza: idPendenza, IDDominio: p.names.name(o.dominio),
		IDUnita: p.unita(o), IDTipoPendenza: p.names.name(o.tipo), PayerID: o.payer(), NumeroAvviso: o.avviso(), UUID: o.uuid(),
		SessionHash: session, Stato: o.stato.pendenzaStato()}
}

// session is the hash of the anonymous session that created the pendenza
// ("" for none): a lookup only for such a pendenza, never on the decisions
// about the others.
func (p *pendenze) session(o *ownership) string {
	if !o.anonymous {
		return ""
	}
	h, _ := p.sessions.get(o.key())
	return h
}

// unita is the pendenza's operational unit ("" for none).
func (p *pendenze) unita(o *ownership) string {
	if o.unita == 0 {
		return ""
	}
	return p.names.name(o.unita - 1)
}

// PendenzaView returns the ownership facts of a pendenza. It does not
// allocate: it is the hot path of every pendenza decision. The record (a
// value whose strings never change) and the session are read at a commit
// boundary; the view is built from them after, once: names only grow.
func (m *ReadModel) PendenzaView(idA2A, idPendenza string) (domain.PendenzaView, bool) {
	var (
		o       *ownership
		ok      bool
		session string
	)
	for {
		s := m.readBegin()
		session = ""
		if o, ok = m.ownership(idA2A, idPendenza); ok && o.anonymous {
			session = m.pendenze.session(o)
		}
		if m.readDone(s) {
			break
		}
	}
	if !ok {
		return domain.PendenzaView{}, false
	}
	return m.pendenze.view(o, idA2A, idPendenza, session), true
}

// ownership looks the record of idA2A/idPendenza up, the key built on the
// stack when it is short enough.
func (m *ReadModel) ownership(idA2A, idPendenza string) (*ownership, bool) {
	var buf [80]byte
	if len(idA2A)+1+len(idPendenza) > len(buf) {
		return m.pendenze.own.get(pendenzaKey(idA2A, idPendenza))
	}
	n := copy(buf[:], idA2A)
	buf[n] = '/'
	n++
	n += copy(buf[n:], idPendenza)
	return m.pendenze.own.getBytes(buf[:n])
}

// Pendenza returns the whole pendenza.
func (m *ReadModel) Pendenza(idA2A, idPendenza string) (Pendenza, bool) {
	key := pendenzaKey(idA2A, idPendenza)
	return whole(m, func() (Pendenza, bool) { return m.pendenzaByKey(key) })
}

func (m *ReadModel) pendenzaByKey(key string) (Pendenza, bool) {
	p := m.pendenze
	o, ok := p.own.get(key)
	if !ok {
		return Pendenza{}, false
	}
	d := p.details.at(o.details)
	payer, _ := unpackSubject(d.payer) // checked when it was restored or packed
	var descr string
	if p.anyDescr.Load() {
		descr, _ = p.descr.get(key)
	}
	return Pendenza{DescrizioneStato: descr, IDA2A: o.creator(), IDPendenza: o.idPendenza(), IDDominio: p.names.name(o.dominio),
		IDTipoPendenza: p.names.name(o.tipo), Causale: d.causale, AmountCents: d.amount, Payer: payer,
		NumeroAvviso: o.avviso(), UUID: o.uuid(), IDUnitaOperativa: p.unita(o), SessionHash: p.session(o), Stato: o.stato.String(), Position: d.position,
		Created: fromUnixNanos(d.created), govpay: d.govpay}, true
}

// unixNanos is t in unix nanoseconds, 0 for the zero time (unknown).
func unixNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromUnixNanos is unixNanos undone: 0 is the zero time.
func fromUnixNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// noticeOwner returns the key of the pendenza holding this notice number
// at idDominio.
func (p *pendenze) noticeOwner(idDominio, numeroAvviso string) (string, bool) {
	k, ok := p.noticeKey(idDominio, numeroAvviso)
	if !ok {
		return "", false
	}
	p.noticeMu.RLock()
	key, ok := p.notices[k]
	p.noticeMu.RUnlock()
	return key, ok
}

// PendenzaByNotice returns the pendenza with this notice number at idDominio.
func (m *ReadModel) PendenzaByNotice(idDominio, numeroAvviso string) (Pendenza, bool) {
	return whole(m, func() (Pendenza, bool) {
		key, ok := m.pendenze.noticeOwner(idDominio, numeroAvviso)
		if !ok {
			return Pendenza{}, false
		}
		return m.pendenzaByKey(key)
	})
}

// NoticeInUse reports whether numeroAvviso is already taken at idDominio.
func (m *ReadModel) NoticeInUse(idDominio, numeroAvviso string) bool {
	_, ok := whole(m, func() (string, bool) { return m.pendenze.noticeOwner(idDominio, numeroAvviso) })
	return ok
}

// PendenzeFilter selects pendenze in a list.
type PendenzeFilter struct {
	Creator string // only those created by this idA2A
	Payer   string // only those with this payer id (upper-case)
	// Keep, when set, must return true for the pendenza to be listed.
	Keep func(domain.PendenzaView) bool
	// KeepPendenza is Keep given the whole pendenza.
	KeepPendenza func(Pendenza) bool
}

// Pendenze returns the pendenze that pass f, in creation order.
func (m *ReadModel) Pendenze(f PendenzeFilter) []Pendenza {
	return wholeList(m, func() []Pendenza { return m.pendenzeList(f) })
}

func (m *ReadModel) pendenzeList(f PendenzeFilter) []Pendenza {
	p := m.pendenze
	p.listMu.RLock()
	var keys []string
	pick := func(idx []int32) { // the lists are kept in creation order (enlist)
		keys = make([]string, len(idx))
		for i, j := range idx {
			keys[i] = p.order[j]
		}
	}
	switch {
	case f.Creator != "":
		pick(p.byCreator[f.Creator])
	case f.Payer != "":
		pick(p.byPayer[f.Payer])
	default:
		keys = append(keys, p.order...)
	}
	p.listMu.RUnlock()
	out := make([]Pendenza, 0, len(keys))
	for _, k := range keys {
		pd, ok := m.pendenzaByKey(k)
		if !ok {
			continue
		}
		if f.Creator != "" && pd.IDA2A != f.Creator {
			continue
		}
		if f.Payer != "" && pd.View().PayerID != f.Payer {
			continue
		}
		if f.Keep != nil && !f.Keep(pd.View()) {
			continue
		}
		if f.KeepPendenza != nil && !f.KeepPendenza(pd) {
			continue
		}
		out = append(out, pd)
	}
	return out
}

// PendenzeCount returns how many pendenze the model holds.
func (m *ReadModel) PendenzeCount() int {
	n, _ := whole(m, func() (int, bool) { return m.pendenze.own.len(), true })
	return n
}
