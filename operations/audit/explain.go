package audit

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// Outcomes of a decision, the same words the HTTP layer's decision log and
// metrics use.
const (
	OutcomeAllow           = "allow"
	OutcomeDeny            = "deny"
	OutcomeUnauthenticated = "unauthenticated"
	OutcomeNotFound        = "not-found"
	// OutcomeUnprocessable is a request every check allowed that the
	// service answers 422 (an unknown or disabled entity or type).
	OutcomeUnprocessable = "unprocessable"
)

// Rules the HTTP layer names for outcomes that are not a domain denial.
const (
	RuleGranted        = "granted"
	RuleAuthentication = "authentication"
	// RuleRequest names a request refused for its content (400, 422).
	RuleRequest = "request"
)

// Query asks what a request would be answered.
type Query struct {
	Principal string          // principal name (username, DN, fiscal code); "" for anonymous
	Auth      domain.AuthType // how it authenticates; zero means basic
	API       domain.API
	Operation string // a catalogue name of API
	Resource  Resource
	// everyCitizen: Principal anyCitizen stands for every citizen (who-can's
	// own question; an auditor's "*" is not a fiscal code, refused as the
	// service refuses it).
	everyCitizen bool
}

// Step is one check of the rule trail.
type Step struct {
	Check  string `json:"verifica"`
	Passed bool   `json:"superata"`
	Rule   string `json:"regola,omitempty"`
	Detail string `json:"dettaglio,omitempty"`
	// Code names what Detail says (a Note* code) and Args are the values
	// it documents, for a client that words it itself; neither is part
	// of the answer the API writes.
	Code string `json:"-"`
	Args []any  `json:"-"`
	// Checks are the operation's own checks, in order, each named by the
	// domain function that decided (only on the operation's step).
	Checks []Step `json:"verifiche,omitempty"`
}

func (st *Step) say(n note) { st.Detail, st.Code, st.Args = n.text, n.code, n.args }

// trail records an operation's checks as steps, and what its role-scoped
// decisions rested on: the service rights asked of a role and the places
// (operations.PlaceRecorder).
type trail struct {
	steps   []Step
	rights  []serviceRight
	places  []domain.Place
	reaches []string
}

type serviceRight struct {
	s domain.Service
	r domain.Right
}

// Right records a service right a decision asks of a role.
func (t *trail) Right(s domain.Service, r domain.Right) {
	if sr := (serviceRight{s, r}); !slices.Contains(t.rights, sr) {
		t.rights = append(t.rights, sr)
	}
}

// Place records a place a decision rests on.
func (t *trail) Place(pl domain.Place) { t.places = append(t.places, pl) }

// Reach records an entity a role must reach, whole or in some units.
func (t *trail) Reach(idDominio string) { t.reaches = append(t.reaches, idDominio) }

// Check records one check.
func (t *trail) Check(name string, err error) {
	st := Step{Check: name, Passed: err == nil}
	var f *domain.ForbiddenError
	var u *operations.UnprocessableError
	switch {
	case err == nil:
	case errors.As(err, &f):
		st.Rule, st.Detail = f.Rule, f.Detail
	case errors.As(err, &u):
		st.Rule, st.Detail = RuleRequest, u.Detail
	default:
		st.Detail = err.Error()
	}
	if err != nil {
		st.Code, st.Args = NoteCheck, []any{err}
	}
	t.steps = append(t.steps, st)
}

// Evidence is a role or API grant of the principal, with whether it covers
// the resource asked about.
type Evidence struct {
	Kind    string   `json:"tipo"` // "ruolo" or "autorizzazioneApi"
	ID      string   `json:"id"`   // idRuolo, or the API
	Service string   `json:"servizio,omitempty"`
	Rights  []string `json:"autorizzazioni,omitempty"`
	Domini  []string `json:"domini"`
	// UnitaOperative are the entities this role or grant covers only in
	// some of their units: idDominio → units.
	UnitaOperative map[string][]string `json:"unitaOperative,omitempty"`
	Tipi           []string            `json:"tipiPendenza"`
	Covers         bool                `json:"copre"`
	// Partial is a role giving the right that holds some of the places
	// the decision rested on, not all: a payment's items may be covered
	// by several roles together.
	Partial bool   `json:"parziale,omitempty"`
	Why     string `json:"motivo"`
	// Code names what Why says (a Note* code) and Args are the values it
	// documents, for a client that words it itself; neither is part of
	// the answer the API writes.
	Code string `json:"-"`
	Args []any  `json:"-"`
}

