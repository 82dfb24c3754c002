package projections

import (
	"strings"
	"sync"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// Pendenza states.
const (
	StatoNonEseguita = "NON_ESEGUITA"
	StatoEseguita    = "ESEGUITA"
)

// ownership is the compact ownership record of one pendenza: what every
// decision needs. Strings shared by many pendenze (creator, entity, type)
// are interned; idPendenza is a substring of the map key.
type ownership struct {
	creator, idPendenza, dominio, tipo string
	payerID, avviso, uuid              string
	paid                               bool
}

// details is the rest of a pendenza, read only to build responses.
type details struct {
	causale  string
	amount   int64
	payer    events.Subject
	position events.Position
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
	Stato          string
	Position       events.Position
}

// View returns the facts decisions need.
func (p Pendenza) View() domain.PendenzaView {
	return domain.PendenzaView{IDA2A: p.IDA2A, IDPendenza: p.IDPendenza, IDDominio: p.IDDominio,
		IDTipoPendenza: p.IDTipoPendenza, PayerID: strings.ToUpper(p.Payer.Identificativo),
		NumeroAvviso: p.NumeroAvviso, UUID: p.UUID}
}

type pendenze struct {
	own     *table[ownership] // idA2A "/" idPendenza → ownership
	details *table[details]   // same key → details
	notices *table[string]    // idDominio "/" numeroAvviso → key

	listMu    sync.RWMutex        // guards the three lists below (list endpoints only)
	order     []string            // keys in creation order
	byCreator map[string][]string // idA2A → keys
	byPayer   map[string][]string // payer id → keys

	intern map[string]string // writer-only: shared copies of repeated strings
}

func newPendenze() *pendenze {
	return &pendenze{own: newTable[ownership](), details: newTable[details](), notices: newTable[string](),
		byCreator: map[string][]string{}, byPayer: map[string][]string{}, intern: map[string]string{}}
}

func pendenzaKey(idA2A, idPendenza string) string { return idA2A + "/" + idPendenza }

func (p *pendenze) in(s string) string {
	if v, ok := p.intern[s]; ok {
		return v
	}
	p.intern[s] = s
	return s
}

func (p *pendenze) put(e events.PendenzaCreated, pos events.Position) {
	key := pendenzaKey(e.IDA2A, e.IDPendenza)
	payer := strings.ToUpper(e.Payer.Identificativo)
	old, existed := p.own.get(key)
	o := ownership{creator: p.in(e.IDA2A), idPendenza: key[len(e.IDA2A)+1:], dominio: p.in(e.IDDominio),
		tipo: p.in(e.IDTipoPendenza), payerID: payer, avviso: e.NumeroAvviso, uuid: e.UUID}
	if existed {
		o.paid = old.paid
		if old.avviso != o.avviso || old.dominio != o.dominio {
			p.notices.del(old.dominio + "/" + old.avviso)
		}
	}
	p.own.put(key, o)
	p.details.put(key, details{causale: e.Causale, amount: e.AmountCents, payer: e.Payer, position: pos})
	if o.avviso != "" {
		p.notices.put(o.dominio+"/"+o.avviso, key)
	}
	p.listMu.Lock()
	defer p.listMu.Unlock()
	if !existed {
		p.order = append(p.order, key)
		p.byCreator[o.creator] = append(p.byCreator[o.creator], key)
	} else if old.payerID != payer {
		p.byPayer[old.payerID] = removeKey(p.byPayer[old.payerID], key)
	}
	if payer != "" && (!existed || old.payerID != payer) {
		p.byPayer[payer] = append(p.byPayer[payer], key)
	}
}

func removeKey(keys []string, key string) []string {
	out := keys[:0:0]
	for _, k := range keys {
		if k != key {
			out = append(out, k)
		}
	}
	return out
}

func (p *pendenze) markPaid(idA2A, idPendenza string) {
	p.own.update(pendenzaKey(idA2A, idPendenza), func(o ownership, ok bool) ownership {
		if ok {
			o.paid = true
		}
		return o
	})
}

func (o ownership) view() domain.PendenzaView {
	return domain.PendenzaView{IDA2A: o.creator, IDPendenza: o.idPendenza, IDDominio: o.dominio,
		IDTipoPendenza: o.tipo, PayerID: o.payerID, NumeroAvviso: o.avviso, UUID: o.uuid}
}

// PendenzaView returns the ownership facts of a pendenza. It does not
// allocate: it is the hot path of every pendenza decision.
func (m *ReadModel) PendenzaView(idA2A, idPendenza string) (domain.PendenzaView, bool) {
	var buf [80]byte
	var o ownership
	var ok bool
	if len(idA2A)+1+len(idPendenza) <= len(buf) {
		n := copy(buf[:], idA2A)
		buf[n] = '/'
		n++
		n += copy(buf[n:], idPendenza)
		o, ok = m.pendenze.own.getBytes(buf[:n])
	} else {
		o, ok = m.pendenze.own.get(pendenzaKey(idA2A, idPendenza))
	}
	if !ok {
		return domain.PendenzaView{}, false
	}
	return o.view(), true
}

// Pendenza returns the whole pendenza.
func (m *ReadModel) Pendenza(idA2A, idPendenza string) (Pendenza, bool) {
	return m.pendenzaByKey(pendenzaKey(idA2A, idPendenza))
}

func (m *ReadModel) pendenzaByKey(key string) (Pendenza, bool) {
	o, ok := m.pendenze.own.get(key)
	if !ok {
		return Pendenza{}, false
	}
	d, _ := m.pendenze.details.get(key)
	stato := StatoNonEseguita
	if o.paid {
		stato = StatoEseguita
	}
	return Pendenza{IDA2A: o.creator, IDPendenza: o.idPendenza, IDDominio: o.dominio, IDTipoPendenza: o.tipo,
		Causale: d.causale, AmountCents: d.amount, Payer: d.payer, NumeroAvviso: o.avviso, UUID: o.uuid,
		Stato: stato, Position: d.position}, true
}

// PendenzaByNotice returns the pendenza with this notice number at idDominio.
func (m *ReadModel) PendenzaByNotice(idDominio, numeroAvviso string) (Pendenza, bool) {
	key, ok := m.pendenze.notices.get(idDominio + "/" + numeroAvviso)
	if !ok {
		return Pendenza{}, false
	}
	return m.pendenzaByKey(key)
}

// NoticeInUse reports whether numeroAvviso is already taken at idDominio.
func (m *ReadModel) NoticeInUse(idDominio, numeroAvviso string) bool {
	_, ok := m.pendenze.notices.get(idDominio + "/" + numeroAvviso)
	return ok
}

// PendenzeFilter selects pendenze in a list.
type PendenzeFilter struct {
	Creator string // only those created by this idA2A
	Payer   string // only those with this payer id (upper-case)
	// Keep, when set, must return true for the pendenza to be listed.
	Keep func(domain.PendenzaView) bool
}

// Pendenze returns the pendenze that pass f, in creation order.
func (m *ReadModel) Pendenze(f PendenzeFilter) []Pendenza {
	p := m.pendenze
	p.listMu.RLock()
	var keys []string
	switch {
	case f.Creator != "":
		keys = append(keys, p.byCreator[f.Creator]...)
	case f.Payer != "":
		keys = append(keys, p.byPayer[f.Payer]...)
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
		out = append(out, pd)
	}
	return out
}

// PendenzeCount returns how many pendenze the model holds.
func (m *ReadModel) PendenzeCount() int { return m.pendenze.own.len() }
