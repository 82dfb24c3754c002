package projections

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/payauthz/payauthz/events"
)

// ReadModel holds every read model. Apply is called by one goroutine at a
// time (wmu serialises appliers); reads are safe from any goroutine.
type ReadModel struct {
	wmu sync.Mutex // serialises Apply; guards the writer-only indexes below

	// cursor: the last fully applied commit and, inside a commit being
	// applied, the index of the last applied event.
	applied     atomic.Uint64 // events.Position of the last fully applied commit
	partialPos  events.Position
	partialIdx  int
	appliedAt   atomic.Int64 // unix nanos of the last applied event's time
	eventsCount atomic.Uint64
	notifyMu    sync.Mutex
	notify      chan struct{} // closed and replaced whenever applied advances

	macKey [32]byte // keys the verified-credential cache

	principals *principals
	registry   *registry
	pendenze   *pendenze
	money      *money

	// OnApplied, when set before the first Apply, is called after each
	// event is applied (metrics, invalidation fan-out). It must not block.
	OnApplied func(env events.Envelope)
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
func (m *ReadModel) LastEventTime() time.Time {
	n := m.appliedAt.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// WaitFor blocks until the read models have applied pos, or ctx ends.
func (m *ReadModel) WaitFor(ctx context.Context, pos events.Position) error {
	for {
		m.notifyMu.Lock()
		ch := m.notify
		m.notifyMu.Unlock()
		if m.AppliedPosition() >= pos {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Apply folds one event into the read models. Events must arrive in log
// order; an event at or before the cursor is skipped (idempotent).
func (m *ReadModel) Apply(env events.Envelope) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	applied := events.Position(m.applied.Load())
	if env.Position <= applied {
		return nil
	}
	if env.Position == m.partialPos && env.Index <= m.partialIdx {
		return nil
	}
	if err := m.apply(env); err != nil {
		return fmt.Errorf("apply %s at %d: %w", env.Name, env.Position, err)
	}
	m.eventsCount.Add(1)
	if !env.Time.IsZero() {
		m.appliedAt.Store(env.Time.UnixNano())
	}
	if env.Index+1 >= env.CommitSize {
		m.partialPos, m.partialIdx = 0, 0
		m.applied.Store(uint64(env.Position))
		m.notifyMu.Lock()
		close(m.notify)
		m.notify = make(chan struct{})
		m.notifyMu.Unlock()
	} else {
		m.partialPos, m.partialIdx = env.Position, env.Index
	}
	if m.OnApplied != nil {
		m.OnApplied(env)
	}
	return nil
}

func (m *ReadModel) apply(env events.Envelope) error {
	switch e := env.Event.(type) {
	case events.CreditorEntityRegistered:
		m.registry.putEntity(e)
	case events.CreditorEntityUpdated:
		m.registry.putEntity(events.CreditorEntityRegistered(e))
	case events.PendenzaTypeRegistered:
		m.registry.putType(e)
	case events.PendenzaTypeUpdated:
		m.registry.putType(events.PendenzaTypeRegistered(e))
	case events.IntermediaryRegistered:
		m.registry.putIntermediary(e, env.Position)
	case events.IntermediaryUpdated:
		m.registry.putIntermediary(events.IntermediaryRegistered(e), env.Position)
	case events.PublicAPIProtectionConfigured:
		m.registry.protection.Store(&e)
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
		m.pendenze.put(e, env.Position)
	case events.PendenzaUpdated:
		m.pendenze.put(events.PendenzaCreated(e), env.Position)
	case events.PaymentStarted:
		m.money.startPayment(e, env)
	case events.ReceiptRecorded:
		m.money.recordReceipt(e, env)
		if e.Esito == "ESEGUITO" && e.IDA2A != "" {
			m.pendenze.markPaid(e.IDA2A, e.IDPendenza)
		}
	case events.SettlementReportRecorded:
		m.money.recordSettlement(e, env)
	case events.ReconciliationCreated:
		m.money.createReconciliation(e, env)
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
