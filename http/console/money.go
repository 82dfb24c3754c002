package console

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// The money pages: Pagamenti, Riconciliazioni, Rendicontazioni and
// Riscossioni, each the Backoffice list of the same name: its service's R,
// every row kept by the decision the API's list keeps it with, optionally
// one entity, 25 rows a page; every row has a detail page, decided by the
// same operation as its list (operations.ReadRendicontazione for the
// Rendicontazioni e Incassi pages).

// table is a generic list page.
type table struct {
	Caption  string
	Headers  []string
	Rows     [][]cell
	Entities []option
	Dominio  string
	Action   string
	Prev     int
	Next     int
	Pagina   int
	New      *link  // the link to register a new record (nil unless the caller may write)
	Empty    string // the text of an empty table ("" for "Nessun risultato.")
}

type cell struct{ Text, Href, Class string }

type link struct{ Href, Label, ID string }

// moneyOps are the money pages' reads.
type moneyOps interface {
	Payments(p domain.Principal) ([]*projections.Payment, error)
	Payment(p domain.Principal, id string) (*projections.Payment, error)
	Rendicontazioni(p domain.Principal, only string) (operations.EntityScope, error)
}

var _ moneyOps = backoffice{}

// Payments: GET /pagamenti (Pagamenti R; a payment is listed when a role
// giving it covers every pendenza of the payment).
func (b backoffice) Payments(p domain.Principal) ([]*projections.Payment, error) {
	return operations.ListPaymentsBackoffice(b.model.Payments, p, nil)
}

// Payment: GET /pagamenti/{id}.
func (b backoffice) Payment(p domain.Principal, id string) (*projections.Payment, error) {
	return operations.ReadPaymentBackoffice(b.model, p, id, nil)
}

// Rendicontazioni: the gate and scope of GET /riconciliazioni,
// /flussiRendicontazione and /riscossioni (Rendicontazioni e Incassi R on
// the row's entity), narrowed to only when set.
func (b backoffice) Rendicontazioni(p domain.Principal, only string) (operations.EntityScope, error) {
	return operations.RendicontazioniList(p, only, nil)
}

func (c *Console) money() moneyOps { return c.ops }

// pageOf cuts rows to the requested page of 25 and fills the pager.
func pageOf[T any](rq *request, t *table, rows []T, row func(T) []cell) {
	pagina := paginaOf(rq.r.URL.Query().Get("pagina"))
	t.Pagina = pagina
	from := min((pagina-1)*perPage, len(rows))
	to := min(from+perPage, len(rows))
	for _, r := range rows[from:to] {
		t.Rows = append(t.Rows, row(r))
	}
	if pagina > 1 {
		t.Prev = pagina - 1
	}
	if to < len(rows) {
		t.Next = pagina + 1
	}
}

// rendicontazioni opens one of the Rendicontazioni e Incassi lists: the
// API's gate, its check of the idDominio filter and its scope for it, and
// the entity picker (the entities the unfiltered scope reaches, whole or
// in some units).
func (c *Console) rendicontazioni(rq *request, t *table) (operations.EntityScope, error) {
	t.Dominio = rq.r.URL.Query().Get("idDominio")
	all, err := c.money().Rendicontazioni(rq.p, "")
	if err != nil {
		return all, err
	}
	if t.Dominio != "" { // as the API's idDominio filter
		if err := commands.CheckDominio("idDominio", t.Dominio); err != nil {
			return all, err
		}
	}
	t.Entities = c.entityOptions([]option{{"", "Tutti i domini del tuo ambito"}}, all.Reaches)
	return c.money().Rendicontazioni(rq.p, t.Dominio)
}

func euro(cents int64) string { return funcs["euro"].(func(int64) string)(cents) }

