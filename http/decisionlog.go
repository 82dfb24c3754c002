package httpapi

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
)

// Decision is one authorization decision of the HTTP layer, as recorded in
// the decision log. It holds identifiers only: never a password, a
// certificate, a cookie or a request body.
type Decision struct {
	Time      time.Time `json:"time"`
	RequestID string    `json:"requestId,omitempty"`
	Principal string    `json:"principal,omitempty"` // "" for anonymous and unauthenticated callers
	Kind      string    `json:"kind,omitempty"`      // OPERATOR, APPLICATION, CITIZEN, ANONYMOUS
	Auth      string    `json:"auth"`
	API       string    `json:"api"`
	Method    string    `json:"method"`
	Route     string    `json:"route"` // the route template, e.g. /pendenze/rs/basic/v2/pendenze/:idA2A/:idPendenza
	Resource  []string  `json:"resource,omitempty"`
	Outcome   string    `json:"outcome"` // allow, deny, unauthenticated, not-found, invalid, unprocessable, throttled, error
	Rule      string    `json:"rule"`
	Status    int       `json:"status"`
	// Position is the log position of the read-model state the decision
	// rested on (see caller.position): explain at this position replays
	// it. A request refused before a caller was established (no or wrong
	// credentials, an auth type the API does not accept) read no principal;
	// it carries the position applied when it was logged.
	Position uint64 `json:"position"`
	// ClientAddr is the connecting address (host:port) of the caller;
	// forwarded headers are not believed.
	ClientAddr string `json:"clientAddr,omitempty"`
	// DurationMS is how long the request took, in milliseconds (µs precision).
	DurationMS float64 `json:"durationMs"`

	// barrier, when set, is closed by the writer instead of writing: it
	// marks that everything queued before it was written (the tests'
	// decisionLog.flush).
	barrier chan struct{}
}

// loggedResourceBytes is how much of a path parameter, and of an {auth}
// segment that named no caller, a decision keeps: the longest identifier
// the service accepts (commands.MaxPrincipalLength). The path is the
// caller's to choose, up to 32 KiB (headerLimit), authenticated or not,
// and the buffer holds 8192 decisions.
const loggedResourceBytes = commands.MaxPrincipalLength

// Publisher publishes a message on a subject without waiting for anyone
// (a *nats.Conn is one).
type Publisher interface {
	Publish(subject string, data []byte) error
}

// decisionLogBuffer bounds the decisions waiting to be written; beyond it
// decisions are dropped and counted, so a slow sink never slows requests.
const decisionLogBuffer = 8192

// decisionLog writes decisions from one goroutine: the request path only
// does a non-blocking channel send.
type decisionLog struct {
	ch        chan Decision
	logger    *slog.Logger
	pub       Publisher
	subject   string
	dropped   prometheus.Counter
	published prometheus.Counter
	failed    prometheus.Counter
	buf       []byte // writer-only: the JSON of the decision being published

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// newDecisionLog starts the writer of cfg's decision log and registers its
// counters on reg; it returns nil when the decision log is disabled (every
// method of a nil *decisionLog that the server calls is guarded).
func newDecisionLog(cfg Config, logger *slog.Logger, reg prometheus.Registerer) *decisionLog {
	if cfg.DisableDecisionLog {
		return nil
	}
	d := &decisionLog{ch: make(chan Decision, decisionLogBuffer), logger: cfg.DecisionLogger,
		pub: cfg.DecisionPublisher, subject: cfg.DecisionSubject,
		stop: make(chan struct{}), done: make(chan struct{})}
	if d.logger == nil {
		d.logger = logger
	}
	if d.subject == "" {
		d.pub = nil
	}

	d.dropped = prometheus.NewCounter(prometheus.CounterOpts{Name: "payauthz_decision_log_dropped_total",
		Help: "Decisions not recorded because the decision log's buffer was full."})
	d.published = prometheus.NewCounter(prometheus.CounterOpts{Name: "payauthz_decision_log_published_total",
		Help: "Decisions published to the NATS decision subject."})
	d.failed = prometheus.NewCounter(prometheus.CounterOpts{Name: "payauthz_decision_log_publish_errors_total",
		Help: "Decisions the NATS decision subject refused."})
	reg.MustRegister(d.dropped, d.published, d.failed)
	go d.run()
	return d
}

// record queues d without blocking; a full buffer drops it.
func (l *decisionLog) record(d Decision) {
	select {
	case l.ch <- d:
	default:
		l.dropped.Inc()
	}
}

// decisionLogTick is how often the writer drains the buffer. Draining in
// batches rather than waking per decision keeps the scheduler out of the
// request path's way; at 8192 slots it absorbs about 1.6M decisions/s.
const decisionLogTick = 5 * time.Millisecond

func (l *decisionLog) run() {
	defer close(l.done)
	t := time.NewTicker(decisionLogTick)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			l.drain()
		case <-l.stop:
			l.drain()
			return
		}
	}
}

// drain writes every decision queued now.
func (l *decisionLog) drain() {
	for {
		select {
		case d := <-l.ch:
			l.write(d)
		default:
			return
		}
	}
}

