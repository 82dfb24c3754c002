package domain

// The views are what read models hand to decision functions: only the
// facts a rule needs.

// Place is where the pendenza lies for scoping.
func (v PendenzaView) Place() Place {
	return Place{IDDominio: v.IDDominio, IDUnita: v.IDUnita, IDTipoPendenza: v.IDTipoPendenza}
}

// PendenzaView is the ownership and scope facts of a pendenza.
type PendenzaView struct {
	IDA2A          string // creator application
	IDPendenza     string
	IDDominio      string
	IDTipoPendenza string
	IDUnita        string // its entity's operational unit, "" for none
	PayerID        string // soggettoPagatore.identificativo, upper-cased
	NumeroAvviso   string
	UUID           string
	SessionHash    string        // the anonymous session that created it (Pagamento API), "" for none
	Stato          PendenzaStato // StatoEseguita once a receipt paid it
}

// PaymentItemView is one pendenza a payment covers.
type PaymentItemView struct {
	IDDominio      string
	IDTipoPendenza string
	IDUnita        string // the pendenza's operational unit, "" for none
	PayerID        string
}

// Place is where the item's pendenza lies.
func (it *PaymentItemView) Place() Place {
	return Place{IDDominio: it.IDDominio, IDUnita: it.IDUnita, IDTipoPendenza: it.IDTipoPendenza}
}

// PaymentView is the ownership facts of a payment.
type PaymentView struct {
	ID          string
	CallerKind  PrincipalKind
	CallerID    string // idA2A of an application, fiscal code of a citizen
	SessionHash string // for anonymous payments
	RemitterID  string // soggettoVersante.identificativo, upper-cased
	Items       []PaymentItemView
}

// ReconciliationView is the ownership facts of a reconciliation.
type ReconciliationView struct {
	IDDominio string
	ID        string
	IDA2A     string // creator application
}

// EntityView is a creditor entity as decisions see it.
type EntityView struct {
	IDDominio       string
	IDIntermediario string
	Enabled         bool
}

// TypeView is a pendenza type as decisions see it.
type TypeView struct {
	IDTipoPendenza string
	Enabled        bool
	Spontaneous    bool
}

// IntermediaryView is an intermediary and its node connector principal.
type IntermediaryView struct {
	IDIntermediario    string
	Enabled            bool
	ConnectorPrincipal string
	// ConnectorDN is ConnectorPrincipal parsed once by the read model; the
	// zero DN when it is not a DN or was not parsed (then it is parsed per
	// decision).
	ConnectorDN DN
}
