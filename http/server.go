package httpapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"
	"golang.org/x/net/netutil"
	"golang.org/x/time/rate"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/http/console"
	"github.com/payauthz/payauthz/projections"
	"github.com/payauthz/payauthz/projections/logtree"
)

// Config configures the HTTP server.
type Config struct {
	// Build names the running build in payauthz_build_info.
	Build              BuildInfo
	HTTPAddr           string
	HTTPSAddr          string
	TLSCert, TLSKey    string
	ClientCA           string // PEM bundle; enables ssl authentication on the TLS listener
	SPIDTrustedProxies []netip.Prefix
	ConsistencyWait    time.Duration
	MaxBodyBytes       int64
	// SessionKeyFile holds the key that signs PAYAUTHZ_SESSION cookies; it is
	// created durably (32 random bytes, mode 0600) when missing, and refused
	// when shorter than 32 bytes. Replicas that share sessions must share
	// this file. Empty: a random in-memory key.
	SessionKeyFile string
	// SessionTTL is how long an anonymous session lasts from its issue,
	// however it is used (the cookie carries its signed issue time); 0
	// chooses DefaultSessionTTL.
	SessionTTL time.Duration
	// SessionClock is the clock of those lifetimes; nil is time.Now. A
	// test seam: the service keeps time.Now.
	SessionClock func() time.Time
	// ReadyAt is the log position the projections must reach before
	// /readyz answers 200.
	ReadyAt events.Position
	// DecisionLogger receives every authorization decision (message
	// "decision", attribute stream=decision) at level info; nil uses the
	// server's logger. DisableDecisionLog turns the decision log off.
	DecisionLogger     *slog.Logger
	DisableDecisionLog bool
	// DecisionPublisher and DecisionSubject, when both set, also publish
	// each decision as JSON on that NATS subject for collectors.
	DecisionPublisher Publisher
	DecisionSubject   string
	// SnapshotDir, when set, is the read-model snapshot dir whose history
	// auditors' questions about the past start from (else a full replay).
	SnapshotDir string
	// Limits bound what callers can make the server spend.
	Limits
	// HTTPListener and HTTPSListener, when set, are listeners the caller
	// bound already (for HTTPAddr and HTTPSAddr); Serve serves them
	// instead of binding its own.
	HTTPListener, HTTPSListener net.Listener
	// SecureCookies marks every cookie the service sets Secure on every
	// request: the public API's PAYAUTHZ_SESSION and the console's (as
	// Console.SecureCookies does for the console alone). For a plain-HTTP
	// listener behind a proxy that terminates TLS; otherwise cookies are
	// Secure on TLS requests only.
	SecureCookies bool
	// Console configures the management console at /console/ (on unless
	// Console.Disabled).
	Console console.Config
	// Log, when set, is the verifiable log whose verifier key, checkpoints
	// and proofs the server serves (backoffice_log.go).
	Log *logtree.Log
}

// Limits bound what callers can make the server spend; the zero value
// of each field chooses its default.
type Limits struct {
	// PasswordVerifications bounds the argon2id/bcrypt verifications, and
	// the hashes of the passwords and API keys writes carry, running at
	// once; 0 chooses DefaultPasswordVerifications.
	PasswordVerifications int
	// FailedLoginsPerAddress and FailedLoginsPerPrincipal are the bursts of
	// failed password verifications allowed per client address and per
	// (principal, client address) before 429s; they refill at one per
	// second and one per 5 s. 0 chooses 30 and 5.
	FailedLoginsPerAddress   int
	FailedLoginsPerPrincipal int
	// BodyTimeout bounds reading a whole request, headers and body: a
	// client that stalls is disconnected after it. Default 15 s.
	BodyTimeout time.Duration
	// RequestTimeout bounds a request from its headers to the end of its
	// response: the connection is cut after it. (The handler's context
	// keeps no deadline of its own: the store's calls keep their own
	// shorter timeouts, which a context deadline would replace. A
	// request's waits for the read models share a deadline a tenth of it
	// earlier: requestWaits.) Default 60 s.
	RequestTimeout time.Duration
	// MaxConnections bounds the open connections of each listener; further
	// clients wait in the kernel's accept queue. Default 4096.
	MaxConnections int
	// CaptchaChecks bounds the siteverify calls in flight (each may last
	// the protection's timeoutMs): a public request that finds them all
	// busy is answered 429 at once. Default 64.
	CaptchaChecks int
}

// Defaults of the request limits (see Config).
const (
	DefaultBodyTimeout    = 15 * time.Second
	DefaultRequestTimeout = 60 * time.Second
	DefaultMaxConnections = 4096
	DefaultCaptchaChecks  = 64
	// maxHeaderBytes bounds a request's header block; net/http answers a
	// larger one 431 itself.
	maxHeaderBytes = 64 << 10
	// headerTimeout bounds reading a request's headers.
	headerTimeout = 10 * time.Second
)

