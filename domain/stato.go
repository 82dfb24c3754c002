package domain

import (
	"errors"
	"fmt"
)

// PendenzaStato is a pendenza's state, as GovPay names it. The zero value
// is no state: it is neither payable nor settable.
type PendenzaStato struct{ s string }

// The states a pendenza can be in.
var (
	StatoNonEseguita = PendenzaStato{"NON_ESEGUITA"} // open: may be paid
	StatoEseguita    = PendenzaStato{"ESEGUITA"}     // paid (a receipt with esito ESEGUITO)
	StatoAnnullata   = PendenzaStato{"ANNULLATA"}    // cancelled by its creator or an operator
)

// PendenzaStati are the states ParsePendenzaStato reads.
var PendenzaStati = []PendenzaStato{StatoNonEseguita, StatoEseguita, StatoAnnullata}

func (s PendenzaStato) String() string { return s.s }

// Errors of the state rules: well-formed requests the state forbids
// (commands answer them 422).
var (
	// ErrPendenzaPaid: a paid pendenza changes state no more, and is not
	// paid twice.
	ErrPendenzaPaid = errors.New("the pendenza is already paid")
	// ErrPendenzaCancelled: a cancelled pendenza is not paid.
	ErrPendenzaCancelled = errors.New("the pendenza is cancelled")
)

// ParsePendenzaStato parses a stored state name.
func ParsePendenzaStato(s string) (PendenzaStato, error) {
	for _, st := range PendenzaStati {
		if st.s == s {
			return st, nil
		}
	}
	return PendenzaStato{}, fmt.Errorf("unknown pendenza state %q", s)
}

// ParseSettableStato parses the state a caller asks a pendenza to take
// (GovPay's PATCH of /stato): ANNULLATA (cancel) or NON_ESEGUITA (reopen).
// ESEGUITA is set only by a receipt.
func ParseSettableStato(s string) (PendenzaStato, error) {
	switch s {
	case StatoAnnullata.s:
		return StatoAnnullata, nil
	case StatoNonEseguita.s:
		return StatoNonEseguita, nil
	}
	return PendenzaStato{}, fmt.Errorf("stato must be %s or %s", StatoAnnullata, StatoNonEseguita)
}

// ChangeStato decides a pendenza in state from taking state to (a value of
// ParseSettableStato): changed is false for a repeat (the state it is
// already in); a paid pendenza changes no more (ErrPendenzaPaid).
func ChangeStato(from, to PendenzaStato) (changed bool, err error) {
	if err := StatoChangeable(from); err != nil {
		return false, err
	}
	if to != StatoAnnullata && to != StatoNonEseguita {
		return false, fmt.Errorf("stato %q cannot be set", to.s)
	}
	return from != to, nil
}

// StatoChangeable decides whether a pendenza in state s may be given
// another by a caller: not once paid (ErrPendenzaPaid).
func StatoChangeable(s PendenzaStato) error {
	if s == StatoEseguita {
		return ErrPendenzaPaid
	}
	return nil
}

// PayableStato decides whether a pendenza in state s may be paid: only an
// open one (ErrPendenzaPaid, ErrPendenzaCancelled).
func PayableStato(s PendenzaStato) error {
	switch s {
	case StatoNonEseguita:
		return nil
	case StatoEseguita:
		return ErrPendenzaPaid
	case StatoAnnullata:
		return ErrPendenzaCancelled
	}
	return fmt.Errorf("unknown pendenza state %q", s.s)
}
