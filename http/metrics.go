package httpapi

import (
	"errors"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// metrics are the service's Prometheus metrics, on a registry of their own
// (so several servers can live in one test process).
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec   // api, method, status
	decisions *prometheus.CounterVec   // api, outcome, rule
	latency   *prometheus.HistogramVec // api
	captchas  *prometheus.CounterVec   // outcome

	decisionLatency *prometheus.HistogramVec // api, outcome
	appends         *prometheus.HistogramVec // outcome: ok, conflict, error
	retries         prometheus.Counter
}

func newMetrics(model *projections.ReadModel) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payauthz_http_requests_total", Help: "HTTP requests by API, method and status.",
	}, []string{"api", "method", "status"})
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payauthz_decisions_total", Help: "Authorization decisions by API, outcome (allow, deny, unauthenticated, not-found, unprocessable, invalid, throttled, error) and rule, as the decision log records them.",
	}, []string{"api", "outcome", "rule"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "payauthz_http_request_duration_seconds", Help: "HTTP request latency by API.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"api"})
	m.captchas = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payauthz_captcha_checks_total", Help: "Captcha checks of the protected public API by outcome (missing, passed, failed, unavailable; busy: not made, no slot free, 429).",
	}, []string{"outcome"})
	m.reg.MustRegister(m.requests, m.decisions, m.latency, m.captchas,
		collectors.NewGoCollector(),
		&pacedCollector{c: collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), every: processReadEvery},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "payauthz_projection_position", Help: "Last log position applied by the projections.",
		}, func() float64 { return float64(model.AppliedPosition()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "payauthz_projection_events_total", Help: "Events applied by the projections since start.",
		}, func() float64 { return float64(model.AppliedEvents()) }),
	)
	m.registerOperations(model)
	return m
}

// trackStoreLag adds the gauges of how far the projections are behind
// the log's end (one lagProbe measures both).
func (m *metrics) trackStoreLag(store events.LogReader, model *projections.ReadModel) {
	probe := &lagProbe{store: store, model: model, every: lagProbeEvery}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "payauthz_projection_lag_positions", Help: "Log positions not yet applied by the projections.",
	}, func() float64 {
		positions, _ := probe.measure()
		return positions
	}), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "payauthz_projection_lag_seconds",
		Help: "How far the projections are behind the log, in seconds: 0 when they applied its last position, else the age of the oldest commit not applied yet.",
	}, func() float64 {
		_, seconds := probe.measure()
		return seconds
	}))
}

// captcha counts one captcha check of the protected public API.
func (m *metrics) captcha(o domain.CaptchaOutcome) { m.captchas.WithLabelValues(o.String()).Inc() }

// captchaBusy counts a captcha check not made: no slot was free (429).
func (m *metrics) captchaBusy() { m.captchas.WithLabelValues("busy").Inc() }

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// instrument counts requests and decisions of one API and times them. A
// decision is counted with the outcome and rule the decision log gives it.
func (s *Server) instrument(api domain.API) echo.MiddlewareFunc {
	apiName := api.String()
	series := s.metrics.seriesOf(apiName)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			start := time.Now()
			err := next(c)
			status := http.StatusOK
			if err != nil {
				status, _ = fault(err)
			} else if resp, uerr := echo.UnwrapResponse(c.Response()); uerr == nil && resp.Status != 0 {
				status = resp.Status
			}
			outcome, rule := decisionOf(err, status)
			took := time.Since(start)
			series.decisions.get(decisionLabels{outcome, rule}).Inc()
			series.decisionLatency.get(outcome).Observe(took.Seconds())
			s.logDecision(c, apiName, status, outcome, rule, took)
			series.requests.get(requestLabels{methodLabel(c.Request().Method), status}).Inc()
			series.latency.Observe(took.Seconds())
			return err
		}
	}
}