// Server serves the APIs over plain HTTP and, when configured, TLS.
type Server struct {
	cfg     Config
	echo    *echo.Echo
	store   events.LogReader
	model   *projections.ReadModel
	cmds    *commands.Handler
	logger  *slog.Logger
	metrics *metrics
	// decisions is the asynchronous decision log; nil when disabled.
	decisions *decisionLog
	// rebuilds admits one auditors' time-travel rebuild at a time.
	rebuilds chan struct{}
	session  *sessionSigner
	captcha  *captchaClient
	tls      *tls.Config
	// clientCAs verifies ssl callers' certificates; nil disables ssl.
	clientCAs *x509.CertPool
	// console serves /console/; nil when disabled.
	console *console.Console

	// failures paces the service log's 'request failed' lines (errors.go).
	failures *rate.Limiter
	// logins gates every password verification (budget and throttles).
	logins *loginGuard
	// anonymousWrites is the budget of writes (payments, pendenze) per
	// client address of anonymous callers, whom nothing else bounds.
	anonymousWrites *limiterTable

	mu        sync.Mutex
	listeners []net.Listener  // guarded by mu
	pending   []boundListener // bound by Listen, not yet served; guarded by mu
	bound     bool            // guarded by mu

	// Readiness after a lost connection (see watchConnection): down is set
	// while the store cannot reach its backend, catchUpTo is the log's last
	// position read right after the connection came back.
	down      atomic.Bool
	catchUpTo atomic.Uint64
	// logEnd shares the reads of the log's end that unreached consistency
	// tokens need (answerToken).
	logEnd logEnd

	openAPIState
}

// New builds the server and its routes; Serve starts it.
func New(cfg Config, store events.LogReader, model *projections.ReadModel, cmds *commands.Handler, logger *slog.Logger) (*Server, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.ConsistencyWait <= 0 {
		cfg.ConsistencyWait = 2 * time.Second
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	if cfg.CaptchaChecks <= 0 {
		cfg.CaptchaChecks = DefaultCaptchaChecks
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.SessionClock == nil {
		cfg.SessionClock = time.Now
	}
	signer, err := newSessionSigner(cfg.SessionKeyFile, cfg.SessionTTL, cfg.SessionClock)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, store: store, model: model, cmds: cmds, logger: logger, session: signer,
		captcha: newCaptchaClient(cfg.CaptchaChecks), metrics: newMetrics(model), rebuilds: make(chan struct{}, 1),
		failures: rate.NewLimiter(failureLogRate, failureLogBurst)}
	s.metrics.trackStoreLag(store, model)
	s.logins = newLoginGuard(cfg, logger, s.metrics.reg)
	s.anonymousWrites = newLimiterTable(anonymousWriteRate, anonymousWriteBurst, throttleEntries)
	s.metrics.registerBuildInfo(cfg.Build)
	if cmds != nil {
		cmds.SetObserver(s.metrics)
		cmds.SetHashBudget(s.logins)
	}
	if cfg.HTTPSAddr != "" {
		if s.tls, err = tlsConfig(cfg); err != nil {
			return nil, err
		}
		s.clientCAs = s.tls.ClientCAs
	}
	s.echo = s.routes()
	if err := s.mountConsole(s.echo); err != nil {
		return nil, err
	}
	s.decisions = newDecisionLog(cfg, logger, s.metrics.reg)
	return s, nil
}

// CheckTLS loads cfg's TLS key pair and client CA the way New does, so
// that a start-up can refuse bad files before it writes anything.
func CheckTLS(cfg Config) error {
	if cfg.HTTPSAddr == "" {
		return nil
	}
	_, err := tlsConfig(cfg)
	return err
}

func tlsConfig(cfg Config) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("tls key pair: %w", err)
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if cfg.ClientCA != "" {
		pem, err := os.ReadFile(cfg.ClientCA)
		if err != nil {
			return nil, fmt.Errorf("client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New("client CA: no certificate in the PEM bundle")
		}
		// Ask for a certificate but verify it in the ssl authenticator, so
		// that a missing or untrusted certificate is answered 401 like any
		// other failed authentication instead of a failed handshake.
		tc.ClientCAs = pool
		tc.ClientAuth = tls.RequestClientCert
	}
	return tc, nil
}

// Handler returns the server's http.Handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.echo }

// Listen binds the configured listeners without serving them yet, so that
// a start-up can fail on a busy port before it writes anything. Serve
// calls it when it has not been called.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bound {
		return nil
	}
	var lns []boundListener
	bind := func(addr string, tc *tls.Config) error {
		pre := s.cfg.HTTPListener
		if tc != nil {
			pre = s.cfg.HTTPSListener
		}
		if pre != nil {
			lns = append(lns, boundListener{ln: pre, tls: tc})
			return nil
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("listen %s: %w", addr, err)
		}
		lns = append(lns, boundListener{ln: ln, tls: tc})
		return nil
	}
	var err error
	if s.cfg.HTTPAddr != "" {
		err = bind(s.cfg.HTTPAddr, nil)
	}
	if err == nil && s.cfg.HTTPSAddr != "" {
		err = bind(s.cfg.HTTPSAddr, s.tls)
	}
	if err != nil {
		for _, b := range lns {
			_ = b.ln.Close()
		}
		return err
	}
	for _, b := range lns {
		s.listeners = append(s.listeners, b.ln)
	}
	s.bound, s.pending = true, lns
	return nil
}

