package jetstream

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/payauthz/payauthz/events"
)

// DefaultSubjectPrefix is the prefix of the log's subjects when Config
// names none (the service's): the stream captures every subject under it
// (DefaultSubjectPrefix + ".>"), so anything published there is appended
// to the log.
const DefaultSubjectPrefix = "payauthz.ev"

// Config configures the store. The zero value (plus DataDir) runs an
// embedded server.
type Config struct {
	DataDir       string   // embedded mode: JetStream files under DataDir/jetstream
	URLs          []string // external servers; empty runs the embedded server
	Replicas      int      // stream replicas on an external cluster (default 1)
	StreamName    string   // default "PAYAUTHZ"
	SubjectPrefix string   // default DefaultSubjectPrefix
	events.StoreOptions
	// ReadOnly opens an existing log for reading: the stream is bound, not
	// created or updated (a missing one is an error), and Append always
	// fails with events.ErrReadOnly. Auditors' tools open the log so.
	ReadOnly bool
	// LocalReader (embedded mode) opens the embedded server to the
	// operators' tools on this host while the service runs: it also
	// listens on 127.0.0.1 on a random port, and every client, the
	// service's own in-process connection included, must authenticate
	// with a secret generated at each start. The tools' user (ReaderUser)
	// may only read the log: its permissions allow the JetStream API
	// requests that read the stream (stream info, message gets, ordered
	// consumers), never a publish to the log's subjects nor a change to
	// the stream. Store.LocalReader returns where and how to connect.
	LocalReader bool
	// User and Password authenticate the connection (an external server
	// or a LocalReader endpoint).
	User, Password string
	// Unsynced (embedded mode) lets the server fsync on its own interval
	// instead of before each acknowledgement: an acknowledged append may
	// be lost in a crash. Only for benchmarks and scale tests filling a
	// throw-away log.
	Unsynced bool
}

// Store is the JetStream implementation of events.Store. It is safe for
// concurrent use.
type Store struct {
	cfg    Config
	ns     *server.Server // nil when external
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	codec  *events.Codec
	logger *slog.Logger

	reader *ReaderAccess // LocalReader's endpoint, nil without it

	shutdown events.Shutdown
}

var _ events.Store = (*Store)(nil)

// Open starts (or connects to) the server and creates or updates the stream.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.StreamName == "" {
		cfg.StreamName = "PAYAUTHZ"
	}
	if cfg.SubjectPrefix == "" {
		cfg.SubjectPrefix = DefaultSubjectPrefix
	}
	if cfg.Replicas <= 0 {
		cfg.Replicas = 1
	}
	cfg.StoreOptions = cfg.WithDefaults()
	s := &Store{cfg: cfg, codec: cfg.Codec, logger: cfg.Logger}
	opts := []nats.Option{nats.Name("payauthz"), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.Timeout(cfg.ConnectTimeout), nats.RetryOnFailedConnect(false)}
	if cfg.User != "" {
		opts = append(opts, nats.UserInfo(cfg.User, cfg.Password))
	}
	var err error
	if len(cfg.URLs) == 0 {
		if cfg.DataDir == "" {
			return nil, errors.New("jetstream: DataDir is required for the embedded server")
		}
		sopts := &server.Options{
			ServerName: "payauthz-embedded", JetStream: true, StoreDir: filepath.Join(cfg.DataDir, "jetstream"),
			DontListen: true, NoSigs: true, NoLog: true, SyncAlways: !cfg.Unsynced,
		}
		var servicePassword string
		if cfg.LocalReader {
			if sopts, servicePassword, s.reader, err = withLocalReader(sopts, cfg.StreamName); err != nil {
				return nil, err
			}
			// The service's replies come on inboxes of its own, which the
			// reader (allowed _INBOX.> for its replies) cannot see.
			opts = append(opts, nats.UserInfo(serviceUser, servicePassword), nats.CustomInboxPrefix(serviceInboxPrefix))
		}
		s.ns, err = server.NewServer(sopts)
		if err != nil {
			return nil, fmt.Errorf("jetstream: embedded server: %w", err)
		}
		s.ns.Start()
		if !s.ns.ReadyForConnections(cfg.ConnectTimeout) {
			s.ns.Shutdown()
			return nil, errors.New("jetstream: embedded server did not start")
		}
		if s.reader != nil {
			s.reader.URL = s.ns.ClientURL()
		}
		opts = append(opts, nats.InProcessServer(s.ns))
		s.nc, err = nats.Connect(s.ns.ClientURL(), opts...)
	} else {
		s.nc, err = nats.Connect(strings.Join(cfg.URLs, ","), opts...)
	}
	if err != nil {
		s.shutdownServer()
		return nil, fmt.Errorf("jetstream: connect: %w: %v", events.ErrUnavailable, err)
	}
	if s.js, err = jetstream.New(s.nc); err != nil {
		s.Close()
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	if cfg.ReadOnly {
		if s.stream, err = s.js.Stream(ctx, cfg.StreamName); err != nil {
			s.Close()
			return nil, fmt.Errorf("jetstream: no event log (stream %s): %w", cfg.StreamName, err)
		}
		return s, nil
	}
	if s.stream, err = s.createStream(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// createStream creates or updates the stream. On a cluster that is still
// electing its leader or has not yet seen enough peers (a fresh cluster,
// or one coming back), it retries until ConnectTimeout.
func (s *Store) createStream(ctx context.Context) (jetstream.Stream, error) {
	cfg := s.cfg
	deadline := time.Now().Add(cfg.ConnectTimeout)
	for {
		stream, err := s.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:       cfg.StreamName,
			Subjects:   []string{cfg.SubjectPrefix + ".>"},
			Storage:    jetstream.FileStorage,
			Retention:  jetstream.LimitsPolicy,
			Replicas:   cfg.Replicas,
			DenyDelete: true,
			DenyPurge:  true,
			// No direct gets: any replica answers those, a follower
			// from what it has applied so far, so a Load right after
			// an acknowledged append could miss it. Gets go to the
			// stream's leader, which stored every acknowledged append.
			AllowDirect: false,
			Duplicates:  2 * time.Minute,
		})
		if err == nil {
			return stream, nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) || !transientStreamError(err) {
			return nil, fmt.Errorf("jetstream: stream %s: %w", cfg.StreamName, err)
		}
		s.logger.Info("stream not available yet; retrying", "stream", cfg.StreamName, "error", err)
		select {
		case <-time.After(250 * time.Millisecond):
		case <-ctx.Done():
			return nil, fmt.Errorf("jetstream: stream %s: %w", cfg.StreamName, ctx.Err())
		}
	}
}

