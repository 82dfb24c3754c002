package httpapi

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v5"
	"golang.org/x/time/rate"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

type pagamentoRef struct {
	IDA2A            string    `json:"idA2A,omitempty"`
	IDPendenza       string    `json:"idPendenza,omitempty"`
	IDDominio        string    `json:"idDominio,omitempty"`
	NumeroAvviso     string    `json:"numeroAvviso,omitempty"`
	IDTipoPendenza   string    `json:"idTipoPendenza,omitempty"`
	Importo          *Importo  `json:"importo,omitempty"`
	Causale          string    `json:"causale,omitempty"`
	SoggettoPagatore *soggetto `json:"soggettoPagatore,omitempty"`
	// IDDebitore is GovPay's RiferimentoAvviso.idDebitore, taken on a
	// notice reference and not checked: the notice number is the bearer's
	// right to pay it, and comparing it with the payer's would tell anyone
	// holding the number who owes it.
	IDDebitore string `json:"idDebitore,omitempty"`
}

// ref checks that exactly one of the three reference forms is used.
func (r pagamentoRef) ref() (commands.PaymentRef, error) {
	spont := r.IDTipoPendenza != "" || r.Importo != nil || r.Causale != "" || r.SoggettoPagatore != nil
	switch {
	case r.IDA2A != "" || r.IDPendenza != "":
		if r.IDA2A == "" || r.IDPendenza == "" || r.IDDominio != "" || r.NumeroAvviso != "" || r.IDDebitore != "" || spont {
			return commands.PaymentRef{}, syntaxError("a pendenza reference is exactly {idA2A, idPendenza}")
		}
		return commands.PaymentRef{IDA2A: r.IDA2A, IDPendenza: r.IDPendenza}, nil
	case r.NumeroAvviso != "":
		if r.IDDominio == "" || spont {
			return commands.PaymentRef{}, syntaxError("a notice reference is exactly {idDominio, numeroAvviso}")
		}
		return commands.PaymentRef{IDDominio: r.IDDominio, NumeroAvviso: r.NumeroAvviso}, nil
	}
	if r.IDDominio == "" || r.IDTipoPendenza == "" || r.Importo == nil || r.SoggettoPagatore == nil || r.IDDebitore != "" {
		return commands.PaymentRef{}, syntaxError("a spontaneous payment needs idDominio, idTipoPendenza, importo, causale and soggettoPagatore")
	}
	payer := r.SoggettoPagatore.event()
	return commands.PaymentRef{IDDominio: r.IDDominio, IDTipoPendenza: r.IDTipoPendenza, AmountCents: int64(*r.Importo),
		Causale: r.Causale, Payer: &payer}, nil
}

// pagamentoBody is GovPay's NuovoPagamento: the references, the remitter
// and the members commands.PaymentRequest checks and does not keep.
type pagamentoBody struct {
	Pendenze         paymentRefs `json:"pendenze"`
	SoggettoVersante *soggetto   `json:"soggettoVersante,omitempty"`
	commands.PaymentRequest
}

// paymentRefs are a payment's references, at most
// commands.MaxPaymentRefs: the public mount takes this body from anyone,
// and the list is refused while it is decoded, before the address's write
// budget is spent.
type paymentRefs = boundedList[pagamentoRef, refsBound]

type refsBound struct{}

func (refsBound) bound() (int, func(int) error) {
	return commands.MaxPaymentRefs, commands.CheckPaymentRefs
}

type pagamentoCreated struct {
	ID       string `json:"id"`
	Location string `json:"location"`
	Stato    string `json:"stato"`
}

func (s *Server) postPagamento(c *echo.Context) error {
	cl := callerOf(c)
	if err := s.protectPublic(c, domain.ProtectedPayment, ""); err != nil {
		return err
	}
	var body pagamentoBody
	if err := s.decodeJSON(c, &body); err != nil {
		return err
	}
	in := commands.StartPayment{Request: body.PaymentRequest}
	for _, r := range body.Pendenze {
		ref, err := r.ref()
		if err != nil {
			return err
		}
		in.Refs = append(in.Refs, ref)
	}
	if body.SoggettoVersante != nil {
		v := body.SoggettoVersante.event()
		in.Remitter = &v
	}
	actor, cookie, err := s.sessionActor(c)
	if err != nil {
		return err
	}
	if actor.Principal.Kind == domain.KindAnonymous {
		in.SessionHash = actor.Principal.SessionHash
	}
	id, res, err := s.cmds.StartPayment(c.Request().Context(), actor, in)
	keepSession(c, cookie, err)
	if err != nil {
		return err
	}
	if err := s.afterWrite(c, res.Position); err != nil {
		return err
	}
	location := "/pagamento/rs/" + cl.auth.String() + "/v2/pagamenti/" + id
	return c.JSON(http.StatusCreated, pagamentoCreated{ID: id, Location: location, Stato: projections.PaymentInCorso})
}

