package kurrentdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	kdb "github.com/kurrent-io/KurrentDB-Client-Go/kurrentdb"

	"github.com/payauthz/payauthz/events"
)

// Config configures the store.
type Config struct {
	// URL is the connection string: kurrentdb://host:2113?tls=false,
	// esdb://user:pass@host:2113, kurrentdb+discover://a,b,c ...
	URL string
	// StreamPrefix prefixes every aggregate stream (default "payauthz-").
	// It must not be empty or start with "$".
	StreamPrefix string
	events.StoreOptions
	// MaxRetryWait caps the wait between two attempts to open a dropped
	// subscription again (default 5s).
	MaxRetryWait time.Duration
}

// Store is the KurrentDB implementation of events.Store. It is safe for
// concurrent use: the client multiplexes calls over one gRPC connection.
type Store struct {
	cfg    Config
	client *kdb.Client
	codec  *events.Codec
	logger *slog.Logger

	// lost counts the subscriptions (Subscribe, Read) whose connection to
	// the server dropped and that have not subscribed again yet: while
	// one has, the server is out of reach (Connected).
	lost atomic.Int32

	shutdown events.Shutdown
}

var _ events.Store = (*Store)(nil)

// Open connects to the server and checks that $all can be read (the
// account needs read access to $all and to the prefixed streams, write
// access to the latter).
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.StreamPrefix == "" {
		cfg.StreamPrefix = "payauthz-"
	}
	if cfg.StreamPrefix[0] == '$' {
		return nil, errors.New("kurrentdb: the stream prefix must not start with $")
	}
	cfg.StoreOptions = cfg.WithDefaults()
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = 5 * time.Second
	}
	conf, err := ParseConnectionString(cfg.URL)
	if err != nil {
		return nil, err
	}
	conf.Logger = clientLogger(cfg.Logger)
	client, err := kdb.NewClient(conf)
	if err != nil {
		return nil, fmt.Errorf("kurrentdb: %w", err)
	}
	s := &Store{cfg: cfg, client: client, codec: cfg.Codec, logger: cfg.Logger}
	pctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	if err := s.ping(pctx); err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("kurrentdb: connect %s: %w", Redact(cfg.URL), err)
	}
	return s, nil
}

// clientLogger sends the client's log lines to logger at debug level: the
// client logs every dropped call as an error, and the store already
// reports what matters (a returned error, a subscription opened again).
func clientLogger(logger *slog.Logger) kdb.LoggingFunc {
	return func(level kdb.LogLevel, format string, args ...any) {
		if logger.Enabled(context.Background(), slog.LevelDebug) {
			logger.Debug("kurrentdb client: "+fmt.Sprintf(format, args...), "level", level)
		}
	}
}

// ping reads one event of $all backwards.
func (s *Store) ping(ctx context.Context) error {
	rs, err := s.client.ReadAll(ctx, kdb.ReadAllOptions{Direction: kdb.Backwards, From: kdb.End{}}, 1)
	if err != nil {
		return readFailure(ctx, "read $all", err)
	}
	defer rs.Close()
	if _, err := rs.Recv(); err != nil && !isEOF(err) {
		return readFailure(ctx, "read $all", err)
	}
	return nil
}

// Backend implements events.Store.
func (s *Store) Backend() string { return "kurrentdb" }

// Connected reports whether the server is within reach: no subscription
// to $all has lost it without getting it back (a subscription that
// dropped is reachable again once the server confirms a new one). The
// service's readiness follows it, as it follows NATS's connection.
func (s *Store) Connected() bool { return !s.shutdown.Closed() && s.lost.Load() == 0 }

// Client returns the KurrentDB client (for tests).
func (s *Store) Client() *kdb.Client { return s.client }

// StreamName returns the KurrentDB stream of an aggregate stream.
func (s *Store) StreamName(stream string) string { return streamName(s.cfg.StreamPrefix, stream) }

// Append implements events.Store.
func (s *Store) Append(ctx context.Context, stream string, expected events.Expected, recs ...events.Record) (events.Position, error) {
	if err := events.CheckAppend(stream, recs); err != nil {
		return 0, err
	}
	if s.shutdown.Closed() {
		return 0, events.ErrClosed
	}
	data, err := toEventData(s.codec, time.Now().UTC(), recs)
	if err != nil {
		return 0, err
	}
	name := s.StreamName(stream)
	res, err := s.client.AppendToStream(ctx, name, kdb.AppendToStreamOptions{StreamState: expectedState(expected)}, data...)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err() // the client reports a cancelled call as a gRPC status
		}
		return 0, mapAppendError(stream, err)
	}
	if pos, ok := positionOf(kdb.Position{Commit: res.CommitPosition}); ok {
		return pos, nil
	}
	// An idempotent retry may be answered without a position: read it
	// from the commit's last event.
	return s.positionAt(ctx, name, res.NextExpectedVersion)
}

