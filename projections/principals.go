package projections

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// ErrUnauthenticated is returned by Authenticate for an unknown principal or
// a wrong password; the two cost the same and are not told apart.
var ErrUnauthenticated = errors.New("projections: not authenticated")

// PrincipalRecord is a registered principal as decisions see it. It is
// immutable except for its verified-credential cache; an event touching
// the principal replaces the whole record, and the new record keeps that
// cache only while its hash is the old one's (see rebuild).
type PrincipalRecord struct {
	Principal    domain.Principal
	PasswordHash string
	APIKeyHash   string          // the apikey credential's hash ("" for none)
	Position     events.Position // the event that built this record
	verified     atomic.Pointer[[32]byte]
	verifiedKey  atomic.Pointer[[32]byte] // the same cache for the API key
}

// Application is an application as stored, for Backoffice reads.
type Application struct {
	IDA2A        string
	Principal    string
	Enabled      bool
	Roles        []string
	Grants       []domain.Grant // in GrantableAPIs order
	PasswordHash string         `json:"-"`
	APIKeyHash   string         `json:"-"`
	Position     events.Position
	Registered   events.Position // the event that registered it (see lookupAppID)
	Personal     events.PersonalRole
	Fields       events.ApplicationFields // GovPay's, for reads
}

// personalRole parses a stored personal role; ok is false when there is
// none. A role that does not parse was refused when it was applied.
func personalRole(pr events.PersonalRole) (domain.Role, bool) {
	r, ok, _ := parsePersonal(pr)
	return r, ok
}

func parsePersonal(pr events.PersonalRole) (r domain.Role, ok bool, err error) {
	if len(pr.ACL) == 0 {
		return domain.Role{}, false, nil
	}
	r, err = domain.ParseRole(domain.PersonalRole, events.ACLRights(pr.ACL), pr.Domini, pr.UnitaOperative, pr.TipiPendenza)
	return r, err == nil, err
}

// PersonalRole returns the operator's personal role; ok is false when it
// has none.
func (o *Operator) PersonalRole() (domain.Role, bool) { return personalRole(o.Personal) }

// PersonalRole returns the application's personal role; ok is false when
// it has none.
func (a *Application) PersonalRole() (domain.Role, bool) { return personalRole(a.Personal) }

// Operator is an operator as stored, for Backoffice reads.
type Operator struct {
	Principal      string
	RagioneSociale string
	Enabled        bool
	Roles          []string
	PasswordHash   string `json:"-"`
	APIKeyHash     string `json:"-"`
	Position       events.Position
	Registered     events.Position // the event that registered it (see lookupAppID)
	Personal       events.PersonalRole
}

// RoleRecord is a role as defined, with its parsed form.
type RoleRecord struct {
	Event    events.RoleDefined
	Role     domain.Role
	Position events.Position
}

type principals struct {
	byName *table[*PrincipalRecord] // principal name → record
	apps   *table[*Application]     // idA2A → application
	ops    *table[*Operator]        // principal → operator
	roles  *table[*RoleRecord]      // idRuolo → role
	byDN   *table[string]           // order-normalised DN key → principal name, for ssl callers

	// writer-only (guarded by ReadModel.wmu)
	roleHolders map[string]map[string]struct{} // idRuolo → principal names holding it
	appByName   map[string]string              // application principal → idA2A
	dnNames     map[string]map[string]struct{} // DN key → principal names parsing to it (byDN's source)
}

func newPrincipals() *principals {
	return &principals{
		byName:      newTable[*PrincipalRecord](),
		apps:        newTable[*Application](),
		ops:         newTable[*Operator](),
		roles:       newTable[*RoleRecord](),
		byDN:        newTable[string](),
		roleHolders: map[string]map[string]struct{}{},
		appByName:   map[string]string{},
		dnNames:     map[string]map[string]struct{}{},
	}
}

func (p *principals) defineRole(e events.RoleDefined, pos events.Position) error {
	role, err := RoleOf(e)
	if err != nil {
		return err
	}
	p.roles.put(e.IDRuolo, &RoleRecord{Event: e, Role: role, Position: pos})
	for name := range p.roleHolders[e.IDRuolo] {
		p.rebuild(name, pos)
	}
	return nil
}

