package domain

import (
	"errors"
	"testing"
)

func TestChangeStato(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		from, to    PendenzaStato
		wantChanged bool
		wantErr     error
	}{
		{"cancel_open", StatoNonEseguita, StatoAnnullata, true, nil},
		{"reopen_cancelled", StatoAnnullata, StatoNonEseguita, true, nil},
		{"cancel_cancelled_is_a_repeat", StatoAnnullata, StatoAnnullata, false, nil},
		{"reopen_open_is_a_repeat", StatoNonEseguita, StatoNonEseguita, false, nil},
		{"cancel_paid", StatoEseguita, StatoAnnullata, false, ErrPendenzaPaid},
		{"reopen_paid", StatoEseguita, StatoNonEseguita, false, ErrPendenzaPaid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			changed, err := ChangeStato(c.from, c.to)
			if changed != c.wantChanged || !errors.Is(err, c.wantErr) {
				t.Fatalf("ChangeStato(%s, %s) = %v, %v; want %v, %v", c.from, c.to, changed, err, c.wantChanged, c.wantErr)
			}
		})
	}
	for _, to := range []PendenzaStato{StatoEseguita, {}} {
		if _, err := ChangeStato(StatoNonEseguita, to); err == nil {
			t.Fatalf("ChangeStato to %q allowed", to)
		}
	}
}

func TestParseSettableStato(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want PendenzaStato
		ok   bool
	}{
		{"ANNULLATA", StatoAnnullata, true},
		{"NON_ESEGUITA", StatoNonEseguita, true},
		{"ESEGUITA", PendenzaStato{}, false},
		{"annullata", PendenzaStato{}, false},
		{"", PendenzaStato{}, false},
	}
	for _, c := range cases {
		t.Run("in_"+c.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSettableStato(c.in)
			if got != c.want || (err == nil) != c.ok {
				t.Fatalf("ParseSettableStato(%q) = %v, %v", c.in, got, err)
			}
		})
	}
}

func TestPayableStato(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		s    PendenzaStato
		want error
	}{
		{"open", StatoNonEseguita, nil},
		{"paid", StatoEseguita, ErrPendenzaPaid},
		{"cancelled", StatoAnnullata, ErrPendenzaCancelled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if err := PayableStato(c.s); !errors.Is(err, c.want) {
				t.Fatalf("PayableStato(%s) = %v, want %v", c.s, err, c.want)
			}
		})
	}
	if PayableStato(PendenzaStato{}) == nil {
		t.Fatal("the zero state is payable")
	}
	for _, s := range []PendenzaStato{StatoNonEseguita, StatoEseguita, StatoAnnullata} {
		if got, err := ParsePendenzaStato(s.String()); err != nil || got != s {
			t.Fatalf("ParsePendenzaStato(%s) = %v, %v", s, got, err)
		}
	}
}
