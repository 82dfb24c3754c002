package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// Some identifiers must be unique across aggregates: a principal across
// applications and operators, a notice number across the pendenze of an
// entity. The read model answers for identifiers already in use; two
// concurrent writers of one new identifier are decided by the identifier's
// own claim stream, appended with an expected version.

// Claim kinds.
const (
	claimPrincipal = "principal"
	claimAvviso    = "avviso"
)

// principalKey is the claim id of a principal: the canonical DN of a
// certificate subject (any spelling of one subject is one principal), any
// other name as it is.
func principalKey(name string) string {
	if dn, err := domain.ParseDN(name); err == nil {
		return "dn:" + domain.DNKey(dn)
	}
	return "name:" + name
}

func applicationHolder(idA2A string) string   { return "APPLICATION:" + idA2A }
func operatorHolder(principal string) string  { return "OPERATOR:" + principal }
func pendenzaHolder(idA2A, idP string) string { return "PENDENZA:" + idA2A + "/" + idP }

// claim claims kind/id for holder. fresh reports that this call made the
// claim (the caller releases it if its own write then fails). A claim held
// by another holder is errTaken.
var errTaken = fmt.Errorf("identifier taken")

func (h *Handler) claim(ctx context.Context, actor Actor, kind, id, holder string) (fresh bool, err error) {
	res, err := h.execute(ctx, actor, events.StreamClaim+kind+"/"+id, func(stream []events.Envelope) ([]events.Event, error) {
		if n := len(stream); n > 0 {
			if c, ok := stream[n-1].Event.(events.IdentifierClaimed); ok {
				if c.Holder == holder {
					return nil, nil
				}
				return nil, errTaken
			}
		}
		return []events.Event{events.IdentifierClaimed{Kind: kind, ID: id, Holder: holder}}, nil
	})
	return res.Changed, err
}

// release gives kind/id up if holder holds it. A failure is logged: the
// claim then stays with its holder (safe: nobody else can take it).
func (h *Handler) release(ctx context.Context, actor Actor, kind, id, holder string) {
	ctx = context.WithoutCancel(ctx)
	_, err := h.execute(ctx, actor, events.StreamClaim+kind+"/"+id, func(stream []events.Envelope) ([]events.Event, error) {
		if n := len(stream); n > 0 {
			if c, ok := stream[n-1].Event.(events.IdentifierClaimed); ok && c.Holder == holder {
				return []events.Event{events.IdentifierReleased{Kind: kind, ID: id, Holder: holder}}, nil
			}
		}
		return nil, nil
	})
	if err != nil {
		h.logger.Warn("releasing a claim failed; it stays with its holder", "kind", kind, "holder", holder, "error", err)
	}
}

// withPrincipal runs write (the registration of holder under name) holding
// the claim on name: a claim this call made is released again when write
// fails, unless its append went unanswered (errUnconfirmed: the
// registration may be stored, and the claim is then its only guard against
// a replica whose read model has not applied it). write returns the
// holder's former principal ("" for none) as its stream held it when the
// successful append was decided, and that one is released when it is not
// name. Not the read model's: two concurrent renames both read the same
// former principal there (one of them replaced the other's new one, which
// would stay claimed), and a lagging replica reads none.
func (h *Handler) withPrincipal(ctx context.Context, actor Actor, name, holder string, write func() (res Result, former string, err error)) (Result, error) {
	fresh, err := h.claim(ctx, actor, claimPrincipal, principalKey(name), holder)
	if errors.Is(err, errTaken) {
		return Result{}, fmt.Errorf("%w: %s", ErrPrincipalInUse, name)
	}
	if err != nil {
		return Result{}, err
	}
	res, former, err := write()
	if err != nil {
		if fresh && !errors.Is(err, errUnconfirmed) {
			h.release(ctx, actor, claimPrincipal, principalKey(name), holder)
		}
		return res, err
	}
	if former != "" && principalKey(former) != principalKey(name) {
		h.release(ctx, actor, claimPrincipal, principalKey(former), holder)
	}
	return res, nil
}