func (p *principals) putOperator(e events.OperatorRegistered, pos events.Position) error {
	return p.putOperatorSince(e, pos, pos)
}

// putOperatorSince is putOperator for an operator registered at
// registered when it is new (a snapshot's); one already stored keeps its
// own registration.
func (p *principals) putOperatorSince(e events.OperatorRegistered, registered, pos events.Position) error {
	op := &Operator{Principal: e.Principal, RagioneSociale: e.RagioneSociale, Enabled: e.Enabled,
		Roles: append([]string(nil), e.Roles...), PasswordHash: e.PasswordHash, APIKeyHash: e.APIKeyHash, Position: pos,
		Registered: registered, Personal: e.PersonalRole}
	if err := checkOperator(e); err != nil {
		return err
	}
	if old, ok := p.ops.get(e.Principal); ok {
		op.Registered = old.Registered
		p.unhold(old.Principal, old.Roles)
		if op.PasswordHash == "" {
			op.PasswordHash = old.PasswordHash
		}
		if op.APIKeyHash == "" {
			op.APIKeyHash = old.APIKeyHash
		}
	}
	p.ops.put(e.Principal, op)
	p.hold(op.Principal, op.Roles)
	p.rebuild(op.Principal, pos)
	return nil
}

func (p *principals) putApplication(e events.ApplicationRegistered, pos events.Position) error {
	return p.putApplicationSince(e, pos, pos)
}

// putApplicationSince is putApplication for an application registered at
// registered when it is new (a snapshot's); one already stored keeps its
// own registration.
func (p *principals) putApplicationSince(e events.ApplicationRegistered, registered, pos events.Position) error {
	app := &Application{IDA2A: e.IDA2A, Principal: e.Principal, Enabled: e.Enabled,
		Roles: append([]string(nil), e.Roles...), PasswordHash: e.PasswordHash, APIKeyHash: e.APIKeyHash, Position: pos,
		Registered: registered, Personal: e.PersonalRole, Fields: e.ApplicationFields}
	if err := checkApplication(e); err != nil {
		return err
	}
	if old, ok := p.apps.get(e.IDA2A); ok {
		app.Registered = old.Registered
		p.unhold(old.Principal, old.Roles)
		app.Grants = old.Grants
		if app.PasswordHash == "" && old.Principal == app.Principal {
			app.PasswordHash = old.PasswordHash
		}
		if app.APIKeyHash == "" {
			app.APIKeyHash = old.APIKeyHash // the key belongs to idA2A, which X-APP-ID names
		}
		if old.Principal != app.Principal {
			delete(p.appByName, old.Principal)
			p.rebuild(old.Principal, pos) // the old name no longer authenticates as this application
		}
	}
	p.apps.put(e.IDA2A, app)
	p.appByName[app.Principal] = app.IDA2A
	p.hold(app.Principal, app.Roles)
	p.rebuild(app.Principal, pos)
	return nil
}

func (p *principals) authorize(e events.ApplicationAPIAuthorized, pos events.Position) error {
	api, err := grantableAPI(e.API)
	if err != nil {
		return err
	}
	return p.setGrant(e.IDA2A, api, &domain.Grant{API: api,
		Domini: domain.EntitiesOf(e.Domini, e.UnitaOperative), Tipi: domain.ParseScope(e.TipiPendenza)}, pos)
}

func (p *principals) revoke(e events.ApplicationAPIRevoked, pos events.Position) error {
	api, err := grantableAPI(e.API)
	if err != nil {
		return err
	}
	return p.setGrant(e.IDA2A, api, nil, pos)
}

func (p *principals) setGrant(idA2A string, api domain.API, g *domain.Grant, pos events.Position) error {
	old, ok := p.apps.get(idA2A)
	if !ok {
		return fmt.Errorf("grant for unknown application %q", idA2A)
	}
	app := *old
	app.Grants = nil
	for _, og := range old.Grants {
		if og.API != api {
			app.Grants = append(app.Grants, og)
		}
	}
	if g != nil {
		app.Grants = append(app.Grants, *g)
	}
	sort.Slice(app.Grants, func(i, j int) bool { return apiOrder(app.Grants[i].API) < apiOrder(app.Grants[j].API) })
	app.Position = pos
	p.apps.put(idA2A, &app)
	p.rebuild(app.Principal, pos)
	return nil
}

