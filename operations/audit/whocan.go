package audit

import (
	"slices"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// Holder is a principal allowed to do an operation, with the roles or
// grants that allow it.
type Holder struct {
	Principal         string     `json:"principal"`
	Kind              string     `json:"tipoPrincipal"`
	Auth              string     `json:"auth"`
	PrincipalPosition uint64     `json:"posizionePrincipal,omitempty"`
	Evidence          []Evidence `json:"evidenze"`
}

// WhoCanResult is every principal allowed at one position.
type WhoCanResult struct {
	API       string   `json:"api"`
	Operation string   `json:"operazione"`
	Resource  Resource `json:"risorsa"`
	Position  uint64   `json:"posizione"`
	Holders   []Holder `json:"principals"`
}

// anyCitizen stands for every citizen in who-can answers: a fiscal code no
// pendenza names as payer.
const anyCitizen = "*"

// WhoCan returns every principal of m allowed to do the operation on the
// resource: each registered application and operator (through the
// credential it has, Credential; its secret assumed valid), and on the Pagamento
// API a citizen (each the resource names: the payer of the named pendenza
// or of the notice's, the payers of a payment's items and its remitter;
// and any citizen) and an anonymous caller. Each holder carries the roles or grant that cover the
// resource. The decision of each is Explain's, so it is the live one.
// Every decision of it reads one state of m, whose position it reports;
// commits that keep interrupting the read (whoCanAttempts times) make it
// ErrBusy rather than an answer that mixes positions.
func WhoCan(m *projections.ReadModel, api domain.API, operation string, r Resource) (*WhoCanResult, error) {
	return whoCanFor(m, nil, api, operation, r)
}

// WhoCanFor is WhoCan asked by auditor: whether it may ask (Authorize)
// is decided on the state the answer reads, so a commit between the two
// cannot answer it about a resource that has left its scope.
func WhoCanFor(m *projections.ReadModel, auditor domain.Principal, api domain.API, operation string, r Resource) (*WhoCanResult, error) {
	return whoCanFor(m, &auditor, api, operation, r)
}

func whoCanFor(m *projections.ReadModel, auditor *domain.Principal, api domain.API, operation string, r Resource) (*WhoCanResult, error) {
	op, err := Lookup(api, operation) // the catalogue: read once, outside the model's state
	if err != nil {
		return nil, err
	}
	var res *WhoCanResult
	pos, err := OneState(m, func() (err error) {
		if err = op.check(m, r); err != nil {
			return err
		}
		if err = mayAsk(m, auditor, op, r); err != nil {
			return err
		}
		res, err = whoCan(m, api, op, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	res.Position = pos
	return res, nil
}

// OneState runs read, a long read of m (who-can, what-can), inside one
// bounded consistent read (projections.ReadModel.ConsistentWithin) and
// returns the position of the state it read: ErrBusy when commits kept
// interrupting it, never an answer that mixes positions. read must only
// read m, and may run more than once.
func OneState(m *projections.ReadModel, read func() error) (uint64, error) {
	var err error
	pos, ok := m.ConsistentWithin(oneStateAttempts, func() { err = read() })
	if !ok {
		return 0, ErrBusy
	}
	return uint64(pos), err
}

// oneStateAttempts bounds the reads of one long question: over a thousand
// principals one takes milliseconds, and the log commits far less often.
const oneStateAttempts = 16

func whoCan(m *projections.ReadModel, api domain.API, op *Operation, r Resource) (*WhoCanResult, error) {
	res := &WhoCanResult{API: api.String(), Operation: op.Name, Resource: r, Holders: []Holder{}}
	try := func(name string, auth domain.AuthType) error {
		x, err := Explain(m, Query{Principal: name, Auth: auth, API: api, Operation: op.Name, Resource: r,
			everyCitizen: name == anyCitizen})
		if err != nil {
			return err
		}
		if !x.Allowed() {
			return nil
		}
		h := Holder{Principal: x.Principal, Kind: x.Kind, Auth: x.Auth, PrincipalPosition: x.PrincipalPosition, Evidence: []Evidence{}}
		// The roles or grant that cover it; when none does alone (a
		// payment whose items roles cover between them), those that cover
		// part of it.
		covers := slices.ContainsFunc(x.Evidence, func(e Evidence) bool { return e.Covers })
		for _, e := range x.Evidence {
			if e.Covers || (!covers && e.Partial) {
				h.Evidence = append(h.Evidence, e)
			}
		}
		res.Holders = append(res.Holders, h)
		return nil
	}
	registered := func(name string, kind domain.PrincipalKind) error {
		rec, ok := m.Lookup(name)
		if !ok || rec.Principal.Kind != kind {
			return nil // an operator's name that resolves to an application, listed with them
		}
		as, auth, _ := Credential(m, rec)
		return try(as, auth)
	}
	for _, app := range m.Applications() {
		if err := registered(app.Principal, domain.KindApplication); err != nil {
			return nil, err
		}
	}
	for _, o := range m.Operators() {
		if err := registered(o.Principal, domain.KindOperator); err != nil {
			return nil, err
		}
	}
	if api == domain.APIPagamento {
		for _, code := range namedCitizens(m, r) {
			if err := try(code, domain.AuthSPID); err != nil {
				return nil, err
			}
		}
		if err := try(anyCitizen, domain.AuthSPID); err != nil {
			return nil, err
		}
		if err := try("", domain.AuthPublic); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Credential is how the registered principal of rec authenticates, for
// the questions that ask about it as a caller (who-can, what-can): by its
// name with basic when it has a password; else with ssl when its name is
// the certificate subject it is found by; else with spid when its name is
// the fiscal code the identity proxy names it by; else with apikey, named as
// X-APP-ID names it (an application's idA2A, an operator's principal),
// when it has an API key. ok is false for a principal with none of them:
// it is asked with basic, which it cannot pass (Explain: unauthenticated).
func Credential(m *projections.ReadModel, rec *projections.PrincipalRecord) (name string, auth domain.AuthType, ok bool) {
	p := rec.Principal
	if rec.HasCredential(projections.CredentialPassword) {
		return p.Name, domain.AuthBasic, true
	}
	if byDN, found := m.LookupDN(p.Name); found && byDN.Principal.Name == p.Name {
		return p.Name, domain.AuthSSL, true
	}
	if code, isCode := domain.ParseCitizen(p.Name); isCode && code == p.Name {
		return p.Name, domain.AuthSPID, true // the identity proxy's fiscal code
	}
	id := p.Name
	if p.Kind == domain.KindApplication {
		id = p.IDA2A
	}
	if byID, found := m.LookupAppID(id); found && byID.Principal.Name == p.Name && rec.HasCredential(projections.CredentialAPIKey) {
		return id, domain.AuthAPIKey, true
	}
	return p.Name, domain.AuthBasic, false
}

// namedCitizens are the fiscal codes a Pagamento resource names, each
// once: the payer of the pendenza named by its ids or by its notice, and
// of a payment the remitter and the payer of each item (a citizen reads a
// payment it is either of: domain.CanReadPayment).
func namedCitizens(m *projections.ReadModel, r Resource) []string {
	var out []string
	add := func(code string) {
		if code != "" && !slices.Contains(out, code) {
			out = append(out, code)
		}
	}
	if r.IDA2A != "" && r.IDPendenza != "" {
		if v, ok := m.PendenzaView(r.IDA2A, r.IDPendenza); ok {
			add(v.PayerID)
		}
	}
	if r.IDDominio != "" && r.NumeroAvviso != "" {
		if pd, ok := m.PendenzaByNotice(r.IDDominio, r.NumeroAvviso); ok {
			add(pd.View().PayerID)
		}
	}
	if r.IDPagamento != "" {
		if pay, ok := m.Payment(r.IDPagamento); ok {
			v := pay.View()
			add(v.RemitterID)
			for _, it := range v.Items {
				add(it.PayerID)
			}
		}
	}
	return out
}
