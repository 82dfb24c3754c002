package httpapi

import (
	"slices"
	"strings"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// The filters of the Ragioneria API's lists, as GovPay's Ragioneria v3
// has them (findRiscossioni, findFlussiRendicontazione, findRicevute,
// findRiconciliazioni). Each narrows what the list's gate and scope
// already show, never widening it; a bad value is 400 SINTASSI. The
// handlers and the OpenAPI document both read them from here. GovPay's
// ordinamento, campi, metadatiPaginazione and maxRisultati steer its
// queries and pages, not which results are listed, and are not read.

// windowFilters are GovPay's dataDa and dataA over the instant when
// answers of a record (about names it for the document), on every list
// that takes a window, read and documented alike (API.md section 10):
// each bound kept, a date-time (RFC 3339, or without a zone on Rome's
// clock) or a date, from its first instant in Rome as dataDa and until
// its last as dataA, so that a date is a whole day
// (domain.ParseWindowBound). A record without such an instant is outside
// every window. GovPay's document says date-time; this one gives no
// format, which would refuse the date every list reads.
func windowFilters[T any](about string, when func(T) (time.Time, bool)) queryFilters[T] {
	bound := func(param string, end bool) queryFilter[T] {
		edge, day := "start", "from the first instant of that day"
		if end {
			edge, day = "end", "until the last instant of that day"
		}
		return queryFilter[T]{param: param,
			schema: paramSchema{description: "the window's " + edge + ", kept, over " + about +
				" (GovPay's filter): an RFC 3339 date-time, one without a zone (Europe/Rome's clock), or a date, " + day +
				" in Europe/Rome (the whole day, of 23 or 25 hours when the clock changes)"},
			keep: func(values []string) (func(T) bool, error) {
				b, ok := domain.ParseWindowBound(values[0], end)
				if !ok {
					return nil, notABound(param)
				}
				return func(x T) bool {
					t, ok := when(x)
					if end {
						return ok && !t.After(b)
					}
					return ok && !t.Before(b)
				}, nil
			}}
	}
	return queryFilters[T]{bound("dataDa", false), bound("dataA", true)}
}

// idFilter keeps the records one of whose ids equals the parameter's
// value (without case when fold), a value valid accepts (pattern is its
// document's).
func idFilter[T any](param, pattern string, valid func(string) bool, fold bool, about string, ids func(T) []string) queryFilter[T] {
	desc := "keeps " + about
	if fold {
		desc += ", compared without case"
	}
	return queryFilter[T]{param: param, schema: paramSchema{pattern: pattern, description: desc},
		keep: func(values []string) (func(T) bool, error) {
			v := values[0]
			if err := checkFilterID(param, pattern, valid, v); err != nil {
				return nil, err
			}
			return func(x T) bool {
				return slices.ContainsFunc(ids(x), func(id string) bool { return id == v || fold && strings.EqualFold(id, v) })
			}, nil
		}}
}

// enumFilter keeps the records whose value is the parameter's, one of
// values (repeatable() for a parameter given once for each value).
func enumFilter[T any](param string, values []string, about string, value func(T) string) queryFilter[T] {
	return queryFilter[T]{param: param, schema: paramSchema{enum: values, description: "keeps " + about},
		keep: func(given []string) (func(T) bool, error) {
			v := given[0]
			if !slices.Contains(values, v) {
				return nil, notOneOf(param, values)
			}
			return func(x T) bool { return value(x) == v }, nil
		}}
}

// Validators of the id filters: GovPay's patterns are ids of the path's
// form here, and a value none could equal is 400 as a path's is.
var (
	filterID     = func(s string) bool { return commands.ValidID(s) }
	filterFlusso = func(s string) bool { return commands.ValidFlusso(s) }
	filterAvviso = func(s string) bool { return commands.ValidAvviso(s) }
)

// Statuses and kinds GovPay's filters name: a record here holds one of
// each (statoRiscossa, tipoEntrata, statoFlussoAcquisito), so the others
// keep nothing.
var (
	statiRiscossione      = []string{statoRiscossa, "INCASSATA"}
	tipiRiscossione       = []string{tipoEntrata, "MBT", "ALTRO_INTERMEDIARIO", "ENTRATA_PA_NON_INTERMEDIATA"}
	statiFlusso           = []string{statoFlussoAcquisito, "Anomalo", "Rifiutato"}
	escludiObsoletiValues = []string{"true", "false"}
)

// paymentDate is the instant a collection was paid: its receipt's
// dataPagamento (a date: its midnight in Rome).
func paymentDate(r *projections.Receipt) (time.Time, bool) {
	return domain.ParseRecordedDate(r.Event.DataPagamento)
}

func receiptTime(r *projections.Receipt) (time.Time, bool) { return r.Time, true }

func receiptIUV(r *projections.Receipt) []string {
	return []string{domain.IUVOfNotice(r.Event.NumeroAvviso)}
}

// riscossioniFilters are findRiscossioni's: the payment's date, stato,
// tipo (GovPay's default ENTRATA and MBT hold every collection here) and
// iur.
var riscossioniFilters = append(windowFilters("the payment's date", paymentDate),
	enumFilter("stato", statiRiscossione, "the collections in this state (each here is RISCOSSA)",
		func(*projections.Receipt) string { return statoRiscossa }),
	enumFilter("tipo", tipiRiscossione, "the collections of these kinds (each here is ENTRATA)",
		func(*projections.Receipt) string { return tipoEntrata }).repeatable(),
	idFilter("iur", commands.PatternID, filterID, false, "the collection of this iur (its receipt's id)",
		func(r *projections.Receipt) []string { return []string{r.Event.IDRicevuta} }))

// flussiFilters are findFlussiRendicontazione's: when the report was
// acquired (recorded), stato, idFlusso (without case, as GovPay's), the
// IUV of a notice it reports, and escludiObsoleti, which keeps every
// report: none here is obsolete.
var flussiFilters = append(windowFilters("the report's acquisition", func(r *projections.SettlementReport) (time.Time, bool) { return r.Time, true }),
	enumFilter("stato", statiFlusso, "the reports in this state (each here is Acquisito)",
		func(*projections.SettlementReport) string { return statoFlussoAcquisito }),
	idFilter("idFlusso", commands.PatternFlusso, filterFlusso, true, "the report of this id",
		func(r *projections.SettlementReport) []string { return []string{r.Event.IDFlusso} }),
	idFilter("iuv", commands.PatternID, filterID, false, "the reports of a payment of this IUV",
		func(r *projections.SettlementReport) []string {
			iuvs := make([]string, len(r.Event.Items))
			for i, it := range r.Event.Items {
				iuvs[i] = domain.IUVOfNotice(it.NumeroAvviso)
			}
			return iuvs
		}),
	enumFilter("escludiObsoleti", escludiObsoletiValues, "every report (none here is obsolete)",
		func(*projections.SettlementReport) string { return "" }).keepingAll())

// ricevuteFilters are findRicevute's: when the receipt was acquired
// (recorded, its data), iuv, idRicevuta and the notice paid.
var ricevuteFilters = append(windowFilters("the receipt's acquisition (its data)", receiptTime),
	idFilter("iuv", commands.PatternID, filterID, false, "the receipts of this IUV", receiptIUV),
	idFilter("idRicevuta", commands.PatternID, filterID, false, "the receipt of this id",
		func(r *projections.Receipt) []string { return []string{r.Event.IDRicevuta} }),
	idFilter("numeroAvviso", commands.PatternAvviso, filterAvviso, false, "the receipts of this notice",
		func(r *projections.Receipt) []string { return []string{r.Event.NumeroAvviso} }))

// riconciliazioniFilters are findRiconciliazioni's: when it was recorded
// (its data) and the bank's sct.
var riconciliazioniFilters = append(windowFilters("the reconciliation's record (its data)", func(r *projections.Reconciliation) (time.Time, bool) { return r.Time, true }),
	queryFilter[*projections.Reconciliation]{param: "sct", schema: paramSchema{description: "keeps the reconciliations of this SCT, as written"},
		keep: func(values []string) (func(*projections.Reconciliation) bool, error) {
			return func(r *projections.Reconciliation) bool { return r.Event.SCT == values[0] }, nil
		}})