// What the principals' projectors refuse, they refuse through the
// functions below, which change nothing: ReadModel.check runs them over a
// whole commit before any of it is folded.

// RoleOf is the role a RoleDefined event defines, as the read model holds
// it for every principal given that role. The error is the event's
// unknown service or right: the projection refuses such an event.
// Commands read the roles they check and compare through it, so that a
// command sees a role as the read model will.
func RoleOf(e events.RoleDefined) (domain.Role, error) {
	return domain.ParseRole(e.IDRuolo, e.Rights(), e.Domini, e.UnitaOperative, e.TipiPendenza)
}

func checkOperator(e events.OperatorRegistered) error {
	if _, _, err := parsePersonal(e.PersonalRole); err != nil {
		return fmt.Errorf("operator %s: personal role: %w", e.Principal, err)
	}
	return nil
}

func checkApplication(e events.ApplicationRegistered) error {
	if _, _, err := parsePersonal(e.PersonalRole); err != nil {
		return fmt.Errorf("application %s: personal role: %w", e.IDA2A, err)
	}
	return nil
}

func grantableAPI(name string) (domain.API, error) {
	api, err := domain.ParseAPI(name)
	if err != nil || !api.Grantable() {
		return domain.API{}, fmt.Errorf("api %q cannot be granted or revoked", name)
	}
	return api, nil
}

// checkGrant reports what authorize or revoke would refuse of a change to
// idA2A's grant on api coming after the events earlier in its commit (an
// application registered there is known by then).
func (p *principals) checkGrant(idA2A, api string, earlier []events.Envelope) error {
	if _, err := grantableAPI(api); err != nil {
		return err
	}
	if _, ok := p.apps.get(idA2A); ok {
		return nil
	}
	for _, env := range earlier {
		switch e := env.Event.(type) {
		case events.ApplicationRegistered:
			if e.IDA2A == idA2A {
				return nil
			}
		case events.ApplicationUpdated:
			if e.IDA2A == idA2A {
				return nil
			}
		}
	}
	return fmt.Errorf("grant for unknown application %q", idA2A)
}

func apiOrder(a domain.API) int {
	for i, g := range domain.GrantableAPIs {
		if g == a {
			return i
		}
	}
	return len(domain.GrantableAPIs)
}

func (p *principals) hold(name string, roles []string) {
	for _, r := range roles {
		h := p.roleHolders[r]
		if h == nil {
			h = map[string]struct{}{}
			p.roleHolders[r] = h
		}
		h[name] = struct{}{}
	}
}

func (p *principals) unhold(name string, roles []string) {
	for _, r := range roles {
		delete(p.roleHolders[r], name)
	}
}

// rebuild publishes a fresh record for name from the stored application or
// operator (applications first, as the contract resolves them). A verified
// credential stays cached while its hash is the one the new record holds:
// a role or grant change leaves the password as it was, and dropping the
// cache would make the principal's next requests each run the password
// hash again; a new hash, or a record of the other kind, starts empty.
func (p *principals) rebuild(name string, pos events.Position) {
	var rec *PrincipalRecord
	if app := p.appByPrincipal(name); app != nil {
		pr := domain.Principal{Kind: domain.KindApplication, Name: app.Principal, IDA2A: app.IDA2A,
			Enabled: app.Enabled, Password: app.PasswordHash != "", Roles: p.resolveRoles(app.Roles, app.Personal)}
		for _, g := range app.Grants {
			pr = pr.WithGrant(g)
		}
		rec = &PrincipalRecord{Principal: pr, PasswordHash: app.PasswordHash, APIKeyHash: app.APIKeyHash, Position: pos}
	} else if op, ok := p.ops.get(name); ok {
		pr := domain.Principal{Kind: domain.KindOperator, Name: op.Principal, Enabled: op.Enabled, Password: op.PasswordHash != "",
			Roles: p.resolveRoles(op.Roles, op.Personal)}
		rec = &PrincipalRecord{Principal: pr, PasswordHash: op.PasswordHash, APIKeyHash: op.APIKeyHash, Position: pos}
	}
	dnKey := ""
	if dn, err := domain.ParseDN(name); err == nil {
		dnKey = domain.DNKey(dn)
	}
	if rec == nil {
		p.byName.del(name)
		p.indexDN(dnKey, name, false)
		return
	}
	if prev, ok := p.byName.get(name); ok && prev.Principal.Kind == rec.Principal.Kind {
		if prev.PasswordHash == rec.PasswordHash {
			rec.verified.Store(prev.verified.Load())
		}
		if prev.APIKeyHash == rec.APIKeyHash {
			rec.verifiedKey.Store(prev.verifiedKey.Load())
		}
	}
	p.byName.put(name, rec)
	p.indexDN(dnKey, name, true)
}

