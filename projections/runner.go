package projections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/payauthz/payauthz/events"
)

// logTopic is the only topic of the log subscriber: the whole log.
const logTopic = "payauthz.log"

type envelopeKey struct{}

// Run drives the read models from the log through a Watermill router
// (recoverer, retry and correlation middleware) until ctx ends. It starts
// after the applied position, so a snapshot-loaded or partially applied
// model resumes where it stopped, and it resubscribes from the applied
// position whenever the store's subscription fails. It returns Stopped's
// error once a commit cannot be applied, or cannot be decoded, or the
// store refuses access to the log (events.ErrAccessDenied), or the log
// ends before the position the models applied (another or a reset log).
func (m *ReadModel) Run(ctx context.Context, store events.Store, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	wlog := watermill.NewSlogLoggerWithLevelMapping(logger, map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
	router, err := message.NewRouter(message.RouterConfig{CloseTimeout: 5 * time.Second}, wlog)
	if err != nil {
		return fmt.Errorf("projections router: %w", err)
	}
	router.AddMiddleware(
		middleware.Recoverer,
		middleware.Retry{MaxRetries: 3, InitialInterval: 10 * time.Millisecond, MaxInterval: time.Second,
			Multiplier: 2, Logger: wlog}.Middleware,
		middleware.CorrelationID,
	)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	sub := &logSubscriber{store: store, model: m, logger: logger, stop: stop}
	router.AddConsumerHandler("projections", logTopic, sub, func(msg *message.Message) error {
		batch, ok := msg.Context().Value(envelopeKey{}).([]events.Envelope)
		if !ok {
			return errors.New("message without envelopes")
		}
		for _, env := range batch {
			if err := m.Apply(env); err != nil {
				stop() // stopped for good (Stopped): the models never get past this commit
				return err
			}
		}
		return nil
	})
	err = router.Run(rctx)
	if err := m.Stopped(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// logSubscriber adapts Store.Subscribe to a Watermill Subscriber. Events
// flow in log order into a buffer; each Watermill message carries the
// events buffered since the previous one was acked (one event when the
// log is quiet, up to maxBatch while catching up), and the next message is
// sent only after the previous was acked, so events are applied strictly
// in order. A nacked message is sent again (the router's retry middleware
// has already retried it); Apply skips what it already applied, and
// refuses everything once a commit stopped the models (Run then ends).
// A commit the store cannot decode stops the models too, once everything
// before it is applied: every subscription would meet it again; and so
// does the store refusing the service access to the log (ErrAccessDenied),
// and the log ending before the position the models applied (another or a
// reset log: watchLogEnd).
type logSubscriber struct {
	store  events.Store
	model  *ReadModel
	logger *slog.Logger
	stop   context.CancelFunc // ends Run's router
}

const maxBatch = 1024

// envelopeQueue hands envelopes from the subscription's goroutine to the
// batching one: the writer appends under a mutex, the reader takes
// everything queued at once, so a replay pays one lock per event and one
// wake-up per batch instead of a channel operation per event.
type envelopeQueue struct {
	mu     sync.Mutex
	items  []events.Envelope
	closed bool
	failed error                  // why the writer closed the queue early (see fail)
	ready  chan struct{}          // holds a token while items are queued or the queue is closed
	space  chan struct{}          // holds a token when the reader took items from a full queue
	spare  chan []events.Envelope // applied batches, reused rather than allocated
}

func newEnvelopeQueue() *envelopeQueue {
	return &envelopeQueue{ready: make(chan struct{}, 1), space: make(chan struct{}, 1),
		spare: make(chan []events.Envelope, 2)}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// push queues env, waiting while the queue is full, until ctx ends.
func (q *envelopeQueue) push(ctx context.Context, env events.Envelope) error {
	for {
		q.mu.Lock()
		if len(q.items) < maxBatch {
			q.items = append(q.items, env)
			q.mu.Unlock()
			signal(q.ready)
			return nil
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (q *envelopeQueue) close() { q.fail(nil) }

// fail closes the queue after what it holds, with err (nil: the
// subscription ended with its context) for the reader once it took
// everything (failure).
func (q *envelopeQueue) fail(err error) {
	q.mu.Lock()
	if !q.closed {
		q.closed, q.failed = true, err
	}
	q.mu.Unlock()
	signal(q.ready)
}

// failure is fail's error.
func (q *envelopeQueue) failure() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.failed
}

// take waits for queued envelopes and returns all of them (at most
// maxBatch); ok is false once the queue is closed and empty. The writer
// fills a new slice meanwhile, so the two goroutines work in parallel.
func (q *envelopeQueue) take() (batch []events.Envelope, ok bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			batch = q.items
			select {
			case q.items = <-q.spare:
			default:
				q.items = make([]events.Envelope, 0, maxBatch)
			}
			q.mu.Unlock()
			signal(q.space)
			return batch, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return nil, false
		}
		<-q.ready
	}
}

// recycle hands back a batch the model has applied (and nothing else
// holds), for the writer to fill again.
func (q *envelopeQueue) recycle(batch []events.Envelope) {
	select {
	case q.spare <- batch[:0]:
	default:
	}
}

func (s *logSubscriber) Subscribe(ctx context.Context, _ string) (<-chan *message.Message, error) {
	out := make(chan *message.Message)
	buf := newEnvelopeQueue()
	go s.watchLogEnd(ctx)
	go func() {
		defer buf.close()
		backoff := 50 * time.Millisecond
		for ctx.Err() == nil {
			from := s.model.AppliedPosition()
			err := s.store.Subscribe(ctx, from, func(ctx context.Context, env events.Envelope) error {
				backoff = 50 * time.Millisecond
				return buf.push(ctx, env)
			})
			if ctx.Err() != nil {
				return
			}
			if errors.Is(err, events.ErrDecode) || errors.Is(err, events.ErrUnknownEvent) || errors.Is(err, events.ErrAccessDenied) {
				// A commit this build cannot decode (a newer build's
				// event): as deterministic as one Apply refuses. Or the
				// store refusing the service the log for good: models
				// that can no longer follow it must not be answered from.
				buf.fail(err)
				return
			}
			s.logger.Warn("log subscription ended; resubscribing", "from", uint64(from), "error", err)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return
			}
			// At most 1 s: after an outage the replica follows the log again
			// within a second of the store answering.
			backoff = min(backoff*2, time.Second)
		}
	}()
	go func() {
		defer close(out)
		for {
			batch, ok := buf.take()
			if !ok {
				if err := buf.failure(); err != nil {
					_ = s.model.refuse(err) // what came before it is applied
					s.stop()
				}
				return
			}
			if err := s.deliver(ctx, out, batch); err != nil {
				return
			}
			buf.recycle(batch)
		}
	}()
	return out, nil
}

// logEndCheckEvery is how often watchLogEnd reads the log's end.
const logEndCheckEvery = time.Second

// watchLogEnd stops the read models, until ctx ends, once the log ends
// before the position they applied: an append-only log never shrinks, so
// it is another or a reset log (its stream deleted and created again, a
// server that lost its storage). Its subscription goes on silently after
// that position (the JetStream consumer recreates itself there), so
// without this the models would answer each of its positions up to theirs
// as applied (a write's token honoured at once, the write unseen) and
// later fold its commits over the old log's. A failed read is no answer:
// the next tick reads again.
func (s *logSubscriber) watchLogEnd(ctx context.Context) {
	t := time.NewTicker(logEndCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		applied := s.model.AppliedPosition() // before the read: a commit applied after it is past its answer
		last, err := s.store.LastPosition(ctx)
		if err != nil || last >= applied {
			continue
		}
		err = s.model.refuse(fmt.Errorf("%w: the log ends at %d, before position %d the read models applied (another or a reset log)",
			ErrSnapshotUnusable, last, applied))
		s.logger.Error("the log is behind the read models; stopping them", "log", uint64(last), "applied", uint64(applied), "error", err)
		s.stop()
		return
	}
}

func (s *logSubscriber) deliver(ctx context.Context, out chan<- *message.Message, batch []events.Envelope) error {
	delay := 10 * time.Millisecond
	last := batch[len(batch)-1]
	for {
		msg := message.NewMessage(last.ID, nil)
		msg.Metadata.Set("position", strconv.FormatUint(uint64(last.Position), 10))
		msg.Metadata.Set("events", strconv.Itoa(len(batch)))
		if last.CorrelationID != "" {
			middleware.SetCorrelationID(last.CorrelationID, msg)
		}
		msg.SetContext(context.WithValue(ctx, envelopeKey{}, batch))
		select {
		case out <- msg:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-msg.Acked():
			return nil
		case <-msg.Nacked():
			s.logger.Error("projection failed; retrying", "position", uint64(last.Position), "events", len(batch))
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return ctx.Err()
		}
		delay = min(delay*2, 5*time.Second)
	}
}

func (s *logSubscriber) Close() error { return nil }

// CatchUp runs the read models until they have applied the log's last
// position as of the call, then returns once the router stopped; its
// error is ctx's, or Stopped's when a commit could not be applied.
func (m *ReadModel) CatchUp(ctx context.Context, store events.Store, logger *slog.Logger) error {
	last, err := store.LastPosition(ctx)
	if err != nil {
		return fmt.Errorf("last position: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, store, logger) }()
	err = m.WaitFor(ctx, last)
	cancel()
	<-done
	return err
}
