package httpapi

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// caller is what authentication established about a request.
type caller struct {
	api       domain.API
	auth      domain.AuthType
	principal domain.Principal
	// newSession is set for an anonymous caller without a valid cookie
	// (none, or one whose session ended); a payment it starts issues a
	// cookie.
	newSession bool
	// node holds the credentials of a node API caller: they are matched
	// against the named intermediary's connector, not resolved as a
	// registered principal.
	node nodeCredentials
	// nodeVerified is set once the node handler verified node's
	// credentials (operations.AdmitNode admitted the caller, or denied it
	// as the connector of another intermediary): until then node.user is
	// only what the caller claims, and the decision log names no one.
	nodeVerified bool
	// position is the log position of the read-model state the request's
	// decisions rest on, for the decision log: the state the principal
	// (with its roles and grants) was read from, or, for a caller whose
	// identity is not read from the read models (anonymous, a node
	// connector), the position applied when it was established, before
	// the operation read anything. It is taken before the request's own write, so a write
	// that narrows its caller's rights is logged at the state that allowed
	// it.
	position events.Position
}

// nodeCredentials are what a node API caller presented.
type nodeCredentials struct {
	user, password string // basic
	dn             string // ssl: the verified certificate's subject
}

const callerKey = "payauthz.caller"

// callerOf returns the authenticated caller of the request.
func callerOf(c *echo.Context) *caller {
	if v, ok := c.Get(callerKey).(*caller); ok {
		return v
	}
	return &caller{} // zero principal: every decision denies it
}

// spidHeader carries the citizen's fiscal code from the identity proxy.
const spidHeader = "X-SPID-FISCALNUMBER"

// authenticate returns the middleware of the mount (api, auth): it refuses
// an auth type the API does not accept (403 "403"), authenticates the
// request, resolves the principal (application → operator → citizen) and
// checks that it may enter the API.
func (s *Server) authenticate(api domain.API, auth domain.AuthType) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			cl := &caller{api: api, auth: auth}
			if api == domain.APINodo {
				cl.position = s.model.AppliedPosition()
				if err := s.nodeCredentials(c, cl); err != nil {
					return err
				}
				c.Set(callerKey, cl)
				return next(c)
			}
			if err := s.resolve(c, cl); err != nil {
				return err
			}
			// Set before the entry decision, so that the decision log
			// names who was denied entry.
			c.Set(callerKey, cl)
			// The token is answered for before that decision, which rests
			// on the principal as the token's write left it (a role, a
			// grant, an enabling).
			if err := s.answerToken(c); err != nil {
				return err
			}
			if err := domain.CanEnterAPI(cl.principal, api); err != nil {
				return err
			}
			return next(c)
		}
	}
}

func (s *Server) resolve(c *echo.Context, cl *caller) error {
	r := c.Request()
	switch cl.auth {
	case domain.AuthBasic:
		cr, ok := s.presented(r, cl.auth)
		if !ok {
			return errUnauthenticated
		}
		rec, pos, err := s.model.AuthenticateWithPosition(s.logins, r.RemoteAddr, projections.CredentialPassword, cr.user, cr.password)
		if err != nil {
			return authError(err)
		}
		cl.principal, cl.position = rec.Principal, pos
	case domain.AuthAPIKey:
		rec, pos, err := s.apiKeyPrincipal(r)
		if err != nil {
			return authError(err)
		}
		cl.principal, cl.position = rec.Principal, pos
	case domain.AuthSSL:
		cr, ok := s.presented(r, cl.auth)
		if !ok {
			return errUnauthenticated
		}
		rec, pos, ok := s.model.LookupDNWithPosition(cr.dn)
		if !ok {
			return errUnauthenticated
		}
		cl.principal, cl.position = rec.Principal, pos
	case domain.AuthSPID:
		presented, ok := s.spidPresented(c)
		if !ok {
			return errUnauthenticated
		}
		p, err := domain.SPIDCaller(cl.api, presented, func(code string) (domain.Principal, bool) {
			rec, pos, found := s.model.LookupWithPosition(code)
			cl.position = pos // a citizen's decisions rest on its fiscal code not being a registered principal
			if !found {
				return domain.Principal{}, false
			}
			return rec.Principal, true
		})
		if err != nil {
			return errUnauthenticated
		}
		cl.principal = p
	case domain.AuthPublic:
		hash := ""
		if ck, err := r.Cookie(SessionCookie); err == nil {
			h, err := s.session.verify(ck.Value)
			switch {
			case errors.Is(err, errSessionExpired):
				// An ended session is no session: its caller is answered
				// as one without a cookie (a write starts a new session).
			case err != nil:
				// A forged or tampered cookie authenticates nobody. It is
				// also expired: one this server cannot verify (signed
				// with a key since replaced) would otherwise make every
				// later request of that browser 401, /logout included.
				c.SetCookie(s.sessionCookie(r, "", time.Time{}))
				return errUnauthenticated
			default:
				hash = h
			}
		}
		cl.principal = domain.Anonymous(hash)
		cl.newSession = hash == ""
		cl.position = s.model.AppliedPosition()
	default:
		return errUnauthenticated
	}
	return nil
}

