package events

// Values the events carry on the wire and in the log: one home, so that
// writers (commands), readers (projections, http) and the log agree.

// Values of PaymentStarted.CallerKind.
const (
	CallerApplication = "APPLICATION"
	CallerCitizen     = "CITIZEN"
	CallerAnonymous   = "ANONYMOUS"
)

// Values of ReceiptRecorded.Esito: only an ESEGUITO receipt pays its
// notice (and is a collection).
const (
	EsitoEseguito    = "ESEGUITO"
	EsitoNonEseguito = "NON_ESEGUITO"
)
