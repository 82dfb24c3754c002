package projections

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/payauthz/payauthz/events"
)

// ReadModel holds every read model. Apply is called by one goroutine at a
// time (wmu serialises appliers); reads are safe from any goroutine.
//
// Readers see whole commits only. Apply stages the events of a commit until
// its last one arrives, then folds them all inside one publication window:
// seq turns odd, the shared tables are written, the applied position
// advances, seq turns even again. Every read method runs inside read,
// which retries when a window opened or closed while it ran (a seqlock),
// so what it returns is the state after some whole commit and never half
// of one; Consistent gives several reads that guarantee together, with the
// position they agree with. The seqlock itself takes no lock and
// allocates nothing.
type ReadModel struct {
	wmu sync.Mutex // serialises Apply; guards the writer-only indexes below

	// seq is odd while a commit is being published (see read).
	seq atomic.Uint64
	// applied is the position of the last published commit; it changes
	// only inside a publication window.
	applied atomic.Uint64
	// staged holds the events of the commit at stagedPos received so far
	// (writer only): they are folded when the commit is complete.
	staged    []events.Envelope
	stagedPos events.Position
	// latestAt is the latest event time applied (unix nanos; writer
	// only): commit times need not grow along the log (replicas' clocks
	// differ), and a snapshot answers a question "as of T" only if every
	// commit it holds is at or before T (see SnapshotAtOrBefore).
	latestAt int64
	// lastID is the id of the last event applied (writer only): with the
	// applied position it names the log a snapshot was taken from (see
	// SameLog).
	lastID      string
	appliedAt   atomic.Int64 // unix nanos of the last applied event's time
	eventsCount atomic.Uint64
	notifyMu    sync.Mutex
	notify      chan struct{} // closed and replaced whenever applied advances or the model stops
	// stopped is why the model stopped applying the log (see Stopped).
	stopped atomic.Pointer[error]

	macKey [32]byte // keys the verified-credential cache
	// verifying shares one password verification between the requests
	// that present the same credential at once (verifyCached).
	verifying singleflight.Group

	principals *principals
	registry   *registry
	pendenze   *pendenze
	money      *money

	// OnApplied, when set before the first Apply, is called after each
	// event is applied (the verifiable log's Feed). It must not block. If
	// it panics, the models stop there (Stopped).
	OnApplied func(env events.Envelope)

	snapStats snapshotStats // see SnapshotStats
}

// New returns empty read models.
func New() *ReadModel {
	m := &ReadModel{notify: make(chan struct{})}
	if _, err := rand.Read(m.macKey[:]); err != nil {
		panic(fmt.Sprintf("projections: random key: %v", err))
	}
	m.principals = newPrincipals()
	m.registry = newRegistry()
	m.pendenze = newPendenze()
	m.money = newMoney()
	return m
}

// AppliedPosition returns the position of the last fully applied commit.
func (m *ReadModel) AppliedPosition() events.Position {
	return events.Position(m.applied.Load())
}

// AppliedEvents returns how many events have been applied.
func (m *ReadModel) AppliedEvents() uint64 { return m.eventsCount.Load() }

// LastEventTime returns the time of the last applied event (zero if none).
func (m *ReadModel) LastEventTime() time.Time { return fromUnixNanos(m.appliedAt.Load()) }

// ErrStopped reports read models that stopped applying the log: a commit
// they could not apply, or a log the store refuses them (see Stopped).
var ErrStopped = errors.New("projections: the read models stopped applying the log")

