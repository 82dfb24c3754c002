package console

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config configures the console. The zero value serves it with the
// default timeouts.
type Config struct {
	// Disabled turns the console off: /console/ answers 404.
	Disabled bool
	// IdleTimeout ends a session unused for this long (default 30 min).
	IdleTimeout time.Duration
	// MaxAge ends a session this long after login, used or not (default 8 h).
	MaxAge time.Duration
	// SecureCookies marks the console's cookies Secure on every request,
	// for a console served over plain HTTP behind a proxy that terminates
	// TLS; otherwise they are Secure on TLS requests only.
	SecureCookies bool
}

// Defaults of Config.
const (
	DefaultIdleTimeout = 30 * time.Minute
	DefaultMaxAge      = 8 * time.Hour
)

// Deps are the parts of the service the console works with. The
// functions are the HTTP server's own, so that the console authenticates
// exactly as the Backoffice API does.
type Deps struct {
	Model    *projections.ReadModel
	Commands *commands.Handler
	Store    events.LogReader
	Logger   *slog.Logger
	// Authenticate checks a username and password through the credential
	// path of basic authentication (same hashing, cache and budget).
	Authenticate func(r *http.Request, user, password string) (*projections.PrincipalRecord, error)
	// VerifiedSubject returns the subject DN of the request's verified TLS
	// client certificate.
	VerifiedSubject func(r *http.Request) (string, bool)
	// SPIDCode returns the fiscal code a trusted identity proxy sent.
	SPIDCode func(r *http.Request) (string, bool)
	// Token formats a log position as a consistency token.
	Token func(events.Position) string
	// WriteWait bounds how long a write waits to be applied locally before
	// the page shows it (the server's --consistency-wait).
	WriteWait time.Duration
	// BeyondLog reports whether a position waited for in vain since then
	// lies beyond the end of the log: the API's answer to a consistency
	// token, given to a form's base.
	BeyondLog func(ctx context.Context, pos events.Position, since time.Time) bool
	// Audit answers the auditors' questions with the Backoffice API's
	// function (scope checks included); nil hides the Audit page.
	Audit AuditFunc
	// WhoCan lists who may do an operation, with the Backoffice API's
	// function (GET /autorizzazioni).
	WhoCan WhoCanFunc
	// Importo reads an amount in euro ("123.45") into cents as the API
	// reads a body's importo (its format and bounds, its error).
	Importo func(s string) (int64, error)
	// Fault is the HTTP layer's choice of status for an error: a failed
	// page answers what the API answers.
	Fault func(error) Fault
	// RetryAfter is the HTTP layer's Retry-After header of an answer with
	// status for err ("" for none), for failed pages and refused forms
	// alike; nil sends none.
	RetryAfter func(err error, status int) string
	// Failed reports a page that failed with err, answered status, to the
	// service log as the HTTP layer reports its failed requests (which
	// failures, how often, how much of the path); nil reports none.
	Failed func(w http.ResponseWriter, r *http.Request, status int, err error)
}

// Fault is how an error is answered: its HTTP status, GovPay's codice,
// descrizione and dettaglio.
type Fault struct {
	Status                         int
	Codice, Descrizione, Dettaglio string
}

// Console is the console's http.Handler. It is safe for concurrent use.
type Console struct {
	cfg      Config
	deps     Deps
	sessions *sessions
	pages    map[string]*template.Template
	mux      *http.ServeMux
	ops      backoffice
}

// New builds the console.
func New(cfg Config, deps Deps) (*Console, error) {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = DefaultMaxAge
	}
	if deps.Fault == nil {
		return nil, errors.New("console: Deps.Fault is required (the API's mapping of errors to statuses)")
	}
	if deps.Importo == nil {
		return nil, errors.New("console: Deps.Importo is required (the API's reading of an amount)")
	}
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	if deps.WriteWait <= 0 {
		deps.WriteWait = 2 * time.Second
	}
	c := &Console{cfg: cfg, deps: deps, sessions: newSessions(cfg.IdleTimeout, cfg.MaxAge),
		ops: backoffice{model: deps.Model, cmds: deps.Commands}}
	if err := c.parseTemplates(); err != nil {
		return nil, err
	}
	c.routes()
	return c, nil
}

