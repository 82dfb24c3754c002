package projections

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// Payment states: a payment is ESEGUITO once ESEGUITO receipts cover
// every item, so it says it with the receipts' word.
const (
	PaymentInCorso  = "IN_CORSO"
	PaymentEseguito = events.EsitoEseguito
)

// Payment is a payment as read by handlers. Immutable once published.
type Payment struct {
	Event events.PaymentStarted
	Stato string
	Paid  int // distinct items covered by an ESEGUITO receipt
	Time  time.Time
	// paidItems marks, per item of Event.Items, whether a receipt covered
	// it; a second receipt for the same notice does not count twice.
	paidItems []bool
	Position  events.Position
	view      domain.PaymentView
}

// View returns the ownership facts of the payment.
func (p *Payment) View() domain.PaymentView { return p.view }

// StatoOf is the state of the payment's items that shown admits (by their
// index in Event.Items): ESEGUITO once ESEGUITO receipts cover each of
// them, else IN_CORSO. Of every item it is Stato; a reader shown some
// items only learns nothing of the others' from it.
func (p *Payment) StatoOf(shown func(i int) bool) string {
	for i := range p.Event.Items {
		if shown(i) && (i >= len(p.paidItems) || !p.paidItems[i]) {
			return PaymentInCorso
		}
	}
	return PaymentEseguito
}

// ItemSpontaneous reports whether the payment's item i (an index in
// Event.Items) is one its payer started (GovPay's SPONTANEO): a
// spontaneous reference of POST /pagamenti, which no pendenza holds, or a
// pendenza its payer created (Pendenza.Spontaneous); else DOVUTO.
func (p *Payment) ItemSpontaneous(i int) bool {
	return p.Event.Items[i].IDA2A == "" || spontaneousCreator(p.Event.Items[i].IDA2A)
}

// Receipt is a receipt (and, when ESEGUITO, a collection) as recorded.
type Receipt struct {
	Event    events.ReceiptRecorded
	Time     time.Time
	Position events.Position
}

// SettlementReport is a settlement report as recorded.
type SettlementReport struct {
	Event    events.SettlementReportRecorded
	Time     time.Time
	Position events.Position
}

// Reconciliation is a reconciliation as recorded.
type Reconciliation struct {
	Event    events.ReconciliationCreated
	Time     time.Time
	Position events.Position
}

// View returns the ownership facts of the reconciliation.
func (r *Reconciliation) View() domain.ReconciliationView {
	return domain.ReconciliationView{IDDominio: r.Event.IDDominio, ID: r.Event.ID, IDA2A: r.Event.IDA2A}
}

// Incasso is a collection credited to an entity's account, as recorded.
type Incasso struct {
	Event    events.IncassoRecorded
	Time     time.Time
	Position events.Position
}

type money struct {
	payments        *table[*Payment]          // id → payment
	receipts        *table[*Receipt]          // idDominio "/" idRicevuta → receipt
	reports         *table[*SettlementReport] // idDominio "/" idFlusso → report
	reconciliations *table[*Reconciliation]   // idDominio "/" id → reconciliation
	incassi         *table[*Incasso]          // idDominio "/" idIncasso → incasso
	byNotice        *table[string]            // idDominio "/" numeroAvviso → id of the latest payment covering it

	listMu       sync.RWMutex // guards the lists below (list endpoints only)
	paymentOrder []string
	// paymentsOf is, for each caller that may own payments on the
	// Pagamento API (its callerKey: an application, a citizen, an
	// anonymous session), the ids of the payments listed under it by
	// payerKeys, oldest first: that list reads these, not every payment.
	paymentsOf    map[string][]string
	receiptOrder  []string
	reportOrder   []string
	reconcilOrder []string
	incassoOrder  []string
}

func newMoney() *money {
	return &money{payments: newTable[*Payment](), receipts: newTable[*Receipt](),
		reports: newTable[*SettlementReport](), reconciliations: newTable[*Reconciliation](), incassi: newTable[*Incasso](), byNotice: newTable[string](),
		paymentsOf: map[string][]string{}}
}

// PaymentKind maps the event's caller kind to the domain's.
func PaymentKind(s string) domain.PrincipalKind {
	switch s {
	case events.CallerApplication:
		return domain.KindApplication
	case events.CallerCitizen:
		return domain.KindCitizen
	case events.CallerAnonymous:
		return domain.KindAnonymous
	}
	return domain.KindUnknown
}

// paymentView is the ownership facts of a started payment.
func paymentView(e events.PaymentStarted) domain.PaymentView {
	v := domain.PaymentView{ID: e.ID, CallerKind: PaymentKind(e.CallerKind), CallerID: e.CallerID,
		SessionHash: e.SessionHash}
	if e.Remitter != nil {
		v.RemitterID = strings.ToUpper(e.Remitter.Identificativo)
	}
	for _, it := range e.Items {
		v.Items = append(v.Items, domain.PaymentItemView{IDDominio: it.IDDominio, IDTipoPendenza: it.IDTipoPendenza,
			IDUnita: it.IDUnitaOperativa, PayerID: strings.ToUpper(it.PayerID)})
	}
	return v
}