// Stopped returns nil while the read models follow the log, and an error
// wrapping ErrStopped once a commit could not be applied: an event this
// build cannot decode or fold (a log written by a newer build), a commit
// its checks refuse, or a check or fold that panicked; or once OnApplied
// panicked on a commit they applied (its hook never sees the rest of
// it); or once the store refused them the log for good
// (events.ErrAccessDenied: the account's credentials or rights to read
// it gone); or once the log ended before the position they applied
// (another or a reset log, which they no longer follow: Run). Applying a commit is deterministic, so the models never get
// past it: they stay behind the log for good, and a revocation after it
// is never seen. After a fold that panicked they may also hold part of
// the commit. The service stops rather than answer from them (README,
// "Configuration").
func (m *ReadModel) Stopped() error {
	if err := m.stopped.Load(); err != nil {
		return *err
	}
	return nil
}

// WaitFor blocks until the read models have applied pos, or ctx ends, or
// they stopped (Stopped's error).
func (m *ReadModel) WaitFor(ctx context.Context, pos events.Position) error {
	for {
		m.notifyMu.Lock()
		ch := m.notify
		m.notifyMu.Unlock()
		if m.AppliedPosition() >= pos {
			return nil
		}
		if err := m.Stopped(); err != nil {
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitWithin is WaitFor for at most d, and never past ctx's wait deadline
// (WithWaitDeadline): nil at once when pos is applied (no timer is made),
// else ctx's error or context.DeadlineExceeded when pos was not applied
// in time. A write waits so for its own apply, a request for its
// consistency token.
func (m *ReadModel) WaitWithin(ctx context.Context, pos events.Position, d time.Duration) error {
	if m.AppliedPosition() >= pos {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, WaitBound(ctx, d))
	defer cancel()
	return m.WaitFor(ctx, pos)
}

// waitDeadlineKey holds the deadline of the waits made with a context
// (WithWaitDeadline).
type waitDeadlineKey struct{}

// WithWaitDeadline returns ctx with t as the deadline its waits share
// (WaitWithin, WaitBound): each still lasts at most its own d, and all of
// them end by t, however many one request makes. ctx itself gets no
// deadline, so a store call made with it keeps its own timeout.
func WithWaitDeadline(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, waitDeadlineKey{}, t)
}

// WaitBound is d, or what is left before ctx's wait deadline when that
// ends sooner (0 once it passed).
func WaitBound(ctx context.Context, d time.Duration) time.Duration {
	if t, ok := WaitDeadline(ctx); ok {
		d = min(d, max(time.Until(t), 0))
	}
	return d
}

// WaitDeadline returns the deadline ctx's waits share (WithWaitDeadline),
// if it has one: the bound of a wait that has no d of its own, such as
// one for another's call in flight.
func WaitDeadline(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(waitDeadlineKey{}).(time.Time)
	return t, ok
}

// Apply folds one event into the read models. Events must arrive in log
// order; an event at or before the cursor is skipped (idempotent). The
// events of a commit are staged until its last one arrives and then
// published together: readers never see part of a commit. A commit with
// an event this build cannot fold (a log written by a newer build) returns
// an error and leaves no trace, none of its events applied: the
// projections stop before it, for good (Stopped).
func (m *ReadModel) Apply(env events.Envelope) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.Stopped(); err != nil {
		return err
	}
	if err := m.stage(env); err != nil {
		return m.halt(err)
	}
	return nil
}

// refuse stops the read models at a commit the log holds and no
// subscription can hand them (one this build cannot decode, or any once
// the store refuses access to the log), as Apply stops them at one they
// cannot apply: the error is Stopped's from then on. Models already
// stopped keep their first error.
func (m *ReadModel) refuse(err error) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.Stopped(); err != nil {
		return err
	}
	return m.halt(err)
}

// halt stops the read models for good with err (wmu held) and returns
// Stopped's error.
func (m *ReadModel) halt(err error) error {
	err = fmt.Errorf("%w: %w", ErrStopped, err)
	m.stopped.Store(&err)
	m.wake()
	return err
}

// wake wakes WaitFor's waiters: the applied position moved, or the models
// stopped.
func (m *ReadModel) wake() {
	m.notifyMu.Lock()
	close(m.notify)
	m.notify = make(chan struct{})
	m.notifyMu.Unlock()
}

