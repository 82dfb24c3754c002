package operations

import (
	"github.com/payauthz/payauthz/domain"
)

// PATCH /pendenze/{idA2A}/{idPendenza} (GovPay's JSON Patch of /stato:
// cancel or reopen a pendenza), on two APIs, each with its own rule. The
// state change itself is decided by domain.ChangeStato in the command.

// PatchOwnPendenza is the Pendenze v2 patch: only under the caller's own
// idA2A (decided before the lookup, so it may learn a pendenza is missing
// there), and only by the creator while its PENDENZE grant still covers
// the pendenza's entity × type (domain.CanUpdatePendenza, the place
// unchanged). Unlike PUT, a disabled entity or type does not stop it: a
// pendenza of a retired service can still be cancelled.
func PatchOwnPendenza(m PendenzaViews, p domain.Principal, idA2A, idPendenza string, rec Recorder) (domain.PendenzaView, error) {
	v, err := find(rec, WritePendenzaUnder(p, idA2A, rec),
		func() (domain.PendenzaView, bool) { return m.PendenzaView(idA2A, idPendenza) }, nil)
	if err != nil {
		return v, err
	}
	return v, check(rec, "CanUpdatePendenza", domain.CanUpdatePendenza(p, v, idA2A, v.Place()))
}

// The Backoffice patch needs Pendenze W, stated once for its gate and
// for the operation.
var patchBackofficeService, patchBackofficeRight = domain.ServicePendenze, domain.RightWrite

// PatchPendenzaBackofficeGate is the gate of the Backoffice patch, decided
// before the body is read: Pendenze W from some role, the first check of
// PatchPendenzaBackoffice (OnPendenza's UseService). It has
// WritePendenzaUnder's shape, the Pendenze API's gate of the same patch.
func PatchPendenzaBackofficeGate(p domain.Principal, _ string, rec Recorder) error {
	return UseService(p, patchBackofficeService, patchBackofficeRight, rec)
}

// PatchPendenzaBackoffice is the Backoffice patch: Pendenze W on the
// pendenza's entity × type, from one role (OnPendenza).
func PatchPendenzaBackoffice(m Pendenze, p domain.Principal, idA2A, idPendenza string, rec Recorder) (domain.PendenzaView, error) {
	pd, err := OnPendenza(m, p, patchBackofficeService, patchBackofficeRight, idA2A, idPendenza, rec)
	return pd.View(), err
}
