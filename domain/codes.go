package domain

import "slices"

// Codes of ForbiddenError, with the Args each carries ("none": a fixed
// message). A code names one English message; each denial is made with its
// code and Args where its English is made, so that a client that words
// denials itself (the console, in Italian) has a code for every denial
// this package makes. Every code is listed in denyCodes.
const (
	// Roles and delegation (backoffice.go, errors.go, tipi.go, delegation.go).

	DenyNoRole        = "no-role"        // Service, Right: no role gives it
	DenyPendenzaScope = "pendenza-scope" // Service, Right: no role giving it covers the pendenza
	DenyPaymentScope  = "payment-scope"  // Service, Right: none covers every pendenza of the payment
	DenyGranter       = "granter"        // Service, Right: the granter does not hold it
	DenyMissingScope  = "missing-scope"  // Service, Right: none covers every entity and type
	DenyEventScope    = "event-scope"    // Service, Right: none covers the event's place
	DenyDominioScope  = "dominio-scope"  // Service, Right, idDominio: none giving it has the entity
	DenyTipoScope     = "tipo-scope"     // Service, Right, idTipoPendenza: none giving it has the type
	// DenyGranterPlace: the granter does not hold a right on a place.
	// Args: Service, Right (the zero Service for "any role"), idDominio,
	// idUnitaOperativa, idTipoPendenza ("" where the place names none).
	DenyGranterPlace    = "granter-place"
	DenyBackofficeActor = "backoffice-actor" // none: only operators and applications act on BACKOFFICE
	DenyEmptyPayment    = "empty-payment"    // none: the payment covers no pendenza
	DenyNoRoles         = "no-roles"         // none: the principal holds no role
	DenyProfileOperator = "profile-operator" // none: only operators change their own profile
	DenyOwnProfile      = "own-profile"      // the member asked: an operator changes only its own password

	// Principals (rules.go).

	DenyUnknownCaller = "unknown-caller"     // none: the caller is no kind of principal
	DenyNoIDA2A       = "no-ida2a"           // none: the application has no idA2A
	DenyNoFiscalCode  = "no-fiscal-code"     // none: the citizen has no fiscal code
	DenyDisabled      = "principal-disabled" // none: the principal is disabled

	// Mounts (mount.go, nodo.go).

	DenyAuthUnknown     = "auth-unknown"     // API: the zero AuthType
	DenyAuthRefused     = "auth-refused"     // API, AuthType: the API does not accept it
	DenyNodoAuth        = "nodo-auth"        // none: NODO accepts only ssl and basic
	DenyBackofficeEntry = "backoffice-entry" // none: BACKOFFICE needs an operator or application holding a role
	DenyAppEntry        = "app-entry"        // API: it needs an application authorized on it
	DenyPagamentoEntry  = "pagamento-entry"  // none: PAGAMENTO needs an authorized application, a citizen or an anonymous caller
	DenyNotEntered      = "not-entered"      // API: no principal enters it (NODO)
	DenyNoAPIProfile    = "no-api-profile"   // API: it has no application profile

	// Applications' grants (rules.go, ragioneria.go).

	DenyNotApplication = "not-application" // API: only applications hold its grants
	DenyNoGrant        = "no-grant"        // API: the application is not authorized on it
	DenyGrantDominio   = "grant-dominio"   // idDominio, API: not in the grant
	DenyGrantUnit      = "grant-unit"      // idUnitaOperativa, idDominio, API: the unit is not in the grant
	DenyGrantTipo      = "grant-tipo"      // idTipoPendenza, API: not in the grant
	DenyGrantPendenza  = "grant-pendenza"  // API: the stored pendenza's place is not in the grant
	DenyGrantPayment   = "grant-payment"   // none: the payment touches no entity of the RAGIONERIA grant

	// Ownership (pendenze.go, ragioneria.go).

	DenyNotOwnIDA2A       = "own-ida2a"              // none: an application writes only under its own idA2A
	DenyNotCreator        = "not-creator"            // none: an application reads only its own pendenze
	DenyNotUpdater        = "not-updater"            // none: only the creator updates a pendenza
	DenyNotReconciliation = "not-reconciliation"     // none: an application reads only its own reconciliations
	DenyNotRewriter       = "reconciliation-rewrite" // none: another application created the reconciliation

	// The Pagamento API (pagamento.go, missing.go).

	DenyCitizenNotPayer = "citizen-not-payer"  // none: a citizen sees only the pendenze it is payer of
	DenyAnonymousRead   = "anonymous-read"     // none: anonymous callers cannot read pendenze
	DenyReadPendenze    = "read-pendenze"      // none: the caller cannot read pendenze on PAGAMENTO
	DenyCitizenPays     = "citizen-pays"       // none: a citizen pays by id only the pendenze it is payer of
	DenyAnonymousPays   = "anonymous-pays"     // none: anonymous callers pay only notices and spontaneous payments
	DenyStartPayment    = "start-payment"      // none: the caller cannot start payments
	DenyPayNotice       = "pay-notice"         // none: the caller cannot pay notices
	DenyCitizenCreates  = "citizen-creates"    // none: a citizen creates pendenze only as their payer
	DenyCreatePendenze  = "create-pendenze"    // none: the caller cannot create pendenze on PAGAMENTO
	DenyReadNotice      = "read-notice"        // none: the caller cannot read notices
	DenySessionPendenza = "session-pendenza"   // none: an anonymous caller reads only its session's pendenze
	DenyPayerCreated    = "payer-created"      // idTipoPendenza: the type does not allow pendenze created by the payer
	DenyNotSpontaneous  = "not-spontaneous"    // idTipoPendenza: the type does not allow spontaneous payments
	DenyPaymentOwner    = "payment-owner"      // none: an application reads only the payments it started
	DenyPaymentPayer    = "payment-payer"      // none: a citizen reads only payments it is payer or remitter of
	DenySessionPayment  = "session-payment"    // none: an anonymous caller reads only its session's payments
	DenyReadPayments    = "read-payments"      // none: the caller cannot read payments
	DenyAskPendenzaByID = "ask-pendenza-by-id" // none: the caller cannot ask about pendenze by id
	DenyAskPaymentByID  = "ask-payment-by-id"  // none: the caller cannot ask about payments by id

	// The public API's protection (protection.go).

	DenyNotProtectable   = "not-protectable"     // none: a request the protected public API does not serve
	DenyCaptchaUnchecked = "captcha-unavailable" // none: the captcha could not be verified
	DenyCaptchaFailed    = "captcha-failed"      // none: the captcha check did not pass
	DenyCaptchaOrUUID    = "captcha-or-uuid"     // none: a captcha token or the pendenza's UUID is required
	DenyCaptchaRequired  = "captcha-required"    // none: a captcha token is required

	// The Node API (nodo.go).

	DenyNodeCertificate      = "node-certificate"      // none: the subject is not the intermediary's connector
	DenyNodeCredentials      = "node-credentials"      // none: the credentials are not the connector's
	DenyIntermediaryDisabled = "intermediary-disabled" // none: the intermediary is disabled
	DenyEntityNotServed      = "entity-not-served"     // none: the intermediary does not serve the entity
)

