package operations

import (
	"maps"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// TestEventVisibleWhereItsResourceIs: a caller who reads a resource through
// a role scoped to one unit of an entity also sees the events that made it
// (domain.EventVisible places each event where the read decides it lies).
func TestEventVisibleWhereItsResourceIs(t *testing.T) {
	t.Parallel()
	const d, u1, u2 = "01234567890", "U1", "U2"
	role, err := domain.ParseRole("unit-u1", maps.All(map[string][]string{
		domain.ServicePagamenti.String():      {"R"},
		domain.ServiceGiornaleEventi.String(): {"R"},
	}), nil, map[string][]string{d: {u1}}, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	p := domain.Principal{Kind: domain.KindOperator, Name: "op", Enabled: true, Roles: []domain.Role{role}}
	receipt := func(unit string) *projections.Receipt {
		return &projections.Receipt{Event: events.ReceiptRecorded{IDRicevuta: "R1", IDDominio: d, NumeroAvviso: "301000000000012345",
			Esito: events.EsitoEseguito, IDUnitaOperativa: unit}}
	}
	// The receipt of a pendenza of the role's unit, of another unit, of
	// the entity itself (no unit).
	for unit, want := range map[string]bool{u1: true, u2: false, "": false} {
		r := receipt(unit)
		read := OnPlace(p, domain.ServicePagamenti, domain.RightRead, ReceiptPlace(r), nil) == nil
		if seen := domain.EventVisible(p, false, r.Event); read != want || seen != want {
			t.Errorf("unit %q: reads the receipt: %v, sees its event: %v; want both %v", unit, read, seen, want)
		}
	}
}

// FuzzParseEventID: an id parses only when it is the canonical spelling
// of its position and index ("N.0" being "N" spelled out), and every
// EventID parses back to what made it.
func FuzzParseEventID(f *testing.F) {
	for _, s := range []string{"1", "42.3", "42.0", "0", "01", "1.", ".1", "1.01", "1.-1", "18446744073709551615", "18446744073709551616", "x", "", "1.1048576", "1.1048577", "1.10000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pos, idx, ok := ParseEventID(s)
		if !ok {
			return
		}
		if pos == 0 || idx < 0 || idx > MaxEventIndex {
			t.Fatalf("ParseEventID(%q) = %d, %d", s, pos, idx)
		}
		if id := EventID(pos, idx); id != s && id+".0" != s {
			t.Fatalf("ParseEventID(%q) = %d, %d, which EventID spells %q", s, pos, idx, id)
		}
		if p2, i2, ok2 := ParseEventID(EventID(pos, idx)); !ok2 || p2 != pos || i2 != idx {
			t.Fatalf("EventID(%d, %d) does not parse back: %d, %d, %v", pos, idx, p2, i2, ok2)
		}
	})
}

func TestEventID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		pos   events.Position
		index int
		want  string
	}{
		{"first_of_commit", 7, 0, "7"},
		{"later_in_commit", 7, 2, "7.2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := EventID(c.pos, c.index); got != c.want {
				t.Fatalf("EventID(%d, %d) = %q, want %q", c.pos, c.index, got, c.want)
			}
		})
	}
}
