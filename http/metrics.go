package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
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
}

func newMetrics(model *projections.ReadModel) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payauthz_http_requests_total", Help: "HTTP requests by API, method and status.",
	}, []string{"api", "method", "status"})
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payauthz_decisions_total", Help: "Authorization decisions by API, outcome (allow, deny, unauthenticated) and rule.",
	}, []string{"api", "outcome", "rule"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "payauthz_http_request_duration_seconds", Help: "HTTP request latency by API.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"api"})
	m.captchas = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payauthz_captcha_checks_total", Help: "Captcha checks of the protected public API by outcome (missing, passed, failed, unavailable).",
	}, []string{"outcome"})
	m.reg.MustRegister(m.requests, m.decisions, m.latency, m.captchas,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "payauthz_projection_position", Help: "Last log position applied by the projections.",
		}, func() float64 { return float64(model.AppliedPosition()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "payauthz_projection_events_total", Help: "Events applied by the projections since start.",
		}, func() float64 { return float64(model.AppliedEvents()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "payauthz_projection_lag_seconds", Help: "Age of the last applied event.",
		}, func() float64 {
			t := model.LastEventTime()
			if t.IsZero() {
				return 0
			}
			return time.Since(t).Seconds()
		}),
	)
	return m
}

// trackStoreLag adds the gauge of how many positions the projections are
// behind the log's end.
func (m *metrics) trackStoreLag(store events.Store, model *projections.ReadModel) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "payauthz_projection_lag_positions", Help: "Log positions not yet applied by the projections.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		last, err := store.LastPosition(ctx)
		if err != nil {
			return -1
		}
		return float64(last) - float64(model.AppliedPosition())
	}))
}

// captcha counts one captcha check of the protected public API.
func (m *metrics) captcha(o domain.CaptchaOutcome) { m.captchas.WithLabelValues(o.String()).Inc() }

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// instrument counts requests and decisions of one API and times them.
func (s *Server) instrument(api domain.API) echo.MiddlewareFunc {
	apiName := api.String()
	allowed := s.metrics.decisions.WithLabelValues(apiName, "allow", "granted")
	latency := s.metrics.latency.WithLabelValues(apiName)
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
			var forbidden *domain.ForbiddenError
			switch {
			case errors.As(err, &forbidden):
				s.metrics.decisions.WithLabelValues(apiName, "deny", forbidden.Rule).Inc()
				s.logDecision(c, apiName, status, "deny", forbidden.Rule)
			case errors.Is(err, errUnauthenticated):
				s.metrics.decisions.WithLabelValues(apiName, "unauthenticated", "authentication").Inc()
				s.logDecision(c, apiName, status, "unauthenticated", "authentication")
			case status < 500:
				allowed.Inc()
				outcome, rule := "allow", "granted"
				switch status {
				case http.StatusNotFound:
					outcome = "not-found"
				case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
					outcome, rule = "invalid", "request"
				case http.StatusUnprocessableEntity:
					outcome, rule = "unprocessable", "request"
				}
				s.logDecision(c, apiName, status, outcome, rule)
			default:
				s.logDecision(c, apiName, status, "error", "internal")
			}
			s.metrics.requests.WithLabelValues(apiName, c.Request().Method, strconv.Itoa(status)).Inc()
			latency.Observe(time.Since(start).Seconds())
			return err
		}
	}
}
