package commands

import (
	"context"
	"net/url"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// CaptchaInput is the captcha part of the protection setting; nil fields
// take the contract's defaults.
type CaptchaInput struct {
	ServerURL  string
	SecretKey  string // empty on an update keeps the stored secret if ServerURL is unchanged
	Soglia     *float64
	Parametro  *string
	DenyOnFail *bool
	TimeoutMs  *int
}

// ConfigureProtection sets the protection of the public Pagamento API
// (PUT /configurazioni/hardening).
type ConfigureProtection struct {
	Enabled bool
	Captcha CaptchaInput
	// KeepCaptcha keeps the stored captcha settings (the request had no
	// captcha object): switching the protection off loses nothing.
	KeepCaptcha bool
	// Base is the position of the setting's state the command was computed
	// from (a console form), 0 for none: see based.
	Base events.Position
}

// Protection defaults (API.md section 7).
const (
	DefaultCaptchaParam   = "gRecaptchaResponse"
	DefaultCaptchaTimeout = 5000
)

// ConfigureProtection needs Configurazione e manutenzione W.
func (h *Handler) ConfigureProtection(ctx context.Context, actor Actor, c ConfigureProtection) (Result, error) {
	s := events.CaptchaSettings{ServerURL: c.Captcha.ServerURL, SecretKey: c.Captcha.SecretKey,
		Parametro: DefaultCaptchaParam, DenyOnFail: true, TimeoutMs: DefaultCaptchaTimeout}
	if c.Captcha.Soglia != nil {
		s.Soglia = *c.Captcha.Soglia
	}
	if c.Captcha.Parametro != nil {
		s.Parametro = *c.Captcha.Parametro
	}
	if c.Captcha.DenyOnFail != nil {
		s.DenyOnFail = *c.Captcha.DenyOnFail
	}
	if c.Captcha.TimeoutMs != nil {
		s.TimeoutMs = *c.Captcha.TimeoutMs
	}
	if !(s.Soglia >= 0 && s.Soglia <= 1) { // NaN is not a threshold
		return Result{}, invalidAs(InvalidRange, "captcha.soglia", "must be between %.1f and %.1f", 0.0, 1.0)
	}
	if s.TimeoutMs < 1 || s.TimeoutMs > 60000 {
		return Result{}, invalidAs(InvalidRange, "captcha.timeoutMs", "must be between %d and %d", 1, 60000)
	}
	if s.Parametro == "" || len(s.Parametro) > 64 {
		return Result{}, invalidAs(InvalidLength, "captcha.parametro", "must be %d to %d characters", 1, 64)
	}
	if s.ServerURL != "" || c.Enabled {
		u, err := url.Parse(s.ServerURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Result{}, invalidAs(InvalidURL, "captcha.serverURL", "must be an absolute http(s) URL")
		}
	}
	if err := operations.WriteConfigurazione(actor.Principal, nil); err != nil {
		return Result{}, err
	}
	return h.execute(ctx, actor, events.StreamHardening, based(c.Base, func(stream []events.Envelope) ([]events.Event, error) {
		var cur *events.PublicAPIProtectionConfigured
		if n := len(stream); n > 0 {
			if e, ok := stream[n-1].Event.(events.PublicAPIProtectionConfigured); ok {
				cur = &e
			}
		}
		e := events.PublicAPIProtectionConfigured{Enabled: c.Enabled, Captcha: s}
		if c.KeepCaptcha && cur != nil {
			e.Captcha = cur.Captcha
		}
		// The stored secret is kept only for the verifier it was given for:
		// a writer that never saw it must not be able to send it elsewhere.
		if e.Captcha.SecretKey == "" && cur != nil && cur.Captcha.ServerURL == e.Captcha.ServerURL {
			e.Captcha.SecretKey = cur.Captcha.SecretKey
		}
		if e.Enabled && e.Captcha.SecretKey == "" {
			return nil, invalidAs(InvalidSecret, "captcha.secretKey", "is required to enable the protection, and again whenever serverURL changes")
		}
		if cur != nil && *cur == e {
			return nil, nil
		}
		return []events.Event{e}, nil
	}))
}
