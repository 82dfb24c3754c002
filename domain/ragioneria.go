package domain

// Ragioneria API rules (API.md section 8). Ragioneria resources
// (reconciliations, settlement reports, collections, payment transactions)
// carry an idDominio but no pendenza type, so only the grant's Domini
// applies; its Tipi are ignored here (CanGrantAPI still checks them).
// Every function first requires an active application authorized on
// RAGIONERIA (RuleUnknownPrincipal, RulePrincipalDisabled, RuleAPIEntry).

func inRagioneria(p *Principal, idDominio string) error {
	g, err := grantScope(p, APIRagioneria)
	if err != nil {
		return err
	}
	if !g.Domini.Contains(idDominio) {
		return deny(RuleAPIScope, "idDominio %s is not in the application's RAGIONERIA scope", idDominio)
	}
	return nil
}

// CanAskWriteReconciliation decides whether p may write reconciliations
// of idDominio, before the body is read or the reconciliation looked up
// (RuleAPIScope).
func CanAskWriteReconciliation(p Principal, idDominio string) error {
	return inRagioneria(&p, idDominio)
}

// CanWriteReconciliation decides PUT /riconciliazioni/{idDominio}/{id}:
// idDominio must be in scope (RuleAPIScope); existing is the reconciliation
// already stored under that id, if any, and must be the caller's own
// (RuleCreator), which makes a repeat idempotent for its creator only.
func CanWriteReconciliation(p Principal, idDominio string, existing *ReconciliationView) error {
	if err := inRagioneria(&p, idDominio); err != nil {
		return err
	}
	if existing != nil && existing.IDA2A != p.IDA2A {
		return deny(RuleCreator, "another application created this reconciliation")
	}
	return nil
}

// CanReadReconciliation decides a reconciliation read: the creator only
// (RuleCreator), whatever its current scope.
func CanReadReconciliation(p Principal, v ReconciliationView) error {
	return ownedBy(&p, APIRagioneria, v.IDA2A, RuleCreator, "an application reads only the reconciliations it created")
}

// CanReadRagioneriaDominio decides reads of the settlement reports and
// collections of idDominio (RuleAPIScope).
func CanReadRagioneriaDominio(p Principal, idDominio string) error {
	return inRagioneria(&p, idDominio)
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
		if g.Domini.Contains(v.Items[i].IDDominio) {
			return nil
		}
	}
	return deny(RuleAPIScope, "the payment touches no entity in the application's RAGIONERIA scope")
}