// stage stages env and publishes its commit once whole (wmu held).
func (m *ReadModel) stage(env events.Envelope) error {
	if env.Position <= events.Position(m.applied.Load()) {
		return nil
	}
	if env.Position != m.stagedPos && len(m.staged) > 0 {
		// The log moved on without completing the staged commit (a
		// backend that reported a wrong commit size): publish what it had
		// rather than lose it.
		if err := m.publish(m.staged); err != nil {
			return err
		}
	}
	switch {
	case env.Position != m.stagedPos || env.Index == 0:
		// A new commit, or this one delivered again from its start.
		m.staged, m.stagedPos = append(m.staged[:0], env), env.Position
	case env.Index < len(m.staged):
		// Redelivered: already staged. (A failed publication is not
		// redelivered here: it stopped the models, and Apply refuses
		// every event after it.)
	default:
		m.staged = append(m.staged, env)
	}
	if env.Index+1 < env.CommitSize {
		return nil
	}
	return m.publish(m.staged)
}

// ApplyCommit applies evs as the one commit at position pos, with
// envelopes as a store delivers them (ids "e<pos>-<index>", version pos,
// time now). It is a seam for tests (and tools) that build read models
// without a log: the service applies what its subscription delivers.
func (m *ReadModel) ApplyCommit(pos events.Position, evs ...events.Event) error {
	for i, e := range evs {
		env := events.Envelope{ID: fmt.Sprintf("e%d-%d", pos, i), Name: e.EventName(), Position: pos,
			Version: events.Version(pos), Index: i, CommitSize: len(evs), Time: time.Now(), Event: e}
		if err := m.Apply(env); err != nil {
			return fmt.Errorf("apply %s: %w", e.EventName(), err)
		}
	}
	return nil
}

// publish folds the envelopes of one commit into the read models inside a
// publication window, advances the applied position, then hands each
// event to OnApplied (wmu held). The commit is checked first: folded
// halfway, its first events would stay visible (and a principal they
// register would authenticate) at a position the model never reaches. A
// commit that fails stops the models (Apply): no part of it is published
// later.
func (m *ReadModel) publish(envs []events.Envelope) (err error) {
	last := envs[len(envs)-1]
	var env events.Envelope // the event being folded or handed on, once the checks passed
	folded := false
	defer func() {
		// A check, a fold or OnApplied that panics (a bug) is an error,
		// which stops the models (Apply): not a crash in the middle of the
		// appliers, nor, under Run's recoverer, a commit sent again for
		// ever. A fold leaves part of the commit folded. OnApplied leaves
		// the rest of the commit unseen, for good, since Apply skips what
		// it applied: the verifiable log's tree would lack those leaves
		// and every checkpoint after them would be wrong.
		if r := recover(); r != nil {
			switch {
			case env.Name == "":
				err = fmt.Errorf("check the commit at %d: panic: %v", last.Position, r)
			case folded:
				err = fmt.Errorf("OnApplied %s at %d: panic: %v", env.Name, env.Position, r)
			default:
				err = fmt.Errorf("apply %s at %d: panic: %v", env.Name, env.Position, r)
			}
		}
	}()
	if err := m.check(envs); err != nil {
		return err
	}
	m.seq.Add(1) // odd: readers wait and retry
	if err := func() error {
		defer m.seq.Add(1) // even again, whatever happened
		for _, env = range envs {
			if err := m.apply(env); err != nil {
				return fmt.Errorf("apply %s at %d: %w", env.Name, env.Position, err)
			}
			m.eventsCount.Add(1)
			if !env.Time.IsZero() {
				m.appliedAt.Store(env.Time.UnixNano())
				m.latestAt = max(m.latestAt, env.Time.UnixNano())
			}
		}
		m.applied.Store(uint64(last.Position))
		m.lastID = last.ID
		return nil
	}(); err != nil {
		return err
	}
	folded = true
	m.staged, m.stagedPos = m.staged[:0], 0
	m.wake()
	if m.OnApplied != nil {
		for _, env = range envs {
			m.OnApplied(env)
		}
	}
	return nil
}

