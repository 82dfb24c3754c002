package projections

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/payauthz/payauthz/events"
)

// A pendenza record of a snapshot body, every integer a varint:
//
//	rec | keyEnd | payerEnd | avvisoEnd | dominio | tipo | unit | state byte |
//	causale | amount (signed) | payer (packed, see packSubject) | position |
//	created (signed: unix nanoseconds, 0 unknown) | GovPay details (packed, see packDetails)
//
// rec is the ownership record as packed in memory (key, payer id, notice
// number, UUID back to back), and dominio and tipo index the head's Names,
// so a record loads as it was, without packing or interning again. Strings
// are a uvarint length then the bytes.

// minPendenzaRecord is the fewest bytes a record can take (every string
// empty, every integer one byte): a count beyond body/min is a lie.
const minPendenzaRecord = 15

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendPendenza appends the record of one pendenza to b.
func appendPendenza(b []byte, o ownership, d details) []byte {
	b = appendString(b, o.rec)
	b = binary.AppendUvarint(b, uint64(o.keyEnd))
	b = binary.AppendUvarint(b, uint64(o.payerEnd))
	b = binary.AppendUvarint(b, uint64(o.avvisoEnd))
	b = binary.AppendUvarint(b, uint64(o.dominio))
	b = binary.AppendUvarint(b, uint64(o.tipo))
	b = binary.AppendUvarint(b, uint64(o.unita))
	b = append(b, byte(o.stato))
	b = appendString(b, d.causale)
	b = binary.AppendVarint(b, d.amount)
	b = appendString(b, d.payer)
	b = binary.AppendUvarint(b, uint64(d.position))
	b = binary.AppendVarint(b, d.created)
	return appendString(b, d.govpay)
}

var errShortBody = errors.New("body ends inside a record")

// snapReader reads a snapshot body held in a string; the strings it
// returns are slices of it. The first error sticks: every later read
// returns zero values, so a caller checks err once per record.
type snapReader struct {
	s   string
	err error
}

func (r *snapReader) uvarint() uint64 {
	var x uint64
	for i := 0; i < len(r.s) && i < binary.MaxVarintLen64; i++ {
		c := r.s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflows 64 bits
			}
			r.s = r.s[i+1:]
			return x | uint64(c)<<(7*i)
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
	if r.err == nil {
		r.err = errShortBody
	}
	r.s = ""
	return 0
}

func (r *snapReader) varint() int64 {
	ux := r.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

// small reads a uvarint that must be below limit.
func (r *snapReader) small(limit uint64) uint64 {
	x := r.uvarint()
	if x >= limit && r.err == nil {
		r.err = fmt.Errorf("value %d out of range", x)
	}
	return x
}

func (r *snapReader) byte() byte {
	if len(r.s) == 0 {
		if r.err == nil {
			r.err = errShortBody
		}
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

func (r *snapReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		if r.err == nil {
			r.err = errShortBody
		}
		r.s = ""
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// restoreAll reads count pendenza records into p, a model not yet shared
// with readers: every pendenza once, in creation order, so none of put's
// checks for an update are needed, and each is indexed by the functions
// put indexes a new pendenza with (putSession for the creating sessions,
// indexNotice, list). It fails on a record that does not hold together, a
// repeated pendenza, a session of no pendenza, or bytes left after the
// last one.
//
// The work is split over two cores: this goroutine parses the records and
// fills the ownership table; another fills the notice index and the
// lists from the records it is handed in batches.
func (p *pendenze) restoreAll(r *snapReader, count int, names []string, sessions map[string]string) error {
	if count < 0 || count > len(r.s)/minPendenzaRecord {
		return fmt.Errorf("count %d does not fit the body", count)
	}
	for _, n := range names {
		if id := p.names.id(n); int(id) != len(p.names.ids)-1 {
			return fmt.Errorf("name %q listed twice", n)
		}
	}
	p.own.reserve(count)
	p.notices = make(map[noticeKey]string, count)
	p.order = make([]string, 0, count)

	batches := make(chan []ownership, 8)
	indexed := make(chan struct{})
	go func() {
		defer close(indexed)
		for batch := range batches {
			for _, o := range batch {
				p.index(o)
			}
		}
	}()
	err := p.restoreRecords(r, count, uint64(len(names)), sessions, batches)
	close(batches)
	<-indexed
	if err != nil {
		return err
	}
	if len(r.s) != 0 {
		return fmt.Errorf("%d bytes after the last record", len(r.s))
	}
	if p.own.len() != count {
		return errors.New("a pendenza is listed twice")
	}
	if p.sessions.len() != len(sessions) {
		return errors.New("a session names no pendenza")
	}
	return nil
}

// restoreBatch is how many records restoreRecords hands on at a time.
const restoreBatch = 4096

// restoreRecords parses count records into the ownership table, with the
// session of each that sessions names, and sends them on in batches.
func (p *pendenze) restoreRecords(r *snapReader, count int, nNames uint64, sessions map[string]string, batches chan<- []ownership) error {
	batch := make([]ownership, 0, restoreBatch)
	var govpay events.PendenzaDetails // each record's details, checked in one
	for i := range count {
		var o ownership
		o.rec = r.str()
		o.keyEnd = uint16(r.small(uint64(len(o.rec)) + 1))
		o.payerEnd = uint16(r.small(uint64(len(o.rec)) + 1))
		o.avvisoEnd = uint16(r.small(uint64(len(o.rec)) + 1))
		o.dominio = uint32(r.small(nNames))
		o.tipo = uint32(r.small(nNames))
		o.unita = uint32(r.small(nNames + 1))
		o.stato = stato(r.byte())
		d := details{causale: r.str(), amount: r.varint(), payer: r.str(), position: events.Position(r.uvarint()), created: r.varint(),
			govpay: r.str()}
		if r.err != nil {
			return fmt.Errorf("record %d: %w", i, r.err)
		}
		if _, err := unpackSubject(d.payer); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if err := unpackDetailsInto(&govpay, d.govpay); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if o.stato >= statoCount {
			return fmt.Errorf("record %d: unknown state %d", i, o.stato)
		}
		if len(o.rec) > maxPacked || o.keyEnd > o.payerEnd || o.payerEnd > o.avvisoEnd {
			return fmt.Errorf("record %d: offsets do not fit", i)
		}
		if slash := strings.IndexByte(o.key(), '/'); slash <= 0 || slash == len(o.key())-1 {
			return fmt.Errorf("record %d: key %q is not idA2A/idPendenza", i, o.key())
		}
		if h, ok := sessions[o.key()]; ok {
			p.putSession(&o, h)
		}
		o.details = p.details.add(d)
		rec := o
		p.own.put(o.key(), &rec)
		if batch = append(batch, o); len(batch) == restoreBatch {
			batches <- batch
			batch = make([]ownership, 0, restoreBatch)
		}
	}
	batches <- batch
	return nil
}

// index adds a new pendenza, the last created, to the notice index and
// the lists of a model not yet shared with readers, as put does.
func (p *pendenze) index(o ownership) {
	p.indexNotice(&o)
	p.list(o)
}
