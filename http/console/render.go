package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

var funcs = template.FuncMap{
	"campo":         newCampo,
	"modulo":        newModulo,
	"casella":       newCasella,
	"registrazione": newRegistrazione,
	"ro":            readonlyIf,
	"join":          strings.Join,
	"unitsLabel":    unitsLabel,
	"italiano":      italiano,
	"tipoPrincipal": tipoPrincipal,
	"contains":      func(list []string, s string) bool { return containsString(list, s) },
	"euro": func(cents int64) string {
		sign := ""
		if cents < 0 {
			sign, cents = "-", -cents
		}
		return sign + strconv.FormatInt(cents/100, 10) + "," + strconv.FormatInt(cents%100/10, 10) + strconv.FormatInt(cents%10, 10) + " €"
	},
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// navItem is one entry of the menu: shown only when the principal holds
// the service's R (the same right the Backoffice reads need).
type navItem struct {
	Href, Label string
	Current     bool
}

var menu = []struct {
	href, label string
	service     domain.Service
}{
	{"/console/pendenze", "Pendenze", domain.ServicePendenze},
	{"/console/pagamenti", "Pagamenti", domain.ServicePagamenti},
	{"/console/riconciliazioni", "Riconciliazioni", domain.ServiceRendicontazioniIncassi},
	{"/console/rendicontazioni", "Rendicontazioni", domain.ServiceRendicontazioniIncassi},
	{"/console/riscossioni", "Riscossioni", domain.ServiceRendicontazioniIncassi},
	{"/console/incassi", "Incassi", domain.ServiceRendicontazioniIncassi},
	{"/console/domini", "Domini", domain.ServiceAnagraficaCreditore},
	{"/console/tipi", "Tipi pendenza", domain.ServiceAnagraficaCreditore},
	{"/console/applicazioni", "Applicazioni", domain.RegistryApplicazioni.Service()},
	{"/console/operatori", "Operatori", domain.RegistryOperatori.Service()},
	{"/console/ruoli", "Ruoli", domain.RegistryRuoli.Service()},
	{"/console/intermediari", "Intermediari", domain.RegistryIntermediari.Service()},
	{"/console/impostazioni", "Impostazioni", domain.ServiceConfigurazioneManutenzione},
	{"/console/manutenzione", "Manutenzione", domain.ServiceConfigurazioneManutenzione},
	{"/console/eventi", "Giornale degli eventi", domain.ServiceGiornaleEventi},
	{"/console/audit", "Audit", domain.ServiceGiornaleEventi},
}

func (c *Console) nav(r *http.Request, p domain.Principal) []navItem {
	var out []navItem
	for _, m := range menu {
		if m.href == "/console/audit" && c.deps.Audit == nil {
			continue
		}
		if may(p, m.service, domain.RightRead) {
			out = append(out, navItem{Href: m.href, Label: m.label, Current: strings.HasPrefix(r.URL.Path, m.href)})
		}
	}
	return out
}

// view is what every page template receives.
type view struct {
	Title string
	Nav   []navItem
	User  string
	CSRF  string
	// Written is the consistency position of the write that led here.
	Written *written
	Data    any
}

// written shows a write's place in the log.
type written struct {
	Position uint64
	Token    string
	Message  string
}

// writtenAt returns the position of the write a page follows (the
// scritto parameter afterWrite adds), 0 for none.
func writtenAt(r *http.Request) events.Position {
	pos, err := strconv.ParseUint(r.URL.Query().Get("scritto"), 10, 64)
	if err != nil {
		return 0
	}
	return events.Position(pos)
}

// waitForWritten makes the page that follows a write wait, before it
// reads anything, until this replica applied the write (at most
// WriteWait): the redirect after a write may reach another replica than
// the one that wrote.
func (c *Console) waitForWritten(r *http.Request) {
	pos := writtenAt(r)
	if r.Method == http.MethodGet && pos > 0 {
		_ = c.deps.Model.WaitWithin(r.Context(), pos, c.deps.WriteWait) // not reached: render says so
	}
}

// render writes a page with the layout.
func (c *Console) render(rq *request, status int, page, title string, data any) error {
	v := view{Title: title, Data: data}
	if rq != nil {
		v.Nav, v.User, v.CSRF = c.nav(rq.r, rq.p), rq.p.Name, rq.sess.csrf
		if pos := writtenAt(rq.r); pos > 0 {
			v.Written = &written{Position: uint64(pos), Token: c.deps.Token(pos),
				Message: "Modifica registrata nel giornale degli eventi: è già in vigore."}
			if c.deps.Model.AppliedPosition() < pos {
				v.Written.Message = "Modifica registrata nel giornale degli eventi, ma questo server non l'ha ancora applicata: " +
					"la pagina può non mostrarla ancora; ricaricala tra poco."
			}
		}
	}
	return c.write(rq.w, status, page, v)
}

func (c *Console) write(w http.ResponseWriter, status int, page string, v view) error {
	t, ok := c.pages[page]
	if !ok {
		return errors.New("console: no template " + page)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// errorView is the body of an error page: the FaultBean the API would
// answer, in words.
type errorView struct {
	Status      int
	Codice      string
	Descrizione string
	Dettaglio   string
}

func (c *Console) renderError(w http.ResponseWriter, r *http.Request, rq *request, status int, codice, descr, detail string) {
	v := view{Title: descr, Data: errorView{Status: status, Codice: codice, Descrizione: descr, Dettaglio: detail}}
	if rq != nil {
		v.Nav, v.User, v.CSRF = c.nav(r, rq.p), rq.p.Name, rq.sess.csrf
	}
	if err := c.write(w, status, "errore.html", v); err != nil {
		c.deps.Logger.Error("console: render error page", "error", err)
	}
}

// fail answers err with the status, codice and descrizione the Backoffice
// API gives it (Deps.Fault, the HTTP layer's one mapping of errors to
// statuses), its dettaglio in the console's words (messaggio) when err is
// a command's or an operation's: the console never chooses a status of
// its own, so the two cannot drift. Only a missing CSRF token, which the API has no use for,
// is decided here.
func (c *Console) fail(rq *request, err error) {
	w, r := rq.w, rq.r
	if errors.Is(err, errBadCSRF) {
		c.renderError(w, r, rq, http.StatusForbidden, "403000", "Richiesta rifiutata",
			"Il modulo non porta un token CSRF valido: ricarica la pagina e riprova. Nulla è stato modificato.")
		return
	}
	f := c.deps.Fault(err)
	if m, ok := messaggio(err); ok {
		f.Dettaglio = m // the API's dettaglio, in the console's words
	}
	if c.deps.Failed != nil {
		c.deps.Failed(w, r, f.Status, err)
	}
	c.setRetryAfter(w, err, f.Status)
	c.renderError(w, r, rq, f.Status, f.Codice, f.Descrizione, f.Dettaglio)
}

// setRetryAfter sets the Retry-After header the API answers with status
// for err, if any: a 429 or 503 page, or a form refused with one, tells
// when to try again as the API's answer does.
func (c *Console) setRetryAfter(w http.ResponseWriter, err error, status int) {
	if c.deps.RetryAfter == nil {
		return
	}
	if ra := c.deps.RetryAfter(err, status); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
}

// fieldErrors are the form's messages by field name ("" for the form).
type fieldErrors map[string]string

// formState is embedded by the forms that write (a registry's record or
// blank form, the settings): the errors of the last submission (set by
// Console.saved) and whether the caller may save the form, set by
// Console.renderForm from the form's mayWrite.
type formState struct {
	Errors   fieldErrors
	CanWrite bool
	// Base is the version of the data the form was opened on (its hidden
	// field base, as posted back): the position of the read models' state
	// it was read from (Console.open; a blank form's, the state where its
	// record was still to be registered). Its save is written only over
	// that state (commands' Base, see Console.save).
	Base events.Position
}

func (f *formState) state() *formState { return f }

// writeForm is a form that writes. mayWrite is the decision of its save
// for p: the operation of package operations that the command behind it
// is authorized by (for the record the form shows), or for a blank form
// the part of it that needs no id. It decides what the page offers; the
// save is decided again by the command when it is sent.
type writeForm interface {
	mayWrite(p domain.Principal, m *projections.ReadModel) error
	state() *formState
	// title is the page's title: the blank form's ("Nuovo dominio") or
	// the record's ("Dominio X"), the same whether the form is opened or
	// comes back with an error.
	title() string
}

// renderForm renders a form that writes under its title, editable with
// its Salva button when p may save it (f.mayWrite), else read-only: its
// fields disabled and no Salva (templates "modulo" and "salva" in
// layout.html).
func (c *Console) renderForm(rq *request, status int, page string, f writeForm) error {
	f.state().CanWrite = f.mayWrite(rq.p, c.deps.Model) == nil
	return c.render(rq, status, page, f.title(), f)
}

// campo is one labelled input of a form (template "campo" in
// layout.html): the error the last submission got on it is shown next to
// it and tied to it for assistive technology (aria-invalid,
// aria-describedby), the same way on every form.
type campo struct {
	Name, Label, Value, Error     string
	Type, Autocomplete, InputMode string
	Step                          string
	List                          string // the id of its datalist of suggestions
	Required, Readonly            bool
}

// registrazione opens the form of a registry record (template
// "registrazione" in layout.html): the modulo, the mark of a new record,
// and the record's key, which only a new record may set.
type registrazione struct {
	Modulo modulo
	New    bool
	Chiave campo
}

func newRegistrazione(m modulo, isNew bool, key campo) registrazione {
	key.Readonly = !isNew
	return registrazione{Modulo: m, New: isNew, Chiave: key}
}

// casella is one labelled checkbox of a form (template "casella" in
// layout.html), its id and name alike.
type casella struct {
	Name, Label string
	Checked     bool
}

func newCasella(name, label string, checked bool) casella {
	return casella{Name: name, Label: label, Checked: checked}
}

// modulo opens a console form (template "modulo" in layout.html): the
// error of the whole form, if any, announced first, then the form posting
// to Action with the session's CSRF token and, for a form that writes,
// the version of the data it shows (formState.Base), the same way on
// every form. A form the caller may not save (editable false) opens
// read-only: its fields in a disabled fieldset that says why, closed by
// template "salva" instead of the Salva button.
type modulo struct {
	Action, ID, Error, CSRF string
	ReadOnly                bool
	Base                    events.Position
}

// newModulo is the template function modulo; base, given by the forms
// that write, is their formState.Base.
func newModulo(action, id string, errs fieldErrors, editable bool, csrf string, base ...events.Position) modulo {
	m := modulo{Action: action, ID: id, Error: errs[""], CSRF: csrf, ReadOnly: !editable}
	if len(base) > 0 {
		m.Base = base[0]
	}
	return m
}

// readonlyIf is the campo option "readonly" when readonly holds, else no
// option.
func readonlyIf(readonly bool) string {
	if readonly {
		return "readonly"
	}
	return ""
}

// newCampo is the template function campo: name, label, value, the
// form's errors (nil on forms that report none) and options: "required",
// "readonly", "type=…", "autocomplete=…", "inputmode=…", "step=…",
// "list=…" (a datalist's id), "error=KEY" (the error key, when not the
// name); "" is no option.
func newCampo(name, label, value string, errs fieldErrors, opts ...string) (campo, error) {
	f := campo{Name: name, Label: label, Value: value, Type: "text"}
	errKey := name
	valued := map[string]*string{"type": &f.Type, "autocomplete": &f.Autocomplete, "inputmode": &f.InputMode,
		"step": &f.Step, "list": &f.List, "error": &errKey}
	for _, o := range opts {
		k, v, hasValue := strings.Cut(o, "=")
		switch {
		case o == "":
		case o == "required":
			f.Required = true
		case o == "readonly":
			f.Readonly = true
		case hasValue && valued[k] != nil:
			*valued[k] = v
		default:
			return f, fmt.Errorf("campo %s: unknown option %q", name, o)
		}
	}
	f.Error = errs[errKey]
	return f, nil
}

// formError turns a write's or an Audit question's error into messages
// next to the fields (in the console's words, messaggio), or returns false
// when err is not about the input (the caller then fails).
// A denial of delegation is shown on the form with the API's 403.
func formError(err error) (fieldErrors, int, bool) {
	var (
		forbidden *domain.ForbiddenError
		invalid   *commands.InvalidError
		unproc    *commands.UnprocessableError
		taken     *registeredError
		appID     *commands.AppIDInUseError
	)
	switch {
	case errors.Is(err, projections.ErrPointNotInLog), errors.Is(err, audit.ErrBadQuery), errors.Is(err, audit.ErrUnknownOperation):
		// A question the Audit page asks that the log or the catalogue
		// cannot answer: about the whole question.
		m, _ := messaggio(err)
		return fieldErrors{"": m}, http.StatusBadRequest, true
	case errors.As(err, &invalid):
		m, _ := messaggio(err)
		return fieldErrors{fieldOf(invalid.Field): m}, http.StatusBadRequest, true
	case errors.As(err, &unproc):
		m, _ := messaggio(err)
		return fieldErrors{"": m}, http.StatusUnprocessableEntity, true
	case errors.As(err, &forbidden) && forbidden.Rule == domain.RuleDelegation:
		m, _ := messaggio(err)
		return fieldErrors{"": m}, http.StatusForbidden, true
	case errors.As(err, &appID):
		return fieldErrors{appID.Field: "È già l'X-APP-ID (idA2A di un'applicazione o principal di un operatore) di un altro principal."}, http.StatusConflict, true
	case errors.Is(err, commands.ErrPrincipalInUse):
		return fieldErrors{"principal": "Il principal è già in uso da un'altra applicazione o operatore."}, http.StatusConflict, true
	case errors.As(err, &taken):
		return fieldErrors{taken.field: "Questo identificativo è già registrato: per modificarlo aprilo dall'elenco."}, http.StatusConflict, true
	case errors.Is(err, errBadBase):
		return fieldErrors{"": "Il modulo non indica la versione dei dati su cui è stato aperto, o ne indica una che non esiste: " +
			"riapri la pagina e salva di nuovo. Nulla è stato modificato."}, http.StatusBadRequest, true
	case errors.Is(err, errBaseNotApplied):
		return fieldErrors{"": "Questo server non ha ancora applicato i dati su cui hai aperto il modulo: salva di nuovo tra poco. " +
			"Nulla è stato modificato."}, http.StatusServiceUnavailable, true
	}
	return nil, 0, false
}

// registeredError refuses to register as new (the save of a blank form) a
// record whose id is registered already: the write behind every form
// registers or updates, and would replace that record and what it grants.
type registeredError struct{ field string }

func (e *registeredError) Error() string { return "console: " + e.field + " is registered already" }

// Errors of a form's base (formState.Base), nothing written: errBadBase
// for a base that is no position of the log (missing, not a number, 0,
// beyond the log's end), errBaseNotApplied for one this replica has not
// applied within the write wait (the form was opened on a replica ahead
// of it).
var (
	errBadBase        = errors.New("console: the form's base is not a position of the log")
	errBaseNotApplied = errors.New("console: the form's base is not applied here")
)

// postedSecret is the write-only field name as a form posted it (a
// password, an API key: never shown, so never posted back unchanged), as
// the command takes it: nil, which keeps the stored one, when left empty.
func postedSecret(r *http.Request, name string) *string {
	if v := r.PostForm.Get(name); v != "" {
		return &v
	}
	return nil
}

// postedBase is the base a form posted (hidden field base), 0 when it is
// missing or no position.
func postedBase(r *http.Request) events.Position {
	pos, err := strconv.ParseUint(r.PostForm.Get("base"), 10, 64)
	if err != nil {
		return 0
	}
	return events.Position(pos)
}

// save runs write, the save of a form opened at base (formState.Base,
// which write gives its command as Base: it writes nothing over a record
// changed after that state, commands.StaleError), once this replica has
// applied base (at most the write wait), unless the form registers a new
// record (isNew) and read, the record page's read, finds one under its id:
// a *registeredError on the key field then, and nothing written, as when
// the record was registered after the blank form was opened (a stale
// write). A record the caller may not read is not found so: the write's
// own decision then answers, which tells nothing of it. Every form that
// writes opened at a position (the caller's own registration is in the
// log), so a base of 0 is refused, not taken for "no check".
func (c *Console) save(rq *request, base events.Position, isNew bool, field string, read func() error,
	write func() (commands.Result, error)) (commands.Result, error) {
	if err := c.reached(rq.r.Context(), base); err != nil {
		return commands.Result{}, err
	}
	if isNew && read() == nil {
		return commands.Result{}, &registeredError{field: field}
	}
	res, err := write()
	if _, stale := errors.AsType[*commands.StaleError](err); stale && isNew {
		return res, &registeredError{field: field}
	}
	return res, err
}

// reached waits until this replica has applied base, a form's base (at
// most the write wait), as the API waits for a consistency token:
// errBadBase for 0 or, once the wait ends, a position beyond the log's end
// (Deps.BeyondLog), errBaseNotApplied for one not applied in time.
func (c *Console) reached(ctx context.Context, base events.Position) error {
	m := c.deps.Model
	if base == 0 {
		return errBadBase
	}
	if m.AppliedPosition() >= base {
		return nil
	}
	since := time.Now()
	if err := m.WaitWithin(ctx, base, c.deps.WriteWait); err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if c.deps.BeyondLog(ctx, base, since) {
		return errBadBase
	}
	return errBaseNotApplied
}

// opener reads a record as its page shows it: the record's form, or the
// read's error (its denial, its 404).
type opener func() (writeForm, error)

// open runs o on one state of the read models (it may run more than
// once, see ReadModel.Consistent) and sets the form's base to that
// state's position.
func (c *Console) open(o opener) (writeForm, error) {
	var (
		f   writeForm
		err error
	)
	base := c.deps.Model.Consistent(func() { f, err = o() })
	if err != nil {
		return nil, err
	}
	f.state().Base = base
	return f, nil
}

// showForm is the page of the record o reads, its form at the record's
// version (read-only unless the caller may write it: renderForm).
func (c *Console) showForm(rq *request, page string, o opener) error {
	f, err := c.open(o)
	if err != nil {
		return err
	}
	return c.renderForm(rq, http.StatusOK, page, f)
}

// saved ends a form's save: a write goes on to next; a save over a
// record changed after its form was opened (commands.StaleError) wrote
// nothing and opens o's form again on the record as it is now, 409, asking
// the operator to review it and save again; input errors, delegation and
// the form's base come back to the form f with what was typed.
func (c *Console) saved(rq *request, res commands.Result, err error, next, page string, f writeForm, o opener) error {
	if err == nil {
		return c.afterWrite(rq, res, next)
	}
	if stale, ok := errors.AsType[*commands.StaleError](err); ok {
		ctx := rq.r.Context()
		if err := c.deps.Model.WaitWithin(ctx, stale.At, c.deps.WriteWait); err != nil && ctx.Err() != nil {
			return err // the browser is gone
		}
		f, err := c.open(o)
		if err != nil {
			return err // the caller may no longer read it, or it is gone
		}
		msg := "Nulla è stato salvato: questi dati sono stati modificati da un'altra operazione dopo che hai aperto il modulo. " +
			"Il modulo mostra ora i dati attuali: rivedi le modifiche e salva di nuovo."
		if f.state().Base < stale.At {
			msg = "Nulla è stato salvato: questi dati sono stati modificati da un'altra operazione dopo che hai aperto il modulo, " +
				"ma questo server non ha ancora applicato quella modifica: ricarica la pagina tra poco, rivedi i dati e salva di nuovo."
		}
		f.state().Errors = fieldErrors{"": msg}
		return c.renderForm(rq, http.StatusConflict, page, f)
	}
	fe, status, ok := formError(err)
	if !ok {
		return err
	}
	f.state().Errors = fe
	c.setRetryAfter(rq.w, err, status)
	return c.renderForm(rq, status, page, f)
}

// fieldOf maps a command's field name to the form's input name.
func fieldOf(f string) string {
	f = strings.TrimPrefix(f, "captcha.")
	if i := strings.IndexAny(f, "[."); i > 0 {
		return f[:i]
	}
	return f
}

// afterWrite waits until the write is applied here (at most WriteWait),
// then sends the browser to next with the write's position
// (post/redirect/get). A write not applied in time is in the log all the
// same: the page it leads to says so (render), where an error page would
// call it failed and have the operator write it again. A save that
// changed nothing (res.Position is then the record's last write, maybe
// another's) goes to next as it is: the page must not announce a change.
func (c *Console) afterWrite(rq *request, res commands.Result, next string) error {
	if err := c.deps.Model.WaitWithin(rq.r.Context(), res.Position, c.deps.WriteWait); err != nil && rq.r.Context().Err() != nil {
		return err // the browser is gone
	}
	if !res.Changed {
		http.Redirect(rq.w, rq.r, next, http.StatusSeeOther)
		return nil
	}
	sep := "?"
	if strings.Contains(next, "?") {
		sep = "&"
	}
	http.Redirect(rq.w, rq.r, next+sep+"scritto="+strconv.FormatUint(uint64(res.Position), 10), http.StatusSeeOther)
	return nil
}