// readAttempts is how many runs of a read's f a commit may interrupt
// before read holds publication off to run it once more.
const readAttempts = 8

// read runs f, again if a commit was published while it ran, until f has
// seen the state after whole commits only; it returns the position of
// that state. After readAttempts interrupted runs it runs f holding wmu,
// so no commit is published meanwhile: a long read (a list over every
// pendenza) on a log busier than it is fast ends, at the cost of holding
// the appliers back for one run. f must only read the models (it may run
// more than once) and must not call Apply.
func (m *ReadModel) read(f func()) events.Position {
	for range readAttempts {
		if pos, ok := m.attempt(f); ok {
			return pos
		}
	}
	m.wmu.Lock()
	defer m.wmu.Unlock()
	f()
	return events.Position(m.applied.Load())
}

// attempt runs f once and reports whether what it read was the state
// after whole commits (no commit published meanwhile), and that state's
// position.
func (m *ReadModel) attempt(f func()) (events.Position, bool) {
	s := m.readBegin()
	f()
	pos := m.applied.Load()
	return events.Position(pos), m.readDone(s)
}

// readBegin waits until no commit is being published and returns the
// publication counter; the hot-path reads use it and readDone directly,
// without read's indirect call.
func (m *ReadModel) readBegin() uint64 {
	for {
		if s := m.seq.Load(); s&1 == 0 {
			return s
		}
		runtime.Gosched() // a commit is being published; it is short
	}
}

// readDone reports whether no commit was published since readBegin
// returned s: what was read in between is the state after whole commits.
func (m *ReadModel) readDone(s uint64) bool { return m.seq.Load() == s }

// whole returns get's answer at a commit boundary (see read).
func whole[T any](m *ReadModel, get func() (T, bool)) (v T, ok bool) {
	m.read(func() { v, ok = get() })
	return v, ok
}

// wholeList returns list's answer at a commit boundary (see read).
func wholeList[T any](m *ReadModel, list func() []T) (out []T) {
	m.read(func() { out = list() })
	return out
}

// Consistent runs f so that every read of the models it makes sees the
// same state, the state after whole commits, and returns the position of
// that state: the position a decision made inside f rests on. f may run
// more than once while commits are published; it must only read (no side
// effects it cannot repeat) and must not block.
func (m *ReadModel) Consistent(f func()) events.Position { return m.read(f) }

// ConsistentWithin is Consistent for a long read (who-can over every
// principal) that a busy log could otherwise restart for ever: it gives up
// after attempts runs of f that a commit interrupted, and reports ok false;
// what f read is then not one state and must not be answered.
func (m *ReadModel) ConsistentWithin(attempts int, f func()) (events.Position, bool) {
	for range attempts {
		if pos, ok := m.attempt(f); ok {
			return pos, true
		}
	}
	return 0, false
}