// indexDN records that the principal name parses to the DN key (held) or
// no longer does, and publishes byDN: a key names the one principal whose
// name parses to it. Commands claim a principal by its DN key, so two
// cannot be registered under one; but a log written before the canonical
// DN made two spellings one (an OID and its attribute name) may hold two,
// and then the key names neither: a certificate authenticates as no one
// rather than as whichever the log folded last, until one is renamed.
func (p *principals) indexDN(key, name string, held bool) {
	if key == "" {
		return
	}
	names := p.dnNames[key]
	if held {
		if names == nil {
			names = map[string]struct{}{}
			p.dnNames[key] = names
		}
		names[name] = struct{}{}
	} else {
		delete(names, name)
		if len(names) == 0 {
			delete(p.dnNames, key)
		}
	}
	if len(names) != 1 {
		p.byDN.del(key)
		return
	}
	for only := range names {
		p.byDN.put(key, only)
	}
}

func (p *principals) appByPrincipal(name string) *Application {
	id, ok := p.appByName[name]
	if !ok {
		return nil
	}
	app, _ := p.apps.get(id)
	return app
}

// resolveRoles returns the named roles that are defined, then the
// personal role when there is one.
func (p *principals) resolveRoles(ids []string, personal events.PersonalRole) []domain.Role {
	roles := make([]domain.Role, 0, len(ids)+1)
	for _, id := range ids {
		if r, ok := p.roles.get(id); ok {
			roles = append(roles, r.Role)
		}
	}
	if r, ok := personalRole(personal); ok {
		roles = append(roles, r)
	}
	return roles
}

// Lookup returns the record of a registered principal (application or
// operator) by its name. It does not allocate.
func (m *ReadModel) Lookup(name string) (*PrincipalRecord, bool) {
	rec, _, ok := m.LookupWithPosition(name)
	return rec, ok
}

// LookupWithPosition is Lookup that also returns the position of the
// state it read: the record (or its absence) is the one at that position,
// which is therefore the position a decision on this principal rests on
// (the record holds its roles and grants as of then). The position is read
// inside the same publication window as the record, so a commit published
// meanwhile cannot separate them. It does not allocate and takes no lock.
func (m *ReadModel) LookupWithPosition(name string) (*PrincipalRecord, events.Position, bool) {
	for {
		s := m.readBegin()
		rec, ok := m.principals.byName.get(name)
		pos := m.applied.Load()
		if m.readDone(s) {
			return rec, events.Position(pos), ok
		}
	}
}

// LookupDN returns the principal whose name is the distinguished name dn
// (any form the contract accepts; equal when the RDNs are the same in the
// same or exactly reversed order).
func (m *ReadModel) LookupDN(dn string) (*PrincipalRecord, bool) {
	rec, _, ok := m.LookupDNWithPosition(dn)
	return rec, ok
}

// LookupDNWithPosition is LookupDN that also returns the position of the
// state it read (see LookupWithPosition). A dn that does not parse reads
// nothing: its position is the one applied when it was refused.
func (m *ReadModel) LookupDNWithPosition(dn string) (*PrincipalRecord, events.Position, bool) {
	parsed, err := domain.ParseDN(dn)
	if err != nil {
		return nil, m.AppliedPosition(), false
	}
	key := domain.DNKey(parsed)
	var (
		rec *PrincipalRecord
		ok  bool
	)
	pos := m.read(func() {
		rec, ok = nil, false
		if name, found := m.principals.byDN.get(key); found {
			rec, ok = m.principals.byName.get(name)
		}
	})
	return rec, pos, ok
}

