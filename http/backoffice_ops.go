package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// --- /eventi ---

type eventiPage struct {
	Risultati         []operations.EventEntry `json:"risultati"`
	ProssimaPosizione uint64                  `json:"prossimaPosizione"`
}

var errPageFull = errors.New("page full")

// The bounds of limite on GET /eventi (API.md section 4); the OpenAPI
// document states them from here.
const (
	defaultEventiLimite = 100
	maxEventiLimite     = 1000
)

// eventiParams reads da (the first position wanted, default 1; 0 reads as
// 1) and limite (default defaultEventiLimite, 1..maxEventiLimite), each of
// one value (queryValue).
func eventiParams(c *echo.Context) (da uint64, limite int, err error) {
	da, limite = 1, defaultEventiLimite
	v, err := queryValue(c, "da")
	if err != nil {
		return 0, 0, err
	}
	if v != "" {
		n, perr := strconv.ParseUint(v, 10, 64)
		if perr != nil {
			return 0, 0, syntaxError("da must be a log position (a whole number from 0)")
		}
		da = max(n, 1)
	}
	if v, err = queryValue(c, "limite"); err != nil {
		return 0, 0, err
	}
	if v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 || n > maxEventiLimite {
			return 0, 0, syntaxError("limite must be a whole number from 1 to " + strconv.Itoa(maxEventiLimite))
		}
		limite = n
	}
	return da, limite, nil
}

// listEventi reads the log oldest first from position da, stopping once
// limite events are in the page. A page never splits a commit (the events
// of one commit share a position, so a commit larger than limite comes
// whole and makes the page longer than limite), and prossimaPosizione is
// the position after the last commit read, so that paging with
// da=prossimaPosizione skips and repeats nothing. For a scoped caller at
// most 20 × limite events are examined per request: a page may then hold
// fewer than limite events (even none) while prossimaPosizione still
// advances. The end of the log is reached when prossimaPosizione equals da.
func (s *Server) listEventi(c *echo.Context) error {
	p := callerOf(c).principal
	seeAll, err := operations.ReadEventLog(p, nil)
	if err != nil {
		return err
	}
	da, limite, err := eventiParams(c)
	if err != nil {
		return err
	}
	page := eventiPage{Risultati: []operations.EventEntry{}, ProssimaPosizione: da}
	scanned, maxScan := 0, limite*20
	err = s.store.ReadFrom(c.Request().Context(), events.Position(da), func(_ context.Context, env events.Envelope) error {
		if env.Index == 0 && (len(page.Risultati) >= limite || scanned >= maxScan) {
			return errPageFull
		}
		scanned++
		page.ProssimaPosizione = uint64(env.Position) + 1
		if !domain.EventVisible(p, seeAll, env.Event) {
			return nil
		}
		page.Risultati = append(page.Risultati, operations.NewEventEntry(env))
		return nil
	})
	if errors.Is(err, events.ErrInvalidPosition) {
		// A store with sparse positions (KurrentDB) reads from 0, an
		// event's posizione or a prossimaPosizione only.
		return syntaxError("da is not a position of the log: 0, an event's posizione or a prossimaPosizione")
	}
	if err != nil && !errors.Is(err, errPageFull) {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

// --- /profilo ---

type profiloACL struct {
	Ruolo          string     `json:"ruolo"`
	Servizio       string     `json:"servizio"`
	Autorizzazioni []string   `json:"autorizzazioni"`
	Domini         dominiList `json:"domini"`
	TipiPendenza   []string   `json:"tipiPendenza"`
}

// profiloView is the caller's profile on the Backoffice and Pagamento
// APIs: GovPay's Profilo (nome, domini and tipiPendenza as objects, acl)
// with our additions (each acl entry's role and scope, the principal's
// kind, roles and API grants).
type profiloView struct {
	Nome         string       `json:"nome"`
	Domini       []dominioRef `json:"domini"`
	TipiPendenza []tipoRef    `json:"tipiPendenza"`
	Principal    string       `json:"principal,omitempty"`
	Tipo         string       `json:"tipo"`
	IDA2A        string       `json:"idA2A,omitempty"`
	Ruoli        []string     `json:"ruoli,omitempty"`
	// ACL is GovPay's required acl: [] for a caller with no right.
	ACL []profiloACL `json:"acl"`
	// AutorizzazioniAPI lists an application's API grants.
	AutorizzazioniAPI []autorizzazioneAPI `json:"autorizzazioniApi,omitempty"`
}

func profileOf(p domain.Principal) profiloView {
	v := profiloView{Nome: p.Name, Principal: p.Name, Tipo: p.Kind.String(), IDA2A: p.IDA2A, ACL: []profiloACL{}}
	for _, r := range p.Roles {
		if r.ID != domain.PersonalRole { // its rights are listed in acl under its id
			v.Ruoli = append(v.Ruoli, r.ID)
		}
	}
	for _, er := range domain.EffectiveRights(p) {
		v.ACL = append(v.ACL, profiloACL{Ruolo: er.Role, Servizio: er.Service.String(), Autorizzazioni: er.Rights.List(),
			Domini: dominiOf(er.Domini), TipiPendenza: er.Tipi.List()})
	}
	for _, g := range p.Grants() {
		v.AutorizzazioniAPI = append(v.AutorizzazioniAPI, autorizzazioneAPI{API: g.API.String(), Domini: dominiOf(g.Domini), TipiPendenza: g.Tipi.List()})
	}
	return v
}

func (s *Server) boProfilo(c *echo.Context) error {
	p, err := gated(c, operations.ProfiloBackoffice)
	if err != nil {
		return err
	}
	v := profileOf(p)
	v.Domini, v.TipiPendenza = s.scopeRefs(operations.ProfiloDomini(p), operations.ProfiloTipi(p))
	return c.JSON(http.StatusOK, v)
}

// --- operations ---

// resetCache is kept for GovPay clients: caches follow the log, so there is
// nothing to reset.
func (s *Server) resetCache(c *echo.Context) error {
	if err := operations.WriteConfigurazione(callerOf(c).principal, nil); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"esito": "OK", "dettaglio": "caches follow the event log; nothing to reset"})
}