// SetClock replaces the sessions' clock. It is a test seam (tests of
// session expiry); the service keeps time.Now.
func (c *Console) SetClock(now func() time.Time) { c.sessions.now = now }

func (c *Console) parseTemplates() error {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return err
	}
	c.pages = map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimPrefix(n, "templates/")
		if base == "layout.html" {
			continue
		}
		t, err := template.New(base).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return err
		}
		c.pages[base] = t
	}
	return nil
}

func (c *Console) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	// One file a path, never the folder: a subtree pattern would have the
	// file server list the folder's files.
	m.Handle("GET /console/static/{file}", http.StripPrefix("/console/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /console/login", c.loginPage)
	m.HandleFunc("POST /console/login", c.loginPassword)
	m.HandleFunc("POST /console/login/certificato", c.loginCertificate)
	m.HandleFunc("POST /console/login/spid", c.loginSPID)
	m.Handle("POST /console/logout", c.page(c.logout))
	m.Handle("GET /console/{$}", c.page(c.home))
	m.Handle("POST /console/profilo/password", c.page(c.changePassword))
	m.Handle("GET /console", http.RedirectHandler("/console/", http.StatusMovedPermanently))
	// Any other page, whatever the method, is the console's own 404 (a
	// mistyped or stale bookmark, a form posted to a page that takes
	// none), the same for everyone: it tells nothing of sessions.
	m.HandleFunc("/console/", func(w http.ResponseWriter, r *http.Request) {
		c.renderError(w, r, nil, http.StatusNotFound, "404000", "Risorsa non trovata", "")
	})

	// A registry's list, blank form (the list's URL with ?nuovo or ?nuova,
	// see registry), record page and save.
	c.registry(m, "applicazioni", "nuova", c.listApplicazioni, c.newApplicazione, c.editApplicazione, c.saveApplicazione)
	c.registry(m, "domini", "nuovo", c.listDomini, c.newDominio, c.editDominio, c.saveDominio)
	c.registry(m, "tipi", "nuovo", c.listTipi, c.newTipo, c.formTipo, c.saveTipo)
	c.registry(m, "ruoli", "nuovo", c.listRuoli, c.newRuolo, c.formRuolo, c.saveRuolo)
	c.registry(m, "intermediari", "nuovo", c.listIntermediari, c.newIntermediario, c.formIntermediario, c.saveIntermediario)
	// An operator's page takes its principal in the query: a DN holds
	// slashes, so it cannot be a path segment.
	c.registry(m, "operatori", "nuovo", c.listOperatori, c.newOperatore, nil, c.saveOperatore)
	m.Handle("GET /console/operatore", c.page(c.formOperatore)) // ?principal=

	m.Handle("GET /console/impostazioni", c.page(c.impostazioni))
	m.Handle("POST /console/impostazioni", c.page(c.saveImpostazioni))
	m.Handle("GET /console/manutenzione", c.page(c.manutenzione))

	m.Handle("GET /console/pendenze", c.page(c.listPendenze))
	m.Handle("GET /console/pendenze/{idA2A}/{idPendenza}", c.page(c.getPendenza))
	m.Handle("POST /console/pendenze/{idA2A}/{idPendenza}", c.page(c.patchPendenza))

	m.Handle("GET /console/pagamenti", c.page(c.listPagamenti))
	m.Handle("GET /console/pagamenti/{id}", c.page(c.getPagamento))
	m.Handle("GET /console/riconciliazioni", c.page(c.listRiconciliazioni))
	m.Handle("GET /console/riconciliazioni/{idDominio}/{id}", c.page(c.getRiconciliazione))
	m.Handle("GET /console/rendicontazioni", c.page(c.listRendicontazioni))
	m.Handle("GET /console/rendicontazioni/{idDominio}/{idFlusso}", c.page(c.getRendicontazione))
	m.Handle("GET /console/riscossioni", c.page(c.listRiscossioni))
	m.Handle("GET /console/riscossioni/{idDominio}/{idRicevuta}", c.page(c.getRiscossione))
	// The incassi: the list, the blank form (?nuovo), the record and an
	// incasso's page (its idDominio and its id).
	c.registry(m, "incassi", "nuovo", c.listIncassi, c.newIncasso, nil, c.saveIncasso)
	m.Handle("GET /console/incassi/{idDominio}/{idIncasso}", c.page(c.getIncasso))
	m.Handle("GET /console/eventi", c.page(c.listEventi))

	m.Handle("GET /console/audit", c.page(c.auditPage))
	m.Handle("POST /console/audit", c.page(c.auditPage))
	c.mux = m
}