// nodeCredentials takes the node caller's credentials (basic user and
// password, or the verified certificate's subject); the node handlers match
// them against the intermediary named in the path.
func (s *Server) nodeCredentials(c *echo.Context, cl *caller) error {
	cr, ok := s.presented(c.Request(), cl.auth)
	if !ok {
		return errUnauthenticated
	}
	cl.node = cr
	return nil
}

// presented reads the credentials a basic or ssl caller presents: the
// basic user and password, or the verified certificate's subject. ok is
// false when there are none (or for any other auth type).
func (s *Server) presented(r *http.Request, auth domain.AuthType) (cr nodeCredentials, ok bool) {
	switch auth {
	case domain.AuthBasic:
		var h string
		if h, ok = oneValue(r.Header, authorizationKey); ok {
			cr.user, cr.password, ok = parseBasic(h)
		}
	case domain.AuthSSL:
		cr.dn, ok = s.verifiedSubject(r)
	}
	return cr, ok
}

// peerCache remembers, for one TLS connection, the outcome of verifying
// its client certificate: the certificate cannot change within a
// connection, so the chain is verified once, not on every request, and
// again only once the chain it verified expires (a kept-alive connection
// must not outlive the certificate).
type peerCache struct {
	mu      sync.Mutex
	done    bool
	subject string
	ok      bool
	until   time.Time // the verified chain's earliest NotAfter
}

type peerCacheKey struct{}

// withPeerCache is the TLS listener's http.Server.ConnContext.
func withPeerCache(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, peerCacheKey{}, &peerCache{})
}