func (e *Evidence) say(n note) { e.Why, e.Code, e.Args = n.text, n.code, n.args }

// Explanation is the decision a request would have received against one
// state of the read models, with its evidence.
type Explanation struct {
	Principal string   `json:"principal"`
	Kind      string   `json:"tipoPrincipal"`
	Auth      string   `json:"auth"`
	API       string   `json:"api"`
	Operation string   `json:"operazione"`
	Resource  Resource `json:"risorsa"`
	Outcome   string   `json:"esito"`
	Rule      string   `json:"regola"`
	Detail    string   `json:"dettaglio,omitempty"`
	// Code names what Detail says (a Note* code) and Args are the values
	// it documents, for a client that words it itself; neither is part
	// of the answer the API writes.
	Code string `json:"-"`
	Args []any  `json:"-"`
	// Position is the log position the read models had applied: the
	// decision rests on exactly the log up to it.
	Position uint64 `json:"posizione"`
	// PrincipalPosition is the position of the last event that shaped the
	// principal (its registration, roles, grants, password, abilitato).
	PrincipalPosition uint64     `json:"posizionePrincipal,omitempty"`
	Trail             []Step     `json:"passi"`
	Evidence          []Evidence `json:"evidenze"`
}

func (x *Explanation) say(n note) { x.Detail, x.Code, x.Args = n.text, n.code, n.args }

// Allowed reports whether the decision allowed the request.
func (e *Explanation) Allowed() bool { return e.Outcome == OutcomeAllow }

// Explain returns the decision q would receive against m, checking what
// the HTTP layer checks in the same order: the {auth} accepted by the API,
// the principal's resolution, entry into the API, then the operation's
// domain decisions. Credentials are assumed valid (a password or a
// certificate is not part of the log an auditor replays) when the
// principal has one of the kind auth asks (a password for basic, an API
// key for apikey: that is in the log), and the captcha
// of the public Pagamento API is not evaluated. It returns ErrUnknownOperation
// or ErrBadQuery for a query it cannot decide.
func Explain(m *projections.ReadModel, q Query) (*Explanation, error) {
	return ExplainOn(m, m, q)
}

// ExplainOn is Explain whose operation finds its resources through on
// (m with a resource already in hand, as whatcan holds one); the
// principal and the position are read from m. Every read of it sees one
// state of m, after whole commits, and the position it reports is that
// state's (projections.ReadModel.Consistent): the outcome is the one at
// that position even while commits are published.
func ExplainOn(m *projections.ReadModel, on Model, q Query) (*Explanation, error) {
	return explainFor(m, on, nil, q)
}

// ExplainFor is Explain asked by auditor: whether it may ask (Authorize)
// is decided on the state the answer reads, so a commit between the two
// cannot answer it about a resource that has left its scope.
func ExplainFor(m *projections.ReadModel, auditor domain.Principal, q Query) (*Explanation, error) {
	return explainFor(m, m, &auditor, q)
}

func explainFor(m *projections.ReadModel, on Model, auditor *domain.Principal, q Query) (*Explanation, error) {
	var x *Explanation
	var err error
	op, err := Lookup(q.API, q.Operation)
	if err != nil {
		return nil, err
	}
	pos := m.Consistent(func() {
		x = nil
		if err = op.check(on, q.Resource); err != nil {
			return
		}
		if err = mayAsk(m, auditor, op, q.Resource); err == nil {
			x, err = explainOn(m, on, op, q)
		}
	})
	if x != nil {
		x.Position = uint64(pos)
	}
	return x, err
}

