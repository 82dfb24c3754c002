package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/kurrentdb"
	httpapi "github.com/payauthz/payauthz/http"
	"github.com/payauthz/payauthz/http/console"
)

// Config is the whole configuration of `payauthz serve`. Defaults live in
// defaultConfig; flags and PAYAUTHZ_* environment variables fill it (a flag
// given on the command line wins over the environment).
type Config struct {
	DataDir            string
	HTTPAddr           string
	HTTPSAddr          string
	TLSCert            string
	TLSKey             string
	ClientCA           string
	SPIDTrustedProxies []string
	AdminPrincipal     string
	AdminPasswordFile  string
	NATSURL            string
	StreamReplicas     int
	Store              string
	ConsistencyWait    time.Duration
	MaxBodyBytes       int64
	LogLevel           string
	// DecisionLog is where authorization decisions are written: "log" (the
	// service's log stream), "off", or a file path (JSON lines, appended).
	DecisionLog string
	// DecisionLogSubject, when set, also publishes each decision as JSON on
	// this NATS subject (on the event log's NATS connection).
	DecisionLogSubject string
	SnapshotInterval   time.Duration
	SnapshotMinEvents  uint64
	// Limits on what callers can make the server spend (see httpapi.Limits).
	httpapi.Limits
	// Console serves the management console at /console/.
	Console            bool
	ConsoleIdleTimeout time.Duration
	ConsoleMaxAge      time.Duration
	// SecureCookies marks every cookie the service sets (the public API's
	// session, the console's) Secure on every request: a plain-HTTP
	// listener behind a TLS-terminating proxy.
	SecureCookies bool
	// SessionTTL is how long an anonymous session of the public Pagamento
	// API lasts from its issue, however it is used (httpapi.Config.SessionTTL).
	SessionTTL time.Duration
	// ConsoleSecureCookies is the former name of SecureCookies, from when
	// it covered the console's cookies only; either one set marks every
	// cookie Secure, so a deployment that sets it keeps working.
	ConsoleSecureCookies bool
	// CheckpointInterval is how often a signed checkpoint of the log's
	// Merkle tree is appended while the log grows (0: only at shutdown).
	CheckpointInterval time.Duration
	// LogSigningKey is the file of the checkpoints' Ed25519 signing key
	// ("" is <data-dir>/log-signing.key, generated on first start).
	LogSigningKey string
	// LogSigner names a generated key (each replica may have its own).
	LogSigner string
	// LiveLogAccess lets backup and the audit tools read the embedded log
	// while the service runs (jetstream.Config.LocalReader).
	LiveLogAccess bool
}

func defaultConfig() Config {
	return Config{
		DataDir:         "./data",
		HTTPAddr:        ":8080",
		AdminPrincipal:  "admin",
		StreamReplicas:  1,
		Store:           "jetstream",
		ConsistencyWait: 2 * time.Second,
		MaxBodyBytes:    1 << 20,
		LogLevel:        "info",
		DecisionLog:     "log",
		// A snapshot a minute once 10,000 events have been applied since
		// the previous one: cheap next to replaying, and bounds the tail.
		SnapshotInterval:  time.Minute,
		SnapshotMinEvents: 10_000,

		Limits: httpapi.Limits{
			PasswordVerifications:    httpapi.DefaultPasswordVerifications(),
			FailedLoginsPerAddress:   httpapi.DefaultFailedLoginsPerAddress,
			FailedLoginsPerPrincipal: httpapi.DefaultFailedLoginsPerPrincipal,
			BodyTimeout:              httpapi.DefaultBodyTimeout,
			RequestTimeout:           httpapi.DefaultRequestTimeout,
			MaxConnections:           httpapi.DefaultMaxConnections,
			CaptchaChecks:            httpapi.DefaultCaptchaChecks,
		},
		Console:            true,
		ConsoleIdleTimeout: console.DefaultIdleTimeout,
		ConsoleMaxAge:      console.DefaultMaxAge,
		SessionTTL:         httpapi.DefaultSessionTTL,
		CheckpointInterval: time.Minute,
		LogSigner:          defaultSigner(),
		LiveLogAccess:      true,
	}
}

// minSessionTTL is the shortest --session-ttl: a session's times are whole
// seconds, and a payer must be able to come back from the PSP in it.
const minSessionTTL = time.Minute