// record stores v under key in t and appends key to *order (a list's
// oldest-first order, guarded by listMu), unless key is there already: a
// commit seen again changes nothing. It reports whether v was stored.
func record[V any](m *money, t *table[V], order *[]string, key string, v V) bool {
	if _, dup := t.get(key); dup {
		return false
	}
	t.put(key, v)
	m.listMu.Lock()
	*order = append(*order, key)
	m.listMu.Unlock()
	return true
}

func (m *money) startPayment(e events.PaymentStarted, env events.Envelope) {
	v := paymentView(e)
	if !record(m, m.payments, &m.paymentOrder, e.ID, &Payment{Event: e, Stato: PaymentInCorso,
		Time: env.Time, Position: env.Position, view: v}) {
		return
	}
	m.listMu.Lock()
	for _, k := range payerKeys(v) {
		m.paymentsOf[k] = append(m.paymentsOf[k], e.ID)
	}
	m.listMu.Unlock()
	for _, it := range e.Items {
		if it.NumeroAvviso != "" {
			m.byNotice.put(it.IDDominio+"/"+it.NumeroAvviso, e.ID)
		}
	}
}

func (m *money) recordReceipt(e events.ReceiptRecorded, env events.Envelope) {
	if !record(m, m.receipts, &m.receiptOrder, e.IDDominio+"/"+e.IDRicevuta,
		&Receipt{Event: e, Time: env.Time, Position: env.Position}) {
		return
	}
	if !e.Collected() || e.PaymentID == "" {
		return
	}
	p, ok := m.payments.get(e.PaymentID)
	if !ok {
		return
	}
	for i, it := range p.Event.Items {
		if it.IDDominio != e.IDDominio || it.NumeroAvviso != e.NumeroAvviso {
			continue
		}
		if i < len(p.paidItems) && p.paidItems[i] {
			return // this item was already covered by another receipt
		}
		np := *p
		np.paidItems = make([]bool, len(p.Event.Items))
		copy(np.paidItems, p.paidItems)
		np.paidItems[i] = true
		np.Paid++
		np.Stato = np.StatoOf(func(int) bool { return true })
		m.payments.put(e.PaymentID, &np)
		return
	}
}

func (m *money) recordSettlement(e events.SettlementReportRecorded, env events.Envelope) {
	record(m, m.reports, &m.reportOrder, e.IDDominio+"/"+e.IDFlusso,
		&SettlementReport{Event: e, Time: env.Time, Position: env.Position})
}

func (m *money) createReconciliation(e events.ReconciliationCreated, env events.Envelope) {
	record(m, m.reconciliations, &m.reconcilOrder, e.IDDominio+"/"+e.ID,
		&Reconciliation{Event: e, Time: env.Time, Position: env.Position})
}

func (m *money) recordIncasso(e events.IncassoRecorded, env events.Envelope) {
	record(m, m.incassi, &m.incassoOrder, e.IDDominio+"/"+e.IDIncasso, &Incasso{Event: e, Time: env.Time, Position: env.Position})
}

// Incasso returns the incasso idIncasso of idDominio.
func (m *ReadModel) Incasso(idDominio, idIncasso string) (*Incasso, bool) {
	return whole(m, func() (*Incasso, bool) { return m.money.incassi.get(idDominio + "/" + idIncasso) })
}

// Incassi returns the incassi keep accepts, oldest first.
func (m *ReadModel) Incassi(keep func(*Incasso) bool) []*Incasso {
	return wholeList(m, func() []*Incasso { return listOrdered(m.money, &m.money.incassoOrder, m.money.incassi, keep) })
}

// Payment returns the payment id.
func (m *ReadModel) Payment(id string) (*Payment, bool) {
	return whole(m, func() (*Payment, bool) { return m.money.payments.get(id) })
}

// Payments returns the payments keep accepts, oldest first.
func (m *ReadModel) Payments(keep func(*Payment) bool) []*Payment {
	return wholeList(m, func() []*Payment { return listOrdered(m.money, &m.money.paymentOrder, m.money.payments, keep) })
}

// PaymentsOf returns, oldest first, the payments keep accepts among those
// p may own on the Pagamento API: the ones an application started, the
// ones a citizen pays (payer of an item) or remits, the ones an anonymous
// session started; none for any other caller. It narrows a list to its
// candidates; whether p may read each is still keep's decision.
func (m *ReadModel) PaymentsOf(p domain.Principal, keep func(*Payment) bool) []*Payment {
	key := callerKey(p)
	if key == "" {
		return nil
	}
	return wholeList(m, func() []*Payment {
		mo := m.money
		mo.listMu.RLock()
		ids := mo.paymentsOf[key] // the lists only grow: what is below its length never changes
		mo.listMu.RUnlock()
		return picked(mo.payments, ids, keep)
	})
}

