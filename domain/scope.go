package domain

import "sort"

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

// ScopeNone returns the empty scope.
func ScopeNone() Scope { return Scope{} }

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
