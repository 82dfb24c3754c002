package console

import (
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

type loginView struct {
	Next     string
	Username string
	Error    string
	Notice   string // why the operator is asked to log in again
	TLS      bool   // offer the client certificate
	SPID     bool   // offer SPID (the request came through a trusted proxy)
	Token    string
}

// safeNext keeps a post-login destination inside the console: its path,
// dot segments resolved as a browser resolves them (escaped ones too),
// must stay under /console/.
func safeNext(next string) string {
	// A control character is refused: a browser drops tabs and newlines
	// from a URL (/console/.<TAB>./x is /x), and Go's Redirect leaves a
	// URL it cannot parse as it is.
	control := func(r rune) bool { return r < 0x20 || r == 0x7f }
	if !strings.HasPrefix(next, "/console/") || strings.HasPrefix(next, "//") || strings.ContainsRune(next, '\\') ||
		strings.ContainsFunc(next, control) {
		return "/console/"
	}
	p, _, _ := strings.Cut(next, "?")
	p, _, _ = strings.Cut(p, "#")
	p, err := url.PathUnescape(p)
	if err != nil || !strings.HasPrefix(path.Clean(p)+"/", "/console/") {
		return "/console/"
	}
	return next
}

// loginPage shows the login forms with a fresh double-submit CSRF token
// (no session exists yet to bind one to).
func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	c.showLogin(w, r, http.StatusOK, "", "")
}

func (c *Console) showLogin(w http.ResponseWriter, r *http.Request, status int, username, msg string) {
	tok := randomToken()
	c.setCookie(w, r, loginCookie, tok, 600)
	next := r.URL.Query().Get("next")
	if r.Method == http.MethodPost {
		next = r.PostForm.Get("next")
	}
	_, spid := c.deps.SPIDCode(r)
	lv := loginView{Next: safeNext(next), Username: username, Error: msg, TLS: r.TLS != nil, SPID: spid, Token: tok}
	if r.Method == http.MethodGet && r.URL.Query().Get("password") == "cambiata" {
		lv.Notice = passwordChanged
	}
	v := view{Title: "Accesso", Data: lv}
	if err := c.write(w, status, "login.html", v); err != nil {
		c.deps.Logger.Error("console: render login", "error", err)
	}
}

// loginForm parses a login POST and checks its double-submit token.
func (c *Console) loginForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		c.showLogin(w, r, http.StatusBadRequest, "", "Richiesta non valida.")
		return false
	}
	ck, err := r.Cookie(loginCookie)
	if err != nil || !validCSRF(ck.Value, r.PostForm.Get("csrf")) {
		c.showLogin(w, r, http.StatusForbidden, "", "Il modulo è scaduto o non porta un token CSRF valido: riprova.")
		return false
	}
	return true
}

// ErrLoginBusy is what Deps.Authenticate returns (wrapping the refusal, for
// Deps.Fault) when the password verification budget or the failed-login
// throttles refused the attempt.
var ErrLoginBusy = errors.New("console: too many login attempts")

const loginBusy = "Troppi tentativi di accesso: riprova tra qualche secondo."

const badCredentials = "Credenziali non valide, oppure l'utenza non può accedere alla console."

// errImpossibleCredentials: a username or password that no registered
// credential can be, refused before the credential path hashes it.
var errImpossibleCredentials = errors.New("console: no credential is this long")

// authenticate checks a username and password as every console form that
// asks for them does (the login, the change of one's own password):
// through Deps.Authenticate (the Backoffice's basic credential path, its
// cache, budget and throttles), after refusing, without hashing, an empty
// username, one over 512 bytes or a password over 1,024, which no
// registered credential is.
func (c *Console) authenticate(r *http.Request, user, pass string) (*projections.PrincipalRecord, error) {
	if user == "" || len(user) > 512 || len(pass) > 1024 {
		return nil, errImpossibleCredentials
	}
	return c.deps.Authenticate(r, user, pass)
}

// loginPassword checks username and password through the Backoffice's
// basic credential path.
func (c *Console) loginPassword(w http.ResponseWriter, r *http.Request) {
	if !c.loginForm(w, r) {
		return
	}
	user := r.PostForm.Get("username")
	rec, err := c.authenticate(r, user, r.PostForm.Get("password"))
	if errors.Is(err, ErrLoginBusy) {
		c.setRetryAfter(w, err, c.deps.Fault(err).Status) // when to try again, as the API tells it
		c.showLogin(w, r, http.StatusTooManyRequests, user, loginBusy)
		return
	}
	if err != nil {
		c.showLogin(w, r, http.StatusUnauthorized, user, badCredentials)
		return
	}
	c.establish(w, r, rec, domain.AuthBasic, user)
}

// loginCertificate logs in the owner of the verified client certificate
// (TLS listener only).
func (c *Console) loginCertificate(w http.ResponseWriter, r *http.Request) {
	c.loginAs(w, r, domain.AuthSSL, c.deps.VerifiedSubject, c.deps.Model.LookupDN,
		"Nessun certificato client valido di un'utenza registrata.")
}

// loginSPID logs in the operator whose fiscal code a trusted identity
// proxy sent.
func (c *Console) loginSPID(w http.ResponseWriter, r *http.Request) {
	c.loginAs(w, r, domain.AuthSPID, c.deps.SPIDCode, c.deps.Model.Lookup, "Nessuna identità SPID di un'utenza registrata.")
}