// check returns the error apply would return for some event of the
// commit envs, changing nothing. It refuses what apply refuses, through
// the same parsing; an event it does not list is refused, so a projector
// added to apply and not here fails loudly rather than folding half a
// commit.
func (m *ReadModel) check(envs []events.Envelope) error {
	for i, env := range envs {
		var err error
		switch e := env.Event.(type) {
		case events.RoleDefined:
			_, err = RoleOf(e)
		case events.OperatorRegistered:
			err = checkOperator(e)
		case events.OperatorUpdated:
			err = checkOperator(events.OperatorRegistered(e))
		case events.ApplicationRegistered:
			err = checkApplication(e)
		case events.ApplicationUpdated:
			err = checkApplication(events.ApplicationRegistered(e))
		case events.ApplicationAPIAuthorized:
			err = m.principals.checkGrant(e.IDA2A, e.API, envs[:i])
		case events.ApplicationAPIRevoked:
			err = m.principals.checkGrant(e.IDA2A, e.API, envs[:i])
		case events.CreditorEntityRegistered, events.CreditorEntityUpdated, events.UnitRegistered, events.UnitUpdated,
			events.PendenzaTypeRegistered, events.PendenzaTypeUpdated, events.IntermediaryRegistered, events.IntermediaryUpdated,
			events.PublicAPIProtectionConfigured, events.PendenzaCreated, events.PendenzaUpdated, events.PendenzaStatusChanged,
			events.PaymentStarted, events.ReceiptRecorded, events.SettlementReportRecorded, events.ReconciliationCreated,
			events.IncassoRecorded, events.IdentifierClaimed, events.IdentifierReleased, events.LogCheckpointSigned:
			// Folded by code that cannot fail.
		default:
			err = fmt.Errorf("no projector for event %q", env.Name)
		}
		if err != nil {
			return fmt.Errorf("apply %s at %d: %w", env.Name, env.Position, err)
		}
	}
	return nil
}

func (m *ReadModel) apply(env events.Envelope) error {
	switch e := env.Event.(type) {
	case events.CreditorEntityRegistered:
		m.registry.putEntity(e)
	case events.CreditorEntityUpdated:
		m.registry.putEntity(events.CreditorEntityRegistered(e))
	case events.UnitRegistered:
		m.registry.putUnit(e)
	case events.UnitUpdated:
		m.registry.putUnit(events.UnitRegistered(e))
	case events.PendenzaTypeRegistered:
		m.registry.putType(e)
	case events.PendenzaTypeUpdated:
		m.registry.putType(events.PendenzaTypeRegistered(e))
	case events.IntermediaryRegistered:
		m.registry.putIntermediary(e, env.Position)
	case events.IntermediaryUpdated:
		m.registry.putIntermediary(events.IntermediaryRegistered(e), env.Position)
	case events.PublicAPIProtectionConfigured:
		m.registry.putProtection(e)
	case events.RoleDefined:
		return m.principals.defineRole(e, env.Position)
	case events.OperatorRegistered:
		return m.principals.putOperator(e, env.Position)
	case events.OperatorUpdated:
		return m.principals.putOperator(events.OperatorRegistered(e), env.Position)
	case events.ApplicationRegistered:
		return m.principals.putApplication(e, env.Position)
	case events.ApplicationUpdated:
		return m.principals.putApplication(events.ApplicationRegistered(e), env.Position)
	case events.ApplicationAPIAuthorized:
		return m.principals.authorize(e, env.Position)
	case events.ApplicationAPIRevoked:
		return m.principals.revoke(e, env.Position)
	case events.PendenzaCreated:
		m.pendenze.put(e, env.Position, env.Time)
	case events.PendenzaUpdated:
		m.pendenze.put(events.PendenzaCreated(e), env.Position, env.Time)
	case events.PendenzaStatusChanged:
		m.pendenze.changeStato(e)
	case events.PaymentStarted:
		m.money.startPayment(e, env)
	case events.ReceiptRecorded:
		m.money.recordReceipt(e, env)
		if e.Collected() && e.IDA2A != "" {
			m.pendenze.markPaid(e.IDA2A, e.IDPendenza)
		}
	case events.SettlementReportRecorded:
		m.money.recordSettlement(e, env)
	case events.ReconciliationCreated:
		m.money.createReconciliation(e, env)
	case events.IncassoRecorded:
		m.money.recordIncasso(e, env)
	case events.IdentifierClaimed, events.IdentifierReleased:
		// Write-side uniqueness only: principals and notice numbers come
		// into the read models with their own aggregates' events.
	case events.LogCheckpointSigned:
		// The log's own integrity (projections/logtree), no read model.
	default:
		return fmt.Errorf("no projector for event %q", env.Name)
	}
	return nil
}
