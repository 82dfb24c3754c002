package whatcan

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// ErrUnknownPrincipal reports a principal not registered at the position.
var ErrUnknownPrincipal = errors.New("no registered principal has this name at this position")

// maxProbes bounds the entity × type pairs asked per operation for a
// principal whose scopes are explicit lists.
const maxProbes = 4096

// Scope is where an operation is allowed through one role or grant.
type Scope struct {
	Via    string   `json:"tramite"` // "ruolo <id>" or "autorizzazioneApi <API>"
	Domini []string `json:"domini"`  // ["*"] for every entity
	// UnitaOperative are the entities reached only in some of their
	// units: idDominio → units.
	UnitaOperative map[string][]string `json:"unitaOperative,omitempty"`
	Tipi           []string            `json:"tipiPendenza"`
}

// Capability is one operation of the catalogue for the principal.
type Capability struct {
	API       string `json:"api"`
	Operation string `json:"operazione"`
	Service   string `json:"servizio,omitempty"`       // Backoffice servizio lines
	Right     string `json:"autorizzazione,omitempty"` // "R" or "W"
	Allowed   bool   `json:"consentito"`
	// PerResource: allowed to ask about resources in the scope; each
	// stored resource (a pendenza, a payment) is then decided on its own
	// (list them with Resources).
	PerResource bool    `json:"perRisorsa,omitempty"`
	Scope       []Scope `json:"ambito"`
	Rule        string  `json:"regola,omitempty"` // why not, when not allowed
	Detail      string  `json:"dettaglio,omitempty"`
}

// Owned counts the resources the principal created or started.
type Owned struct {
	Pendenze        int `json:"pendenze"`
	Payments        int `json:"pagamenti"`
	Reconciliations int `json:"riconciliazioni"`
}

// Result is what a principal could do at one position.
type Result struct {
	Principal    string       `json:"principal"`
	Kind         string       `json:"tipoPrincipal"`
	Auth         string       `json:"auth"`
	Position     uint64       `json:"posizione"`
	Capabilities []Capability `json:"operazioni"`
	Owned        Owned        `json:"risorse"`
}