func (c *Console) listPagamenti(rq *request) error {
	pays, err := c.money().Payments(rq.p)
	if err != nil {
		return err
	}
	t := &table{Caption: "Pagamenti nel tuo ambito, dal più vecchio", Action: "/console/pagamenti",
		Headers: []string{"Pagamento", "Stato", "Richiesto il", "Pendenze"}}
	pageOf(rq, t, pays, func(p *projections.Payment) []cell {
		return []cell{{Text: p.Event.ID, Href: "/console/pagamenti/" + p.Event.ID}, {Text: p.Stato},
			{Text: ora(p.Time)}, {Text: strconv.Itoa(len(p.Event.Items))}}
	})
	return c.render(rq, http.StatusOK, "tabella.html", "Pagamenti", t)
}

func (c *Console) getPagamento(rq *request) error {
	pay, err := c.money().Payment(rq.p, rq.r.PathValue("id"))
	if err != nil {
		return err
	}
	t := &table{Caption: "Pendenze del pagamento " + pay.Event.ID + " (stato " + pay.Stato + ")",
		Headers: []string{"Dominio", "Tipo", "Numero avviso", "Pendenza", "Importo"}}
	for _, it := range pay.Event.Items {
		t.Rows = append(t.Rows, []cell{{Text: it.IDDominio}, {Text: it.IDTipoPendenza}, {Text: it.NumeroAvviso},
			{Text: it.IDA2A + "/" + it.IDPendenza}, {Text: euro(it.AmountCents)}})
	}
	return c.render(rq, http.StatusOK, "tabella.html", "Pagamento", t)
}

// rendicontazioniList renders a Rendicontazioni e Incassi list: the rows
// the caller's scope admits (rows, given the scope of rendicontazioni),
// one a record, as cells renders it.
func rendicontazioniList[T any](c *Console, rq *request, title string, t *table,
	rows func(operations.EntityScope) []T, cells func(T) []cell) error {
	scope, err := c.rendicontazioni(rq, t)
	if err != nil {
		return err
	}
	pageOf(rq, t, rows(scope), cells)
	return c.render(rq, http.StatusOK, "tabella.html", title, t)
}

func (c *Console) listRiconciliazioni(rq *request) error {
	return rendicontazioniList(c, rq, "Riconciliazioni", &table{Caption: "Riconciliazioni", Action: "/console/riconciliazioni",
		Headers: []string{"Dominio", "Riconciliazione", "Applicazione", "Importo", "Causale", "Flusso"}},
		func(scope operations.EntityScope) []*projections.Reconciliation {
			return scope.Reconciliations(c.deps.Model)
		},
		func(r *projections.Reconciliation) []cell {
			e := r.Event
			return []cell{{Text: e.IDDominio}, {Text: e.ID, Href: detailHref("riconciliazioni", e.IDDominio, e.ID)}, {Text: e.IDA2A},
				{Text: euro(e.AmountCents)}, {Text: e.Causale}, {Text: e.IDFlusso}}
		})
}

func (c *Console) listRendicontazioni(rq *request) error {
	return rendicontazioniList(c, rq, "Rendicontazioni", &table{Caption: "Flussi di rendicontazione", Action: "/console/rendicontazioni",
		Headers: []string{"Dominio", "Flusso", "Intermediario", "Data", "Totale", "Voci"}},
		func(scope operations.EntityScope) []*projections.SettlementReport {
			return scope.SettlementReports(c.deps.Model)
		},
		func(r *projections.SettlementReport) []cell {
			e := r.Event
			return []cell{{Text: e.IDDominio}, {Text: e.IDFlusso, Href: detailHref("rendicontazioni", e.IDDominio, e.IDFlusso)},
				{Text: e.IDIntermediario}, {Text: e.DataFlusso},
				{Text: euro(e.TotalCents)}, {Text: strconv.Itoa(len(e.Items))}}
		})
}

