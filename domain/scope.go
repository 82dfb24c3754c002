package domain

import (
	"maps"
	"slices"
	"sort"
	"strings"
)

// Wildcard is the wire form of "all" in a scope list.
const Wildcard = "*"

// Scope is tri-state: all, none, or an explicit set of ids. The zero value
// is none, so a forgotten scope denies.
type Scope struct {
	all bool
	ids map[string]struct{}
}

// ScopeAll returns the scope holding every id.
func ScopeAll() Scope { return Scope{all: true} }

// ScopeOf returns a scope of exactly the given ids ("*" among them means all).
func ScopeOf(ids ...string) Scope {
	if len(ids) == 0 {
		return Scope{}
	}
	s := Scope{ids: make(map[string]struct{}, len(ids))}
	for _, id := range ids {
		if id == Wildcard {
			return ScopeAll()
		}
		s.ids[id] = struct{}{}
	}
	return s
}

// ParseScope reads GovPay's list form: ["*"] is all, [] (or nil) is none.
func ParseScope(list []string) Scope { return ScopeOf(list...) }

// IsAll reports whether the scope holds every id.
func (s Scope) IsAll() bool { return s.all }

// IsNone reports whether the scope holds no id.
func (s Scope) IsNone() bool { return !s.all && len(s.ids) == 0 }

// Contains reports whether id is in the scope. It does not allocate.
func (s Scope) Contains(id string) bool {
	if s.all {
		return true
	}
	_, ok := s.ids[id]
	return ok
}

// Covers reports whether every id of o is in s (all covers all; only all
// covers all).
func (s Scope) Covers(o Scope) bool {
	if s.all {
		return true
	}
	if o.all {
		return false
	}
	for id := range o.ids {
		if _, ok := s.ids[id]; !ok {
			return false
		}
	}
	return true
}

// IDs returns the listed ids, sorted (nil for all or none).
func (s Scope) IDs() []string {
	if s.all || len(s.ids) == 0 {
		return nil
	}
	out := make([]string, 0, len(s.ids))
	for id := range s.ids {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// List returns the wire form: ["*"] for all, [] for none, else sorted ids.
// It never returns nil.
func (s Scope) List() []string {
	if s.all {
		return []string{Wildcard}
	}
	ids := s.IDs()
	if ids == nil {
		return []string{}
	}
	return ids
}

// Equal reports whether s and o hold the same ids.
func (s Scope) Equal(o Scope) bool { return s.Covers(o) && o.Covers(s) }

// EntityScope is a scope over creditor entities and, inside an entity, its
// operational units (unità operative, GovPay's third scope dimension). An
// entity named alone covers the whole entity: all its units and what has
// no unit. An entity named with units covers only the resources of those
// units: a resource of that entity without a unit needs the whole entity
// (deny by default). The zero value is none.
type EntityScope struct {
	Scope                  // entities covered whole
	units map[string]Scope // entity → the units covered, for entities not covered whole
}

// EntitiesOf returns the scope of entities named alone in domini (see
// ParseScope) plus, for each entity in units, the units listed; an entity
// both named alone and with units is covered whole, and an entity with an
// empty list of units is named alone.
func EntitiesOf(domini []string, units map[string][]string) EntityScope {
	s := EntityScope{Scope: ParseScope(domini)}
	for d, us := range units {
		if s.Scope.Contains(d) {
			continue
		}
		if len(us) == 0 {
			s.Scope = s.Scope.with(d)
			continue
		}
		if s.units == nil {
			s.units = make(map[string]Scope, len(units))
		}
		s.units[d] = ScopeOf(us...)
	}
	return s
}

// with returns s plus id (s is not changed).
func (s Scope) with(id string) Scope {
	if s.all {
		return s
	}
	return ScopeOf(append(s.IDs(), id)...)
}

// ContainsUnit reports whether a resource of entity d with unit u ("" for
// none) is in the scope. It does not allocate.
func (s EntityScope) ContainsUnit(d, u string) bool {
	if s.Scope.Contains(d) {
		return true
	}
	if u == "" || s.units == nil {
		return false
	}
	us, ok := s.units[d]
	return ok && us.Contains(u)
}

// Reaches reports whether the scope holds entity d whole or some of its
// units: what a caller may list or ask about at d at all.
func (s EntityScope) Reaches(d string) bool {
	if s.Scope.Contains(d) {
		return true
	}
	_, ok := s.units[d]
	return ok
}

// IsNone reports whether the scope holds no entity and no unit.
func (s EntityScope) IsNone() bool { return s.Scope.IsNone() && len(s.units) == 0 }

// Units returns, for each entity covered only in some units, those units
// sorted (nil when there is none).
func (s EntityScope) Units() map[string][]string {
	if len(s.units) == 0 {
		return nil
	}
	out := make(map[string][]string, len(s.units))
	for d, us := range s.units {
		out[d] = us.IDs()
	}
	return out
}

// Covers reports whether everything o holds is in s: each entity o covers
// whole, s covers whole; each unit o covers, s covers (whole or as a unit).
func (s EntityScope) Covers(o EntityScope) bool {
	if !s.Scope.Covers(o.Scope) {
		return false
	}
	for d, us := range o.units {
		if s.Scope.Contains(d) {
			continue
		}
		mine, ok := s.units[d]
		if !ok || !mine.Covers(us) {
			return false
		}
	}
	return true
}

// Equal reports whether s and o hold the same entities and units.
func (s EntityScope) Equal(o EntityScope) bool { return s.Covers(o) && o.Covers(s) }

// Entities returns the entity scope covering the entities of s whole.
func Entities(s Scope) EntityScope { return EntityScope{Scope: s} }

// Labels names the scope for people: each entity covered whole ("*" for
// all), then each entity covered in some units as "idDominio (unit, ...)".
func (s EntityScope) Labels() []string {
	out := s.Scope.IDs()
	if s.Scope.IsAll() {
		out = []string{Wildcard}
	}
	units := s.Units()
	for _, d := range slices.Sorted(maps.Keys(units)) {
		out = append(out, d+" ("+strings.Join(units[d], ", ")+")")
	}
	return out
}