// loginAs logs in the principal named by what the request proves
// (identity), looked up by find.
func (c *Console) loginAs(w http.ResponseWriter, r *http.Request, auth domain.AuthType, identity func(*http.Request) (string, bool),
	find func(string) (*projections.PrincipalRecord, bool), refused string) {
	if !c.loginForm(w, r) {
		return
	}
	name, ok := identity(r)
	var rec *projections.PrincipalRecord
	if ok {
		rec, ok = find(name)
	}
	if !ok {
		c.showLogin(w, r, http.StatusUnauthorized, "", refused)
		return
	}
	c.establish(w, r, rec, auth, "")
}

// establish starts a session for a principal that may enter the
// Backoffice API (an enabled operator or application holding a role).
func (c *Console) establish(w http.ResponseWriter, r *http.Request, rec *projections.PrincipalRecord, auth domain.AuthType, user string) {
	if err := domain.CanEnterAPI(rec.Principal, domain.APIBackoffice); err != nil {
		c.showLogin(w, r, http.StatusForbidden, user, badCredentials)
		return
	}
	if old, err := r.Cookie(CookieName); err == nil {
		c.sessions.end(old.Value) // a login replaces the browser's previous session
	}
	id, _ := c.sessions.start(rec, auth)
	c.setCookie(w, r, loginCookie, "", -1)
	c.setCookie(w, r, CookieName, id, 0)
	http.Redirect(w, r, safeNext(r.PostForm.Get("next")), http.StatusSeeOther)
}

func (c *Console) logout(rq *request) error {
	c.sessions.end(rq.sid)
	c.setCookie(rq.w, rq.r, CookieName, "", -1)
	http.Redirect(rq.w, rq.r, "/console/login", http.StatusSeeOther)
	return nil
}

// homeView is the principal's profile: its roles and effective rights,
// and the form that changes its own password when it may (Password).
type homeView struct {
	Kind     string
	Rights   []rightView
	Password bool
	Errors   fieldErrors
}

type rightView struct {
	Role, Service, Rights, Domini, Tipi string
}

func scopeText(s domain.Scope) string { return scopeWords(s.IsNone(), s.IsAll(), s.List()) }

// entitiesText is scopeText for an entity scope, its units named.
func entitiesText(s domain.EntityScope) string { return scopeWords(s.IsNone(), s.IsAll(), s.Labels()) }

// personalLabel names the rights and scope of a personal role (the API's
// acl, domini and tipiPendenza of an operator or application), "" for
// none: its record's page shows it; the form does not edit it and its
// save keeps it.
func personalLabel(r domain.Role, ok bool) string {
	if !ok {
		return ""
	}
	var rights []string
	for _, s := range domain.Services {
		if l := r.Rights(s).List(); len(l) > 0 {
			rights = append(rights, s.String()+" "+strings.Join(l, ", "))
		}
	}
	return strings.Join(rights, "; ") + " — domini: " + entitiesText(r.Domini) + "; tipi pendenza: " + scopeText(r.Tipi)
}

func scopeWords(none, all bool, ids []string) string {
	switch {
	case none:
		return "nessuno"
	case all:
		return "tutti (*)"
	}
	return strings.Join(ids, ", ")
}

func (c *Console) home(rq *request) error {
	return c.render(rq, http.StatusOK, "home.html", "Profilo", c.profile(rq.p))
}

func (c *Console) profile(p domain.Principal) homeView {
	v := homeView{Kind: p.Kind.String(), Password: operations.ChangeOwnPassword(p, nil) == nil}
	for _, er := range domain.EffectiveRights(p) {
		v.Rights = append(v.Rights, rightView{Role: er.Role, Service: er.Service.String(),
			Rights: strings.Join(er.Rights.List(), ", "), Domini: entitiesText(er.Domini), Tipi: scopeText(er.Tipi)})
	}
	return v
}

func (c *Console) profilo() profiloOps { return c.ops }

const passwordChanged = "La tua password è stata cambiata: accedi con quella nuova."

// changePassword is PATCH /profilo's change of the caller's own password,
// by the same command (operations.ChangeOwnPassword decides). The form
// also asks for the current password, checked as a login checks it (its
// cache, budget and throttles), so that a session left open does not let
// another change it, and the new one twice. The change ends the session
// it was made in, as it ends the operator's others (session.resolve):
// the login page says why.
func (c *Console) changePassword(rq *request) error {
	pf, ctx := rq.r.PostForm, rq.r.Context()
	v := c.profile(rq.p)
	status := http.StatusBadRequest
	rec, err := c.authenticate(rq.r, rq.p.Name, pf.Get("attuale"))
	switch {
	case errors.Is(err, ErrLoginBusy):
		return err
	case err != nil || rec.Principal.Name != rq.p.Name:
		v.Errors = fieldErrors{"attuale": "La password attuale non è corretta."}
	case pf.Get("password") != pf.Get("conferma"):
		v.Errors = fieldErrors{"conferma": "Le due password non coincidono."}
	default:
		res, err := c.profilo().ChangeOwnPassword(ctx, rq.actor(), pf.Get("password"))
		if err == nil {
			// Applied here before the login page asks for the new password.
			if err := c.deps.Model.WaitWithin(ctx, res.Position, c.deps.WriteWait); err != nil && ctx.Err() != nil {
				return err // the browser is gone
			}
			c.sessions.end(rq.sid)
			c.setCookie(rq.w, rq.r, CookieName, "", -1)
			http.Redirect(rq.w, rq.r, "/console/login?password=cambiata", http.StatusSeeOther)
			return nil
		}
		var ok bool
		if v.Errors, status, ok = formError(err); !ok {
			return err
		}
		c.setRetryAfter(rq.w, err, status)
	}
	return c.render(rq, status, "home.html", "Profilo", v)
}