// positionAt returns the $all commit position of the event at rev.
func (s *Store) positionAt(ctx context.Context, name string, rev uint64) (events.Position, error) {
	rs, err := s.client.ReadStream(ctx, name, kdb.ReadStreamOptions{From: kdb.Revision(rev)}, 1)
	if err != nil {
		return 0, readFailure(ctx, "read "+name, err)
	}
	defer rs.Close()
	ev, err := rs.Recv()
	if err != nil {
		return 0, readFailure(ctx, "read "+name, err)
	}
	pos, ok := positionOf(ev.OriginalEvent().Position)
	if !ok {
		return 0, fmt.Errorf("kurrentdb: the server reports no $all position for %s@%d (EventStoreDB 22.10 or later is needed)", name, rev)
	}
	return pos, nil
}

// Load implements events.Store.
func (s *Store) Load(ctx context.Context, stream string) ([]events.Envelope, error) {
	if s.shutdown.Closed() {
		return nil, events.ErrClosed
	}
	name := s.StreamName(stream)
	recs, err := s.readStream(ctx, name, 0, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	a := &assembler{prefix: s.cfg.StreamPrefix, codec: s.codec}
	var out []events.Envelope
	for _, r := range recs {
		envs, err := a.push(r)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", stream, err)
		}
		out = append(out, envs...)
	}
	if a.incomplete() {
		return nil, fmt.Errorf("load %s: %w: the last commit is incomplete", stream, events.ErrDecode)
	}
	return out, nil
}

// readStream returns up to n events of a KurrentDB stream from revision
// from; a missing stream has none.
func (s *Store) readStream(ctx context.Context, name string, from uint64, n uint64) ([]*kdb.RecordedEvent, error) {
	rs, err := s.client.ReadStream(ctx, name, kdb.ReadStreamOptions{From: kdb.Revision(from)}, n)
	if err != nil {
		if notFound(err) {
			return nil, nil
		}
		return nil, readFailure(ctx, "read "+name, err)
	}
	defer rs.Close()
	var out []*kdb.RecordedEvent
	for {
		ev, err := rs.Recv()
		if isEOF(err) {
			return out, nil
		}
		if notFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, readFailure(ctx, "read "+name, err)
		}
		out = append(out, ev.OriginalEvent())
	}
}

// LastPosition implements events.Store: the position of the newest event
// of this store's streams, found by reading $all backwards (the client has
// no server-side filter for reads, so other applications' events written
// after it are skipped on the client).
func (s *Store) LastPosition(ctx context.Context) (events.Position, error) {
	if s.shutdown.Closed() {
		return 0, events.ErrClosed
	}
	rs, err := s.client.ReadAll(ctx, kdb.ReadAllOptions{Direction: kdb.Backwards, From: kdb.End{}}, math.MaxInt64)
	if err != nil {
		return 0, readFailure(ctx, "read $all", err)
	}
	defer rs.Close()
	for {
		ev, err := rs.Recv()
		if isEOF(err) {
			return 0, nil
		}
		if err != nil {
			return 0, readFailure(ctx, "read $all", err)
		}
		r := ev.OriginalEvent()
		if r == nil || isSystem(r.EventType, r.StreamID) {
			continue
		}
		if _, ok := aggregateOf(s.cfg.StreamPrefix, r.StreamID); !ok {
			continue
		}
		pos, ok := positionOf(r.Position)
		if !ok {
			return 0, fmt.Errorf("kurrentdb: %s@%d has no $all position", r.StreamID, r.EventNumber)
		}
		return pos, nil
	}
}

// Read implements events.Store.
func (s *Store) Read(ctx context.Context, from events.Position, h events.Handler) error {
	return events.ReadToLast(ctx, s.LastPosition, s.consume, from, h)
}

// ReadFrom implements events.Store. The commit at position at is the one
// whose last event starts there in the transaction log; a subscription
// hands it out first when it starts after the event before it (exclusive
// starts), found by reading $all backwards from at. Where no event starts
// (the server refuses the read), at is taken as one past a commit's
// position, where a listing's next page starts: the subscription starts
// after at-1, or fails with events.ErrInvalidPosition when no event starts
// there either.
func (s *Store) ReadFrom(ctx context.Context, at events.Position, h events.Handler) error {
	return events.ReadToLast(ctx, s.LastPosition, func(ctx context.Context, from, until events.Position, h events.Handler) error {
		if at > 1 {
			var err error
			if from, err = s.before(ctx, at); err != nil {
				return err
			}
		}
		return s.consume(ctx, from, until, h)
	}, max(at, 1)-1, h)
}

