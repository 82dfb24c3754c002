package projections

import (
	"slices"

	"github.com/payauthz/payauthz/domain"
)

// The pendenze of one creditor entity, in creation order: the index that
// lets a list filtered by entity (the console's, the Backoffice's) read
// one page without scanning every pendenza.

// indexDominio appends idx, the newest pendenza, to its entity's list
// (listMu held, or a model not yet shared).
func (p *pendenze) indexDominio(dominio uint32, idx int32) {
	if p.byDominio == nil {
		p.byDominio = map[uint32][]int32{}
	}
	p.byDominio[dominio] = append(p.byDominio[dominio], idx)
}

// moveDominio moves a pendenza whose update changed its entity from one
// entity's list to the other's, keeping both in creation order (listMu held).
func (p *pendenze) moveDominio(key, creator string, from, to uint32) {
	idx := p.indexOf(key, creator)
	if idx < 0 {
		return
	}
	p.byDominio[from] = without(p.byDominio[from], idx)
	enlist(p.byDominio, to, idx)
}

// PendenzeOfDominio returns up to limit pendenze of the entity idDominio
// that keep accepts, newest first, skipping the first skip accepted ones,
// and whether more follow. It reads the entity's own index, so its cost
// grows with skip+limit and with how many of the entity's pendenze keep
// refuses, never with the pendenze of other entities.
func (m *ReadModel) PendenzeOfDominio(idDominio string, skip, limit int, keep func(domain.PendenzaView) bool) ([]Pendenza, bool) {
	all, more := m.pendenzeOfDominioFrom(idDominio, skip+limit, keep)
	if len(all) <= skip {
		return nil, more
	}
	return all[skip:], more
}

// pendenzeOfDominioFrom walks the entity's list newest first, in chunks
// read under the list lock, and returns up to want accepted pendenze and
// whether another follows. Each chunk resumes below the creation index
// the previous one stopped at, not at a place in the list: a pendenza
// moving to or from the entity between two chunks shifts the list, which
// would repeat or skip one. The walk starts below the pendenze created
// when it begins, so pendenze created meanwhile are not listed.
func (m *ReadModel) pendenzeOfDominioFrom(idDominio string, want int, keep func(domain.PendenzaView) bool) ([]Pendenza, bool) {
	p := m.pendenze
	out := make([]Pendenza, 0, want)
	const chunk = 64
	below := int32(-1) // the walk lists the entity's pendenze created before this one
	for {
		p.listMu.RLock()
		var idx []int32
		if id, ok := p.names.lookup(idDominio); ok {
			idx = p.byDominio[id]
		}
		if below < 0 {
			below = int32(len(p.order))
		}
		end, _ := slices.BinarySearch(idx, below) // idx is in creation order (enlist)
		keys := make([]string, 0, min(chunk, end))
		for ; end > 0 && len(keys) < chunk; end-- {
			below = idx[end-1]
			keys = append(keys, p.order[below])
		}
		p.listMu.RUnlock()
		if len(keys) == 0 {
			return out, false
		}
		for _, k := range keys {
			pd, ok := whole(m, func() (Pendenza, bool) { return m.pendenzaByKey(k) }) // one pendenza, one commit
			if !ok || pd.IDDominio != idDominio || keep != nil && !keep(pd.View()) {
				continue
			}
			if len(out) == want {
				return out, true
			}
			out = append(out, pd)
		}
	}
}

// lookup returns the id of an interned name without interning it. It
// reads the published list, so it needs no lock.
func (n *names) lookup(s string) (uint32, bool) {
	for i, v := range *n.all.Load() {
		if v == s {
			return uint32(i), true
		}
	}
	return 0, false
}