func (s *Server) getPagamento(c *echo.Context) error {
	return read1[operations.Payments](c, s.model, pPagamento, operations.ReadPaymentPagamento, s.pagamentoFor(callerOf(c).principal))
}

func (s *Server) listPagamenti(c *echo.Context) error {
	p := callerOf(c).principal
	items, err := operations.PaymentsPagamento(s.model, p, nil)
	if err != nil {
		return err
	}
	return filteredPage(c, items, shownPagamentiFilters(p), s.pagamentoFor(p))
}

// statiPagamento are the values of GovPay's StatoPagamento (Pagamento v2),
// the stato filter of GET /pagamenti; a payment here is IN_CORSO or
// ESEGUITO (projections.Payment.StatoOf), so the others keep none.
var statiPagamento = []string{"IN_CORSO", "ESEGUITO", "NON_ESEGUITO", "ESEGUITO_PARZIALE", "ANNULLATO", "FALLITO"}

// shownPagamentiFilters are GovPay's filters of GET /pagamenti on the
// Pagamento API (its idSessionePortale and idSessionePsp name sessions
// this service does not open, and are not read), each over a payment as p,
// which may read it, is shown it, so that a filter tells it nothing its
// answer would not: the remitter's fiscal code (idVersante) only when it
// is shown the remitter (operations.PaymentRemitterPagamento), and stato,
// one of statiPagamento, the state of the items it is shown
// (operations.PaymentItemPagamento). The document reads them with the
// zero principal.
func shownPagamentiFilters(p domain.Principal) queryFilters[*projections.Payment] {
	return queryFilters[*projections.Payment]{
		fiscalCodeFilter("idVersante", "keeps the payments whose soggettoVersante, as the caller is shown it, has this fiscal code, compared without case (GovPay's filter)",
			func(pay *projections.Payment) []string {
				if r := pay.Event.Remitter; r != nil && operations.PaymentRemitterPagamento(p, pay) {
					return []string{domain.NormalFiscalCode(r.Identificativo)}
				}
				return nil
			}),
		{param: "stato", schema: paramSchema{enum: statiPagamento, description: "keeps the payments in this state, as the caller is shown them (GovPay's StatoPagamento)"},
			keep: func(values []string) (func(*projections.Payment) bool, error) {
				stato := values[0]
				if !slices.Contains(statiPagamento, stato) {
					return nil, notOneOf("stato", statiPagamento)
				}
				return func(pay *projections.Payment) bool {
					return pay.StatoOf(operations.PaymentItemPagamento(p, pay)) == stato
				}, nil
			}},
	}
}

// pagamentoFor renders a payment as the Pagamento API shows it to p: the
// items operations.PaymentItemPagamento shows it, and the remitter when
// operations.PaymentRemitterPagamento shows it.
func (s *Server) pagamentoFor(p domain.Principal) func(*projections.Payment) pagamentoView {
	return func(pay *projections.Payment) pagamentoView {
		return s.toPagamentoShown(pay, operations.PaymentItemPagamento(p, pay), operations.PaymentRemitterPagamento(p, pay))
	}
}

func (s *Server) pgGetPendenza(c *echo.Context) error {
	return read2[operations.Pendenze](c, s.model, pIDA2A, pIDPendenza, operations.ReadPendenzaPagamento, s.pendenzaDetail)
}

func (s *Server) pgListPendenze(c *echo.Context) error {
	return s.listPendenze(c, operations.PendenzePagamento, pagatoreFilters)
}

func (s *Server) getAvviso(c *echo.Context) error {
	dominio, avviso, err := pathPair(c, pIDDominio, pAvviso)
	if err != nil {
		return err
	}
	guard := func(uuid string) error { return s.protectPublic(c, domain.ProtectedNotice, uuid) }
	pd, err := operations.ReadNotice(s.model, callerOf(c).principal, dominio, avviso, guard, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toAvvisoPagamento(pd))
}

