package console

import (
	"net/http"
	"strconv"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// The Impostazioni page: the protection of the public Pagamento API. The
// CAPTCHA secret is write-only: the page says whether one is stored and
// lets the operator replace it, never shows it.

type protezioneForm struct {
	Enabled    bool
	ServerURL  string
	SecretSet  bool
	Soglia     string
	Parametro  string
	DenyOnFail bool
	TimeoutMs  string
	formState
}

// mayWrite: PUT /configurazioni/hardening (operations.WriteConfigurazione).
func (f *protezioneForm) mayWrite(p domain.Principal, _ *projections.ReadModel) error {
	return operations.WriteConfigurazione(p, nil)
}

func (f *protezioneForm) title() string { return "Impostazioni" }

func (c *Console) impostazioniOps() impostazioniOps { return c.ops }

// openImpostazioni reads the setting as the page shows it.
func (c *Console) openImpostazioni(rq *request) opener {
	return func() (writeForm, error) {
		pr, err := c.impostazioniOps().GetProtezione(rq.p)
		if err != nil {
			return nil, err
		}
		cp := pr.Captcha
		f := protezioneForm{Enabled: pr.Enabled, ServerURL: cp.ServerURL, SecretSet: cp.SecretKey != "",
			Soglia: strconv.FormatFloat(cp.Soglia, 'f', -1, 64), Parametro: cp.Parametro, DenyOnFail: cp.DenyOnFail,
			TimeoutMs: strconv.Itoa(cp.TimeoutMs)}
		if cp.Parametro == "" {
			f.Parametro, f.DenyOnFail, f.TimeoutMs = commands.DefaultCaptchaParam, true, strconv.Itoa(commands.DefaultCaptchaTimeout)
		}
		return &f, nil
	}
}

func (c *Console) impostazioni(rq *request) error {
	return c.showForm(rq, "impostazioni.html", c.openImpostazioni(rq))
}

func (c *Console) saveImpostazioni(rq *request) error {
	pf := rq.r.PostForm
	f := protezioneForm{Enabled: pf.Get("abilitato") == "on", ServerURL: pf.Get("serverURL"), Soglia: pf.Get("soglia"),
		Parametro: pf.Get("parametro"), DenyOnFail: pf.Get("denyOnFail") == "on", TimeoutMs: pf.Get("timeoutMs"),
		formState: formState{Errors: fieldErrors{}, Base: postedBase(rq.r)}}
	in := commands.ConfigureProtection{Enabled: f.Enabled, Captcha: commands.CaptchaInput{ServerURL: f.ServerURL,
		SecretKey: pf.Get("secretKey"), Parametro: &f.Parametro, DenyOnFail: &f.DenyOnFail}, Base: f.Base}
	if f.Soglia != "" {
		v, err := strconv.ParseFloat(f.Soglia, 64)
		if err != nil {
			f.Errors["soglia"] = "La soglia deve essere un numero tra 0 e 1."
		}
		in.Captcha.Soglia = &v
	}
	if f.TimeoutMs != "" {
		v, err := strconv.Atoi(f.TimeoutMs)
		if err != nil {
			f.Errors["timeoutMs"] = "Il timeout deve essere un numero intero di millisecondi."
		}
		in.Captcha.TimeoutMs = &v
	}
	var (
		res commands.Result
		err error
	)
	if len(f.Errors) == 0 {
		res, err = c.save(rq, f.Base, false, "", nil, func() (commands.Result, error) {
			return c.impostazioniOps().PutProtezione(rq.r.Context(), rq.actor(), in)
		})
	}
	if _, _, comesBack := formError(err); comesBack || len(f.Errors) > 0 {
		// The form comes back, saying whether a secret is stored, only to a
		// caller the page's GET shows it to: the input is checked before the
		// write's gate, so a refused save reaches here from anyone.
		pr, err := c.impostazioniOps().GetProtezione(rq.p)
		if err != nil {
			return err
		}
		f.SecretSet = pr.Captcha.SecretKey != ""
	}
	if len(f.Errors) > 0 {
		return c.renderForm(rq, http.StatusBadRequest, "impostazioni.html", &f)
	}
	return c.saved(rq, res, err, "/console/impostazioni", "impostazioni.html", &f, c.openImpostazioni(rq))
}
