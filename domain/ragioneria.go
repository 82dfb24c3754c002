package domain

// Ragioneria API rules (API.md section 8). Ragioneria resources
// (reconciliations, settlement reports, collections, payment transactions)
// carry an idDominio but no pendenza type, so only the grant's Domini
// applies; its Tipi are ignored here (CanGrantAPI still checks them), but
// for the one read of a pendenza (CanReadPendenzaRagioneria).
// Every function first requires an active application authorized on
// RAGIONERIA (RuleUnknownPrincipal, RulePrincipalDisabled, RuleAPIEntry).

func inRagioneria(p *Principal, idDominio string) error {
	return reachedIn(p, APIRagioneria, idDominio, EntityScope.Contains)
}

// reachedIn requires p's grant on api to hold idDominio as in asks (whole:
// Contains, whole or in some units: Reaches); the denial names it.
func reachedIn(p *Principal, api API, idDominio string, in func(EntityScope, string) bool) error {
	g, err := grantScope(p, api)
	if err != nil {
		return err
	}
	if !in(g.Domini, idDominio) {
		return denyGrantDominio(idDominio, api)
	}
	return nil
}

// reachedAt requires p's grant on api to cover idDominio whole or its unit
// idUnita (RuleAPIScope).
func reachedAt(p *Principal, api API, idDominio, idUnita string) error {
	return reachedIn(p, api, idDominio, func(s EntityScope, d string) bool { return s.ContainsUnit(d, idUnita) })
}

// CanAskRagioneriaDominio is the gate of a Ragioneria read of what may lie
// in one of idDominio's units (receipts, collections), before the lookup:
// the grant reaches idDominio, whole or in some units (RuleAPIScope).
func CanAskRagioneriaDominio(p Principal, idDominio string) error {
	return reachedIn(&p, APIRagioneria, idDominio, EntityScope.Reaches)
}

// CanReadRagioneriaPlace decides a Ragioneria read of a stored resource at
// pl (a receipt or collection: its entity and the unit of the pendenza it
// pays): the grant covers the entity whole or that unit (RuleAPIScope).
func CanReadRagioneriaPlace(p Principal, pl Place) error {
	return reachedAt(&p, APIRagioneria, pl.IDDominio, pl.IDUnita)
}

// CanAskWriteReconciliation decides whether p may write reconciliations
// of idDominio, before the body is read or the reconciliation looked up
// (RuleAPIScope).
func CanAskWriteReconciliation(p Principal, idDominio string) error {
	return inRagioneria(&p, idDominio)
}

// CanWriteReconciliation decides PUT /riconciliazioni/{idDominio}/{id}:
// the write gate, CanAskWriteReconciliation (idDominio must be in scope,
// RuleAPIScope); existing is the reconciliation already stored under that
// id, if any, and must be the caller's own (RuleCreator, the rule
// CanReadReconciliation reads it by), which makes a repeat idempotent for
// its creator only.
func CanWriteReconciliation(p Principal, idDominio string, existing *ReconciliationView) error {
	if err := CanAskWriteReconciliation(p, idDominio); err != nil {
		return err
	}
	if existing != nil {
		return ownedBy(&p, APIRagioneria, existing.IDA2A, errNotRewriter)
	}
	return nil
}

// CanReadReconciliation decides a reconciliation read: the creator only
// (RuleCreator), whatever its current scope.
func CanReadReconciliation(p Principal, v ReconciliationView) error {
	return ownedBy(&p, APIRagioneria, v.IDA2A, errNotReconcile)
}

// CanReadRagioneriaDominio decides reads of the settlement reports and
// collections of idDominio (RuleAPIScope).
func CanReadRagioneriaDominio(p Principal, idDominio string) error {
	return inRagioneria(&p, idDominio)
}

// CanReadPendenzaRagioneria decides a Ragioneria read of a stored
// pendenza (GET /pendenze/byAvviso): unlike the Ragioneria resources, a
// pendenza has a type, so the grant must hold its entity (or unit) and its
// type, as every API's grant does for a pendenza (RuleAPIScope). A missing
// one is learnt by CanLearnMissingInGrant, denied alike.
func CanReadPendenzaRagioneria(p Principal, v PendenzaView) error {
	return pendenzaInGrant(&p, APIRagioneria, &v)
}

// CanUseRagioneria decides whether p may list Ragioneria resources at all
// (each listed one is then filtered by its own decision).
func CanUseRagioneria(p Principal) error {
	_, err := grantScope(&p, APIRagioneria)
	return err
}

// CanReadPaymentRagioneria decides a payment transaction read: allowed when
// any pendenza of the payment belongs to an entity in scope ("payment
// transactions touching entities in scope"), else RuleAPIScope.
func CanReadPaymentRagioneria(p Principal, v PaymentView) error {
	g, err := grantScope(&p, APIRagioneria)
	if err != nil {
		return err
	}
	for i := range v.Items {
		if g.Domini.ContainsUnit(v.Items[i].IDDominio, v.Items[i].IDUnita) {
			return nil
		}
	}
	return deny(RuleAPIScope, DenyGrantPayment, "the payment touches no entity in the application's RAGIONERIA scope")
}