func explainOn(m *projections.ReadModel, on Model, op *Operation, q Query) (*Explanation, error) {
	auth := q.Auth
	if auth == (domain.AuthType{}) {
		auth = domain.AuthBasic
	}
	x := &Explanation{Principal: q.Principal, Auth: auth.String(), API: q.API.String(), Operation: op.Name,
		Resource: q.Resource, Trail: []Step{}, Evidence: []Evidence{}}
	if err := x.check("auth-accepted", domain.AcceptsAuth(q.API, auth)); err != nil {
		return x, nil
	}
	p, ok := resolve(m, q, auth, x)
	if !ok {
		return x, nil
	}
	x.Kind = p.Kind.String()
	if err := x.check("api-entry", domain.CanEnterAPI(p, q.API)); err != nil {
		x.Evidence = evidence(p, q.API, nil, err, nil)
		return x, nil
	}
	var t trail
	err := op.decide(on, p, q.Resource, &t)
	if errors.Is(err, ErrBadQuery) {
		return nil, err
	}
	x.Evidence = evidence(p, q.API, &t, err, func(p domain.Principal) error { return op.Decide(on, p, q.Resource) })
	var unproc *operations.UnprocessableError
	switch {
	case errors.Is(err, domain.ErrNotFound):
		st := Step{Check: op.Key(), Passed: true, Checks: t.steps}
		st.say(note{text: "allowed to ask; the resource does not exist at this position", code: NoteAskedMissing})
		x.Trail = append(x.Trail, st)
		x.Outcome, x.Rule = OutcomeNotFound, RuleGranted
		x.say(note{text: "the resource does not exist at this position", code: NoteMissing})
		return x, nil
	case errors.As(err, &unproc):
		st := Step{Check: op.Key(), Passed: true, Checks: t.steps}
		st.say(note{text: "allowed; the request is unprocessable (422): " + unproc.Detail, code: NoteUnprocessable, args: []any{unproc}})
		x.Trail = append(x.Trail, st)
		x.Outcome, x.Rule = OutcomeUnprocessable, RuleRequest
		x.say(note{text: unproc.Detail, code: NoteCheck, args: []any{err}})
		return x, nil
	}
	if x.check(op.Key(), err) != nil {
		x.Trail[len(x.Trail)-1].Checks = t.steps
		return x, nil
	}
	x.Trail[len(x.Trail)-1].Checks = t.steps
	x.Outcome, x.Rule = OutcomeAllow, RuleGranted
	return x, nil
}

// check records one step of the trail and, when err denies, the outcome.
func (x *Explanation) check(name string, err error) error {
	if err == nil {
		x.Trail = append(x.Trail, Step{Check: name, Passed: true})
		return nil
	}
	var f *domain.ForbiddenError
	if !errors.As(err, &f) {
		f = &domain.ForbiddenError{Rule: "error", Detail: err.Error()}
	}
	why := note{text: f.Detail, code: NoteCheck, args: []any{err}}
	st := Step{Check: name, Passed: false, Rule: f.Rule}
	st.say(why)
	x.Trail = append(x.Trail, st)
	x.Outcome, x.Rule = OutcomeDeny, f.Rule
	x.say(why)
	return err
}

// resolve finds the principal as http.Server.resolve does: registered
// principals by name (by DN for ssl), a spid caller by domain.SPIDCaller
// (an unregistered one is a citizen on Pagamento), a public caller is
// anonymous.
func resolve(m *projections.ReadModel, q Query, auth domain.AuthType, x *Explanation) (domain.Principal, bool) {
	name, api := q.Principal, q.API
	var rec *projections.PrincipalRecord
	found := false
	switch auth {
	case domain.AuthPublic:
		x.pass("principal", note{text: "public caller: anonymous", code: NotePublic})
		x.Principal = ""
		return domain.Anonymous(""), true
	case domain.AuthSSL:
		rec, found = m.LookupDN(name)
	case domain.AuthSPID:
		spidCaller := domain.SPIDCaller
		if q.everyCitizen && name == anyCitizen {
			spidCaller = domain.FiscalCodeCaller // who-can's stand-in for every citizen is no fiscal code
		}
		p, err := spidCaller(api, name, func(code string) (domain.Principal, bool) {
			x.Principal = code // as the service sees it: upper-cased, without its prefix
			if rec, found = m.Lookup(code); !found {
				return domain.Principal{}, false
			}
			return rec.Principal, true
		})
		if errors.Is(err, domain.ErrNotFiscalCode) {
			x.unauthenticated(note{text: "not a fiscal code: the identity proxy's caller is refused (401)", code: NoteSPIDRefused},
				note{text: "not a fiscal code", code: NoteNotFiscalCode})
			return domain.Principal{}, false
		}
		if err == nil && !found {
			x.pass("principal", note{text: "unregistered spid caller on PAGAMENTO: citizen", code: NoteSPIDCitizen})
			return p, true
		}
	case domain.AuthAPIKey:
		rec, found = m.LookupAppID(name) // X-APP-ID: an idA2A or an operator's principal
	default:
		rec, found = m.Lookup(name)
	}
	if !found {
		x.unauthenticated(note{text: "no registered principal has this name at this position", code: NoteNoSuchName},
			note{text: "not registered at this position", code: NoteNotRegistered})
		return domain.Principal{}, false
	}
	x.PrincipalPosition = uint64(rec.Position)
	if why, ok := noCredential(rec, auth); !ok {
		x.unauthenticated(why, why)
		return domain.Principal{}, false
	}
	state := "enabled"
	if !rec.Principal.Enabled {
		state = "disabled"
	}
	x.pass("principal", note{text: fmt.Sprintf("registered %s (%s), shaped by the event at position %d; credentials assumed valid",
		strings.ToLower(rec.Principal.Kind.String()), state, rec.Position),
		code: NoteRegistered, args: []any{rec.Principal.Kind, rec.Principal.Enabled, uint64(rec.Position)}})
	return rec.Principal, true
}