// WhatCan returns, for every operation of the catalogue on the APIs the
// principal's kind may use, whether name (authenticating with the
// credential it has, audit.Credential; its secret assumed valid) could
// perform it against m, over which
// entities × pendenza types and through which role or grant, with the
// resources it owns. Each answer is Explain's decision on probes: the
// whole scope ("*") first, then every entity × type pair the principal's
// roles and grants name (at most maxProbes). Every decision of it reads
// one state of m, whose position it reports; commits that keep
// interrupting the read make it audit.ErrBusy, as a who-can.
func WhatCan(m *projections.ReadModel, name string) (*Result, error) {
	var res *Result
	pos, err := audit.OneState(m, func() (err error) {
		res, err = whatCan(m, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	res.Position = pos
	return res, nil
}

func whatCan(m *projections.ReadModel, name string) (*Result, error) {
	rec, ok := m.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownPrincipal, name)
	}
	p := rec.Principal
	as, auth, _ := audit.Credential(m, rec)
	who := caller{as, auth}
	res := &Result{Principal: name, Kind: p.Kind.String(), Auth: auth.String(), Capabilities: []Capability{}}
	domini, units, tipi := candidates(m, p)
	for _, op := range audit.Catalogue() {
		if op.API == domain.APINodo {
			continue
		}
		if op.API == domain.APIBackoffice && op.Name == "servizio" {
			for _, s := range domain.Services {
				for _, right := range []string{"R", "W"} {
					c := Capability{API: op.API.String(), Operation: op.Name, Service: s.String(), Right: right}
					probe(m, who, op, &c, audit.Resource{Service: s.String(), Right: right}, domini, units, tipi)
					res.Capabilities = append(res.Capabilities, c)
				}
			}
			continue
		}
		c := Capability{API: op.API.String(), Operation: op.Name}
		base := audit.Resource{}
		switch {
		case op.API == domain.APIPagamento && op.Name == "pay":
			// Paying is probed with a notice of each place: whether the
			// caller may pay what is owed there. A probe of a spontaneous
			// payment would answer for the type (422 when it is not
			// spontaneous), not for the caller's right to pay.
			base.NumeroAvviso = probeNotice
		case p.Kind == domain.KindApplication:
			base.IDA2A = p.IDA2A
		}
		probe(m, who, op, &c, base, domini, units, tipi)
		res.Capabilities = append(res.Capabilities, c)
	}
	res.Owned = owned(m, p)
	return res, nil
}

// candidates are the entities (named whole), the units (of entities
// reached only in some) and the types the principal's scopes name; a scope
// of all adds every registered entity or type.
func candidates(m *projections.ReadModel, p domain.Principal) ([]string, []domain.Place, []string) {
	ds, ts := map[string]bool{}, map[string]bool{}
	us := map[domain.Place]bool{}
	allD, allT := false, false
	add := func(d domain.EntityScope, t domain.Scope) {
		for _, id := range d.IDs() {
			ds[id] = true
		}
		for id, units := range d.Units() {
			for _, u := range units {
				us[domain.Place{IDDominio: id, IDUnita: u}] = true
			}
		}
		for _, id := range t.IDs() {
			ts[id] = true
		}
		allD, allT = allD || d.IsAll(), allT || t.IsAll()
	}
	for _, r := range p.Roles {
		add(r.Domini, r.Tipi)
	}
	for _, g := range p.Grants() {
		add(g.Domini, g.Tipi)
	}
	if allD {
		for _, e := range m.Entities() {
			ds[e.IDDominio] = true
		}
	}
	if allT {
		for _, t := range m.PendenzaTypes() {
			ts[t.IDTipoPendenza] = true
		}
	}
	units := make([]domain.Place, 0, len(us))
	for u := range us {
		units = append(units, u)
	}
	sort.Slice(units, func(i, j int) bool {
		return units[i].IDDominio < units[j].IDDominio || units[i].IDDominio == units[j].IDDominio && units[i].IDUnita < units[j].IDUnita
	})
	return sortedKeys(ds), units, sortedKeys(ts)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// caller is how the principal asked about authenticates
// (audit.Credential): the name it presents and the auth type.
type caller struct {
	name string
	auth domain.AuthType
}

// storedProbe names a stored resource of every kind, so that an operation
// on one is asked about ("allowed to ask; it does not exist").
func storedProbe(r audit.Resource) audit.Resource { return r.WithIDs(domain.Wildcard) }

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ask is Explain on r, or on r naming stored resources when the operation
// needs one (a resource that does not exist: may the caller ask about
// it?), a unit of r's entity too when the operation names a unit by its
// id and r names none. When that is denied after the operation looked a
// pendenza up (by its id or its notice) and r names a whole place (an
// entity and a type), it asks again of an open pendenza held at that
// place: learning that a pendenza is missing may need more than acting on
// one (a role on every entity, a grant of every type), and a stored
// pendenza of the place is decided as the held one. It reports whether
// the answer is per resource.
func ask(m *projections.ReadModel, who caller, op *audit.Operation, r audit.Resource) (*audit.Explanation, bool, error) {
	q := audit.Query{Principal: who.name, Auth: who.auth, API: op.API, Operation: op.Name, Resource: r}
	k := &known{Model: m}
	x, err := audit.ExplainOn(m, k, q)
	stored := errors.Is(err, audit.ErrBadQuery)
	if stored {
		q.Resource = storedProbe(r)
		x, err = audit.ExplainOn(m, k, q)
		var missing *audit.MissingFieldError
		if errors.As(err, &missing) && missing.Field == "idUnitaOperativa" && r.IDUnitaOperativa == "" {
			// An operation on a unit named by its id (GET
			// /domini/{idDominio}/unitaOperative/{idUnita}): a unit of
			// the place's entity that does not exist, as any stored
			// resource is probed.
			q.Resource.IDUnitaOperativa = domain.Wildcard
			x, err = audit.ExplainOn(m, k, q)
		}
	}
	if err != nil || x.Outcome != audit.OutcomeDeny || !k.lookedUp || !wholePlace(r) {
		return x, stored, err
	}
	k.pd = &projections.Pendenza{IDA2A: q.Resource.IDA2A, IDPendenza: q.Resource.IDPendenza, NumeroAvviso: q.Resource.NumeroAvviso,
		IDDominio: r.IDDominio, IDUnitaOperativa: r.IDUnitaOperativa, IDTipoPendenza: r.IDTipoPendenza, Stato: projections.StatoNonEseguita}
	x, err = audit.ExplainOn(m, k, q)
	return x, true, err
}

// wholePlace: r names an entity and a type, as every pendenza has.
func wholePlace(r audit.Resource) bool {
	return r.IDDominio != "" && r.IDDominio != domain.Wildcard && r.IDTipoPendenza != "" && r.IDTipoPendenza != domain.Wildcard
}

// probeNotice is the notice number pay is probed with (a notice that may
// or may not exist: the caller's right to ask about the entity's notices
// decides first).
const probeNotice = "000000000000000000"

// probe fills c: the whole scope first, else each entity alone (what an
// operation on the entity itself decides on, whatever its roles' types)
// and each entity × type pair. Denied everywhere, its rule is that of the
// pair that came closest to being allowed (closer): what stands in the
// way once the principal's scope lets it ask, as explain answers on that
// pair (a grant of an entity × a type that is not spontaneous denies
// creating a pendenza there for the type, not for the scope "*" is
// outside of); the whole scope's only when no pair was decided.
func probe(m *projections.ReadModel, who caller, op *audit.Operation, c *Capability, base audit.Resource, domini []string, units []domain.Place, tipi []string) {
	c.Scope = []Scope{}
	r := base
	r.IDDominio, r.IDTipoPendenza = domain.Wildcard, domain.Wildcard
	x, stored, err := ask(m, who, op, r)
	if err != nil {
		c.Rule, c.Detail = "error", err.Error()
		return
	}
	wildcard := granted(x)
	if wildcard {
		c.Allowed, c.PerResource = true, stored
		c.Scope = scopesOf(x)
		if len(c.Scope) > 0 {
			return
		}
		// Allowed to ask with no role or grant covering "*": the stored
		// resource decides (ownership); the pairs below show the scope
		// of the roles or grants that cover some, if any do.
	} else {
		c.Rule, c.Detail = x.Rule, x.Detail
	}
	var closest *audit.Explanation   // the denied pair that came closest
	allowed := map[string][]string{} // via → "dominio\x00tipo" pairs
	scopes := map[string]Scope{}     // via → the role's or grant's own scope
	// places are the entities named whole, then the units of entities
	// reached only in some, each probed with every type.
	places := make([]domain.Place, 0, len(domini)+len(units))
	for _, d := range domini {
		places = append(places, domain.Place{IDDominio: d})
	}
	places = append(places, units...)
	types := slices.Concat([]string{""}, tipi) // "": the entity alone
	n := 0
	for _, pl := range places {
		label := pl.IDDominio
		if pl.IDUnita != "" {
			label += " (" + pl.IDUnita + ")"
		}
		for _, t := range types {
			if n++; n > maxProbes {
				break
			}
			r := base
			r.IDDominio, r.IDUnitaOperativa, r.IDTipoPendenza = pl.IDDominio, pl.IDUnita, t
			x, s, err := ask(m, who, op, r)
			if err != nil {
				continue
			}
			if !granted(x) {
				if closest == nil || closer(x, closest) {
					closest = x
				}
				continue
			}
			c.Allowed, c.PerResource = true, c.PerResource || s
			for _, e := range x.Evidence {
				if e.Covers {
					allowed[via(e)] = append(allowed[via(e)], label+"\x00"+t)
					if _, seen := scopes[via(e)]; !seen {
						scopes[via(e)] = Scope{Via: via(e), Domini: e.Domini, UnitaOperative: e.UnitaOperative, Tipi: e.Tipi}
					}
				}
			}
			if len(x.Evidence) == 0 {
				allowed[""] = append(allowed[""], label+"\x00"+t)
			}
		}
	}
	if !c.Allowed && closest != nil {
		c.Rule, c.Detail = closest.Rule, closest.Detail
	}
	if c.Allowed {
		c.Rule, c.Detail = "", ""
		for _, v := range sortedKeys(toSet(allowed)) {
			if sc, ok := scopes[v]; ok {
				c.Scope = append(c.Scope, sc)
			} else if v != "" {
				c.Scope = append(c.Scope, scopeOfPairs(v, allowed[v]))
			}
		}
	}
	if len(c.Scope) == 0 && c.Allowed {
		c.Scope = []Scope{{Via: ViaResource, Domini: []string{domain.Wildcard}, Tipi: []string{domain.Wildcard}}}
	}
}

// closer: denial x passed more checks than y (the steps before the
// operation, then the operation's own checks), so it names what is left
// in the way of a request that got further; on a tie, y (the one asked
// first) stays.
func closer(x, y *audit.Explanation) bool { return passed(x) > passed(y) }

func passed(x *audit.Explanation) int {
	n := 0
	for _, st := range x.Trail {
		steps := st.Checks
		if len(steps) == 0 {
			steps = []audit.Step{st}
		}
		for _, c := range steps {
			if c.Passed {
				n++
			}
		}
	}
	return n
}

// ViaResource is the Via of an operation no role or grant scopes: each
// stored resource decides (its creator, its payer), or the operation is
// open to every principal of the kind.
const ViaResource = "ogni risorsa decide (proprietà)"

func toSet(m map[string][]string) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// granted: allowed, or allowed to ask about a resource that does not
// exist (an operation on stored resources, asked with a probe).
func granted(x *audit.Explanation) bool {
	return x.Outcome == audit.OutcomeAllow || x.Outcome == audit.OutcomeNotFound
}

func via(e audit.Evidence) string {
	if e.Kind == "ruolo" {
		return "ruolo " + e.ID
	}
	return e.Kind + " " + e.ID
}

// scopesOf is the covering evidence of x, as it is scoped.
func scopesOf(x *audit.Explanation) []Scope {
	var out []Scope
	for _, e := range x.Evidence {
		if e.Covers {
			out = append(out, Scope{Via: via(e), Domini: e.Domini, UnitaOperative: e.UnitaOperative, Tipi: e.Tipi})
		}
	}
	return out
}

// scopeOfPairs summarises allowed pairs as the entities and the types
// seen (a product when the pairs are one).
func scopeOfPairs(v string, pairs []string) Scope {
	ds, ts := map[string]bool{}, map[string]bool{}
	for _, p := range pairs {
		d, t, _ := strings.Cut(p, "\x00")
		ds[d] = true
		if t != "" { // the entity alone names no type
			ts[t] = true
		}
	}
	return Scope{Via: v, Domini: sortedKeys(ds), Tipi: sortedKeys(ts)}
}

// owned counts what p created: pendenze under its idA2A, payments it
// started, reconciliations it created.
func owned(m *projections.ReadModel, p domain.Principal) Owned {
	var o Owned
	if p.Kind != domain.KindApplication {
		return o
	}
	o.Pendenze = len(m.Pendenze(projections.PendenzeFilter{Creator: p.IDA2A}))
	o.Payments = len(m.Payments(func(pay *projections.Payment) bool {
		v := pay.View()
		return v.CallerKind == domain.KindApplication && v.CallerID == p.IDA2A
	}))
	o.Reconciliations = len(m.Reconciliations(func(r *projections.Reconciliation) bool { return r.View().IDA2A == p.IDA2A }))
	return o
}