type captchaBody struct {
	ServerURL  string   `json:"serverURL"`
	SecretKey  string   `json:"secretKey,omitempty"`
	Soglia     *float64 `json:"soglia,omitempty"`
	Parametro  *string  `json:"parametro,omitempty"`
	DenyOnFail *bool    `json:"denyOnFail,omitempty"`
	TimeoutMs  *int     `json:"timeoutMs,omitempty"`
}

type hardeningBody struct {
	Abilitato *bool        `json:"abilitato"`
	Captcha   *captchaBody `json:"captcha"`
}

type captchaView struct {
	ServerURL  string  `json:"serverURL"`
	Soglia     float64 `json:"soglia"`
	Parametro  string  `json:"parametro"`
	DenyOnFail bool    `json:"denyOnFail"`
	TimeoutMs  int     `json:"timeoutMs"`
}

type hardeningView struct {
	Abilitato bool        `json:"abilitato"`
	Captcha   captchaView `json:"captcha"`
}

func (s *Server) hardeningView() hardeningView {
	pr := s.model.Protection()
	cp := pr.Captcha
	if cp.Parametro == "" {
		cp.Parametro, cp.DenyOnFail, cp.TimeoutMs = commands.DefaultCaptchaParam, true, commands.DefaultCaptchaTimeout
	}
	return hardeningView{Abilitato: pr.Enabled, Captcha: captchaView{ServerURL: cp.ServerURL, Soglia: cp.Soglia,
		Parametro: cp.Parametro, DenyOnFail: cp.DenyOnFail, TimeoutMs: cp.TimeoutMs}}
}

func (s *Server) getHardening(c *echo.Context) error {
	if err := operations.ReadConfigurazione(callerOf(c).principal, nil); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.hardeningView())
}

func (s *Server) putHardening(c *echo.Context) error {
	var body hardeningBody
	if err := s.decodeJSON(c, &body); err != nil {
		return err
	}
	enabled, err := requireBool("abilitato", body.Abilitato)
	if err != nil {
		return err
	}
	in := commands.ConfigureProtection{Enabled: enabled, KeepCaptcha: body.Captcha == nil}
	if body.Captcha != nil {
		cb := body.Captcha
		in.Captcha = commands.CaptchaInput{ServerURL: cb.ServerURL, SecretKey: cb.SecretKey, Soglia: cb.Soglia,
			Parametro: cb.Parametro, DenyOnFail: cb.DenyOnFail, TimeoutMs: cb.TimeoutMs}
	} else if enabled {
		return syntaxError("captcha is required to enable the protection")
	}
	res, err := s.cmds.ConfigureProtection(c.Request().Context(), s.actor(c), in)
	return s.written(c, res, err, func() (any, error) { return s.hardeningView(), nil })
}