func (s *Server) pgProfilo(c *echo.Context) error {
	p, err := gated(c, operations.ProfiloPagamento)
	if err != nil {
		return err
	}
	// The entities whose notices the caller may ask about (as GET
	// /domini), and the types its PAGAMENTO grant reaches.
	scope, err := operations.PayableDomini(p, nil)
	if err != nil {
		return err
	}
	v := profileOf(p)
	v.Domini, v.TipiPendenza = s.scopeRefs(func(id string) bool {
		e, ok := s.model.EntityView(id)
		return ok && scope.AdmitsDominio(e)
	}, operations.ProfiloAPITipi(p, domain.APIPagamento))
	return c.JSON(http.StatusOK, v)
}

// protectPublic applies the public API protection (API.md section 7): it
// gathers the facts (the setting, a UUID match for notices, the captcha
// outcome) and lets domain.CanPassPublicProtection decide. uuid is the
// notice's UUID ("" for a payment or an unknown notice). A request the
// protection does not decide (domain.Protects: other mounts, the public
// one while the protection is off) costs one atomic load and allocates
// nothing. The captcha service is asked only when the decision turns on
// it (domain.NeedsCaptcha: not when the UUID already passed), and never
// for longer than the configured timeout, nor past the deadline of the
// request's waits (requestWaits): a check the deadline ends is a
// time-out, which denyOnFail answers.
func (s *Server) protectPublic(c *echo.Context, req domain.ProtectedRequest, uuid string) error {
	auth := callerOf(c).auth
	pr := s.model.Protection()
	pv := domain.ProtectionView{Enabled: pr.Enabled, DenyOnFail: pr.Captcha.DenyOnFail}
	if !domain.Protects(auth, pv) {
		return domain.CanPassPublicProtection(auth, pv, req, false, domain.CaptchaMissing)
	}
	// Its parameters are read before anything is compared or sent: one
	// given more than once is 400 (queryValue, headerValue), so that one
	// request never tries two UUIDs or two tokens. UUID is a notice's
	// alone; the token is the query parameter's, else the header's.
	given := ""
	if req == domain.ProtectedNotice {
		var err error
		if given, err = queryValue(c, "UUID"); err != nil {
			return err
		}
	}
	cfg := pr.Captcha
	token, err := queryValue(c, cfg.Parametro)
	if err != nil {
		return err
	}
	if token = strings.TrimSpace(token); token == "" {
		if token, err = headerValue(c.Request().Header, cfg.Parametro); err != nil {
			return err
		}
		token = strings.TrimSpace(token)
	}
	uuidMatched := given != "" && uuid != "" && domain.ConstantTimeEqual(given, uuid)
	if !domain.NeedsCaptcha(auth, pv, req, uuidMatched) {
		return domain.CanPassPublicProtection(auth, pv, req, uuidMatched, domain.CaptchaMissing)
	}
	r := c.Request()
	outcome := domain.CaptchaMissing
	if token != "" {
		ip := ""
		if a, ok := remoteIP(r.RemoteAddr); ok {
			ip = a.String()
		}
		passed, err := s.captcha.verify(waitContext(c), cfg, token, ip, clientKey(r.RemoteAddr))
		switch {
		case errors.Is(err, errCaptchaBusy):
			s.metrics.captchaBusy()
			return &tooManyRequests{retryAfter: time.Second, reason: "captcha checks"}
		case err != nil:
			outcome = domain.CaptchaUnavailable
			if s.captcha.warn.Allow() {
				s.logger.Warn("captcha check failed", "error", err.Error(), "denyOnFail", cfg.DenyOnFail)
			}
		case passed:
			outcome = domain.CaptchaPassed
		default:
			outcome = domain.CaptchaFailed
		}
	}
	s.metrics.captcha(outcome)
	return domain.CanPassPublicProtection(auth, pv, req, uuidMatched, outcome)
}

// Anonymous writes: each costs the log an event and nothing authenticates
// its author, so each client address has a budget: a burst of
// anonymousWriteBurst, refilled at one every 5 s (then 429 with
// Retry-After). The CAPTCHA protection, when on, bounds them first.
const (
	anonymousWriteRate  = rate.Limit(0.2)
	anonymousWriteBurst = 20
)

