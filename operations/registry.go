package operations

import (
	"github.com/payauthz/payauthz/domain"
)

// Registry finds the entities and pendenza types decisions and writes need.
type Registry interface {
	EntityView(idDominio string) (domain.EntityView, bool)
	TypeView(idTipoPendenza string) (domain.TypeView, bool)
	Units
}

// CheckUnit answers 422 for an operational unit of idDominio that is not
// registered or is disabled; "" names no unit and passes.
func CheckUnit(m Registry, idDominio, idUnita string, rec Recorder) error {
	if idUnita == "" {
		return nil
	}
	u, ok := m.Unit(idDominio, idUnita)
	switch {
	case !ok:
		return check(rec, "unit", UnprocessableAs(UnprocessableUnitUnknown, "idUnitaOperativa %s is not registered at idDominio %s", idUnita, idDominio))
	case !u.Enabled:
		return check(rec, "unit", UnprocessableAs(UnprocessableUnitDisabled, "idUnitaOperativa %s of idDominio %s is disabled", idUnita, idDominio))
	}
	return check(rec, "unit", nil)
}

// CheckEntity answers 422 for an idDominio that is not registered or is
// disabled: pendenze, payments and reconciliations need an enabled entity.
func CheckEntity(m Registry, idDominio string, rec Recorder) error {
	ent, ok := m.EntityView(idDominio)
	switch {
	case !ok:
		return check(rec, "entity", UnprocessableAs(UnprocessableEntityUnknown, "idDominio %s is not registered", idDominio))
	case !ent.Enabled:
		return check(rec, "entity", UnprocessableAs(UnprocessableEntityDisabled, "idDominio %s is disabled", idDominio))
	}
	return check(rec, "entity", nil)
}

// CheckEntityAndType is CheckEntity and the same for idTipoPendenza; it
// returns the type.
func CheckEntityAndType(m Registry, idDominio, idTipo string, rec Recorder) (domain.TypeView, error) {
	if err := CheckEntity(m, idDominio, rec); err != nil {
		return domain.TypeView{}, err
	}
	t, ok := m.TypeView(idTipo)
	switch {
	case !ok:
		return t, check(rec, "type", UnprocessableAs(UnprocessableTypeUnknown, "idTipoPendenza %s is not registered", idTipo))
	case !t.Enabled:
		return t, check(rec, "type", UnprocessableAs(UnprocessableTypeDisabled, "idTipoPendenza %s is disabled", idTipo))
	}
	return t, check(rec, "type", nil)
}