func (c *Console) listRiscossioni(rq *request) error {
	return rendicontazioniList(c, rq, "Riscossioni", &table{Caption: "Riscossioni (ricevute con esito ESEGUITO)", Action: "/console/riscossioni",
		Headers: []string{"Dominio", "Ricevuta", "Numero avviso", "Pendenza", "Importo", "Data pagamento"}},
		func(scope operations.EntityScope) []*projections.Receipt { return scope.Collections(c.deps.Model) },
		func(r *projections.Receipt) []cell {
			e := r.Event
			return []cell{{Text: e.IDDominio}, {Text: e.IDRicevuta, Href: detailHref("riscossioni", e.IDDominio, e.IDRicevuta)},
				{Text: e.NumeroAvviso}, {Text: e.IDA2A + "/" + e.IDPendenza},
				{Text: euro(e.AmountCents)}, {Text: e.DataPagamento}}
		})
}

// detailHref is the detail page of a row of a Rendicontazioni e Incassi
// list.
func detailHref(page, idDominio, id string) string {
	return "/console/" + page + "/" + url.PathEscape(idDominio) + "/" + url.PathEscape(id)
}

// fields is a detail page: one row a field.
func fields(caption string, kv ...string) *table {
	t := &table{Caption: caption, Headers: []string{"Campo", "Valore"}}
	for i := 0; i+1 < len(kv); i += 2 {
		t.Rows = append(t.Rows, []cell{{Text: kv[i]}, {Text: kv[i+1]}})
	}
	return t
}

// rendicontazioneDetail renders the detail page of a reconciliation or a
// settlement report: the record find returns for the path's idDominio
// and id (named idParam), behind the area's read decision.
func rendicontazioneDetail[T any](c *Console, rq *request, idParam, title string,
	find func(idDominio, id string) (T, bool), page func(T) *table) error {
	d, id := rq.r.PathValue("idDominio"), rq.r.PathValue(idParam)
	r, err := operations.ReadRendicontazione(rq.p, d, func() (T, bool) { return find(d, id) }, nil)
	if err != nil {
		return err
	}
	return c.render(rq, http.StatusOK, "tabella.html", title, page(r))
}

func (c *Console) getRiconciliazione(rq *request) error {
	return rendicontazioneDetail(c, rq, "id", "Riconciliazione", c.deps.Model.Reconciliation, func(r *projections.Reconciliation) *table {
		e := r.Event
		return fields("Riconciliazione "+e.ID,
			"Dominio", e.IDDominio, "Riconciliazione", e.ID, "Applicazione", e.IDA2A, "Importo", euro(e.AmountCents),
			"Causale", e.Causale, "Flusso", e.IDFlusso, "Registrata il", ora(r.Time),
			"Posizione nel giornale", strconv.FormatUint(uint64(r.Position), 10))
	})
}

func (c *Console) getRendicontazione(rq *request) error {
	return rendicontazioneDetail(c, rq, "idFlusso", "Rendicontazione", c.deps.Model.SettlementReport, func(r *projections.SettlementReport) *table {
		e := r.Event
		t := fields("Flusso di rendicontazione "+e.IDFlusso, "Dominio", e.IDDominio, "Flusso", e.IDFlusso,
			"Intermediario", e.IDIntermediario, "Data", e.DataFlusso, "Totale", euro(e.TotalCents))
		for i, it := range e.Items {
			t.Rows = append(t.Rows, []cell{{Text: "Voce " + strconv.Itoa(i+1)},
				{Text: it.NumeroAvviso + " — " + euro(it.AmountCents)}})
		}
		return t
	})
}

func (c *Console) getRiscossione(rq *request) error {
	d, id := rq.r.PathValue("idDominio"), rq.r.PathValue("idRicevuta")
	r, err := operations.ReadRiscossioneByID(c.deps.Model, rq.p, d, id, nil)
	if err != nil {
		return err
	}
	e := r.Event
	return c.render(rq, http.StatusOK, "tabella.html", "Riscossione", fields("Ricevuta "+e.IDRicevuta,
		"Dominio", e.IDDominio, "Ricevuta", e.IDRicevuta, "Esito", e.Esito, "Numero avviso", e.NumeroAvviso,
		"Pendenza", e.IDA2A+"/"+e.IDPendenza, "Pagamento", e.PaymentID, "Importo", euro(e.AmountCents),
		"Data pagamento", e.DataPagamento, "Intermediario", e.IDIntermediario))
}