// apiSeries are one API's series of the request metrics, each looked up
// in its vector once per label values: a request records into series it
// finds without a lock, where the vector's WithLabelValues hashes the
// values and takes the vector's lock, shared by every request of every
// API, on each call.
type apiSeries struct {
	latency         prometheus.Observer
	decisions       seriesCache[decisionLabels, prometheus.Counter]
	decisionLatency seriesCache[string, prometheus.Observer] // outcome
	requests        seriesCache[requestLabels, prometheus.Counter]
}

type decisionLabels struct{ outcome, rule string }

type requestLabels struct {
	method string
	status int
}

// seriesOf returns the series of the API named api.
func (m *metrics) seriesOf(api string) *apiSeries {
	return &apiSeries{
		latency: m.latency.WithLabelValues(api),
		decisions: seriesCache[decisionLabels, prometheus.Counter]{series: func(l decisionLabels) prometheus.Counter {
			return m.decisions.WithLabelValues(api, l.outcome, l.rule)
		}},
		decisionLatency: seriesCache[string, prometheus.Observer]{series: func(outcome string) prometheus.Observer {
			return m.decisionLatency.WithLabelValues(api, outcome)
		}},
		requests: seriesCache[requestLabels, prometheus.Counter]{series: func(l requestLabels) prometheus.Counter {
			return m.requests.WithLabelValues(api, l.method, strconv.Itoa(l.status))
		}},
	}
}

// seriesCache holds the series of one vector already looked up, by label
// values. Reads load an immutable map through an atomic pointer; a label
// value not seen before takes the mutex and publishes a copy with it. The
// label values are few (an API's outcomes, rules, methods and statuses),
// so the copies stop after the first requests.
type seriesCache[K comparable, V any] struct {
	seen   atomic.Pointer[map[K]V]
	mu     sync.Mutex
	series func(K) V // the vector's lookup, WithLabelValues
}

func (c *seriesCache[K, V]) get(k K) V {
	if m := c.seen.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.seen.Load()
	if old != nil {
		if v, ok := (*old)[k]; ok {
			return v
		}
	}
	next := make(map[K]V, 1)
	if old != nil {
		next = maps.Clone(*old)
	}
	v := c.series(k)
	next[k] = v
	c.seen.Store(&next)
	return v
}

// deniedBy returns the rule of a denial. It looks only at an error: the
// target errors.As writes to lives on the heap, and a request that ends
// well must not pay for it.
func deniedBy(err error) (rule string, ok bool) {
	if err == nil {
		return "", false
	}
	var forbidden *domain.ForbiddenError
	if !errors.As(err, &forbidden) {
		return "", false
	}
	return forbidden.Rule, true
}

// decisionOf names the outcome and rule of a request that ended with err
// and status: allow, deny, unauthenticated, not-found, unprocessable (the
// words and rules of audit.Explain, which answers the same question from
// the log), or throttled, invalid or error, which Explain never answers.
func decisionOf(err error, status int) (outcome, rule string) {
	if status == http.StatusForbidden { // fault answers every denial, and only a denial, with 403
		if rule, ok := deniedBy(err); ok {
			return audit.OutcomeDeny, rule
		}
	}
	switch {
	case errors.Is(err, errUnauthenticated), status == http.StatusUnauthorized:
		return audit.OutcomeUnauthenticated, audit.RuleAuthentication
	case status == http.StatusTooManyRequests:
		return "throttled", audit.RuleAuthentication
	case status >= 500:
		return "error", "internal"
	case status == http.StatusNotFound:
		return audit.OutcomeNotFound, audit.RuleGranted
	case status == http.StatusUnprocessableEntity:
		return audit.OutcomeUnprocessable, audit.RuleRequest
	case status >= 400 && status != http.StatusConflict:
		// 400, 405, 413, 415: the request itself is refused. Only a 409 is
		// an allowed request that did not take (its write conflicted).
		return "invalid", audit.RuleRequest
	}
	return audit.OutcomeAllow, audit.RuleGranted
}
