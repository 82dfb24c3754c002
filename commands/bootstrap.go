package commands

import (
	"context"
	"fmt"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// AdminRole is the role created on first start.
const AdminRole = "Amministratore"

// Bootstrap creates, when the log is empty, the role Amministratore (all
// nine services RW on every entity and type) and an operator holding it.
// It reports whether it did. The system actor bypasses delegation: nothing
// exists yet to delegate from.
func (h *Handler) Bootstrap(ctx context.Context, principal, password string) (bool, error) {
	last, err := h.store.LastPosition(ctx)
	if err != nil {
		return false, fmt.Errorf("bootstrap: %w", err)
	}
	if last != 0 {
		return false, nil
	}
	if len(password) < domain.MinPasswordLength {
		return false, invalid("password", "must be at least %d characters", domain.MinPasswordLength)
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
	if _, err := h.execute(ctx, System, events.StreamOperatore+principal, createOnce(op)); err != nil {
		return false, err
	}
	return true, nil
}