// Authenticate checks name and password with no verification gate (see
// AuthenticateGated); tools and tests use it.
func (m *ReadModel) Authenticate(name, password string) (*PrincipalRecord, error) {
	return m.AuthenticateGated(nil, "", name, password)
}

// AuthenticateGated checks name and password. A successful argon2id/bcrypt
// verification is cached in the principal's record, so later requests cost
// one SHA-256 and never reach gate; any event that touches the principal
// replaces the record and so drops the cache. An unknown name costs one
// hash verification like a wrong password, passes the same gate and
// returns the same ErrUnauthenticated. A verification the gate refuses
// does not run and returns the gate's error.
func (m *ReadModel) AuthenticateGated(gate Gate, from, name, password string) (*PrincipalRecord, error) {
	return m.AuthenticateAs(gate, from, CredentialPassword, name, password)
}

// CredentialKind is which secret a caller presents: a password (basic,
// named by principal) or an API key (apikey, named by X-APP-ID).
type CredentialKind uint8

const (
	// CredentialPassword is the basic password of the principal named.
	CredentialPassword CredentialKind = iota
	// CredentialAPIKey is the API key of the application idA2A or the
	// operator principal named by X-APP-ID.
	CredentialAPIKey
)

// AuthenticateAs checks the credential of kind presented by name, with
// AuthenticateGated's cache, gate and costs: both kinds go through this
// one path.
func (m *ReadModel) AuthenticateAs(gate Gate, from string, kind CredentialKind, name, secret string) (*PrincipalRecord, error) {
	rec, _, err := m.AuthenticateWithPosition(gate, from, kind, name, secret)
	return rec, err
}

// AuthenticateWithPosition is AuthenticateAs that also returns the
// position of the state the principal was read from (see
// LookupWithPosition): the position the decisions on the authenticated
// principal rest on. The password verification itself runs outside that
// read, on the record read there.
func (m *ReadModel) AuthenticateWithPosition(gate Gate, from string, kind CredentialKind, name, secret string) (*PrincipalRecord, events.Position, error) {
	var (
		rec   *PrincipalRecord
		pos   events.Position
		ok    bool
		hash  string
		cache *atomic.Pointer[[32]byte]
	)
	switch kind {
	case CredentialPassword:
		rec, pos, ok = m.LookupWithPosition(name)
	case CredentialAPIKey:
		rec, pos, ok = m.lookupAppID(name)
	}
	if ok {
		hash, cache = rec.credential(kind)
	}
	if !ok || hash == "" {
		if err := verifyDummy(gate, from, name, ok, secret); err != nil {
			return nil, pos, err
		}
		return nil, pos, ErrUnauthenticated
	}
	ok, err := m.verifyCached(cache, hash, secret, gate, from, name)
	if err != nil {
		return nil, pos, err
	}
	if ok {
		return rec, pos, nil
	}
	return nil, pos, ErrUnauthenticated
}

// credential is rec's hash of the secret of kind ("" when it has none) and
// the cache of the last one verified.
func (rec *PrincipalRecord) credential(kind CredentialKind) (hash string, cache *atomic.Pointer[[32]byte]) {
	if kind == CredentialAPIKey {
		return rec.APIKeyHash, &rec.verifiedKey
	}
	return rec.PasswordHash, &rec.verified
}

// HasCredential reports whether rec has a secret of kind: without one it
// never authenticates with kind, whatever the caller presents
// (AuthenticateWithPosition).
func (rec *PrincipalRecord) HasCredential(kind CredentialKind) bool {
	hash, _ := rec.credential(kind)
	return hash != ""
}

// LookupAppID returns the principal an X-APP-ID names: the application
// idA2A or the operator whose principal it is. The commands register no
// application and operator under one X-APP-ID (ErrPrincipalInUse); of two
// that a log written before they were refused holds, the one registered
// first is named, as the refusal would have decided.
func (m *ReadModel) LookupAppID(id string) (*PrincipalRecord, bool) {
	rec, _, ok := m.lookupAppID(id)
	return rec, ok
}

