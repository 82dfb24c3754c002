package console

import (
	"maps"
	"slices"
	"strings"

	"github.com/payauthz/payauthz/domain"
)

// The console's forms pick entities whole. A scope that also names
// entities in some of their operational units (set through the API or the
// CLI) keeps them across an edit: the form carries them in a hidden field
// and shows them, so that saving a form never narrows a scope silently.

// formUnits is the units of an entity scope as the hidden field carries
// them: "idDominio=UO1,UO2" entries joined by ";".
func formUnits(s domain.EntityScope) string {
	units := s.Units()
	entries := make([]string, 0, len(units))
	for _, d := range slices.Sorted(maps.Keys(units)) {
		entries = append(entries, d+"="+strings.Join(units[d], ","))
	}
	return strings.Join(entries, ";")
}

// parseFormUnits reads formUnits' encoding back (nil for none). What it
// returns is validated by the command like any scope.
func parseFormUnits(v string) map[string][]string {
	if v == "" {
		return nil
	}
	out := map[string][]string{}
	for _, entry := range strings.Split(v, ";") {
		d, us, _ := strings.Cut(entry, "=")
		out[d] = append(out[d], strings.Split(us, ",")...)
	}
	return out
}

// unitsLabel names the units a form carries, for people ("" for none).
func unitsLabel(v string) string {
	return strings.Join(domain.EntitiesOf(nil, parseFormUnits(v)).Labels(), "; ")
}
