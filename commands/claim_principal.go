package commands

import (
	"context"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// A principal is unique across applications and operators. The read
// model answers for principals already registered (principalFree); two
// concurrent registrations of one new principal are decided by the
// principal's own claim stream, appended with an expected version.

// principalKey is the claim key of a principal: the canonical DN of a
// certificate subject (any spelling of one subject is one principal), any
// other name as it is.
func principalKey(name string) string {
	if dn, err := domain.ParseDN(name); err == nil {
		return "dn:" + domain.DNKey(dn)
	}
	return "name:" + name
}

func applicationHolder(idA2A string) string  { return "APPLICATION:" + idA2A }
func operatorHolder(principal string) string { return "OPERATOR:" + principal }

// claimPrincipal claims name for holder. fresh reports that this call made
// the claim (the caller releases it if its own command then fails). A
// claim held by another holder is ErrPrincipalInUse.
func (h *Handler) claimPrincipal(ctx context.Context, actor Actor, name, holder string) (fresh bool, err error) {
	key := principalKey(name)
	res, err := h.execute(ctx, actor, events.StreamPrincipal+key, func(stream []events.Envelope) ([]events.Event, error) {
		if n := len(stream); n > 0 {
			if c, ok := stream[n-1].Event.(events.PrincipalClaimed); ok {
				if c.Holder == holder {
					return nil, nil
				}
				return nil, fmt.Errorf("%w: %s", ErrPrincipalInUse, name)
			}
		}
		return []events.Event{events.PrincipalClaimed{Principal: key, Holder: holder}}, nil
	})
	return res.Changed, err
}

// releasePrincipal gives name up if holder holds it. A failure is logged:
// the claim then stays with its holder (safe: nobody else can take it).
func (h *Handler) releasePrincipal(ctx context.Context, actor Actor, name, holder string) {
	key := principalKey(name)
	_, err := h.execute(ctx, actor, events.StreamPrincipal+key, func(stream []events.Envelope) ([]events.Event, error) {
		if n := len(stream); n > 0 {
			if c, ok := stream[n-1].Event.(events.PrincipalClaimed); ok && c.Holder == holder {
				return []events.Event{events.PrincipalReleased{Principal: key, Holder: holder}}, nil
			}
		}
		return nil, nil
	})
	if err != nil {
		h.logger.Warn("releasing a principal claim failed; it stays with its holder", "holder", holder, "error", err)
	}
}

// withPrincipal runs write (the registration of holder under name) holding
// the claim on name: a claim this call made is released again when write
// fails, and previous, the holder's former principal, is released when
// write succeeded under a different one.
func (h *Handler) withPrincipal(ctx context.Context, actor Actor, name, previous, holder string, write func() (Result, error)) (Result, error) {
	fresh, err := h.claimPrincipal(ctx, actor, name, holder)
	if err != nil {
		return Result{}, err
	}
	res, err := write()
	if err != nil {
		if fresh {
			h.releasePrincipal(context.WithoutCancel(ctx), actor, name, holder)
		}
		return res, err
	}
	if previous != "" && principalKey(previous) != principalKey(name) {
		h.releasePrincipal(context.WithoutCancel(ctx), actor, previous, holder)
	}
	return res, nil
}