// pass records a step that passed, saying why.
func (x *Explanation) pass(check string, why note) {
	st := Step{Check: check, Passed: true}
	st.say(why)
	x.Trail = append(x.Trail, st)
}

// unauthenticated records the principal's step that failed, saying why,
// and the outcome, saying detail.
func (x *Explanation) unauthenticated(why, detail note) {
	st := Step{Check: "principal", Passed: false, Rule: RuleAuthentication}
	st.say(why)
	x.Trail = append(x.Trail, st)
	x.Outcome, x.Rule = OutcomeUnauthenticated, RuleAuthentication
	x.say(detail)
}

// noCredential says why rec can never pass auth's check, ok when it may:
// basic needs a password, apikey an API key, and whether the principal
// has one is in the log (their hashes), though the secrets are not (those
// are assumed valid). The service answers such a caller 401 whatever it
// presents (projections.ReadModel.AuthenticateWithPosition).
func noCredential(rec *projections.PrincipalRecord, auth domain.AuthType) (why note, ok bool) {
	switch {
	case auth == domain.AuthBasic && !rec.HasCredential(projections.CredentialPassword):
		return note{text: "registered without a password: basic authentication cannot succeed (401)", code: NoteNoPassword}, false
	case auth == domain.AuthAPIKey && !rec.HasCredential(projections.CredentialAPIKey):
		return note{text: "registered without an API key: apikey authentication cannot succeed (401)", code: NoteNoAPIKey}, false
	}
	return note{}, true
}