// transientStreamError reports an error a cluster gives while it forms:
// no meta leader yet, too few peers online for the replicas, or no answer
// in time.
func transientStreamError(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode {
		case 10005, 10006, 10008, 10009:
			// nats-server's JSClusterNoPeersErr (no suitable peers for
			// placement), JSClusterNotActiveErr, JSClusterNotAvailErr
			// (temporarily unavailable), JSClusterNotLeaderErr.
			return true
		}
		return false
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrJetStreamNotEnabled)
}

// Connected reports whether the connection to NATS is up. While it is
// down, Append and Load fail at once with events.ErrUnavailable and the
// subscription waits for the reconnection (nats.go reconnects forever).
func (s *Store) Connected() bool { return s.nc != nil && s.nc.IsConnected() }

// Backend implements events.Store.
func (s *Store) Backend() string { return "jetstream" }

// Conn returns the NATS connection (for tests and benchmarks).
func (s *Store) Conn() *nats.Conn { return s.nc }

// JetStream returns the JetStream context (for tests and benchmarks).
func (s *Store) JetStream() jetstream.JetStream { return s.js }

// StreamName returns the JetStream stream holding the log.
func (s *Store) StreamName() string { return s.cfg.StreamName }

// Subject returns the subject of an aggregate stream: the prefix and the
// stream name in unpadded base64url, which is always a valid single token
// whatever the stream name holds (dots, spaces, wildcards).
func (s *Store) Subject(stream string) string { return SubjectFor(s.cfg.SubjectPrefix, stream) }

func (s *Store) streamOf(subject string) (string, error) {
	return StreamFor(s.cfg.SubjectPrefix, subject)
}

// SubjectFor maps a stream name to its subject under prefix.
func SubjectFor(prefix, stream string) string {
	return prefix + "." + base64.RawURLEncoding.EncodeToString([]byte(stream))
}

// StreamFor decodes a subject under prefix back to its stream name.
func StreamFor(prefix, subject string) (string, error) {
	tok, ok := strings.CutPrefix(subject, prefix+".")
	if !ok {
		return "", fmt.Errorf("subject %q outside the log", subject)
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", fmt.Errorf("subject %q: %w", subject, err)
	}
	return string(b), nil
}

