package httpapi

import (
	"slices"
	"time"

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

// statiIncasso are GovPay's StatoIncasso; an incasso here is recorded
// whole when written (statoIncassoAcquisito), so the others keep none.
var statiIncasso = []string{"IN_ELABORAZIONE", statoIncassoAcquisito, "ERRORE"}

// incassiFilters are GovPay Backoffice's findRiconciliazioni (GET
// /incassi): when the incasso was recorded (its data), its sct (a part,
// as GovPay's "anche parziale"), the report it settles (without case, as
// GovPay's idFlusso) and stato. GovPay's iuv, of an incasso of one
// payment, is not read: an incasso here names no IUV.
var incassiFilters = append(windowFilters("the incasso's record (its data)", func(r *projections.Incasso) (time.Time, bool) { return r.Time, true }),
	textFilter("sct", "the incasso's SCT", func(r *projections.Incasso) []string { return []string{r.Event.SCT} }),
	idFilter("idFlusso", commands.PatternFlusso, filterFlusso, true, "the incassi of this settlement report",
		func(r *projections.Incasso) []string { return []string{r.Event.IDFlusso} }),
	enumFilter("stato", statiIncasso, false, "the incassi in this state (each here is ACQUISITO)",
		func(*projections.Incasso) string { return statoIncassoAcquisito }))