// payerKeys are the keys a payment is listed under in paymentsOf: its
// starting application or anonymous session, and every citizen paying or
// remitting it, each once.
func payerKeys(v domain.PaymentView) []string {
	var keys []string
	add := func(k string) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	switch {
	case v.CallerKind == domain.KindApplication && v.CallerID != "":
		add("a/" + v.CallerID)
	case v.CallerKind == domain.KindAnonymous && v.SessionHash != "":
		add("s/" + v.SessionHash)
	}
	if v.RemitterID != "" {
		add("c/" + v.RemitterID)
	}
	for _, it := range v.Items {
		if it.PayerID != "" {
			add("c/" + it.PayerID)
		}
	}
	return keys
}

// callerKey is p's key in paymentsOf ("" for a caller that owns none).
func callerKey(p domain.Principal) string {
	switch {
	case p.Kind == domain.KindApplication && p.IDA2A != "":
		return "a/" + p.IDA2A
	case p.Kind == domain.KindCitizen && p.Name != "":
		return "c/" + p.Name
	case p.Kind == domain.KindAnonymous && p.SessionHash != "":
		return "s/" + p.SessionHash
	}
	return ""
}

// PaymentCovering returns the latest payment started for pd's notice,
// when that payment was started for pd: a notice number moves with its
// pendenza (to another entity) and may then be given to another one, and
// a payment of the pendenza that held it before is not pd's.
func (m *ReadModel) PaymentCovering(pd Pendenza) (*Payment, bool) {
	return whole(m, func() (*Payment, bool) {
		id, ok := m.money.byNotice.get(pd.IDDominio + "/" + pd.NumeroAvviso)
		if !ok {
			return nil, false
		}
		pay, ok := m.money.payments.get(id)
		if !ok {
			return nil, false
		}
		for _, it := range pay.Event.Items {
			if it.IDDominio == pd.IDDominio && it.NumeroAvviso == pd.NumeroAvviso {
				if it.IDA2A != pd.IDA2A || it.IDPendenza != pd.IDPendenza {
					return nil, false
				}
				return pay, true
			}
		}
		return nil, false
	})
}

// Receipt returns the receipt idRicevuta of idDominio.
func (m *ReadModel) Receipt(idDominio, idRicevuta string) (*Receipt, bool) {
	return whole(m, func() (*Receipt, bool) { return m.money.receipts.get(idDominio + "/" + idRicevuta) })
}

// Receipts returns the receipts keep accepts, oldest first. Receipts with
// esito ESEGUITO are the collections (riscossioni).
func (m *ReadModel) Receipts(keep func(*Receipt) bool) []*Receipt {
	return wholeList(m, func() []*Receipt { return listOrdered(m.money, &m.money.receiptOrder, m.money.receipts, keep) })
}

// SettlementReport returns the report idFlusso of idDominio.
func (m *ReadModel) SettlementReport(idDominio, idFlusso string) (*SettlementReport, bool) {
	return whole(m, func() (*SettlementReport, bool) { return m.money.reports.get(idDominio + "/" + idFlusso) })
}

// SettlementReports returns the reports keep accepts, oldest first.
func (m *ReadModel) SettlementReports(keep func(*SettlementReport) bool) []*SettlementReport {
	return wholeList(m, func() []*SettlementReport {
		return listOrdered(m.money, &m.money.reportOrder, m.money.reports, keep)
	})
}

// Reconciliation returns the reconciliation id of idDominio.
func (m *ReadModel) Reconciliation(idDominio, id string) (*Reconciliation, bool) {
	return whole(m, func() (*Reconciliation, bool) { return m.money.reconciliations.get(idDominio + "/" + id) })
}

// Reconciliations returns the reconciliations keep accepts, oldest first.
func (m *ReadModel) Reconciliations(keep func(*Reconciliation) bool) []*Reconciliation {
	return wholeList(m, func() []*Reconciliation {
		return listOrdered(m.money, &m.money.reconcilOrder, m.money.reconciliations, keep)
	})
}

func listOrdered[V any](mo *money, order *[]string, t *table[V], keep func(V) bool) []V {
	mo.listMu.RLock()
	keys := append([]string(nil), (*order)...)
	mo.listMu.RUnlock()
	return picked(t, keys, keep)
}

// picked returns, in the order of keys, the values of t under them that
// keep accepts (nil keep: all).
func picked[V any](t *table[V], keys []string, keep func(V) bool) []V {
	var out []V
	for _, k := range keys {
		v, ok := t.get(k)
		if ok && (keep == nil || keep(v)) {
			out = append(out, v)
		}
	}
	return out
}