// wireEvent is one event inside a commit message.
type wireEvent struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Actor         string          `json:"actor,omitempty"`
	CorrelationID string          `json:"correlationId,omitempty"`
	Time          time.Time       `json:"time"`
	Data          json.RawMessage `json:"data"`
}

// Append implements events.Store.
func (s *Store) Append(ctx context.Context, stream string, expected events.Expected, recs ...events.Record) (events.Position, error) {
	if s.cfg.ReadOnly {
		return 0, events.ErrReadOnly
	}
	if err := events.CheckAppend(stream, recs); err != nil {
		return 0, err
	}
	if s.shutdown.Closed() {
		return 0, events.ErrClosed
	}
	if !s.nc.IsConnected() {
		// Refuse at once rather than buffer the publish until a reconnect
		// or a time-out: the caller answers 503 and the client retries.
		return 0, fmt.Errorf("append %s: %w: not connected to NATS", stream, events.ErrUnavailable)
	}
	now := time.Now().UTC()
	commit := make([]wireEvent, len(recs))
	for i, r := range recs {
		data, err := s.codec.Encode(r.Event)
		if err != nil {
			return 0, fmt.Errorf("jetstream: encode: %w", err)
		}
		id := r.ID
		if id == "" {
			id = uuid.NewString()
		}
		t := r.Time
		if t.IsZero() {
			t = now
		}
		commit[i] = wireEvent{ID: id, Name: r.Event.EventName(), Actor: r.Actor, CorrelationID: r.CorrelationID,
			Time: t.UTC(), Data: data}
	}
	payload, err := json.Marshal(commit)
	if err != nil {
		return 0, fmt.Errorf("jetstream: encode commit: %w", err)
	}
	if max := s.nc.MaxPayload(); max > 0 && int64(len(payload)) > max-maxHeaderRoom {
		return 0, fmt.Errorf("append %s: %w: %d bytes, the server takes %d", stream, events.ErrTooLarge, len(payload), max)
	}
	msg := &nats.Msg{Subject: s.Subject(stream), Data: payload, Header: nats.Header{}}
	ack, err := s.js.PublishMsg(ctx, msg,
		jetstream.WithMsgID(commit[0].ID),
		jetstream.WithExpectLastSequencePerSubject(uint64(expected.Version())))
	if err != nil {
		return 0, mapPublishError(stream, err)
	}
	if ack.Duplicate {
		s.logger.Debug("append deduplicated", "stream", stream, "position", ack.Sequence)
	}
	return events.Position(ack.Sequence), nil
}

// maxHeaderRoom is what a commit leaves of the server's max_payload for
// the subject and the headers (message id, expected sequence).
const maxHeaderRoom = 1024

// mapPublishError turns JetStream's answers into the port's errors.
func mapPublishError(stream string, err error) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		switch {
		case apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence,
			apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant:
			return fmt.Errorf("append %s: %w", stream, events.ErrConflict)
		case storeRefused(apiErr):
			return fmt.Errorf("append %s: %w: %v", stream, events.ErrUnavailable, err)
		}
		return fmt.Errorf("append %s: %w", stream, err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, nats.ErrMaxPayload) {
		return fmt.Errorf("append %s: %w: %v", stream, events.ErrTooLarge, err)
	}
	return fmt.Errorf("append %s: %w: %v", stream, events.ErrUnavailable, err)
}

// storeRefused reports a refusal of an append by a server that cannot
// take it now, which the client may retry later (events.ErrUnavailable,
// HTTP 503): every answer JetStream itself codes 503 (its storage used up,
// 10023; its store failing, 10077; a cluster not available, 10008; a new
// stream leader not ready to check the expected last sequence, 10163),
// and the same conditions it codes 500 (storage resources exceeded, 10047;
// the stream's leader gone or the stream offline, 10009, 10118, 10194).
// Nothing was stored.
func storeRefused(apiErr *jetstream.APIError) bool {
	switch apiErr.ErrorCode {
	case 10047, 10009, 10118, 10194:
		return true
	}
	return apiErr.Code == 503
}

// decode turns one commit message into envelopes, appended to into (a
// consumer reuses one slice for every message).
func (s *Store) decode(into []events.Envelope, subject string, seq uint64, data []byte) ([]events.Envelope, error) {
	return s.decodeWith(s.codec, into, subject, seq, data)
}