// registry routes a registry under /console/{name}: GET the list, or the
// blank form to register a new record when the query names key (GET
// /console/ruoli?nuovo, the word the form then posts as its marker); GET
// /console/{name}/{id} a record (unless record is nil); POST the save.
// The blank form has no path of its own under the list because that
// namespace is the records' ids (^[A-Za-z0-9_.-]{1,35}$ admits "nuovo" and
// "nuova"): a route there would hide the record of that id from its links
// and from the redirect after saving it.
func (c *Console) registry(m *http.ServeMux, name, key string, list, blank, record, save func(*request) error) {
	m.Handle("GET /console/"+name, c.page(func(rq *request) error {
		if rq.r.URL.Query().Has(key) {
			return blank(rq)
		}
		return list(rq)
	}))
	if record != nil {
		m.Handle("GET /console/"+name+"/{id}", c.page(record))
	}
	m.Handle("POST /console/"+name, c.page(save))
}

// ServeHTTP serves /console/ (404 for everything when disabled).
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.cfg.Disabled {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	c.mux.ServeHTTP(w, r)
}

// request is one authenticated console request.
type request struct {
	w    http.ResponseWriter
	r    *http.Request
	sid  string
	sess *session
	p    domain.Principal
}

func (rq *request) actor() commands.Actor {
	return commands.Actor{Principal: rq.p, CorrelationID: "console-" + randomToken()[:12]}
}

// errBadCSRF refuses a POST without the session's CSRF token.
var errBadCSRF = errors.New("console: missing or wrong CSRF token")

// formUnreadable is a POST body ParseForm refused: over the size limit
// (*http.MaxBytesError, the API's 413) or not a form (400).
func formUnreadable(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return err
	}
	return &commands.InvalidError{Field: "modulo", Detail: "the body is not a readable form"}
}

// page wraps a handler with the session: no or an ended session goes to
// the login page; a POST must carry the session's CSRF token, checked
// before the handler runs (so nothing is written without it).
func (c *Console) page(h func(*request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.waitForWritten(r)
		ck, err := r.Cookie(CookieName)
		var sess *session
		ok := false
		if err == nil {
			sess, ok = c.sessions.get(ck.Value)
		}
		var p domain.Principal
		if ok {
			if p, ok = sess.resolve(c.deps.Model); !ok {
				c.sessions.end(ck.Value)
			}
		}
		if !ok {
			if ck != nil {
				c.setCookie(w, r, CookieName, "", -1)
			}
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/console/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			c.renderError(w, r, nil, http.StatusUnauthorized, "401000", "Utenza non autenticata",
				"La sessione non è valida o è scaduta: accedi di nuovo.")
			return
		}
		rq := &request{w: w, r: r, sid: ck.Value, sess: sess, p: p}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
			if err := r.ParseForm(); err != nil {
				c.fail(rq, formUnreadable(err))
				return
			}
			if !validCSRF(sess.csrf, r.PostForm.Get("csrf")) {
				c.fail(rq, errBadCSRF)
				return
			}
		}
		if err := h(rq); err != nil {
			c.fail(rq, err)
		}
	})
}

// may reports whether p may use svc with right r: what a page shows or
// offers (a write is decided again by its operation when it is sent).
func may(p domain.Principal, svc domain.Service, r domain.Right) bool {
	return operations.UseService(p, svc, r, nil) == nil
}
