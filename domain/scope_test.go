package domain

import (
	"slices"
	"testing"
)

// ScopeNone is the empty scope, the tests' name for it: the service builds
// every scope from a list (ScopeOf with no ids is this, the zero Scope).
func ScopeNone() Scope { return Scope{} }

func TestScopeTriState(t *testing.T) {
	t.Parallel()
	var zero Scope
	tests := []struct {
		name             string
		s                Scope
		all, none, has1  bool
		list             []string
		coversOfD1, eqOf bool
	}{
		{"zero_value_is_none", zero, false, true, false, []string{}, false, false},
		{"none", ScopeNone(), false, true, false, []string{}, false, false},
		{"wire_empty_is_none", ParseScope([]string{}), false, true, false, []string{}, false, false},
		{"wire_nil_is_none", ParseScope(nil), false, true, false, []string{}, false, false},
		{"wire_star_is_all", ParseScope([]string{"*"}), true, false, true, []string{"*"}, true, false},
		{"star_among_ids_is_all", ScopeOf(d1, Wildcard), true, false, true, []string{"*"}, true, false},
		{"explicit", ScopeOf(d2, d1), false, false, true, []string{d1, d2}, true, false},
		{"explicit_single", ScopeOf(d1), false, false, true, []string{d1}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.s.IsAll() != tt.all || tt.s.IsNone() != tt.none || tt.s.Contains(d1) != tt.has1 {
				t.Fatalf("all %v none %v contains %v", tt.s.IsAll(), tt.s.IsNone(), tt.s.Contains(d1))
			}
			if got := tt.s.List(); got == nil || !slices.Equal(got, tt.list) {
				t.Fatalf("List() = %#v, want %#v", got, tt.list)
			}
			if tt.s.Covers(ScopeOf(d1)) != tt.coversOfD1 || tt.s.Equal(ScopeOf(d1)) != tt.eqOf {
				t.Fatal("covers / equal")
			}
			if !tt.s.Covers(ScopeNone()) {
				t.Fatal("every scope covers none")
			}
			if tt.s.Covers(ScopeAll()) != tt.all {
				t.Fatal("only all covers all")
			}
		})
	}
	if ScopeOf(d1).Contains(Wildcard) {
		t.Fatal(`"*" is not an id of an explicit scope`)
	}
}