// denyCodes are the codes above, each once.
var denyCodes = [...]string{
	DenyNoRole, DenyPendenzaScope, DenyPaymentScope, DenyGranter, DenyMissingScope, DenyEventScope,
	DenyDominioScope, DenyTipoScope, DenyGranterPlace, DenyBackofficeActor, DenyEmptyPayment, DenyNoRoles,
	DenyProfileOperator, DenyOwnProfile,
	DenyUnknownCaller, DenyNoIDA2A, DenyNoFiscalCode, DenyDisabled,
	DenyAuthUnknown, DenyAuthRefused, DenyNodoAuth, DenyBackofficeEntry, DenyAppEntry, DenyPagamentoEntry,
	DenyNotEntered, DenyNoAPIProfile,
	DenyNotApplication, DenyNoGrant, DenyGrantDominio, DenyGrantUnit, DenyGrantTipo, DenyGrantPendenza,
	DenyGrantPayment,
	DenyNotOwnIDA2A, DenyNotCreator, DenyNotUpdater, DenyNotReconciliation, DenyNotRewriter,
	DenyCitizenNotPayer, DenyAnonymousRead, DenyReadPendenze, DenyCitizenPays, DenyAnonymousPays,
	DenyStartPayment, DenyPayNotice, DenyCitizenCreates, DenyCreatePendenze, DenyReadNotice,
	DenySessionPendenza, DenyPayerCreated, DenyNotSpontaneous, DenyPaymentOwner, DenyPaymentPayer,
	DenySessionPayment, DenyReadPayments, DenyAskPendenzaByID, DenyAskPaymentByID, DenyNotProtectable,
	DenyCaptchaUnchecked, DenyCaptchaFailed, DenyCaptchaOrUUID, DenyCaptchaRequired,
	DenyNodeCertificate, DenyNodeCredentials, DenyIntermediaryDisabled, DenyEntityNotServed,
}

// DenyCodes returns every code a ForbiddenError of this package carries, in
// a new slice the caller may keep.
func DenyCodes() []string { return slices.Clone(denyCodes[:]) }
