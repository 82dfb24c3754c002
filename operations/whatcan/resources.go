package whatcan

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// ErrNoResources reports an operation that acts on no stored resource.
var ErrNoResources = errors.New("the operation acts on no stored pendenza, payment or reconciliation")

// Page is one page of the resources a principal could act on.
type Page struct {
	Principal string `json:"principal"`
	API       string `json:"api"`
	Operation string `json:"operazione"`
	Position  uint64 `json:"posizione"`
	// Decided is how many resources were decided for this page.
	Decided int `json:"decise"`
	// Next is the value of After for the next page; 0 when this is the last.
	Next uint64 `json:"successivo,omitempty"`
}

// resourceKind is what an operation's resource is, found by asking it
// with a resource naming only an entity and a creator (the field it then
// says is required: an entity's reconciliation asks its id, a creator's
// pendenza its idPendenza; an application of the registry, named by its
// idA2A alone, asks nothing more and is no stored resource).
type resourceKind int

const (
	kindPendenza resourceKind = iota + 1
	kindPayment
	kindReconciliation
)

func kindOf(m *projections.ReadModel, op *audit.Operation, p domain.Principal, base audit.Resource) (resourceKind, error) {
	if op.API == domain.APIBackoffice && op.Name == "servizio" {
		// A service or a right that is none would deny every resource:
		// the question is refused as the catalogue refuses it.
		if err := op.Decide(m, p, base); errors.Is(err, audit.ErrBadQuery) {
			return 0, err
		}
		// A stored resource read in the Backoffice: a payment with
		// Pagamenti, else a pendenza.
		if strings.EqualFold(base.Service, domain.ServicePagamenti.String()) {
			return kindPayment, nil
		}
		return kindPendenza, nil
	}
	// The stored resource an operation acts on is the id it asks for
	// when none is given.
	var missing *audit.MissingFieldError
	if !errors.As(op.Decide(m, p, audit.Resource{Service: domain.ServicePendenze.String(), Right: domain.RightRead.String(),
		IDDominio: domain.Wildcard, IDA2A: domain.Wildcard}), &missing) {
		return 0, ErrNoResources
	}
	switch missing.Field {
	case "idPagamento":
		return kindPayment, nil
	case "idRiconciliazione":
		return kindReconciliation, nil
	case "idPendenza":
		return kindPendenza, nil
	}
	return 0, ErrNoResources
}

