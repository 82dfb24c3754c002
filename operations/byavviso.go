package operations

import (
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/projections"
)

// GET /pendenze/byAvviso/{idDominio}/{numeroAvviso}: a pendenza named by
// its notice, on three APIs, each with its own rule.

// ReadByAvvisoPendenze is the Pendenze v2 read: its gate
// AskByAvvisoPendenze, then the creator only. An application learns that
// a notice is missing only at an entity of its PENDENZE grant; elsewhere
// a missing notice is denied like another application's
// (domain.CanLearnMissingOwnNotice).
func ReadByAvvisoPendenze(m Notices, p domain.Principal, idDominio, numeroAvviso string, rec Recorder) (projections.Pendenza, error) {
	pd, err := find(rec, AskByAvvisoPendenze(p, rec),
		func() (projections.Pendenza, bool) { return m.PendenzaByNotice(idDominio, numeroAvviso) },
		func() error { return domain.CanLearnMissingOwnNotice(p, idDominio) })
	return decided(rec, "CanReadOwnPendenza", domain.CanReadOwnPendenza, p, pd, err)
}

// AskByAvvisoPendenze is the gate of the Pendenze v2 read, decided before
// the notice is looked up: the caller asks about pendenze under its own
// idA2A (an active application authorized on PENDENZE).
func AskByAvvisoPendenze(p domain.Principal, rec Recorder) error { return askOwnIDA2A(p, rec) }

// ReadByAvvisoPagamento is the Pagamento v2 read: the notice's gate,
// protection (guard, as ReadNotice's: on the public mount no caller
// learns whether a notice exists without passing it) and missing rule (as
// GET /avvisi), then the pendenza read rule (the payer, an application
// whose PAGAMENTO grant covers it, the anonymous session that created it).
func ReadByAvvisoPagamento(m Notices, p domain.Principal, idDominio, numeroAvviso string, guard func(uuid string) error, rec Recorder) (projections.Pendenza, error) {
	pd, err := notice(m, p, idDominio, numeroAvviso, guard, rec)
	return decided(rec, "CanReadPendenzaPagamento", domain.CanReadPendenzaPagamento, p, pd, err)
}

// ReadByAvvisoRagioneria is the Ragioneria v3 read: idDominio in the
// RAGIONERIA grant, decided before the lookup (403 before 404), then the
// pendenza's type in it too (domain.CanReadPendenzaRagioneria); a missing
// notice is told only to a grant over idDominio and every type, anyone
// else gets the denial of one outside its types.
func ReadByAvvisoRagioneria(m Notices, p domain.Principal, idDominio, numeroAvviso string, rec Recorder) (projections.Pendenza, error) {
	pd, err := find(rec, ReadRagioneriaDominio(p, idDominio, rec),
		func() (projections.Pendenza, bool) { return m.PendenzaByNotice(idDominio, numeroAvviso) },
		func() error { return domain.CanLearnMissingInGrant(p, domain.APIRagioneria, idDominio) })
	return decided(rec, "CanReadPendenzaRagioneria", domain.CanReadPendenzaRagioneria, p, pd, err)
}
