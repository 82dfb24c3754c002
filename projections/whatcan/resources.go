package whatcan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
	"github.com/payauthz/payauthz/projections/audit"
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
// with no resource at all (the field it says is required).
type resourceKind int

const (
	kindPendenza resourceKind = iota + 1
	kindPayment
	kindReconciliation
)

func kindOf(m *projections.ReadModel, op *audit.Operation, p domain.Principal) (resourceKind, error) {
	err := op.Decide(m, p, audit.Resource{Service: "Pendenze", Right: "R"})
	if !errors.Is(err, audit.ErrBadQuery) {
		if op.API == domain.APIBackoffice && op.Name == "servizio" {
			return kindPendenza, nil // a stored pendenza, read in the Backoffice
		}
		return 0, ErrNoResources
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "idPagamento"):
		return kindPayment, nil
	case strings.Contains(msg, "idRiconciliazione"):
		return kindReconciliation, nil
	case strings.Contains(msg, "idPendenza"), strings.Contains(msg, "idA2A"):
		return kindPendenza, nil
	}
	return 0, ErrNoResources
}

// Resources calls emit with every resource of the operation's kind that
// principal name could act on, in creation order, starting after the
// first after resources, deciding at most limit (0: all) of them. Each is
// decided by the operation's own decision (audit.Operation.Decide), after
// the gates the HTTP layer applies first (the basic auth accepted, the
// principal's entry into the API). service and right name the Backoffice
// right for BACKOFFICE/servizio (default Pendenze R). emit returning an
// error stops the listing with it.
func Resources(m *projections.ReadModel, name string, api domain.API, operation, service, right string,
	after uint64, limit int, emit func(audit.Resource) error) (*Page, error) {
	op, err := audit.Lookup(api, operation)
	if err != nil {
		return nil, err
	}
	rec, ok := m.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownPrincipal, name)
	}
	p := rec.Principal
	page := &Page{Principal: name, API: api.String(), Operation: op.Name, Position: uint64(m.AppliedPosition())}
	kind, err := kindOf(m, op, p)
	if err != nil {
		return nil, err
	}
	if domain.AcceptsAuth(api, domain.AuthBasic) != nil || domain.CanEnterAPI(p, api) != nil {
		return page, nil // denied at the door: nothing
	}
	base := audit.Resource{Service: or(service, "Pendenze"), Right: or(right, "R")}
	var all []audit.Resource
	switch kind {
	case kindPendenza:
		for _, pd := range m.Pendenze(projections.PendenzeFilter{}) {
			r := base
			r.IDA2A, r.IDPendenza = pd.IDA2A, pd.IDPendenza
			all = append(all, r)
		}
	case kindPayment:
		for _, pay := range m.Payments(nil) {
			r := base
			r.IDPagamento = pay.View().ID
			all = append(all, r)
		}
	case kindReconciliation:
		for _, rc := range m.Reconciliations(nil) {
			r := base
			r.IDDominio, r.IDRiconciliazione = rc.Event.IDDominio, rc.Event.ID
			all = append(all, r)
		}
	}
	if after >= uint64(len(all)) {
		return page, nil
	}
	all = all[after:]
	if limit > 0 && len(all) > limit {
		all = all[:limit]
		page.Next = after + uint64(limit)
	}
	for _, r := range all {
		page.Decided++
		if op.Decide(m, p, r) != nil {
			continue
		}
		if err := emit(r); err != nil {
			return page, err
		}
	}
	return page, nil
}