// lookupAppID is LookupAppID with the position of the state it read.
func (m *ReadModel) lookupAppID(id string) (rec *PrincipalRecord, pos events.Position, ok bool) {
	pos = m.read(func() {
		rec, ok = nil, false
		app, isApp := m.principals.apps.get(id)
		op, isOp := m.principals.ops.get(id)
		switch {
		case isApp && (!isOp || app.Registered < op.Registered):
			rec, ok = m.principals.byName.get(app.Principal)
		case isOp:
			rec, ok = m.principals.byName.get(op.Principal)
		}
	})
	return rec, pos, ok
}

// verifyCached checks password against hash, using and filling the
// per-record cache of the last verified password's MAC. Only a cache miss
// passes gate (nil admits everything), and the misses of the same
// password against the same hash at once share one verification
// (m.verifying): a client that starts many requests with its credential
// before the first is verified costs one hash and one attempt of the
// throttles, not one each (each would count as a guess in flight). A
// request that shared an attempt the gate refused (the throttle of the
// address that made it) asks the gate for itself.
func (m *ReadModel) verifyCached(cache *atomic.Pointer[[32]byte], hash, password string, gate Gate, from, name string) (bool, error) {
	mac := credentialMAC(&m.macKey, password)
	if v := cache.Load(); v != nil && subtle.ConstantTimeCompare(v[:], mac[:]) == 1 {
		return true, nil
	}
	verify := func() (bool, error) {
		done, err := admit(gate, from, name, true) // a hash is a registered party's
		if err != nil {
			return false, err
		}
		ok, err := domain.VerifyPassword(hash, password)
		ok = ok && err == nil
		done(ok)
		if ok {
			stored := mac // only a miss allocates: &mac would move mac to the heap on every call
			cache.Store(&stored)
		}
		return ok, nil
	}
	// Do reports shared to the request that ran fn too, once another
	// joined: only one that did not run it asks the gate for itself.
	ran := false
	v, err, _ := m.verifying.Do(hash+"\x00"+string(mac[:]), func() (any, error) { ran = true; return verify() })
	if err != nil && !ran {
		return verify()
	}
	ok, _ := v.(bool)
	return ok, err
}

// credentialMAC is SHA-256(key || password): a keyed digest, never stored
// outside this process, that stands for "this password was verified".
func credentialMAC(key *[32]byte, password string) [32]byte {
	var buf [32 + 128]byte
	if len(password) <= 128 {
		n := copy(buf[:], key[:])
		n += copy(buf[n:], password)
		return sha256.Sum256(buf[:n])
	}
	h := sha256.New()
	h.Write(key[:])
	h.Write([]byte(password))
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// Application returns the application idA2A.
func (m *ReadModel) Application(idA2A string) (*Application, bool) {
	return whole(m, func() (*Application, bool) { return m.principals.apps.get(idA2A) })
}

// Operator returns the operator with this principal.
func (m *ReadModel) Operator(principal string) (*Operator, bool) {
	return whole(m, func() (*Operator, bool) { return m.principals.ops.get(principal) })
}

// Role returns the role idRuolo.
func (m *ReadModel) Role(id string) (*RoleRecord, bool) {
	return whole(m, func() (*RoleRecord, bool) { return m.principals.roles.get(id) })
}

// Applications returns every application, sorted by idA2A.
func (m *ReadModel) Applications() []*Application {
	return wholeList(m, func() []*Application {
		return sortedValues(m.principals.apps, func(a *Application) string { return a.IDA2A })
	})
}

// Operators returns every operator, sorted by principal.
func (m *ReadModel) Operators() []*Operator {
	return wholeList(m, func() []*Operator {
		return sortedValues(m.principals.ops, func(o *Operator) string { return o.Principal })
	})
}

// Roles returns every role, sorted by id.
func (m *ReadModel) Roles() []*RoleRecord {
	return wholeList(m, func() []*RoleRecord {
		return sortedValues(m.principals.roles, func(r *RoleRecord) string { return r.Event.IDRuolo })
	})
}

func sortedValues[V any](t *table[V], key func(V) string) []V {
	var out []V
	t.each(func(_ string, v V) bool { out = append(out, v); return true })
	sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}