// evidence lists the principal's roles (Backoffice) or its grant on the
// API, each with whether it covers the resource, from the operation's
// trail t (nil when the operation was not reached), its answer err and
// again, the same operation decided for another principal. It explains
// from the operation's own decisions; it decides nothing itself.
//
// A role is asked what the operation's role-scoped decisions asked, as
// the operation reported it: the service rights (domain.Role.Has) and the
// places (domain.Role.Covers). An application holds one grant on an API:
// the grant covers the resource when the operation allowed it, does not
// when one of its decisions found the resource outside the grant's scope
// (domain.RuleAPIScope, whose detail it repeats), and is left undecided
// when the operation ended otherwise (another rule, 422). An allowed
// operation says whether its decision rested on the grant's scope
// (restsOnScope): one that decides by ownership (the pendenze and
// payments an application created) or by the caller alone (a list's
// gate, a profile) covers without the grant's scope having found
// anything. A resource that does not exist, which the caller was allowed
// to ask about, is covered as an allowed one is (what-can probes with
// such resources).
func evidence(p domain.Principal, api domain.API, t *trail, err error, again func(domain.Principal) error) []Evidence {
	out := []Evidence{}
	notReached := func() note {
		return noteOf(NoteNotReached, "the operation was not reached: the caller did not enter the %s API", api)
	}
	granted := err == nil || errors.Is(err, domain.ErrNotFound) // allowed, or allowed to ask
	if api == domain.APIBackoffice {
		for _, role := range p.Roles {
			e := Evidence{Kind: "ruolo", ID: role.ID, Domini: role.Domini.List(), UnitaOperative: role.Domini.Units(), Tipi: role.Tipi.List()}
			switch {
			case t == nil:
				e.say(notReached())
			case len(t.rights) == 0 && granted:
				e.Covers = true
				e.say(note{text: "the operation asks a role for no service right", code: NoteNoRightAsked})
			case len(t.rights) == 0:
				e.say(note{text: "the operation asks a role for no service right; another rule decided it", code: NoteNoRightOther})
			default:
				roleEvidence(&e, &role, t)
			}
			out = append(out, e)
		}
		return out
	}
	if !api.Grantable() || p.Kind != domain.KindApplication {
		return out
	}
	g, ok := p.Grant(api)
	if !ok {
		return out
	}
	e := Evidence{Kind: "autorizzazioneApi", ID: api.String(), Domini: g.Domini.List(), UnitaOperative: g.Domini.Units(), Tipi: g.Tipi.List()}
	denial := -1 // the step that found the resource outside the grant
	if t != nil {
		denial = slices.IndexFunc(t.steps, func(st Step) bool { return !st.Passed && st.Rule == domain.RuleAPIScope })
	}
	switch {
	case t == nil:
		e.say(notReached())
	case err == nil && !restsOnScope(p, api, again):
		e.Covers = true
		e.say(noteOf(NoteGrantNotScope, "authorized on the %s API; the operation's decisions did not rest on this grant's scope (they decide by ownership or by the caller alone; the rows a list then shows may still be bounded by the scope)", api))
	case err == nil:
		e.Covers = true
		e.say(noteOf(NoteGrantCovers, "authorized on the %s API; the operation's decisions found the resource in this grant's scope", api))
	case granted:
		e.Covers = true
		e.say(noteOf(NoteGrantMissing, "authorized on the %s API; the operation's decisions let the caller ask, and the resource does not exist", api))
	case denial >= 0:
		st := t.steps[denial]
		e.Why, e.Code, e.Args = st.Detail, st.Code, st.Args
	default:
		e.say(noteOf(NoteGrantUndecided, "not decided: the operation ended before deciding on this grant's scope (%v)", err))
	}
	return append(out, e)
}

// restsOnScope reports whether an allowed decision rested on p's grant's
// scope on api: the operation, decided again (again) for p holding that
// grant with no entity and no type in its scope, no longer allows. What
// the operation consults is what it decides by, so this is read off the
// operation itself, not kept beside it.
func restsOnScope(p domain.Principal, api domain.API, again func(domain.Principal) error) bool {
	return again(p.WithGrant(domain.Grant{API: api})) != nil
}

// roleEvidence says whether role gives every service right the trail
// asked and holds every place it rested on; a role holding some of the
// places (a payment's items may each be covered by another role) is
// partial and says which.
func roleEvidence(e *Evidence, role *domain.Role, t *trail) {
	need := t.rights[0]
	e.Service, e.Rights = need.s.String(), role.Rights(need.s).List()
	for _, sr := range t.rights {
		if !role.Has(sr.s, sr.r) {
			e.say(noteOf(NoteRoleLacks, "does not give %s %s", sr.s, sr.r))
			return
		}
	}
	for _, d := range t.reaches {
		if !role.Domini.Reaches(d) {
			e.say(noteOf(NoteRoleUnreached, "gives %s %s but idDominio %s is not in its scope, whole or in a unit", need.s, need.r, d))
			return
		}
	}
	gives := fmt.Sprintf("gives %s %s", need.s, need.r)
	var held []domain.Place
	missing := -1 // the first place the role does not hold
	for i, pl := range t.places {
		switch {
		case role.Covers(pl):
			held = append(held, pl)
		case missing < 0:
			missing = i
		}
	}
	if missing >= 0 {
		e.Partial = len(held) > 0
		e.say(note{text: fmt.Sprintf("%s%s but %s is not in its scope", gives, placesNote(held), describePlace(t.places[missing])),
			code: NoteRoleOutside, args: []any{need.s, need.r, held, t.places[missing]}})
		return
	}
	e.Covers = true
	e.say(note{text: gives + placesNote(held), code: NoteRoleCovers, args: []any{need.s, need.r, held}})
}

// describePlace names a place in an explanation: its entity (or unit of
// it) and its type, whichever it names.
func describePlace(pl domain.Place) string {
	switch {
	case pl.IDDominio != "" && pl.IDTipoPendenza != "":
		return placeName(pl.IDDominio, pl.IDUnita) + " and idTipoPendenza " + pl.IDTipoPendenza
	case pl.IDDominio != "":
		return placeName(pl.IDDominio, pl.IDUnita)
	}
	return "idTipoPendenza " + pl.IDTipoPendenza
}