func (l *decisionLog) write(d Decision) {
	if d.barrier != nil {
		close(d.barrier)
		return
	}
	l.logger.LogAttrs(context.Background(), slog.LevelInfo, "decision",
		slog.String("stream", "decision"),
		slog.String("request_id", d.RequestID),
		slog.String("principal", d.Principal),
		slog.String("kind", d.Kind),
		slog.String("auth", d.Auth),
		slog.String("api", d.API),
		slog.String("method", d.Method),
		slog.String("route", d.Route),
		slog.Any("resource", d.Resource),
		slog.String("outcome", d.Outcome),
		slog.String("rule", d.Rule),
		slog.Int("status", d.Status),
		slog.Uint64("position", d.Position),
		slog.String("client_addr", d.ClientAddr),
		slog.Float64("duration_ms", d.DurationMS))
	if l.pub == nil {
		return
	}
	// Publish copies the payload into the connection's buffer, so buf is
	// reused for the next decision.
	l.buf = d.appendJSON(l.buf[:0])
	if err := l.pub.Publish(l.subject, l.buf); err != nil {
		l.failed.Inc()
		return
	}
	l.published.Inc()
}

// close writes what is queued and stops the writer. A decision recorded
// afterwards (a request still running past the shutdown's grace) stays in
// the buffer unwritten, or is dropped and counted once the buffer is full.
func (l *decisionLog) close() {
	if l == nil {
		return
	}
	l.stopOnce.Do(func() { close(l.stop) })
	<-l.done
}

// logDecision records the decision of one request in the decision log.
func (s *Server) logDecision(c *echo.Context, api string, status int, outcome, rule string, took time.Duration) {
	if s.decisions == nil {
		return
	}
	cl := callerOf(c)
	d := Decision{Time: time.Now(), RequestID: requestID(c), API: api, Method: methodLabel(c.Request().Method), Route: c.Path(),
		Outcome: outcome, Rule: rule, Status: status, Position: uint64(cl.position),
		ClientAddr: c.Request().RemoteAddr, DurationMS: float64(took.Microseconds()) / 1000}
	switch {
	case cl.auth == (domain.AuthType{}):
		d.Auth = loggedValue(authSegment(c)) // failed before a caller was established
		d.Position = uint64(s.model.AppliedPosition())
	case cl.api == domain.APINodo:
		d.Auth, d.Kind = cl.auth.String(), "NODE_CONNECTOR"
		// The connector's username or DN, never its password; and not a
		// username whose credentials did not verify (401, 429) or were
		// never checked (a bad path id, an unknown route, a 401 answered
		// 503 for its consistency token): like every unauthenticated
		// caller's, it names no one.
		if cl.nodeVerified {
			d.Principal = cl.node.user
		}
		if cl.node.dn != "" {
			d.Principal = cl.node.dn
		}
	default:
		d.Auth, d.Principal, d.Kind = cl.auth.String(), cl.principal.Name, cl.principal.Kind.String()
	}
	if pv := c.PathValues(); len(pv) > 0 {
		d.Resource = make([]string, len(pv))
		for i := range pv {
			d.Resource[i] = loggedValue(pv[i].Value)
		}
	}
	s.decisions.record(d)
}

// loggedValue is at most loggedResourceBytes of s, copied when cut: a path
// value is a substring of the request's path, which a cut substring would
// keep alive in the buffer.
func loggedValue(s string) string {
	if len(s) <= loggedResourceBytes {
		return s
	}
	return strings.Clone(truncateUTF8(s, loggedResourceBytes))
}

// authSegment returns the {auth} segment of /{api}/rs/{auth}/v{N}/... for
// requests that failed before a caller was established.
func authSegment(c *echo.Context) string {
	p := c.Request().URL.Path
	const marker = "/rs/"
	for i := 0; i+len(marker) <= len(p); i++ {
		if p[i:i+len(marker)] == marker {
			rest := p[i+len(marker):]
			for j := 0; j < len(rest); j++ {
				if rest[j] == '/' {
					return rest[:j]
				}
			}
			return rest
		}
	}
	return ""
}

// appendJSON appends d as the JSON object encoding/json would produce for
// it (same field names and omissions), without reflection: it runs once
// per decision on the writer goroutine.
func (d *Decision) appendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = d.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	field := func(name, v string, omitEmpty bool) {
		if omitEmpty && v == "" {
			return
		}
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = appendJSONString(b, v)
	}
	field("requestId", d.RequestID, true)
	field("principal", d.Principal, true)
	field("kind", d.Kind, true)
	field("auth", d.Auth, false)
	field("api", d.API, false)
	field("method", d.Method, false)
	field("route", d.Route, false)
	if len(d.Resource) > 0 {
		b = append(b, `,"resource":[`...)
		for i, r := range d.Resource {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, r)
		}
		b = append(b, ']')
	}
	field("outcome", d.Outcome, false)
	field("rule", d.Rule, false)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(d.Status), 10)
	b = append(b, `,"position":`...)
	b = strconv.AppendUint(b, d.Position, 10)
	field("clientAddr", d.ClientAddr, true)
	b = append(b, `,"durationMs":`...)
	b = strconv.AppendFloat(b, d.DurationMS, 'f', -1, 64)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes it: quotes, backslashes and control characters escaped, <, > and
// & as \u003c \u003e \u0026, U+2028 and U+2029 escaped, and invalid UTF-8
// replaced by \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
