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

// Claim kinds. An X-APP-ID (apikey) names an application's idA2A or an
// operator's principal: claimAppID keeps one X-APP-ID to one of them.
const (
	claimPrincipal = "principal"
	claimAppID     = "appid"
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

// holderOf is the holder of the application idA2A id or the operator id,
// by kind.
func holderOf(kind domain.PrincipalKind, id string) string {
	if kind == domain.KindApplication {
		return applicationHolder(id)
	}
	return operatorHolder(id)
}

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

// withClaim runs write holding the claim on kind/id for holder: a claim
// another holder has answers inUse (an ErrPrincipalInUse); a claim this call made is released again when write
// fails, unless its append went unanswered (errUnconfirmed: the write may
// be stored, and the claim is then its only guard against a replica whose
// read model has not applied it). It passes write's answer on.
func (h *Handler) withClaim(ctx context.Context, actor Actor, kind, id, holder string, inUse error, write func() (res Result, former string, err error)) (Result, string, error) {
	fresh, err := h.claim(ctx, actor, kind, id, holder)
	if errors.Is(err, errTaken) {
		return Result{}, "", inUse
	}
	if err != nil {
		return Result{}, "", err
	}
	res, former, err := write()
	if err != nil && fresh && !errors.Is(err, errUnconfirmed) {
		h.release(ctx, actor, kind, id, holder)
	}
	return res, former, err
}

// withPrincipal runs write (the registration of holder under name) holding
// the claim on name (see withClaim). write returns the holder's former
// principal ("" for none) as its stream held it when the successful append
// was decided, and that one is released when it is not name. Not the read
// model's: two concurrent renames both read the same former principal
// there (one of them replaced the other's new one, which would stay
// claimed), and a lagging replica reads none.
func (h *Handler) withPrincipal(ctx context.Context, actor Actor, name, holder string, write func() (res Result, former string, err error)) (Result, error) {
	res, former, err := h.withClaim(ctx, actor, claimPrincipal, principalKey(name), holder, fmt.Errorf("%w: %s", ErrPrincipalInUse, name), write)
	if err != nil {
		return res, err
	}
	if former != "" && principalKey(former) != principalKey(name) {
		h.release(ctx, actor, claimPrincipal, principalKey(former), holder)
	}
	return res, nil
}

// withAppID runs write (the registration of the application idA2A id or
// the operator id, by kind) holding the claim on id as an X-APP-ID, when
// the read model does not know that holder yet: two concurrent
// registrations of an application and an operator under one new X-APP-ID
// do not both succeed. A holder the read model knows has its X-APP-ID
// already (the claim its registration made, or a registration older than
// claims on X-APP-IDs, which appIDFree and ReadModel.LookupAppID decide).
func (h *Handler) withAppID(ctx context.Context, actor Actor, kind domain.PrincipalKind, id string, write func() (res Result, former string, err error)) (Result, string, error) {
	if h.registered(kind, id) {
		return write()
	}
	return h.withClaim(ctx, actor, claimAppID, id, holderOf(kind, id), appIDInUse(kind, id), write)
}

// register hashes a registration's password and API key (nil: not given,
// see hashCredentials) and runs write, the registration of the
// application idA2A id or the operator id (by kind) under principal, with
// them, holding the claims that keep each of its names one principal's:
// the principal (withPrincipal) and the X-APP-ID (withAppID).
func (h *Handler) register(ctx context.Context, actor Actor, principal string, kind domain.PrincipalKind, id string, password, apiKey *string,
	write func(hash, keyHash string) (res Result, former string, err error)) (Result, error) {
	hash, keyHash, err := h.hashCredentials(password, apiKey)
	if err != nil {
		return Result{}, err
	}
	return h.withPrincipal(ctx, actor, principal, holderOf(kind, id), func() (Result, string, error) {
		return h.withAppID(ctx, actor, kind, id, func() (Result, string, error) { return write(hash, keyHash) })
	})
}
