package projections

import (
	"fmt"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

func TestPendenzeOfDominio(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	put := func(id, dominio, tipo string) {
		f.commit(t, events.PendenzaCreated{IDA2A: "app", IDPendenza: id, IDDominio: dominio, IDTipoPendenza: tipo,
			Causale: "c", AmountCents: 100, NumeroAvviso: "", UUID: "u" + id})
	}
	for i, d := range []string{"D1", "D2", "D1", "D1", "D2", "D1"} {
		tipo := "A"
		if i%2 == 1 {
			tipo = "B"
		}
		put(string(rune('a'+i)), d, tipo)
	}
	ids := func(ps []Pendenza) string {
		s := ""
		for _, p := range ps {
			s += p.IDPendenza
		}
		return s
	}
	cases := []struct {
		name        string
		dominio     string
		skip, limit int
		keep        func(domain.PendenzaView) bool
		want        string
		more        bool
	}{
		{"newest_first", "D1", 0, 10, nil, "fdca", false},
		{"first_page_has_more", "D1", 0, 2, nil, "fd", true},
		{"second_page_last", "D1", 2, 2, nil, "ca", false},
		{"keep_filters_before_paging", "D1", 0, 2, func(v domain.PendenzaView) bool { return v.IDTipoPendenza == "A" }, "ca", false},
		{"other_entity", "D2", 0, 10, nil, "eb", false},
		{"unknown_entity", "D9", 0, 10, nil, "", false},
		{"past_the_end", "D1", 10, 2, nil, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, more := m.PendenzeOfDominio(tc.dominio, tc.skip, tc.limit, tc.keep)
			if ids(got) != tc.want || more != tc.more {
				t.Fatalf("got %q more=%v, want %q more=%v", ids(got), more, tc.want, tc.more)
			}
		})
	}
	// An update that moves a pendenza to another entity moves it in the index.
	put("c", "D2", "A")
	if got, _ := m.PendenzeOfDominio("D1", 0, 10, nil); ids(got) != "fda" {
		t.Fatalf("D1 after the move: %q", ids(got))
	}
	if got, _ := m.PendenzeOfDominio("D2", 0, 10, nil); ids(got) != "ecb" {
		t.Fatalf("D2 after the move: %q", ids(got))
	}
}

// TestPendenzeOfDominioWalkWhileOthersMove: pendenze move to or from the
// entity while its list is walked (between two chunks of the walk): every
// pendenza still at the entity that the walk reaches is listed once, none
// twice and none skipped.
func TestPendenzeOfDominioWalkWhileOthersMove(t *testing.T) {
	for _, tc := range []struct {
		name  string
		moved string // an older pendenza that moves while the walk reads the first chunk
		from  string
		to    string
	}{
		{"an_older_one_moves_away", "p000", "D1", "D2"},
		{"an_older_one_moves_in", "q000", "D2", "D1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			f := &feeder{m: m}
			put := func(id, dominio string) {
				f.commit(t, events.PendenzaCreated{IDA2A: "app", IDPendenza: id, IDDominio: dominio, IDTipoPendenza: "T",
					Causale: "c", AmountCents: 100, UUID: "u" + id})
			}
			put("q000", "D2")
			const n = 100
			for i := range n {
				put(fmt.Sprintf("p%03d", i), "D1")
			}
			moved := false
			got, _ := m.PendenzeOfDominio("D1", 0, 2*n, func(domain.PendenzaView) bool {
				if !moved { // the first chunk was read; the next is not yet
					moved = true
					put(tc.moved, tc.to)
				}
				return true
			})
			seen := map[string]int{}
			for _, pd := range got {
				seen[pd.IDPendenza]++
			}
			for i := range n {
				id := fmt.Sprintf("p%03d", i)
				if id == tc.moved {
					continue
				}
				if seen[id] != 1 {
					t.Errorf("%s listed %d times, want once", id, seen[id])
				}
			}
		})
	}
}

// TestPendenzeOfDominioReadsWholeCommits: each pendenza PendenzeOfDominio
// lists is read at a commit boundary: a state change being published is
// seen whole (its state with its descrizioneStato) or not at all.
func TestPendenzeOfDominioReadsWholeCommits(t *testing.T) {
	m := New()
	f := &feeder{m: m}
	f.commit(t, events.PendenzaCreated{IDA2A: "app", IDPendenza: "p", IDDominio: "D1", IDTipoPendenza: "T",
		Causale: "c", AmountCents: 100, UUID: "u"})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20000 {
			e := events.PendenzaStatusChanged{IDA2A: "app", IDPendenza: "p", IDDominio: "D1", IDTipoPendenza: "T", Stato: StatoNonEseguita}
			if i%2 == 0 {
				e.Stato, e.DescrizioneStato = StatoAnnullata, "annullata"
			}
			if err := m.ApplyCommit(events.Position(i+2), e); err != nil {
				panic(err)
			}
		}
	}()
	for torn := 0; ; {
		select {
		case <-done:
			if torn > 0 {
				t.Fatalf("%d reads saw a state without its descrizioneStato", torn)
			}
			return
		default:
		}
		got, _ := m.PendenzeOfDominio("D1", 0, 1, nil)
		if len(got) == 1 && (got[0].Stato == StatoAnnullata) != (got[0].DescrizioneStato == "annullata") {
			torn++
		}
	}
}