// placesNote says which places a covering role holds.
func placesNote(places []domain.Place) string {
	if len(places) == 0 {
		return ""
	}
	names := make([]string, 0, len(places))
	for _, pl := range places {
		if n := describePlace(pl); !slices.Contains(names, n) { // a payment's items may share a place
			names = append(names, n)
		}
	}
	return " with " + strings.Join(names, ", ") + " in scope"
}

// placeName names an entity, or one of its units, in an explanation.
func placeName(dominio, unit string) string {
	if unit == "" {
		return "idDominio " + dominio
	}
	return "idUnitaOperativa " + unit + " of idDominio " + dominio
}

// resourcePlaces returns where what op asks about r lies, each place as
// the event log places that resource's events (domain.PlacesOf), so an
// auditor asks about what it could read in the log. A stored resource's
// own places: every item's of a payment, a pendenza's (named by idA2A and
// idPendenza, or by its notice at idDominio), a receipt's (its unit). And
// the idDominio the query names, with its unit and type (beside a notice
// or receipt, which lie at that entity, only when it names a unit or a
// type): a named place never stands for a stored resource's own, the
// auditor must reach both.
// nil (the whole log) when the question is about a registry entry (a role,
// an operator, an application, an intermediary), whatever else it names,
// or about a pendenza or payment named by ids that carry no place and that
// does not exist. A missing notice or receipt lies at its entity: the
// whole entity, and every type for a notice, so that no auditor learns
// that it is missing without being allowed to see it wherever it could
// have been.
func resourcePlaces(m *projections.ReadModel, op *Operation, r Resource) []domain.Place {
	if op.registry || r.IDIntermediario != "" {
		return nil
	}
	var out []domain.Place
	if r.IDPagamento != "" {
		pay, ok := m.Payment(r.IDPagamento)
		if !ok {
			return nil
		}
		for _, it := range pay.View().Items {
			out = append(out, it.Place())
		}
	}
	if r.IDA2A != "" && r.IDPendenza != "" {
		v, ok := m.PendenzaView(r.IDA2A, r.IDPendenza)
		if !ok {
			return nil
		}
		out = append(out, v.Place())
	}
	// A notice or a receipt is named at its entity: its own place (or the
	// whole entity's, missing) is where it lies there, and the named
	// place counts too when it names more than the entity (a unit or a
	// type the operation decides on). A question naming both lies at
	// both: a notice never stands for the receipt an operation reads.
	atEntity := false
	if r.IDDominio != "" && r.NumeroAvviso != "" {
		atEntity = true
		if pd, ok := m.PendenzaByNotice(r.IDDominio, r.NumeroAvviso); ok {
			out = append(out, pd.View().Place())
		} else {
			out = append(out, domain.Place{IDDominio: r.IDDominio, IDTipoPendenza: domain.Wildcard})
		}
	}
	if r.IDDominio != "" && r.IDRicevuta != "" {
		atEntity = true
		if rc, ok := m.Receipt(r.IDDominio, r.IDRicevuta); ok {
			out = append(out, operations.ReceiptPlace(rc))
		} else {
			out = append(out, domain.Place{IDDominio: r.IDDominio})
		}
	}
	if r.IDDominio != "" && (!atEntity || r.IDUnitaOperativa != "" || r.IDTipoPendenza != "") {
		out = append(out, r.place())
	}
	return out
}

// mayAsk is Authorize for the auditor asking, if any (none: a tool on the
// data dir, whose reader has the log itself).
func mayAsk(m *projections.ReadModel, auditor *domain.Principal, op *Operation, r Resource) error {
	if auditor == nil {
		return nil
	}
	return Authorize(m, *auditor, op, r, nil)
}

// Authorize decides whether auditor p may ask a question about r on the
// read model the question is asked of (operations.AuditResource over the
// places r lies at). Explain and WhoCan answer only after it passes.
func Authorize(m *projections.ReadModel, p domain.Principal, op *Operation, r Resource, rec operations.Recorder) error {
	return operations.AuditResource(p, resourcePlaces(m, op, r), rec)
}