// bindFlags registers every flag of c on fs.
func (c *Config) bindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "event log (embedded NATS file store), keys, generated admin password")
	fs.StringVar(&c.HTTPAddr, "http-addr", c.HTTPAddr, "plain HTTP listener (basic, spid, apikey, public)")
	fs.StringVar(&c.HTTPSAddr, "https-addr", c.HTTPSAddr, "TLS listener (needs --tls-cert and --tls-key)")
	fs.StringVar(&c.TLSCert, "tls-cert", c.TLSCert, "TLS certificate (PEM) of the --https-addr listener")
	fs.StringVar(&c.TLSKey, "tls-key", c.TLSKey, "TLS private key (PEM) of the --https-addr listener")
	fs.StringVar(&c.ClientCA, "client-ca", c.ClientCA, "client CA bundle (PEM); enables ssl authentication")
	fs.StringSliceVar(&c.SPIDTrustedProxies, "spid-trusted-proxies", c.SPIDTrustedProxies, "CIDRs allowed to send X-SPID-FISCALNUMBER")
	fs.StringVar(&c.AdminPrincipal, "admin-principal", c.AdminPrincipal, "first-start administrator principal")
	fs.StringVar(&c.AdminPasswordFile, "admin-password-file", c.AdminPasswordFile, "file holding the first-start administrator password")
	fs.BoolVar(&c.LiveLogAccess, "live-log-access", c.LiveLogAccess, "embedded log: let backup and the audit tools read it while the service runs (loopback listener, a secret per start in <data-dir>/"+liveLogFileName+")")
	fs.StringVar(&c.NATSURL, "nats-url", c.NATSURL, "external NATS server or cluster (comma-separated URLs); empty runs an embedded server")
	fs.IntVar(&c.StreamReplicas, "stream-replicas", c.StreamReplicas, "JetStream stream replicas on an external cluster (1 or 3)")
	fs.StringVar(&c.Store, "store", c.Store, "event store: jetstream, or a KurrentDB/EventStoreDB connection string (kurrentdb://host:2113?tls=false, esdb://, kurrentdb+discover://)")
	fs.DurationVar(&c.ConsistencyWait, "consistency-wait", c.ConsistencyWait, "how long a request waits for the read models to reach a position (its consistency token, its own write, the log as of start-up)")
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", c.MaxBodyBytes, "largest accepted request body")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error")
	fs.StringVar(&c.DecisionLog, "decision-log", c.DecisionLog, "authorization decisions: log (the service log), off, or a file path (JSON lines)")
	fs.StringVar(&c.DecisionLogSubject, "decision-log-subject", c.DecisionLogSubject, "also publish each decision as JSON on this NATS subject of the --nats-url server")
	fs.DurationVar(&c.SnapshotInterval, "snapshot-interval", c.SnapshotInterval, "how often read-model snapshots are written to <data-dir>/snapshots (0 disables them, and their use at start)")
	fs.IntVar(&c.PasswordVerifications, "password-verifications", c.PasswordVerifications, "argon2id/bcrypt verifications, and hashes of the passwords writes carry, running at once (default: half the cores, at most 12); more wait 200ms, then 429")
	fs.IntVar(&c.FailedLoginsPerAddress, "failed-logins-per-address", c.FailedLoginsPerAddress, "burst of failed password logins per client address (refills 1/s) before 429")
	fs.IntVar(&c.FailedLoginsPerPrincipal, "failed-logins-per-principal", c.FailedLoginsPerPrincipal, "burst of failed password logins per principal and client address (refills 1 per 5s) before 429")
	fs.DurationVar(&c.BodyTimeout, "body-timeout", c.BodyTimeout, "deadline for reading a whole request (headers and body)")
	fs.DurationVar(&c.RequestTimeout, "request-timeout", c.RequestTimeout, "deadline for a request from its headers to the end of its response")
	fs.IntVar(&c.MaxConnections, "max-connections", c.MaxConnections, "open connections per listener; more wait to be accepted")
	fs.IntVar(&c.CaptchaChecks, "captcha-checks", c.CaptchaChecks, "captcha siteverify calls in flight at once; a protected public request beyond them is 429")
	fs.DurationVar(&c.CheckpointInterval, "checkpoint-interval", c.CheckpointInterval, "how often a signed checkpoint of the log is appended while the log grows (0: only at shutdown)")
	fs.StringVar(&c.LogSigningKey, "log-signing-key", c.LogSigningKey, "file of the checkpoints' signing key (default <data-dir>/log-signing.key, generated on first start)")
	fs.StringVar(&c.LogSigner, "log-signer", c.LogSigner, "name of the signing key generated on first start (one per replica)")
	fs.Uint64Var(&c.SnapshotMinEvents, "snapshot-min-events", c.SnapshotMinEvents, "events applied since the last snapshot before another is written")
	fs.BoolVar(&c.Console, "console", c.Console, "serve the management console at /console/ (--console=false answers 404)")
	fs.DurationVar(&c.ConsoleIdleTimeout, "console-idle-timeout", c.ConsoleIdleTimeout, "a console session unused this long ends")
	fs.DurationVar(&c.ConsoleMaxAge, "console-max-age", c.ConsoleMaxAge, "a console session ends this long after login")
	fs.BoolVar(&c.SecureCookies, "secure-cookies", c.SecureCookies, "mark every cookie (the public API's session, the console's) Secure on every request (behind a proxy that terminates TLS); otherwise on TLS requests only")
	fs.DurationVar(&c.SessionTTL, "session-ttl", c.SessionTTL, "an anonymous session of the public Pagamento API (its PAYAUTHZ_SESSION cookie) ends this long after it started, used or not (at least 1m)")
	fs.BoolVar(&c.ConsoleSecureCookies, "console-secure-cookies", c.ConsoleSecureCookies, "former name of --secure-cookies: marks every cookie Secure too")
	fromEnv(fs)
}