// sessionActor is the actor of a write by c's caller: an anonymous caller
// spends one write of its address's budget, and without a session gets a
// new one (what it writes is that session's), whose cookie the answer
// must set.
func (s *Server) sessionActor(c *echo.Context) (commands.Actor, *http.Cookie, error) {
	actor := s.actor(c)
	cl := callerOf(c)
	if cl.principal.Kind != domain.KindAnonymous {
		return actor, nil, nil
	}
	key, now := clientKey(c.Request().RemoteAddr), time.Now()
	if d := s.anonymousWrites.take(key, now); d > 0 {
		return actor, nil, &tooManyRequests{retryAfter: d, reason: "anonymous writes from this address"}
	}
	if !cl.newSession {
		return actor, nil, nil
	}
	value, hash, expires, err := s.session.issue()
	if err != nil {
		return actor, nil, err
	}
	actor.Principal = domain.Anonymous(hash)
	return actor, s.sessionCookie(c.Request(), value, expires), nil
}

// keepSession sets cookie, the new session an anonymous write was made in
// (nil: none was issued), on the answer to that write, err its command's
// outcome, whenever the write may be in the log: it succeeded, a 503 of
// the consistency wait after it included, or its append went unanswered
// (commands.MayHaveWritten). Otherwise what it wrote would belong to a
// session nobody holds.
func keepSession(c *echo.Context, cookie *http.Cookie, err error) {
	if cookie != nil && (err == nil || commands.MayHaveWritten(err)) {
		c.SetCookie(cookie)
	}
}

// pendenzaPagamentoBody is what a payer sends to create its own pendenza
// on the Pagamento API. GovPay's portal sends the fields of the type's
// form, which its scripts turn into a pendenza; here the pendenza's own
// fields come (form processing is a business function, not
// authorization). soggettoPagatore is the citizen itself when absent.
type pendenzaPagamentoBody struct {
	Causale          string    `json:"causale"`
	Importo          *Importo  `json:"importo"`
	SoggettoPagatore *soggetto `json:"soggettoPagatore,omitempty"`
	IDUnitaOperativa string    `json:"idUnitaOperativa,omitempty"`
}

func (b *pendenzaPagamentoBody) required() error { return need("importo", b.Importo) }

// pendenzaCreata is GovPay's PendenzaCreata, with the pendenza's own ids.
type pendenzaCreata struct {
	IDA2A        string `json:"idA2A"`
	IDPendenza   string `json:"idPendenza"`
	IDDominio    string `json:"idDominio"`
	NumeroAvviso string `json:"numeroAvviso"`
	UUID         string `json:"UUID"`
}

// pgPostPendenza is POST /pendenze/{idDominio}/{idTipoPendenza} on the
// Pagamento API (operations.CreatePendenzaPagamento): the public mount's
// protection first, the gate on the entity, then the body.
func (s *Server) pgPostPendenza(c *echo.Context) error {
	p := callerOf(c).principal
	if err := s.protectPublic(c, domain.ProtectedPayment, ""); err != nil {
		return err
	}
	var body pendenzaPagamentoBody
	idDominio, idTipo, err := s.gatedBody(c, pIDDominio, pIDTipoPendenza, operations.AskCreatePendenzaPagamento, &body)
	if err != nil {
		return err
	}
	var payer events.Subject
	switch {
	case body.SoggettoPagatore != nil:
		payer = body.SoggettoPagatore.event()
	case p.Kind == domain.KindCitizen:
		payer = events.Subject{Tipo: "F", Identificativo: p.Name, Anagrafica: p.Name}
	default:
		return syntaxError("soggettoPagatore is required")
	}
	actor, cookie, err := s.sessionActor(c)
	if err != nil {
		return err
	}
	res, id, err := s.cmds.CreatePendenzaPagamento(c.Request().Context(), actor, commands.CreatePendenzaPagamento{
		IDDominio: idDominio, IDTipoPendenza: idTipo, IDUnita: body.IDUnitaOperativa, Causale: body.Causale,
		AmountCents: int64(*body.Importo), Payer: payer})
	keepSession(c, cookie, err)
	return s.written(c, res, err, func() (any, error) {
		pd, ok := s.model.Pendenza(domain.PortalIDA2A, id)
		if !ok {
			return nil, errNotFound
		}
		return pendenzaCreata{IDA2A: pd.IDA2A, IDPendenza: pd.IDPendenza, IDDominio: pd.IDDominio, NumeroAvviso: pd.NumeroAvviso, UUID: pd.UUID}, nil
	})
}
