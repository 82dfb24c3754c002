package httpapi

import (
	"slices"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
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
	enumFilter("stato", statiIncasso, "the incassi in this state (each here is ACQUISITO)",
		func(*projections.Incasso) string { return statoIncassoAcquisito }))

// pagamentiFilters are GovPay Backoffice's findPagamenti (GET /pagamenti),
// over what a payment answers there: its stato (StatoPagamento: a payment
// here is IN_CORSO or ESEGUITO), its id, when it was requested
// (dataRichiestaPagamento), its remitter's fiscal code (versante, without
// case), and the pendenze it pays: their entity, IUV, application, id
// and payer's fiscal code (idDebitore, without case), one of them
// sufficing. GovPay's idSessionePortale, verificato, severitaDa and
// severitaA name what no payment here holds and are not read.
var pagamentiFilters = append(windowFilters("the payment's request (dataRichiestaPagamento)", func(p *projections.Payment) (time.Time, bool) { return p.Time, true }),
	enumFilter("stato", statiPagamento, "the payments in this state (GovPay's StatoPagamento)",
		func(p *projections.Payment) string { return p.Stato }),
	idFilter("id", rePaymentID.String(), validPaymentID, false, "the payment of this id",
		func(p *projections.Payment) []string { return []string{p.Event.ID} }),
	fiscalCodeFilter("versante", "the payments whose remitter (soggettoVersante) has this fiscal code, compared without case (a value that is none matches nothing)",
		func(p *projections.Payment) []string {
			if r := p.Event.Remitter; r != nil {
				return []string{domain.NormalFiscalCode(r.Identificativo)}
			}
			return nil
		}),
	idFilter("idDominio", commands.PatternDominio, commands.ValidDominio, false, "the payments of a pendenza of this entity", paymentItems(func(it *events.PaymentItem) string { return it.IDDominio })),
	idFilter("iuv", commands.PatternID, filterID, false, "the payments of a pendenza of this IUV",
		paymentItems(func(it *events.PaymentItem) string { return domain.IUVOfNotice(it.NumeroAvviso) })),
	idFilter("idA2A", commands.PatternID, filterID, false, "the payments of a pendenza of this application", paymentItems(func(it *events.PaymentItem) string { return it.IDA2A })),
	idFilter("idPendenza", commands.PatternID, filterID, false, "the payments of a pendenza of this id (of any application)", paymentItems(func(it *events.PaymentItem) string { return it.IDPendenza })),
	fiscalCodeFilter("idDebitore", "the payments of a pendenza of this payer's fiscal code, compared without case (a value that is none matches nothing)",
		paymentItems(func(it *events.PaymentItem) string { return domain.NormalFiscalCode(it.PayerID) })))

// paymentItems are the ids of the items of a payment that field reads,
// the empty ones left out.
func paymentItems(field func(*events.PaymentItem) string) func(*projections.Payment) []string {
	return func(p *projections.Payment) []string {
		var ids []string
		for i := range p.Event.Items {
			if id := field(&p.Event.Items[i]); id != "" {
				ids = append(ids, id)
			}
		}
		return ids
	}
}

// boPendenzeFilters are GovPay Backoffice findPendenze's filters: those
// every API's list of pendenze takes (debitoreFilters), then the
// application, the pendenza's id, the IUV of its notice and its types
// (the parameter given once for each). GovPay's idPagamento, direzione,
// divisione and mostraSpontaneiNonPagati are not read.
var boPendenzeFilters = append(slices.Clone(debitoreFilters),
	idFilter("idA2A", commands.PatternID, filterID, false, "the pendenze of this application",
		func(p projections.Pendenza) []string { return []string{p.IDA2A} }),
	idFilter("idPendenza", commands.PatternID, filterID, false, "the pendenze of this id (of any application)",
		func(p projections.Pendenza) []string { return []string{p.IDPendenza} }),
	idFilter("iuv", commands.PatternID, filterID, false, "the pendenza whose notice has this IUV",
		func(p projections.Pendenza) []string {
			if p.NumeroAvviso == "" {
				return nil
			}
			return []string{domain.IUVOfNotice(p.NumeroAvviso)}
		}),
	idFilter("idTipoPendenza", commands.PatternID, filterID, false, "the pendenze of these types",
		func(p projections.Pendenza) []string { return []string{p.IDTipoPendenza} }).repeatable())