// envAnnotation marks a flag that its PAYAUTHZ_<NAME> variable may set.
const envAnnotation = "payauthz-env"

// fromEnv lets the PAYAUTHZ_<NAME> variables set the named flags of fs,
// every flag when none is named, and names the variable in each flag's
// help ("[$PAYAUTHZ_DATA_DIR]"). Only configuration reads the environment
// (where the log is, how the service runs); an audit question or a file to
// write never does, so a stray PAYAUTHZ_PRINCIPAL changes no answer.
func fromEnv(fs *pflag.FlagSet, names ...string) {
	mark := func(f *pflag.Flag) {
		_ = fs.SetAnnotation(f.Name, envAnnotation, nil)
		f.Usage += " [$" + envName(f) + "]"
	}
	if len(names) == 0 {
		fs.VisitAll(mark)
	}
	for _, n := range names {
		mark(fs.Lookup(n))
	}
}

// applyEnv sets every flag marked by fromEnv and not given on the command
// line from its PAYAUTHZ_<NAME> variable (dashes become underscores). A
// bad value is a usage error, as on the command line.
func applyEnv(fs *pflag.FlagSet) error {
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		if _, ok := f.Annotations[envAnnotation]; !ok || f.Changed {
			return
		}
		name := envName(f)
		if v, ok := os.LookupEnv(name); ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
	})
	if len(errs) > 0 {
		return usageErrorf("%w", errors.Join(errs...))
	}
	return nil
}

// envName is the variable that may set f: PAYAUTHZ_ and its name in
// capitals, dashes as underscores.
func envName(f *pflag.Flag) string {
	return "PAYAUTHZ_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
}

