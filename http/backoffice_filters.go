package httpapi

import (
	"slices"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/projections"
)

// The filters of the Backoffice API's lists of money records, as GovPay's
// Backoffice v1 has them: its lists of the records the Ragioneria API
// lists too take the Ragioneria's tables (ragioneria_filters.go), and
// what GovPay's Backoffice adds. Each narrows what the list's gate and
// scope already show; a bad value is 400 SINTASSI. GovPay's filters on
// what no record here holds (a collection's direzioni, divisioni,
// tassonomie, idUnita and idTipoPendenza) are not read, nor are its
// ordinamento, campi, metadatiPaginazione and maxRisultati.

// boRiscossioniFilters are the Backoffice's findRiscossioni: the
// Ragioneria's, and the IUV paid, the application and the pendenza it paid
// (as the collection answers them).
var boRiscossioniFilters = slices.Concat(riscossioniFilters, queryFilters[*projections.Receipt]{
	idFilter("iuv", commands.PatternID, filterID, false, "the collections of this IUV", receiptIUV),
	idFilter("idA2A", commands.PatternID, filterID, false, "the collections of the pendenze of this application",
		func(r *projections.Receipt) []string { return []string{r.Event.IDA2A} }),
	idFilter("idPendenza", commands.PatternID, filterID, false, "the collections of the pendenze of this id (of any application)",
		func(r *projections.Receipt) []string { return []string{r.Event.IDPendenza} }),
})
