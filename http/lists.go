package httpapi

import (
	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
)

// The lists of things that belong to an entity, shared by the Backoffice
// and the Ragioneria API: the API's gate (listOf) decides who may list and
// which entities the list shows (narrowed by the idDominio filter).

// listOf is an API's gate of the lists by entity.
type listOf func(p domain.Principal, only string, rec operations.Recorder) (operations.EntityScope, error)

// entityScope runs the gate, then checks the idDominio filter (one value,
// as every query parameter's: queryValues).
func entityScope(c *echo.Context, gate listOf) (operations.EntityScope, error) {
	dominio, twice := queryValue(c, "idDominio")
	sc, err := gate(callerOf(c).principal, dominio, nil)
	if err != nil {
		return sc, err
	}
	if twice != nil {
		return sc, twice
	}
	if dominio != "" {
		// An id filter, as every list's idDominio (idFilter).
		return sc, checkFilterID("idDominio", commands.PatternDominio, commands.ValidDominio, dominio)
	}
	return sc, nil
}

// pageByEntity answers a list of what belongs to entities: the gate and
// the idDominio filter (entityScope), then the records the scope keeps
// (of: operations.EntityScope's Reconciliations, SettlementReports or
// Collections) and the list's other filters (fs, nil for none) keep, each
// answered as view.
func pageByEntity[T, V any](c *echo.Context, m operations.MoneyRecords, gate listOf, of func(operations.EntityScope, operations.MoneyRecords) []T, fs queryFilters[T], view func(T) V) error {
	sc, err := entityScope(c, gate)
	if err != nil {
		return err
	}
	return filteredPage(c, of(sc, m), fs, view)
}
