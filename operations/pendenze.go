package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// Operations of the Pendenze API (API.md section 5).

// PendenzaViews finds the decision facts of a stored pendenza.
type PendenzaViews interface {
	PendenzaView(idA2A, idPendenza string) (domain.PendenzaView, bool)
}

// ReadOwnPendenza is GET /pendenze/{idA2A}/{idPendenza}: the caller asks
// only under its own idA2A (so it may learn a pendenza is missing there),
// and reads only the pendenze it created. It does not allocate.
func ReadOwnPendenza(m PendenzaViews, p domain.Principal, idA2A, idPendenza string, rec Recorder) (domain.PendenzaView, error) {
	v, err := find(rec, check(rec, "CanAskAboutIDA2A", domain.CanAskAboutIDA2A(p, idA2A)),
		func() (domain.PendenzaView, bool) { return m.PendenzaView(idA2A, idPendenza) }, nil)
	if err != nil {
		return v, err
	}
	return v, check(rec, "CanReadOwnPendenza", domain.CanReadOwnPendenza(p, v))
}

// ListOwnPendenze is the gate of GET /pendenze: the caller's own
// pendenze, each then kept by domain.CanReadOwnPendenza (OwnPendenze).
func ListOwnPendenze(p domain.Principal, rec Recorder) error { return askOwnIDA2A(p, rec) }

// askOwnIDA2A decides that p asks about the pendenze under its own idA2A
// (an active application authorized on PENDENZE).
func askOwnIDA2A(p domain.Principal, rec Recorder) error {
	return check(rec, "CanAskAboutIDA2A", domain.CanAskAboutIDA2A(p, p.IDA2A))
}

// PendenzeLists lists stored pendenze by an index (creator, payer) and a
// filter, in creation order.
type PendenzeLists interface {
	Pendenze(f projections.PendenzeFilter) []projections.Pendenza
}

// OwnPendenze is GET /pendenze on the Pendenze API: the gate, then the
// pendenze p created that domain.CanReadOwnPendenza admits (the list's
// filters then narrow them: HTTP's pendenzeFilters).
func OwnPendenze(m PendenzeLists, p domain.Principal, rec Recorder) ([]projections.Pendenza, error) {
	if err := ListOwnPendenze(p, rec); err != nil {
		return nil, err
	}
	return listPendenze(m, p, projections.PendenzeFilter{Creator: p.IDA2A}, domain.CanReadOwnPendenza), nil
}

// listPendenze lists the pendenze of index f that read admits for p.
func listPendenze(m PendenzeLists, p domain.Principal, f projections.PendenzeFilter,
	read func(domain.Principal, domain.PendenzaView) error) []projections.Pendenza {
	f.Keep = func(v domain.PendenzaView) bool { return read(p, v) == nil }
	return m.Pendenze(f)
}

// WritePendenzaUnder is the gate of PUT /pendenze/{idA2A}/{idPendenza},
// decided before the body is read: only under the caller's own idA2A
// (domain.RuleOwnIDA2A).
func WritePendenzaUnder(p domain.Principal, idA2A string, rec Recorder) error {
	return check(rec, "CanWriteUnderIDA2A", domain.CanWriteUnderIDA2A(p, idA2A))
}

// PutPendenza decides PUT /pendenze/{idA2A}/{idPendenza} moving (or
// creating) the pendenza to the place at (entity, unit, type): the gate,
// then creation (existing nil) or update of existing, then a paid one is
// 422 (changeable, as its PATCH), then an unknown or disabled entity, type
// or unit is 422. The command decides with the stream it loaded; Explain with the
// read model.
func PutPendenza(m Registry, p domain.Principal, existing *domain.PendenzaView, idA2A string, at domain.Place, rec Recorder) error {
	if err := WritePendenzaUnder(p, idA2A, rec); err != nil {
		return err
	}
	var err error
	if existing == nil {
		err = check(rec, "CanCreatePendenza", domain.CanCreatePendenza(p, idA2A, at))
	} else {
		err = check(rec, "CanUpdatePendenza", domain.CanUpdatePendenza(p, *existing, idA2A, at))
	}
	if err != nil {
		return err
	}
	if existing != nil {
		if err := changeable(*existing, rec); err != nil {
			return err
		}
	}
	if _, err = CheckEntityAndType(m, at.IDDominio, at.IDTipoPendenza, rec); err != nil {
		return err
	}
	return CheckUnit(m, at.IDDominio, at.IDUnita, rec)
}

// PendenzaWrites is what PUT of a pendenza reads.
type PendenzaWrites interface {
	PendenzaViews
	Registry
}

// UpdatePendenza is PutPendenza on the stored pendenza idA2A/idPendenza
// (not found when it does not exist) at the place at: an empty entity
// keeps the stored one (and, with no unit named, its unit), an empty type
// the stored type.
func UpdatePendenza(m PendenzaWrites, p domain.Principal, idA2A, idPendenza string, at domain.Place, rec Recorder) error {
	v, err := find(rec, WritePendenzaUnder(p, idA2A, rec),
		func() (domain.PendenzaView, bool) { return m.PendenzaView(idA2A, idPendenza) }, nil)
	if err != nil {
		return err
	}
	if at.IDDominio == "" {
		at.IDDominio = v.IDDominio
		if at.IDUnita == "" {
			at.IDUnita = v.IDUnita
		}
	}
	if at.IDTipoPendenza == "" {
		at.IDTipoPendenza = v.IDTipoPendenza
	}
	return PutPendenza(m, p, &v, idA2A, at, rec)
}