// Resources calls emit with every resource of the operation's kind that
// principal name could act on, in creation order, starting after the
// first after resources, deciding at most limit (0: all) of them. Each is
// decided by the operation's own decision (audit.Operation.Decide), after
// the gates the HTTP layer applies first (a credential the principal has,
// audit.Credential, whose auth the API accepts; the principal's entry into
// the API). service and right name the Backoffice
// right for BACKOFFICE/servizio (default Pendenze R; one that is none is
// audit.ErrBadQuery). emit returning an
// error stops the listing with it. A listing streams (emit writes as it
// goes), so it is not one read: its Position is where it started, and on
// live read models each resource is decided at the state its decision
// read; a fixed answer is asked at a position.
func Resources(m *projections.ReadModel, name string, api domain.API, operation, service, right string,
	after uint64, limit int, emit func(audit.Resource) error) (*Page, error) {
	op, err := audit.Lookup(api, operation)
	if err != nil {
		return nil, err
	}
	rec, pos, ok := m.LookupWithPosition(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownPrincipal, name)
	}
	p := rec.Principal
	page := &Page{Principal: name, API: api.String(), Operation: op.Name, Position: uint64(pos)}
	base := audit.Resource{Service: or(service, domain.ServicePendenze.String()), Right: or(strings.ToUpper(right), domain.RightRead.String())}
	kind, err := kindOf(m, op, p, base)
	if err != nil {
		return nil, err
	}
	_, auth, authenticates := audit.Credential(m, rec)
	if !authenticates || domain.AcceptsAuth(api, auth) != nil || domain.CanEnterAPI(p, api) != nil {
		return page, nil // denied at the door: nothing
	}
	// decide takes the resources in creation order, skipping the first
	// after and deciding up to limit; it reports false once done. flush
	// hands what is batched to a second goroutine, which decides each
	// batch on every CPU and emits the allowed in order while the walk
	// goes on.
	var index uint64
	var emitErr error
	var stopped atomic.Bool
	// Three batch buffers go round: one filled by the walk, one decided,
	// one queued.
	batches, free := make(chan []item, 2), make(chan []item, 3)
	for range 2 {
		free <- make([]item, 0, batchSize)
	}
	decided := make(chan struct{})
	go func() {
		defer close(decided)
		allowed := make([]bool, batchSize)
		for b := range batches {
			if !stopped.Load() {
				decideAll(m, op, p, b, allowed)
				for i := range b {
					if allowed[i] {
						if emitErr = emit(b[i].r); emitErr != nil {
							stopped.Store(true)
							break
						}
					}
				}
			}
			free <- b[:0]
		}
	}()
	batch := make([]item, 0, batchSize)
	flush := func() {
		if len(batch) > 0 {
			batches <- batch
			batch = <-free
		}
	}
	decide := func(it item) bool {
		if stopped.Load() {
			return false
		}
		index++
		if index <= after {
			return true
		}
		if limit > 0 && page.Decided == limit {
			page.Next = after + uint64(limit)
			return false
		}
		page.Decided++
		if batch = append(batch, it); len(batch) == batchSize {
			flush()
		}
		return true
	}
	switch kind {
	case kindPendenza:
		// Decided in the filter, as the model walks its pendenze in
		// creation order (outside its locks): nothing is materialised.
		done := false
		m.Pendenze(projections.PendenzeFilter{KeepPendenza: func(pd projections.Pendenza) bool {
			if !done {
				r := base
				r.IDA2A, r.IDPendenza = pd.IDA2A, pd.IDPendenza
				done = !decide(item{r: r, pd: pd, stored: true})
			}
			return false
		}})
	case kindPayment:
		for _, pay := range m.Payments(nil) {
			r := base
			r.IDPagamento = pay.View().ID
			if !decide(item{r: r}) {
				break
			}
		}
	case kindReconciliation:
		for _, rc := range m.Reconciliations(nil) {
			r := base
			r.IDDominio, r.IDRiconciliazione = rc.Event.IDDominio, rc.Event.ID
			if !decide(item{r: r}) {
				break
			}
		}
	}
	flush()
	close(batches)
	<-decided
	if emitErr != nil {
		return page, emitErr
	}
	return page, nil
}

// batchSize is how many resources are decided at once, split over the CPUs.
const batchSize = 8192

// item is a resource to decide and, for a pendenza, the pendenza the
// listing read: the decision finds it without looking it up again.
type item struct {
	r      audit.Resource
	pd     projections.Pendenza
	stored bool // pd is the pendenza r names
}

// decideAll sets allowed[i] to whether op allows p on items[i], deciding
// on every CPU at once (the read model is safe for concurrent readers).
func decideAll(m *projections.ReadModel, op *audit.Operation, p domain.Principal, items []item, allowed []bool) {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(items)/512))
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(items)/workers, (w+1)*len(items)/workers
		wg.Go(func() {
			k := &known{Model: m}
			for i := lo; i < hi; i++ {
				k.pd = nil
				if items[i].stored {
					k.pd = &items[i].pd
				}
				allowed[i] = op.Decide(k, p, items[i].r) == nil
			}
		})
	}
	wg.Wait()
}

// known is the read model with one pendenza already in hand: a decision's
// lookup of that pendenza is answered with it, every other read by the
// model. It changes no decision, only how the pendenza is found.
type known struct {
	audit.Model
	pd       *projections.Pendenza
	lookedUp bool // the decision looked a pendenza up (by its id or notice)
}

func (k *known) Pendenza(idA2A, idPendenza string) (projections.Pendenza, bool) {
	k.lookedUp = true
	if k.pd != nil && k.pd.IDA2A == idA2A && k.pd.IDPendenza == idPendenza {
		return *k.pd, true
	}
	return k.Model.Pendenza(idA2A, idPendenza)
}

func (k *known) PendenzaByNotice(idDominio, numeroAvviso string) (projections.Pendenza, bool) {
	k.lookedUp = true
	if k.pd != nil && k.pd.IDDominio == idDominio && k.pd.NumeroAvviso == numeroAvviso {
		return *k.pd, true
	}
	return k.Model.PendenzaByNotice(idDominio, numeroAvviso)
}

func (k *known) PendenzaView(idA2A, idPendenza string) (domain.PendenzaView, bool) {
	k.lookedUp = true
	if k.pd != nil && k.pd.IDA2A == idA2A && k.pd.IDPendenza == idPendenza {
		return k.pd.View(), true
	}
	return k.Model.PendenzaView(idA2A, idPendenza)
}
