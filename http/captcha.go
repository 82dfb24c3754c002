package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// siteverifyReply is the reCAPTCHA siteverify answer. Score is present for
// v3 only.
type siteverifyReply struct {
	Success    bool     `json:"success"`
	Score      *float64 `json:"score,omitempty"`
	Action     string   `json:"action,omitempty"`
	Hostname   string   `json:"hostname,omitempty"`
	ErrorCodes []string `json:"error-codes,omitempty"`
}

// decodeSiteverify decodes a siteverify reply; anything that is not one
// JSON object with a boolean success is an error.
func decodeSiteverify(body []byte) (siteverifyReply, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return siteverifyReply{}, fmt.Errorf("siteverify: not JSON: %w", err)
	}
	if _, ok := raw["success"]; !ok {
		return siteverifyReply{}, errors.New("siteverify: no success field")
	}
	var r siteverifyReply
	if err := json.Unmarshal(body, &r); err != nil {
		return siteverifyReply{}, fmt.Errorf("siteverify: %w", err)
	}
	// encoding/json matches keys without regard to case, so "Success" or
	// "SCORE" would stand for the reply's success or score. siteverify
	// spells them in lower case: only those keys decide.
	r.Success, r.Score = false, nil
	if err := json.Unmarshal(raw["success"], &r.Success); err != nil {
		return siteverifyReply{}, fmt.Errorf("siteverify: success: %w", err)
	}
	if score, ok := raw["score"]; ok {
		if err := json.Unmarshal(score, &r.Score); err != nil {
			return siteverifyReply{}, fmt.Errorf("siteverify: score: %w", err)
		}
	}
	return r, nil
}

// passes applies the contract: success, and score >= soglia when a score
// is present (v3).
func (r siteverifyReply) passes(soglia float64) bool {
	return r.Success && (r.Score == nil || *r.Score >= soglia)
}

// captchaClient verifies tokens with a reCAPTCHA-compatible siteverify
// service over one pooled HTTP client. A check never outlasts the
// configured timeout, nor its request's waits (verify); at most checks run at once, and at most perClient
// of them for one client address: whatever the public sends, the service
// is asked no more than that, and no one address takes every slot.
type captchaClient struct {
	http *http.Client
	// warn paces the log of failed checks: a flood of them while the
	// service is down writes a line a second, not one per request.
	warn *rate.Limiter

	mu        sync.Mutex
	checks    int            // the bound of checks in flight
	perClient int            // the bound of one client's checks in flight
	inFlight  int            // guarded by mu
	byClient  map[string]int // client key → its checks in flight (at most checks entries); guarded by mu
}

// captchaChecksPerClient bounds one client address's checks in flight.
const captchaChecksPerClient = 4

// maxCaptchaToken bounds the token a check sends on (bytes). reCAPTCHA's
// and hCaptcha's tokens are a few KB at most, and the token is the
// public's to choose, up to the header block's 64 KiB: a longer one fails
// the check without the service being asked.
const maxCaptchaToken = 4096

// maxSiteverifyHeader bounds a siteverify reply's headers (bytes), as its
// body is bounded to 64 KiB: Go's client default is 10 MiB a reply, for
// each check in flight. A reply over it is not siteverify's (unavailable).
const maxSiteverifyHeader = 64 << 10

func newCaptchaClient(checks int) *captchaClient {
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 32,
		MaxConnsPerHost:     checks,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
		// MaxResponseHeaderBytes: see maxSiteverifyHeader.
		MaxResponseHeaderBytes: maxSiteverifyHeader,
	}
	// A redirect is not followed: it would send the secret on to wherever
	// it points. The 3xx is a reply that is not siteverify's (unavailable).
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &captchaClient{http: &http.Client{Transport: tr, Timeout: 60 * time.Second, CheckRedirect: noRedirect}, warn: rate.NewLimiter(1, 1),
		checks: checks, perClient: min(captchaChecksPerClient, checks), byClient: map[string]int{}}
}

// acquire takes a check's slot for client, or reports that none is free
// for it (all taken, or its own share).
func (cc *captchaClient) acquire(client string) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.inFlight >= cc.checks || cc.byClient[client] >= cc.perClient {
		return false
	}
	cc.inFlight++
	cc.byClient[client]++
	return true
}

// release gives back a slot acquire took for client.
func (cc *captchaClient) release(client string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.inFlight--
	if cc.byClient[client]--; cc.byClient[client] <= 0 {
		delete(cc.byClient, client)
	}
}

// errCaptchaBusy is a check not made: no slot was free for the client
// (HTTP 429).
var errCaptchaBusy = errors.New("too many captcha checks in flight")

// errCaptchaUnavailable is a siteverify failure: unreachable, timed out,
// non-200 or not a siteverify reply.
var errCaptchaUnavailable = errors.New("captcha service unavailable")

// verify asks the service about token for client (its address's key),
// for at most the configured timeout and never past ctx's wait deadline
// (projections.WaitBound: the request's waits, which end before
// --request-timeout cuts its connection). It returns whether the check
// passed, errCaptchaUnavailable (wrapped) when no answer could be had in
// that time (a request with none left does not ask), or errCaptchaBusy
// when no slot is free for client. A token longer than maxCaptchaToken
// fails unasked.
func (cc *captchaClient) verify(ctx context.Context, cfg events.CaptchaSettings, token, remoteIP, client string) (bool, error) {
	if len(token) > maxCaptchaToken {
		return false, nil
	}
	timeout := time.Duration(cfg.TimeoutMs) * time.Millisecond
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	timeout = projections.WaitBound(ctx, timeout)
	if timeout <= 0 {
		return false, fmt.Errorf("%w: the request's time ran out before the check", errCaptchaUnavailable)
	}
	if !cc.acquire(client) {
		return false, errCaptchaBusy
	}
	defer cc.release(client)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	form := url.Values{"secret": {cfg.SecretKey}, "response": {token}}
	if remoteIP != "" {
		form.Set("remoteip", remoteIP)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.ServerURL, strings.NewReader(form.Encode()))
	if err != nil {
		return false, fmt.Errorf("%w: bad serverURL", errCaptchaUnavailable)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := cc.http.Do(req)
	if err != nil {
		return false, fmt.Errorf("%w: %v", errCaptchaUnavailable, redactURLError(err))
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err != nil {
		return false, fmt.Errorf("%w: read: %v", errCaptchaUnavailable, redactURLError(err))
	}
	if res.StatusCode != http.StatusOK {
		return false, fmt.Errorf("%w: status %d", errCaptchaUnavailable, res.StatusCode)
	}
	reply, err := decodeSiteverify(bytes.TrimSpace(body))
	if err != nil {
		return false, fmt.Errorf("%w: %v", errCaptchaUnavailable, err)
	}
	return reply.passes(cfg.Soglia), nil
}

// redactURLError keeps the failure's kind but drops the URL, which could
// carry a secret in its query.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}
