package commands

import (
	"context"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// AdminRole is the role created on first start.
const AdminRole = "Amministratore"

// Bootstrap creates, when the service was never set up (BootstrapNeeded),
// the role Amministratore (all nine services RW on every entity and type)
// and an operator holding it. It reports whether it did, that is whether
// this call appended the operator with this password (replicas starting
// on an empty log at once: one does, the others find it). The system actor
// bypasses delegation: nothing exists yet to delegate from. Both appends
// are createOnce: a bootstrap repeated after a failure between them only
// adds what is missing.
func (h *Handler) Bootstrap(ctx context.Context, principal, password string) (bool, error) {
	needed, err := h.BootstrapNeeded(ctx)
	if err != nil {
		return false, fmt.Errorf("bootstrap: %w", err)
	}
	if !needed {
		return false, nil
	}
	if err := CheckAdmin(principal, password); err != nil {
		return false, err
	}
	hash, err := domain.HashPassword(password)
	if err != nil {
		return false, err
	}
	acl := make([]events.ACLEntry, 0, len(domain.Services))
	for _, s := range domain.Services {
		acl = append(acl, events.ACLEntry{Service: s.String(), Rights: []string{"R", "W"}})
	}
	role := events.RoleDefined{IDRuolo: AdminRole, ACL: acl, Domini: []string{domain.Wildcard}, TipiPendenza: []string{domain.Wildcard}}
	if _, err := h.execute(ctx, System, events.StreamRuolo+AdminRole, createOnce(role)); err != nil {
		return false, err
	}
	op := events.OperatorRegistered{Principal: principal, RagioneSociale: "Amministratore", PasswordHash: hash,
		Enabled: true, Roles: []string{AdminRole}}
	res, err := h.execute(ctx, System, events.StreamOperatore+principal, createOnce(op))
	if err != nil {
		return false, err
	}
	return res.Changed, nil
}

// BootstrapNeeded reports whether the service was never set up. Set up
// means the bootstrap's operator was appended; the bootstrap appends the
// role Amministratore first, and nothing else writes before the operator
// exists (every other write is a logged-in operator's). So the service was
// never set up when its log is empty, or when the role's creation, the
// log's first commit, is also its last (a first start that failed between
// the two appends). Deciding on whether the principal given now has a
// stream instead would give a configured log a second administrator when
// the configuration names another one.
func (h *Handler) BootstrapNeeded(ctx context.Context) (bool, error) {
	last, err := h.store.LastPosition(ctx)
	if err != nil || last == 0 {
		return err == nil, err
	}
	role, err := h.store.Load(ctx, events.StreamRuolo+AdminRole)
	if err != nil {
		return false, err
	}
	return len(role) == 1 && role[0].Position == last, nil
}