// Validate reports every problem of c at once.
func (c Config) Validate() error {
	var errs []error
	if c.DataDir == "" {
		errs = append(errs, errors.New("--data-dir is required"))
	}
	if c.HTTPAddr == "" && c.HTTPSAddr == "" {
		errs = append(errs, errors.New("one of --http-addr and --https-addr is required"))
	}
	for _, l := range []struct{ flag, addr string }{{"--http-addr", c.HTTPAddr}, {"--https-addr", c.HTTPSAddr}} {
		// Checked as healthcheck reads --http-addr (readyzURL), so that a
		// value without a port is a usage error with the others, not a
		// failure to listen once the rest is checked.
		if _, _, err := net.SplitHostPort(l.addr); l.addr != "" && err != nil {
			errs = append(errs, fmt.Errorf("%s %q: want host:port (e.g. :8080, 127.0.0.1:8080)", l.flag, l.addr))
		}
	}
	if c.HTTPSAddr != "" && (c.TLSCert == "" || c.TLSKey == "") {
		errs = append(errs, errors.New("--https-addr needs --tls-cert and --tls-key"))
	}
	if (c.TLSCert != "" || c.TLSKey != "") && c.HTTPSAddr == "" {
		// Else ignored: a deployment meaning to turn TLS on would serve
		// plain HTTP alone.
		errs = append(errs, errors.New("--tls-cert and --tls-key need --https-addr"))
	}
	if c.ClientCA != "" && c.HTTPSAddr == "" {
		errs = append(errs, errors.New("--client-ca needs --https-addr"))
	}
	for _, p := range c.SPIDTrustedProxies {
		if _, err := netip.ParsePrefix(strings.TrimSpace(p)); err != nil {
			errs = append(errs, fmt.Errorf("--spid-trusted-proxies: %q is not a CIDR", p))
		}
	}
	if err := commands.CheckAdmin(c.AdminPrincipal, ""); err != nil {
		errs = append(errs, fmt.Errorf("--admin-principal: %w", err))
	}
	if c.StreamReplicas != 1 && c.StreamReplicas != 3 {
		errs = append(errs, errors.New("--stream-replicas must be 1 or 3"))
	}
	if c.StreamReplicas == 3 && c.NATSURL == "" && c.Store == "jetstream" {
		// The embedded server is one node: it would refuse the stream only
		// once its files are written.
		errs = append(errs, errors.New("--stream-replicas 3 needs --nats-url: replicas live on an external NATS cluster"))
	}
	// Both configure the JetStream store, which a KurrentDB --store never
	// opens: ignored, a deployment meaning to run on its NATS cluster would
	// run on KurrentDB alone.
	if err := checkNATSBeside(c.Store, c.NATSURL); err != nil {
		errs = append(errs, err)
	}
	if kurrentdb.IsConnectionString(c.Store) && c.StreamReplicas == 3 {
		errs = append(errs, errors.New("--stream-replicas 3 needs --store jetstream: a KurrentDB --store replicates by its own cluster"))
	}
	if err := checkStore(c.Store); err != nil {
		errs = append(errs, err)
	}
	if err := checkNATSURL(c.NATSURL); err != nil {
		errs = append(errs, err)
	}
	if c.ConsistencyWait <= 0 {
		errs = append(errs, errors.New("--consistency-wait must be positive"))
	}
	if c.ConsoleIdleTimeout <= 0 || c.ConsoleMaxAge <= 0 {
		errs = append(errs, errors.New("--console-idle-timeout and --console-max-age must be positive"))
	}
	if c.SessionTTL < minSessionTTL {
		errs = append(errs, fmt.Errorf("--session-ttl must be at least %v", minSessionTTL))
	}
	if c.SnapshotInterval < 0 {
		errs = append(errs, errors.New("--snapshot-interval must not be negative"))
	}
	if c.CheckpointInterval < 0 {
		errs = append(errs, errors.New("--checkpoint-interval must not be negative"))
	}
	if c.LogSigner == "" || strings.ContainsAny(c.LogSigner, "+ \t\n") {
		errs = append(errs, fmt.Errorf("--log-signer %q: want a name without spaces or '+'", c.LogSigner))
	}
	if c.MaxBodyBytes < 1024 {
		errs = append(errs, errors.New("--max-body-bytes must be at least 1024"))
	}
	if c.PasswordVerifications < 1 {
		errs = append(errs, errors.New("--password-verifications must be at least 1"))
	}
	if c.FailedLoginsPerAddress < 1 || c.FailedLoginsPerPrincipal < 1 {
		errs = append(errs, errors.New("--failed-logins-per-address and --failed-logins-per-principal must be at least 1"))
	}
	if c.BodyTimeout <= 0 || c.RequestTimeout <= 0 {
		errs = append(errs, errors.New("--body-timeout and --request-timeout must be positive"))
	}
	if c.RequestTimeout > 0 && c.RequestTimeout <= c.ConsistencyWait {
		errs = append(errs, errors.New("--request-timeout must exceed --consistency-wait"))
	}
	if c.MaxConnections < 1 {
		errs = append(errs, errors.New("--max-connections must be at least 1"))
	}
	if c.CaptchaChecks < 1 {
		errs = append(errs, errors.New("--captcha-checks must be at least 1"))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("--log-level %q: want debug, info, warn or error", c.LogLevel))
	}
	if c.DecisionLog == "" {
		errs = append(errs, errors.New("--decision-log must be log, off or a file path"))
	}
	if c.DecisionLogSubject != "" {
		if err := checkDecisionLogSubject(c.DecisionLogSubject); err != nil {
			errs = append(errs, err)
		}
	}
	if c.DecisionLogSubject != "" && (c.NATSURL == "" || c.Store != "jetstream") {
		// The embedded server admits no subscriber of it (its one listener
		// is the audit tools' read-only access), and KurrentDB is no NATS.
		errs = append(errs, errors.New("--decision-log-subject needs --nats-url: collectors subscribe on the NATS server the log lives on"))
	}
	return errors.Join(errs...)
}