// verifiedSubject returns the subject DN of the request's verified TLS
// client certificate, verifying it once per connection while it is valid.
// No TLS, no certificate, no client CA configured or a certificate that
// does not verify: not authenticated.
func (s *Server) verifiedSubject(r *http.Request) (string, bool) {
	pc, ok := r.Context().Value(peerCacheKey{}).(*peerCache)
	if !ok {
		subject, _, ok := s.verifyPeer(r)
		return subject, ok
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if !pc.done || pc.ok && time.Now().After(pc.until) {
		pc.subject, pc.until, pc.ok = s.verifyPeer(r)
		pc.done = true
	}
	return pc.subject, pc.ok
}

// verifyPeer verifies the TLS client certificate against the client CA
// for client authentication, now, and returns its subject DN and when the
// verified chain stops being valid.
func (s *Server) verifyPeer(r *http.Request) (string, time.Time, bool) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 || s.clientCAs == nil {
		return "", time.Time{}, false
	}
	leaf := r.TLS.PeerCertificates[0]
	inter := x509.NewCertPool()
	for _, c := range r.TLS.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	chains, err := leaf.Verify(x509.VerifyOptions{Roots: s.clientCAs, Intermediates: inter,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	if err != nil || len(chains) == 0 {
		return "", time.Time{}, false
	}
	until := leaf.NotAfter
	for _, c := range chains[0] {
		if c.NotAfter.Before(until) {
			until = c.NotAfter
		}
	}
	// The subject as issued: its raw RDN sequence, not leaf.Subject, which
	// Go rebuilds from the fields it knows (repeated attributes merged or
	// dropped, attributes reordered), so that two different subjects
	// could print alike (API.md section 9 compares the RDNs in order).
	// Not rdns.String(): that escapes no control character, so a value
	// ending in a tab or a line break would be read back trimmed, and the
	// subject "CN=node\t" would be the principal "CN=node".
	dn, err := domain.DNOfRawSubject(leaf.RawSubject)
	if err != nil {
		return "", time.Time{}, false
	}
	return dn.String(), until, true
}

// spidPrincipal returns the upper-cased fiscal code sent by a trusted
// identity proxy (spidPresented, then domain.ParseCitizen): the console's
// SPID login, which admits registered principals only, looks it up.
func (s *Server) spidPrincipal(c *echo.Context) (string, bool) {
	presented, ok := s.spidPresented(c)
	if !ok {
		return "", false
	}
	return domain.ParseCitizen(presented)
}

// spidPresented returns the value a trusted identity proxy sent as the
// caller's fiscal code, unparsed (domain.SPIDCaller parses it); the
// connecting address (never a forwarded header) must be inside
// --spid-trusted-proxies, and the header given once (oneValue).
func (s *Server) spidPresented(c *echo.Context) (string, bool) {
	addr, ok := remoteIP(c.Request().RemoteAddr)
	if !ok {
		return "", false
	}
	trusted := false
	for _, p := range s.cfg.SPIDTrustedProxies {
		if p.Contains(addr) {
			trusted = true
			break
		}
	}
	if !trusted {
		return "", false
	}
	return oneValue(c.Request().Header, spidKey)
}

// Credential headers as net/http keys them (http.CanonicalHeaderKey),
// for oneValue.
var (
	authorizationKey = http.CanonicalHeaderKey("Authorization")
	spidKey          = http.CanonicalHeaderKey(spidHeader)
	appIDKey         = http.CanonicalHeaderKey(appIDHeader)
	apiKeyKey        = http.CanonicalHeaderKey(apiKeyHeader)
)

// oneValue returns the value of the credential header key (canonical, as
// net/http stores a request's headers) when the request carries exactly
// one. Two values are ambiguous: a proxy in front may read the last where
// we would read the first, or append its own to the client's, which would
// leave the client's first. They authenticate no one. Looked up without
// canonicalizing key, which Header.Get would do on every request.
func oneValue(h http.Header, key string) (string, bool) {
	vs := h[key]
	if len(vs) != 1 {
		return "", false
	}
	return vs[0], true
}

// parseBasic parses an "Authorization: Basic" header value. It accepts the
// scheme in any case and rejects anything that is not base64 of
// "user:password" with a non-empty user. The credentials are decoded into
// a buffer on the stack when they fit it, so that the one allocation is
// the string user and pass share.
func parseBasic(h string) (user, pass string, ok bool) {
	const prefix = "basic "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) || len(h) > 4096 {
		return "", "", false
	}
	var buf [256]byte
	raw, err := base64.StdEncoding.AppendDecode(buf[:0], []byte(strings.TrimSpace(h[len(prefix):])))
	if err != nil {
		return "", "", false
	}
	user, pass, ok = strings.Cut(string(raw), ":")
	if !ok || user == "" {
		return "", "", false
	}
	return user, pass, true
}

// authError is what a failed password check answers: 429 when the
// verification was refused by the login guard, else 401.
func authError(err error) error {
	var tmr *tooManyRequests
	if errors.As(err, &tmr) {
		return tmr
	}
	return errUnauthenticated
}
