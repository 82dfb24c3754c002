package console

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// CookieName is the console's session cookie.
const CookieName = "PAYAUTHZ_CONSOLE"

// loginCookie carries the double-submit CSRF token of the login forms,
// which are posted before any session exists.
const loginCookie = "PAYAUTHZ_CONSOLE_LOGIN"

// session is one logged-in browser. The principal is looked up again on
// every request; the fields below only tell whether the session still
// belongs to the principal as it was at login.
type session struct {
	name    string          // the principal's registered name
	auth    domain.AuthType // how it logged in
	pwHash  string          // the password hash at login (basic); another one ends the session
	roles   string          // the role ids at login; other ones end the session
	csrf    string
	created time.Time

	mu       sync.Mutex // guards lastSeen
	lastSeen time.Time
}

// sessions is the replica's session store, keyed by SHA-256 of the id so
// that the map never holds a usable cookie value. It is safe for
// concurrent use.
type sessions struct {
	idle, absolute time.Duration
	now            func() time.Time

	mu     sync.Mutex
	m      map[[32]byte]*session
	byName map[string][][32]byte // each principal's sessions, oldest first
	swept  time.Time             // the last sweep of expired sessions
}

// Bounds of the session store: a principal keeps its newest
// maxSessionsPerPrincipal sessions (a login beyond them ends its oldest),
// so the store holds at most that many per registered principal whatever
// a client with valid credentials repeats; expired sessions are swept at
// a login at most every sweepEvery (get ends an expired one at once).
const (
	maxSessionsPerPrincipal = 16
	sweepEvery              = time.Minute
)

func newSessions(idle, absolute time.Duration) *sessions {
	return &sessions{idle: idle, absolute: absolute, now: time.Now, m: map[[32]byte]*session{}, byName: map[string][][32]byte{}}
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on the supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

func sessionKey(id string) [32]byte { return sha256.Sum256([]byte(id)) }

// roleKey names the roles a principal holds, in order.
func roleKey(p domain.Principal) string {
	ids := make([]string, len(p.Roles))
	for i, r := range p.Roles {
		ids[i] = r.ID
	}
	return strings.Join(ids, "\x00")
}

// start opens a session for rec and returns its cookie value.
func (st *sessions) start(rec *projections.PrincipalRecord, auth domain.AuthType) (string, *session) {
	id := randomToken()
	now := st.now()
	s := &session{name: rec.Principal.Name, auth: auth, roles: roleKey(rec.Principal), csrf: randomToken(),
		created: now, lastSeen: now}
	if auth == domain.AuthBasic {
		s.pwHash = rec.PasswordHash
	}
	k := sessionKey(id)
	st.mu.Lock()
	if now.Sub(st.swept) >= sweepEvery {
		st.sweepLocked(now)
		st.swept = now
	}
	if own := st.byName[s.name]; len(own) >= maxSessionsPerPrincipal {
		st.dropLocked(own[0])
	}
	st.m[k] = s
	st.byName[s.name] = append(st.byName[s.name], k)
	st.mu.Unlock()
	return id, s
}

// sweepLocked drops expired sessions (st.mu held).
func (st *sessions) sweepLocked(now time.Time) {
	for k, s := range st.m {
		s.mu.Lock()
		expired := now.Sub(s.lastSeen) > st.idle || now.Sub(s.created) > st.absolute
		s.mu.Unlock()
		if expired {
			st.dropLocked(k)
		}
	}
}

// dropLocked removes session k from the store and its principal's list
// (st.mu held).
func (st *sessions) dropLocked(k [32]byte) {
	s, ok := st.m[k]
	if !ok {
		return
	}
	delete(st.m, k)
	own := slices.DeleteFunc(st.byName[s.name], func(x [32]byte) bool { return x == k })
	if len(own) == 0 {
		delete(st.byName, s.name)
	} else {
		st.byName[s.name] = own
	}
}

// get returns the live session of the cookie value and touches it; an
// expired session is ended.
func (st *sessions) get(id string) (*session, bool) {
	if id == "" || len(id) > 64 {
		return nil, false
	}
	k := sessionKey(id)
	st.mu.Lock()
	s, ok := st.m[k]
	st.mu.Unlock()
	if !ok {
		return nil, false
	}
	now := st.now()
	s.mu.Lock()
	expired := now.Sub(s.lastSeen) > st.idle || now.Sub(s.created) > st.absolute
	if !expired {
		s.lastSeen = now
	}
	s.mu.Unlock()
	if expired {
		st.end(id)
		return nil, false
	}
	return s, true
}

// end removes the session of the cookie value.
func (st *sessions) end(id string) {
	st.mu.Lock()
	st.dropLocked(sessionKey(id))
	st.mu.Unlock()
}

// resolve returns the principal of s as the read models hold it now, or
// false when the session no longer stands: the principal is gone or may
// no longer enter the Backoffice API (the one rule login asked), its
// password or its roles changed.
func (s *session) resolve(m *projections.ReadModel) (domain.Principal, bool) {
	rec, ok := m.Lookup(s.name)
	if !ok || domain.CanEnterAPI(rec.Principal, domain.APIBackoffice) != nil {
		return domain.Principal{}, false
	}
	if s.auth == domain.AuthBasic && rec.PasswordHash != s.pwHash {
		return domain.Principal{}, false
	}
	if roleKey(rec.Principal) != s.roles {
		return domain.Principal{}, false
	}
	return rec.Principal, true
}

// validCSRF compares a submitted token with the expected one in constant time.
func validCSRF(want, got string) bool {
	return want != "" && len(got) == len(want) && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// setCookie sets one of the console's cookies: Secure when the request
// came over TLS, or always with Config.SecureCookies (behind a proxy that
// terminates TLS).
func (c *Console) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/console/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: c.cfg.SecureCookies || r.TLS != nil, MaxAge: maxAge})
}