// checkDecisionLogSubject is the one check of a --decision-log-subject
// value: a literal subject (no spaces, wildcards or empty tokens) the NATS
// server gives no meaning of its own. Under the event log's prefix the
// stream would capture the decision JSON as a commit and every replica's
// read models would stop at it; a $-subject is the server's (JetStream API
// commands such as $JS.API.STREAM.PURGE.<stream>, $SYS, $KV, $O), and
// _INBOX. holds the replies of requests.
func checkDecisionLogSubject(subject string) error {
	switch {
	case strings.ContainsAny(subject, " \t*>") || strings.HasPrefix(subject, ".") || strings.HasSuffix(subject, "."):
		return fmt.Errorf("--decision-log-subject %q: not a NATS subject to publish on", subject)
	case strings.HasPrefix(subject, jetstream.DefaultSubjectPrefix+"."):
		return fmt.Errorf("--decision-log-subject %q: under the event log's subjects (%s.>): decisions would be appended to the event log",
			subject, jetstream.DefaultSubjectPrefix)
	case strings.HasPrefix(subject, "$") || strings.HasPrefix(subject, "_INBOX."):
		return fmt.Errorf("--decision-log-subject %q: a subject reserved by NATS ($-subjects are the server's and JetStream's API, _INBOX. the replies of requests)", subject)
	}
	return nil
}

// checkStore is the one check of a --store value, serve's and the log
// readers' (audit, backup): jetstream, or a KurrentDB connection string
// that parses. Its message never holds the value's password.
func checkStore(store string) error {
	switch {
	case store == "jetstream":
		return nil
	case kurrentdb.IsConnectionString(store):
		if _, err := kurrentdb.ParseConnectionString(store); err != nil {
			return fmt.Errorf("--store: %w", err)
		}
		return nil
	}
	return fmt.Errorf("--store %q: want jetstream or a kurrentdb://, kurrentdb+discover:// or esdb:// connection string",
		kurrentdb.Redact(store))
}

// checkNATSBeside is the one check, serve's and the log readers', that a
// --nats-url goes with the JetStream store: a KurrentDB --store never
// opens it, so which log was meant is not the command's to guess.
func checkNATSBeside(store, natsURL string) error {
	if natsURL != "" && kurrentdb.IsConnectionString(store) {
		return errors.New("--nats-url needs --store jetstream: a KurrentDB --store uses no NATS server")
	}
	return nil
}

// checkNATSURL is the one check of a --nats-url value, serve's and the log
// readers': each URL parses as the NATS client parses it (nats:// when it
// names no scheme), whose error would repeat it, password included. Its
// message names the URL with the password masked, and not the parser's
// reason, which may quote part of it.
func checkNATSURL(natsURL string) error {
	for _, u := range (Config{NATSURL: natsURL}).natsURLs() {
		if !strings.Contains(u, "://") {
			u = "nats://" + u
		}
		if _, err := url.Parse(u); err != nil {
			return fmt.Errorf("--nats-url %q: not a URL", kurrentdb.Redact(u))
		}
	}
	return nil
}

// natsURLs splits --nats-url into server URLs.
func (c Config) natsURLs() []string {
	var out []string
	for _, u := range strings.Split(c.NATSURL, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// trustedProxies parses --spid-trusted-proxies (Validate has checked them).
func (c Config) trustedProxies() []netip.Prefix {
	var out []netip.Prefix
	for _, p := range c.SPIDTrustedProxies {
		if pr, err := netip.ParsePrefix(strings.TrimSpace(p)); err == nil {
			out = append(out, pr)
		}
	}
	return out
}