// before returns the position of the event of $all (any stream) just
// before position at, 0 when there is none, and at-1 when no event starts
// at at.
func (s *Store) before(ctx context.Context, at events.Position) (events.Position, error) {
	rs, err := s.client.ReadAll(ctx, kdb.ReadAllOptions{Direction: kdb.Backwards, From: startOf(at)}, 1)
	if err != nil {
		return 0, readFailure(ctx, "read $all", err)
	}
	defer rs.Close()
	ev, err := rs.Recv()
	switch {
	case isEOF(err):
		return 0, nil
	case err != nil && ctx.Err() == nil && invalidPosition(err):
		return at - 1, nil
	case err != nil:
		return 0, readFailure(ctx, "read $all", err)
	}
	p, ok := positionOf(ev.OriginalEvent().Position)
	if !ok {
		return 0, fmt.Errorf("kurrentdb: the event before position %d has no $all position", at)
	}
	return p, nil
}

// Subscribe implements events.Store.
func (s *Store) Subscribe(ctx context.Context, from events.Position, h events.Handler) error {
	return s.consume(ctx, from, 0, h)
}

// readRetries bounds the attempts of a Read whose subscription keeps
// dropping; a Subscribe tries again for as long as its context lives.
const readRetries = 5

// consume hands every commit after from to h, up to until (0: forever),
// through a catch-up subscription to $all filtered on the stream prefix.
// A dropped subscription is opened again after the last commit handed out.
func (s *Store) consume(ctx context.Context, from, until events.Position, h events.Handler) error {
	a := &assembler{prefix: s.cfg.StreamPrefix, codec: s.codec, fill: func(name string, rev uint64, n int) ([]*kdb.RecordedEvent, error) {
		return s.readStream(ctx, name, rev, uint64(n))
	}}
	applied := from
	wait := 100 * time.Millisecond
	failures := 0
	lost := false // this subscription counts in s.lost
	found := func() {
		if lost {
			lost = false
			s.lost.Add(-1)
		}
	}
	defer found()
	for {
		before := applied
		done, err := s.subscribeOnce(ctx, a, &applied, until, h, found)
		if done {
			return err
		}
		if applied != before { // it made progress: count the drops afresh
			failures, wait = 0, 100*time.Millisecond
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if s.shutdown.Closed() {
			return events.ErrClosed
		}
		if permanent(err) {
			return mapReadError("subscribe to $all", err)
		}
		failures++
		if until > 0 && failures >= readRetries {
			return mapReadError("subscribe to $all", err)
		}
		if !lost {
			lost = true
			s.lost.Add(1)
		}
		s.logger.Warn("kurrentdb subscription dropped; subscribing again", "after_position", uint64(applied), "error", err)
		a.reset()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-s.shutdown.Done():
			t.Stop()
			return events.ErrClosed
		case <-t.C:
		}
		wait = min(2*wait, s.cfg.MaxRetryWait)
	}
}

// subscribeOnce runs one subscription from *applied, calling subscribed
// once the server confirmed it. done reports that consume must return err;
// otherwise err is the drop to recover from.
func (s *Store) subscribeOnce(ctx context.Context, a *assembler, applied *events.Position, until events.Position, h events.Handler,
	subscribed func()) (done bool, err error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.shutdown.Done():
			cancel()
		case <-sctx.Done():
		}
	}()
	sub, err := s.client.SubscribeToAll(sctx, kdb.SubscribeToAllOptions{
		From:   startOf(*applied),
		Filter: &kdb.SubscriptionFilter{Type: kdb.StreamFilterType, Prefixes: []string{s.cfg.StreamPrefix}},
	})
	if err != nil {
		return false, err
	}
	defer sub.Close()
	subscribed()
	for {
		se := sub.Recv()
		switch {
		case se.SubscriptionDropped != nil:
			return false, se.SubscriptionDropped.Error
		case se.EventAppeared != nil:
			r := se.EventAppeared.OriginalEvent()
			if r == nil {
				continue
			}
			if p, ok := positionOf(r.Position); ok && p <= *applied {
				continue // at or before the start: the server's start is exclusive, this guards a replay
			}
			envs, err := a.push(r)
			if err != nil {
				return true, err
			}
			for _, env := range envs {
				if err := h(ctx, env); err != nil {
					return true, err
				}
			}
			if len(envs) > 0 {
				*applied = envs[0].Position
				if until > 0 && *applied >= until {
					return true, nil
				}
			}
		}
	}
}

// Close releases the connection. Acknowledged appends are already durable
// on the server.
func (s *Store) Close() error {
	s.shutdown.Once(func() {
		_ = s.client.Close()
	})
	return nil
}