// decodeWith is decode with payloads decoded by codec (nil: left as bytes).
func (s *Store) decodeWith(codec *events.Codec, into []events.Envelope, subject string, seq uint64, data []byte) ([]events.Envelope, error) {
	stream, err := s.streamOf(subject)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", events.ErrDecode, err)
	}
	base := len(into)
	out, err := decodeCommit(into, codec, data)
	if err != nil {
		return nil, fmt.Errorf("commit at %d: %w", seq, err)
	}
	for i := base; i < len(out); i++ {
		out[i].Stream, out[i].Version, out[i].Position, out[i].CommitSize = stream, events.Version(seq), events.Position(seq), len(out)-base
	}
	return out, nil
}

// Load implements events.Store: every commit on the stream's subject, in
// order, by gets of the next message for the subject from the stream's
// leader: a Load sees every append acknowledged before it began.
func (s *Store) Load(ctx context.Context, stream string) ([]events.Envelope, error) {
	if s.shutdown.Closed() {
		return nil, events.ErrClosed
	}
	if !s.nc.IsConnected() {
		return nil, fmt.Errorf("load %s: %w: not connected to NATS", stream, events.ErrUnavailable)
	}
	subject := s.Subject(stream)
	var out []events.Envelope
	seq := uint64(1)
	for {
		msg, err := s.nextMsg(ctx, seq, subject)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return out, nil
		}
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err() // a cancelled caller, not an outage
		}
		if err != nil {
			return nil, fmt.Errorf("load %s: %w: %v", stream, events.ErrUnavailable, err)
		}
		if out, err = s.decode(out, msg.Subject, msg.Sequence, msg.Data); err != nil {
			return nil, err
		}
		seq = msg.Sequence + 1
	}
}

// nextMsg gets the first message on subject at or after seq. On a
// cluster, just after the stream is created or a server comes back, a get
// can find no responder for a moment (no leader yet). That is retried
// briefly (at most directGetPatience) before it counts as the log being
// unavailable.
func (s *Store) nextMsg(ctx context.Context, seq uint64, subject string) (*jetstream.RawStreamMsg, error) {
	wait := 10 * time.Millisecond
	deadline := time.Now().Add(directGetPatience)
	for {
		msg, err := s.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if !errors.Is(err, nats.ErrNoResponders) || time.Now().After(deadline) {
			return msg, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// directGetPatience bounds how long a get waits for a responder.
const directGetPatience = 3 * time.Second

// LastPosition implements events.Store.
func (s *Store) LastPosition(ctx context.Context) (events.Position, error) {
	if s.shutdown.Closed() {
		return 0, events.ErrClosed
	}
	if !s.nc.IsConnected() {
		return 0, fmt.Errorf("stream info: %w: not connected to NATS", events.ErrUnavailable)
	}
	info, err := s.stream.Info(ctx)
	if err != nil && ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if err != nil {
		return 0, fmt.Errorf("stream info: %w: %v", events.ErrUnavailable, err)
	}
	if info.Cluster != nil && info.Cluster.Leader == "" {
		// A member of a group without a leader answers from its own state
		// once quorum has been lost for a while: one that missed commits
		// would tell an end before the log's. (A lone server names itself.)
		return 0, fmt.Errorf("stream info: %w: the stream has no leader", events.ErrUnavailable)
	}
	return events.Position(info.State.LastSeq), nil
}

// Read implements events.Store.
func (s *Store) Read(ctx context.Context, from events.Position, h events.Handler) error {
	return events.ReadToLast(ctx, s.LastPosition, s.consume, from, h)
}

// ReadFrom implements events.Store: positions are dense, so the commits
// from at are those after at-1.
func (s *Store) ReadFrom(ctx context.Context, at events.Position, h events.Handler) error {
	return s.Read(ctx, max(at, 1)-1, h)
}

// SubscribeRaw implements events.RawSubscriber: Subscribe without
// decoding payloads.
func (s *Store) SubscribeRaw(ctx context.Context, from events.Position, h events.Handler) error {
	return s.consumeWith(ctx, nil, from, 0, h)
}

// ReadRaw implements events.RawReader: Read without decoding payloads.
func (s *Store) ReadRaw(ctx context.Context, from events.Position, h events.Handler) error {
	return events.ReadToLast(ctx, s.LastPosition, func(ctx context.Context, from, until events.Position, h events.Handler) error {
		return s.consumeWith(ctx, nil, from, until, h)
	}, from, h)
}

// Subscribe implements events.Store.
func (s *Store) Subscribe(ctx context.Context, from events.Position, h events.Handler) error {
	return s.consume(ctx, from, 0, h)
}

// consume delivers every commit after from through an ordered consumer
// (which recreates itself after a disconnect at the next sequence, so no
// commit is skipped or repeated), up to until (0: forever).
func (s *Store) consume(ctx context.Context, from, until events.Position, h events.Handler) error {
	return s.consumeWith(ctx, s.codec, from, until, h)
}

// consumeWith is consume decoding payloads with codec (nil: not at all).
func (s *Store) consumeWith(ctx context.Context, codec *events.Codec, from, until events.Position, h events.Handler) error {
	if s.shutdown.Closed() {
		return events.ErrClosed
	}
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{s.cfg.SubjectPrefix + ".>"},
		DeliverPolicy: jetstream.DeliverAllPolicy, InactiveThreshold: 30 * time.Second}
	if from > 0 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = uint64(from) + 1
	}
	cons, err := s.js.OrderedConsumer(ctx, s.cfg.StreamName, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("ordered consumer: %w: %v", events.ErrUnavailable, err)
	}
	// The consumer is deleted as soon as the read ends (best effort: a
	// reader without the right leaves it to the inactivity threshold), so
	// that reads in quick succession (audit tools, proofs, /eventi) do not
	// pile up consumers until the server's limit refuses every new one.
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if info := cons.CachedInfo(); info != nil {
			_ = s.js.DeleteConsumer(dctx, s.cfg.StreamName, info.Name)
		}
	}()
	// A 1 s idle heartbeat (the default would be 15 s) notices within
	// about two seconds a consumer lost with its stream leader in a
	// cluster fail-over, so the subscription is made again at once. What
	// the consumer holds ahead of h is bounded in commits and in bytes
	// (pullBytes). Not with PullMaxBytes, which bounds bytes alone: it
	// gives each consumer a channel of a million messages (8 MB), and made
	// a read of a small log three times slower.
	it, err := cons.Messages(jetstream.PullMaxMessagesWithBytesLimit(pullCommits, s.pullBytes()),
		jetstream.PullExpiry(5*time.Second), jetstream.PullHeartbeat(time.Second))
	if err != nil {
		return fmt.Errorf("ordered consumer: %w: %v", events.ErrUnavailable, err)
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	var envs []events.Envelope // reused: handlers get each envelope by value
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if s.shutdown.Closed() {
				return events.ErrClosed
			}
			return fmt.Errorf("consume: %w: %v", events.ErrUnavailable, err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			return fmt.Errorf("%w: metadata: %v", events.ErrDecode, err)
		}
		if envs, err = s.decodeWith(codec, envs[:0], msg.Subject(), meta.Sequence.Stream, msg.Data()); err != nil {
			return err
		}
		for _, env := range envs {
			if err := h(ctx, env); err != nil {
				return err
			}
		}
		if until > 0 && events.Position(meta.Sequence.Stream) >= until {
			return nil
		}
	}
}