// boundListener is a bound TCP listener and the TLS config it serves with.
type boundListener struct {
	ln  net.Listener
	tls *tls.Config
}

// drainTimeout is how long a shutdown lets the requests in flight finish.
const drainTimeout = 10 * time.Second

// Serve serves the configured addresses (binding them first unless Listen
// did) until ctx ends, then shuts down gracefully, letting requests in
// flight finish for up to drainTimeout; the connections of those still
// running then are closed, and a warning says so.
func (s *Server) Serve(ctx context.Context) error {
	if err := s.Listen(); err != nil {
		return err
	}
	s.mu.Lock()
	lns := s.pending
	s.pending = nil
	s.mu.Unlock()
	var servers []*http.Server
	errc := make(chan error, len(lns))
	for _, b := range lns {
		ln := netutil.LimitListener(b.ln, s.cfg.MaxConnections)
		if b.tls != nil {
			ln = tls.NewListener(ln, b.tls)
		}
		hs := &http.Server{Handler: s.echo, ReadHeaderTimeout: min(headerTimeout, s.cfg.BodyTimeout),
			ReadTimeout: s.cfg.BodyTimeout, WriteTimeout: s.cfg.RequestTimeout,
			IdleTimeout: 2 * time.Minute, MaxHeaderBytes: maxHeaderBytes,
			ErrorLog: slog.NewLogLogger(s.logger.Handler(), slog.LevelDebug)}
		if b.tls != nil {
			hs.ConnContext = withPeerCache
		}
		servers = append(servers, hs)
		go func() { errc <- hs.Serve(ln) }()
	}
	go s.watchConnection(ctx)
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drainTimeout)
	defer cancel()
	for _, hs := range servers {
		if err := hs.Shutdown(shutCtx); err != nil {
			// The drain's time is up: cut what is left (closing a
			// connection cancels its request's context) rather than let
			// it run on while the caller stops the projections and the
			// store under it.
			_ = hs.Close()
			s.logger.Warn("cut the requests still in flight when the shutdown's drain ended", "drain", drainTimeout)
		}
	}
	s.decisions.close()
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return serveErr
}

// Addrs returns the bound listener addresses (plain first), once Serve has
// started listening. It is a test seam: tests listen on port 0 and learn
// the port here; the service listens on the addresses it was given.
func (s *Server) Addrs() []net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]net.Addr, len(s.listeners))
	for i, l := range s.listeners {
		out[i] = l.Addr()
	}
	return out
}

// connectivity is implemented by stores that know whether they reach
// their backend (the JetStream store by its NATS connection, the KurrentDB
// store by its subscriptions to $all).
type connectivity interface{ Connected() bool }

// ready reports whether this replica may take traffic: the store is
// reachable and the projections have applied the log's last position as
// of start-up and as of the last reconnection.
func (s *Server) ready() (bool, string) {
	if s.down.Load() {
		return false, "disconnected from the event log"
	}
	applied := s.model.AppliedPosition()
	if applied < s.cfg.ReadyAt || uint64(applied) < s.catchUpTo.Load() {
		return false, "catching up"
	}
	return true, "ready"
}

// following refuses every request (503) once the read models stopped
// applying the log (projections.ReadModel.Stopped): they are behind it
// for good, and may hold part of a commit. serve then stops the process.
func (s *Server) following(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if err := s.model.Stopped(); err != nil {
			return err
		}
		return next(c)
	}
}

// connCheckInterval is how often watchConnection looks at the store.
const connCheckInterval = 100 * time.Millisecond

// watchConnection follows the store's connection until ctx ends. While it
// is down the replica is not ready (reads are still served from the
// projections; writes fail with 503). When it comes back, the replica is
// not ready again until its projections have applied the log's last
// position as read then, so a load balancer sends it traffic only once it
// has caught up with what the others wrote meanwhile.
func (s *Server) watchConnection(ctx context.Context) {
	cs, ok := s.store.(connectivity)
	if !ok {
		return
	}
	t := time.NewTicker(connCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !cs.Connected() {
			if !s.down.Swap(true) {
				s.logger.Warn("lost the connection to the event log; serving reads from the projections, refusing writes")
			}
			continue
		}
		if !s.down.Load() {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last, err := s.store.LastPosition(lctx)
		cancel()
		if err != nil {
			continue // stay not ready; try again at the next tick
		}
		s.catchUpTo.Store(uint64(last))
		s.down.Store(false)
		s.logger.Info("reconnected to the event log; catching up", "to", uint64(last),
			"applied", uint64(s.model.AppliedPosition()))
	}
}
