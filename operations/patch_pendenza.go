package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// PATCH /pendenze/{idA2A}/{idPendenza} (GovPay's JSON Patch of /stato:
// cancel or reopen a pendenza), on two APIs, each with its own rule, then
// a paid pendenza is 422 whatever the patch asks (changeable). The change
// itself is decided by domain.ChangeStato in the command, on the
// pendenza's stream.

// PatchPendenzaOn is PATCH /pendenze/{idA2A}/{idPendenza} on one API:
// Gate, decided before the body is read (the first check of Authorize),
// and Authorize, on the stored pendenza.
type PatchPendenzaOn struct {
	Gate      func(p domain.Principal, idA2A string, rec Recorder) error
	Authorize func(m Pendenze, p domain.Principal, idA2A, idPendenza string, rec Recorder) (domain.PendenzaView, error)
}

// PatchPendenza is the patch of api, the one place that says which rule
// decides it: the Pendenze API's (WritePendenzaUnder, PatchOwnPendenza)
// or the Backoffice's (PatchPendenzaBackofficeGate,
// PatchPendenzaBackoffice). ok is false for an API without the patch.
func PatchPendenza(api domain.API) (op PatchPendenzaOn, ok bool) {
	switch api {
	case domain.APIPendenze:
		return PatchPendenzaOn{Gate: WritePendenzaUnder, Authorize: PatchOwnPendenza}, true
	case domain.APIBackoffice:
		return PatchPendenzaOn{Gate: PatchPendenzaBackofficeGate, Authorize: PatchPendenzaBackoffice}, true
	}
	return PatchPendenzaOn{}, false
}

// PatchOwnPendenza is the Pendenze v2 patch: only under the caller's own
// idA2A (decided before the lookup, so it may learn a pendenza is missing
// there), and only by the creator while its PENDENZE grant still covers
// the pendenza's entity × type (domain.CanUpdatePendenza, the place
// unchanged). Unlike PUT, a disabled entity or type does not stop it: a
// pendenza of a retired service can still be cancelled.
func PatchOwnPendenza(m Pendenze, p domain.Principal, idA2A, idPendenza string, rec Recorder) (domain.PendenzaView, error) {
	pd, err := find(rec, WritePendenzaUnder(p, idA2A, rec),
		func() (projections.Pendenza, bool) { return m.Pendenza(idA2A, idPendenza) }, nil)
	if err != nil {
		return domain.PendenzaView{}, err
	}
	v := pd.View()
	if err := check(rec, "CanUpdatePendenza", domain.CanUpdatePendenza(p, v, idA2A, v.Place())); err != nil {
		return v, err
	}
	return v, changeable(v, rec)
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
	v := pd.View()
	if err != nil {
		return v, err
	}
	return v, changeable(v, rec)
}

// changeable passes a pendenza whose state a caller may change
// (domain.StatoChangeable), by PATCH or by PUT: a paid one is 422.
func changeable(v domain.PendenzaView, rec Recorder) error {
	return inState(rec, "StatoChangeable", domain.StatoChangeable, v, "change state")
}

// inState passes a pendenza whose state the rule allows what is asked of
// it (doing): otherwise the request is 422, recorded under the rule's name.
func inState(rec Recorder, name string, rule func(domain.PendenzaStato) error, v domain.PendenzaView, doing string) error {
	err := rule(v.Stato)
	if err != nil {
		err = UnprocessableAs(UnprocessableStato, "pendenza %s/%s cannot %s: %v", v.IDA2A, v.IDPendenza, doing, err)
	}
	return check(rec, name, err)
}