// pullCommits is how many commits a consumer asks the server for at
// once, and so about the most it holds ahead of its handler.
const pullCommits = 4096

// pullBytes bounds the bytes of one pull request of a consumer: twice the
// largest commit the server takes (max_payload bounds a message's headers
// and commit; its subject and the delivery's reply add less than a KiB),
// and never less than twice 8 MiB, the largest max_payload the server
// accepts without a warning. A request must hold the largest message the
// log has, or the consumer stops for good: the server refuses every
// request and nats.go asks again, silently. The log keeps commits
// written under an earlier max_payload, so a max_payload lowered later
// must not strand them. nats.go sends a consumer's next request only as
// the handler takes what the previous ones brought, so a consumer holds
// at most two requests' worth ahead of its handler: at most pullCommits
// commits and 4 * max(max_payload, 8 MiB) bytes (32 MiB at the default
// 1 MiB), where the commits alone let 4096 commits of 1 MiB take 4 GiB.
func (s *Store) pullBytes() int {
	return 2 * int(max(s.nc.MaxPayload(), server.MAX_PAYLOAD_MAX_SIZE))
}

// Close drains the connection and stops an embedded server. Every
// acknowledged append was fsynced before its acknowledgement.
func (s *Store) Close() error {
	s.shutdown.Once(func() {
		if s.nc != nil {
			_ = s.nc.Drain()
			for i := 0; i < 100 && !s.nc.IsClosed(); i++ {
				time.Sleep(10 * time.Millisecond)
			}
			s.nc.Close()
		}
		s.shutdownServer()
	})
	return nil
}

func (s *Store) shutdownServer() {
	if s.ns != nil {
		s.ns.Shutdown()
		s.ns.WaitForShutdown()
	}
}
