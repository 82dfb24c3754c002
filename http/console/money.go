package console

import (
	"net/http"
	"strconv"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// The money pages: Pagamenti, Riconciliazioni, Rendicontazioni and
// Riscossioni, each the Backoffice list of the same name: its service's R,
// every row kept by the decision the API's list keeps it with, optionally
// one entity, 25 rows a page; a payment has a detail page.

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
}

type cell struct{ Text, Href string }

// moneyOps are the money pages' reads.
type moneyOps interface {
	Payments(p domain.Principal) ([]*projections.Payment, error)
	Payment(p domain.Principal, id string) (*projections.Payment, error)
	Rendicontazioni(p domain.Principal) (func(idDominio string) bool, error)
}

var _ moneyOps = backoffice{}

// Payments: GET /pagamenti (Pagamenti R; a payment is listed when a role
// giving it covers every pendenza of the payment).
func (b backoffice) Payments(p domain.Principal) ([]*projections.Payment, error) {
	if err := operations.UseService(p, domain.ServicePagamenti, domain.RightRead, nil); err != nil {
		return nil, err
	}
	return b.model.Payments(func(pay *projections.Payment) bool {
		return domain.CanOnPayment(p, domain.ServicePagamenti, domain.RightRead, pay.View()) == nil
	}), nil
}

// Payment: GET /pagamenti/{id}.
func (b backoffice) Payment(p domain.Principal, id string) (*projections.Payment, error) {
	return operations.OnPayment(b.model, p, domain.ServicePagamenti, domain.RightRead, id, nil)
}

// Rendicontazioni: the keep of GET /riconciliazioni, /flussiRendicontazione
// and /riscossioni (Rendicontazioni e Incassi R on the row's entity).
func (b backoffice) Rendicontazioni(p domain.Principal) (func(string) bool, error) {
	if err := operations.UseService(p, domain.ServiceRendicontazioniIncassi, domain.RightRead, nil); err != nil {
		return nil, err
	}
	return func(id string) bool {
		return operations.OnDominio(p, domain.ServiceRendicontazioniIncassi, domain.RightRead, id, nil) == nil
	}, nil
}

func (c *Console) money() moneyOps { return c.ops }

// pageOf cuts rows to the requested page of 25 and fills the pager.
func pageOf[T any](rq *request, t *table, rows []T, row func(T) []cell) {
	pagina := 1
	if n, err := strconv.Atoi(rq.r.URL.Query().Get("pagina")); err == nil && n >= 1 && n <= 1_000_000 {
		pagina = n
	}
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

// entityFilter reads idDominio and lists the entities keep allows.
func (c *Console) entityFilter(rq *request, t *table, keep func(string) bool) func(string) bool {
	t.Dominio = rq.r.URL.Query().Get("idDominio")
	t.Entities = []option{{"", "Tutti i domini del tuo ambito"}}
	for _, e := range c.deps.Model.Entities() {
		if keep(e.IDDominio) {
			t.Entities = append(t.Entities, option{e.IDDominio, e.IDDominio + " — " + e.RagioneSociale})
		}
	}
	return func(id string) bool { return (t.Dominio == "" || id == t.Dominio) && keep(id) }
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
			{Text: p.Time.UTC().Format("2006-01-02 15:04")}, {Text: strconv.Itoa(len(p.Event.Items))}}
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

func (c *Console) listRiconciliazioni(rq *request) error {
	keep, err := c.money().Rendicontazioni(rq.p)
	if err != nil {
		return err
	}
	t := &table{Caption: "Riconciliazioni", Action: "/console/riconciliazioni",
		Headers: []string{"Dominio", "Riconciliazione", "Applicazione", "Importo", "Causale", "Flusso"}}
	in := c.entityFilter(rq, t, keep)
	rows := c.deps.Model.Reconciliations(func(r *projections.Reconciliation) bool { return in(r.Event.IDDominio) })
	pageOf(rq, t, rows, func(r *projections.Reconciliation) []cell {
		e := r.Event
		return []cell{{Text: e.IDDominio}, {Text: e.ID}, {Text: e.IDA2A}, {Text: euro(e.AmountCents)}, {Text: e.Causale}, {Text: e.IDFlusso}}
	})
	return c.render(rq, http.StatusOK, "tabella.html", "Riconciliazioni", t)
}

func (c *Console) listRendicontazioni(rq *request) error {
	keep, err := c.money().Rendicontazioni(rq.p)
	if err != nil {
		return err
	}
	t := &table{Caption: "Flussi di rendicontazione", Action: "/console/rendicontazioni",
		Headers: []string{"Dominio", "Flusso", "Intermediario", "Data", "Totale", "Voci"}}
	in := c.entityFilter(rq, t, keep)
	rows := c.deps.Model.SettlementReports(func(r *projections.SettlementReport) bool { return in(r.Event.IDDominio) })
	pageOf(rq, t, rows, func(r *projections.SettlementReport) []cell {
		e := r.Event
		return []cell{{Text: e.IDDominio}, {Text: e.IDFlusso}, {Text: e.IDIntermediario}, {Text: e.DataFlusso},
			{Text: euro(e.TotalCents)}, {Text: strconv.Itoa(len(e.Items))}}
	})
	return c.render(rq, http.StatusOK, "tabella.html", "Rendicontazioni", t)
}

func (c *Console) listRiscossioni(rq *request) error {
	keep, err := c.money().Rendicontazioni(rq.p)
	if err != nil {
		return err
	}
	t := &table{Caption: "Riscossioni (ricevute con esito ESEGUITO)", Action: "/console/riscossioni",
		Headers: []string{"Dominio", "Ricevuta", "Numero avviso", "Pendenza", "Importo", "Data pagamento"}}
	in := c.entityFilter(rq, t, keep)
	rows := c.deps.Model.Receipts(func(r *projections.Receipt) bool { return r.Event.Esito == "ESEGUITO" && in(r.Event.IDDominio) })
	pageOf(rq, t, rows, func(r *projections.Receipt) []cell {
		e := r.Event
		return []cell{{Text: e.IDDominio}, {Text: e.IDRicevuta}, {Text: e.NumeroAvviso}, {Text: e.IDA2A + "/" + e.IDPendenza},
			{Text: euro(e.AmountCents)}, {Text: e.DataPagamento}}
	})
	return c.render(rq, http.StatusOK, "tabella.html", "Riscossioni", t)
}
