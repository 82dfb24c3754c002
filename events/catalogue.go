package events

import (
	"encoding/json"
	"iter"
	"reflect"
)

// The catalogue: one past-tense type per fact. Scopes are lists in GovPay's
// convention: ["*"] means all, an empty list means none, otherwise the
// listed ids. Amounts are integer euro cents. Passwords and API keys of
// principals are stored as PHC strings (argon2id), never in plaintext.
// The secrets payauthz must itself present to other services (the captcha
// secretKey, an entity's notification connectors) cannot be hashed: they
// are stored as given, so the log, its backups and snapshots must be
// guarded as the secrets are. A field tagged `secret:"true"` (hashes,
// keys, those connectors) never leaves the service: Redact drops it from
// every payload shown outside.

// IdentifierClaimed records that an identifier that must be unique across
// aggregates is held by one of them: a principal (Kind "principal", ID its
// canonical key: a certificate subject in canonical DN form, any other name
// as it is; held by "APPLICATION:<idA2A>" or "OPERATOR:<principal>"), an
// X-APP-ID of apikey authentication (Kind "appid", ID an application's
// idA2A or an operator's principal as it is; the same holders), or a
// notice number (Kind "avviso", ID "<idDominio>/<numeroAvviso>"; held by
// "PENDENZA:<idA2A>/<idPendenza>"). An identifier's claims form their own
// stream, appended with an expected version, so that of two concurrent
// writers of one new identifier exactly one gets it.
type IdentifierClaimed struct {
	Kind   string `json:"tipo"`
	ID     string `json:"id"`
	Holder string `json:"titolare"`
}

// IdentifierReleased records that the holder gave the identifier up (it
// was renamed or moved, or the write that claimed it failed).
type IdentifierReleased IdentifierClaimed

// CreditorEntityRegistered records a new creditor entity (ente creditore).
type CreditorEntityRegistered struct {
	IDDominio       string `json:"idDominio"`
	RagioneSociale  string `json:"ragioneSociale"`
	IDIntermediario string `json:"idIntermediario,omitempty"`
	Enabled         bool   `json:"abilitato"`
	EntityFields           // added later, absent before
}

// EntityFields are GovPay's fields of a creditor entity (its dominio)
// that bear on no decision, in the same JSON form on the wire and in the
// event. The payment-notification connectors may carry credentials: they
// are secret, never returned, and kept when a PUT leaves them out.
type EntityFields struct {
	EntityInfo
	ServizioMyPivot json.RawMessage `json:"servizioMyPivot,omitempty" secret:"true"`
	ServizioSecim   json.RawMessage `json:"servizioSecim,omitempty" secret:"true"`
	ServizioGovPay  json.RawMessage `json:"servizioGovPay,omitempty" secret:"true"`
}

// EntityInfo are the entity's GovPay fields that a GET returns.
type EntityInfo struct {
	Contacts
	GLN                    string `json:"gln,omitempty"`
	CBILL                  string `json:"cbill,omitempty"`
	IUVPrefix              string `json:"iuvPrefix,omitempty"`
	Stazione               string `json:"stazione,omitempty"`
	AuxDigit               string `json:"auxDigit,omitempty"`
	SegregationCode        string `json:"segregationCode,omitempty"`
	Logo                   string `json:"logo,omitempty"`
	AutStampaPosteItaliane string `json:"autStampaPosteItaliane,omitempty"`
}

// Contacts are the address and contacts GovPay keeps for an entity and
// for each of its operational units.
type Contacts struct {
	Indirizzo string `json:"indirizzo,omitempty"`
	Civico    string `json:"civico,omitempty"`
	CAP       string `json:"cap,omitempty"`
	Localita  string `json:"localita,omitempty"`
	Provincia string `json:"provincia,omitempty"`
	Nazione   string `json:"nazione,omitempty"`
	Email     string `json:"email,omitempty"`
	PEC       string `json:"pec,omitempty"`
	Tel       string `json:"tel,omitempty"`
	Fax       string `json:"fax,omitempty"`
	Web       string `json:"web,omitempty"`
	Area      string `json:"area,omitempty"`
}

// UnitRegistered records an operational unit (unità operativa) of the
// creditor entity IDDominio: GovPay's third scope dimension, registered.
type UnitRegistered struct {
	IDDominio      string `json:"idDominio"`
	IDUnita        string `json:"idUnita"`
	RagioneSociale string `json:"ragioneSociale"`
	Enabled        bool   `json:"abilitato"`
	Contacts
}

// UnitUpdated replaces an operational unit's data.
type UnitUpdated UnitRegistered

// CreditorEntityUpdated replaces a creditor entity's registry data.
type CreditorEntityUpdated CreditorEntityRegistered

// PendenzaTypeRegistered records a new pendenza type.
type PendenzaTypeRegistered struct {
	IDTipoPendenza string `json:"idTipoPendenza"`
	Descrizione    string `json:"descrizione"`
	Enabled        bool   `json:"abilitato"`
	Spontaneous    bool   `json:"pagamentoSpontaneo"`
	TypeFields
}

// TypeFields are GovPay's fields of a pendenza type that bear on no
// decision (added later, absent before): the IUV prefix, whether a third
// party may pay, and the portals' and notifications' settings, kept as
// sent.
type TypeFields struct {
	CodificaIUV       *string         `json:"codificaIUV,omitempty"`
	PagaTerzi         *bool           `json:"pagaTerzi,omitempty"`
	PortaleBackoffice json.RawMessage `json:"portaleBackoffice,omitempty"`
	PortalePagamento  json.RawMessage `json:"portalePagamento,omitempty"`
	AvvisaturaMail    json.RawMessage `json:"avvisaturaMail,omitempty"`
	AvvisaturaAppIO   json.RawMessage `json:"avvisaturaAppIO,omitempty"`
	Visualizzazione   json.RawMessage `json:"visualizzazione,omitempty"`
	TracciatoCsv      json.RawMessage `json:"tracciatoCsv,omitempty"`
}

// PendenzaTypeUpdated replaces a pendenza type's data.
type PendenzaTypeUpdated PendenzaTypeRegistered

// IntermediaryRegistered records an intermediary and its node connector.
type IntermediaryRegistered struct {
	IDIntermediario       string `json:"idIntermediario"`
	Denominazione         string `json:"denominazione"`
	Enabled               bool   `json:"abilitato"`
	ConnectorPrincipal    string `json:"connettorePrincipal"`
	ConnectorPasswordHash string `json:"connettorePasswordHash,omitempty" secret:"true"`
}

// IntermediaryUpdated replaces an intermediary's data.
type IntermediaryUpdated IntermediaryRegistered

// ACLEntry is one service of a role with its rights ("R", "W").
type ACLEntry struct {
	Service string   `json:"servizio"`
	Rights  []string `json:"autorizzazioni"`
}

// RoleDefined defines or replaces a role.
type RoleDefined struct {
	IDRuolo string     `json:"idRuolo"`
	ACL     []ACLEntry `json:"acl"`
	Domini  []string   `json:"domini"`
	// UnitaOperative limits entities to some of their operational units:
	// idDominio → the units covered (an entity here is not in Domini;
	// added later, absent before: every entity is covered whole).
	UnitaOperative map[string][]string `json:"unitaOperative,omitempty"`
	TipiPendenza   []string            `json:"tipiPendenza"`
}

// Rights yields each service of the role's ACL with its rights, the form
// domain.ParseRole reads.
func (e RoleDefined) Rights() iter.Seq2[string, []string] { return ACLRights(e.ACL) }

// ACLRights yields each service of acl with its rights, in the form
// domain.ParseRole reads.
func ACLRights(acl []ACLEntry) iter.Seq2[string, []string] {
	return func(yield func(string, []string) bool) {
		for _, entry := range acl {
			if !yield(entry.Service, entry.Rights) {
				return
			}
		}
	}
}

// OperatorRegistered records a new operator.
type OperatorRegistered struct {
	Principal      string   `json:"principal"`
	RagioneSociale string   `json:"ragioneSociale"`
	PasswordHash   string   `json:"passwordHash,omitempty" secret:"true"`
	Enabled        bool     `json:"abilitato"`
	Roles          []string `json:"ruoli"`
	APIKeyHash     string   `json:"apiKeyHash,omitempty" secret:"true"` // argon2id of the apikey credential; added later, absent before
	PersonalRole            // added later, absent before
}

// PersonalRole is an operator's or application's personal role (GovPay's
// per-user acl and scope): its own ACL over its own Domini and
// TipiPendenza, held by that principal alone beside its named roles. An
// empty ACL is no personal role.
type PersonalRole struct {
	ACL    []ACLEntry `json:"acl,omitempty"`
	Domini []string   `json:"domini,omitempty"`
	// UnitaOperative limits entities to some of their operational units:
	// idDominio → the units covered (an entity here is not in Domini;
	// added later, absent before: every entity is covered whole).
	UnitaOperative map[string][]string `json:"unitaOperative,omitempty"`
	TipiPendenza   []string            `json:"tipiPendenza,omitempty"`
}

// OperatorUpdated replaces an operator's data. An empty PasswordHash keeps
// the current password, an empty APIKeyHash the current API key.
type OperatorUpdated OperatorRegistered

// ApplicationRegistered records a new application (idA2A) and its principal.
type ApplicationRegistered struct {
	IDA2A             string   `json:"idA2A"`
	Principal         string   `json:"principal"`
	PasswordHash      string   `json:"passwordHash,omitempty" secret:"true"`
	Enabled           bool     `json:"abilitato"`
	Roles             []string `json:"ruoli"`
	APIKeyHash        string   `json:"apiKeyHash,omitempty" secret:"true"` // argon2id of the apikey credential; added later, absent before
	PersonalRole               // added later, absent before
	ApplicationFields          // added later, absent before
}

// ApplicationFields are GovPay's fields of an application that bear on no
// decision, in the same JSON form on the wire and in the event. The
// integration connector may carry credentials: it is secret, never
// returned, and kept when a PUT leaves it out.
type ApplicationFields struct {
	CodificaAvvisi       *CodificaAvvisi `json:"codificaAvvisi,omitempty"`
	ServizioIntegrazione json.RawMessage `json:"servizioIntegrazione,omitempty" secret:"true"`
}

// CodificaAvvisi is how an application's notice numbers are coded.
type CodificaAvvisi struct {
	CodificaIuv           string `json:"codificaIuv,omitempty"`
	RegExpIuv             string `json:"regExpIuv,omitempty"`
	GenerazioneIuvInterna *bool  `json:"generazioneIuvInterna,omitempty"`
}

// ApplicationUpdated replaces an application's data. An empty PasswordHash
// keeps the current password if the principal is the same (a password is
// its principal's: a renamed application has none), an empty APIKeyHash
// the current API key (the key is the idA2A's).
type ApplicationUpdated ApplicationRegistered

// ApplicationAPIAuthorized authorizes an application on one API
// ("PAGAMENTO", "PENDENZE", "RAGIONERIA") with a scope, replacing any
// previous scope on that API.
type ApplicationAPIAuthorized struct {
	IDA2A  string   `json:"idA2A"`
	API    string   `json:"api"`
	Domini []string `json:"domini"`
	// UnitaOperative limits entities to some of their operational units:
	// idDominio → the units covered (an entity here is not in Domini;
	// added later, absent before: every entity is covered whole).
	UnitaOperative map[string][]string `json:"unitaOperative,omitempty"`
	TipiPendenza   []string            `json:"tipiPendenza"`
}

// ApplicationAPIRevoked removes an application's authorization on one API.
type ApplicationAPIRevoked struct {
	IDA2A string `json:"idA2A"`
	API   string `json:"api"`
}

// CaptchaSettings configures the CAPTCHA check of the public API.
type CaptchaSettings struct {
	ServerURL  string  `json:"serverURL"`
	SecretKey  string  `json:"secretKey" secret:"true"`
	Soglia     float64 `json:"soglia"`
	Parametro  string  `json:"parametro"`
	DenyOnFail bool    `json:"denyOnFail"`
	TimeoutMs  int     `json:"timeoutMs"`
}

// PublicAPIProtectionConfigured sets the protection of the public Pagamento API.
type PublicAPIProtectionConfigured struct {
	Enabled bool            `json:"abilitato"`
	Captcha CaptchaSettings `json:"captcha"`
}

// Subject is a payer (soggettoPagatore) or remitter (soggettoVersante).
type Subject struct {
	Tipo           string `json:"tipo"`
	Identificativo string `json:"identificativo"`
	Anagrafica     string `json:"anagrafica"`
	Email          string `json:"email,omitempty"`
	// GovPay's address fields (added later, absent before).
	Indirizzo string `json:"indirizzo,omitempty"`
	Civico    string `json:"civico,omitempty"`
	CAP       string `json:"cap,omitempty"`
	Localita  string `json:"localita,omitempty"`
	Provincia string `json:"provincia,omitempty"`
	Nazione   string `json:"nazione,omitempty"`
	Cellulare string `json:"cellulare,omitempty"`
}

// PendenzaCreated records a new pendenza created by application IDA2A.
type PendenzaCreated struct {
	IDA2A          string  `json:"idA2A"`
	IDPendenza     string  `json:"idPendenza"`
	IDDominio      string  `json:"idDominio"`
	IDTipoPendenza string  `json:"idTipoPendenza"`
	Causale        string  `json:"causale"`
	AmountCents    int64   `json:"importoCentesimi"`
	Payer          Subject `json:"soggettoPagatore"`
	NumeroAvviso   string  `json:"numeroAvviso"`
	UUID           string  `json:"UUID"`
	// IDUnitaOperativa is the entity's operational unit the pendenza
	// belongs to ("" for none; added later, absent before).
	IDUnitaOperativa string `json:"idUnitaOperativa,omitempty"`
	// SessionHash is the SHA-256 of the session of the anonymous caller
	// that created it on the Pagamento API ("" for any other creator).
	SessionHash string `json:"hashSessione,omitempty"`
	PendenzaDetails
}

// PendenzaDetails are the fields of GovPay's pendenza that bear on no
// decision, kept as the creator sent them (all added later, absent
// before). Objects GovPay leaves to the creator's format stay raw JSON.
type PendenzaDetails struct {
	Voci []Voce `json:"voci,omitempty"`
	PendenzaFields
}

// PendenzaFields are PendenzaDetails but the voci, in the same JSON form
// on the wire and in the event.
type PendenzaFields struct {
	AnnoRiferimento        int             `json:"annoRiferimento,omitempty"`
	Tassonomia             string          `json:"tassonomia,omitempty"`
	TassonomiaAvviso       string          `json:"tassonomiaAvviso,omitempty"`
	Direzione              string          `json:"direzione,omitempty"`
	Divisione              string          `json:"divisione,omitempty"`
	CartellaPagamento      string          `json:"cartellaPagamento,omitempty"`
	DataValidita           string          `json:"dataValidita,omitempty"`
	DataScadenza           string          `json:"dataScadenza,omitempty"`
	DataNotificaAvviso     string          `json:"dataNotificaAvviso,omitempty"`
	DataPromemoriaScadenza string          `json:"dataPromemoriaScadenza,omitempty"`
	DatiAllegati           json.RawMessage `json:"datiAllegati,omitempty"`
	Documento              json.RawMessage `json:"documento,omitempty"`
	Proprieta              json.RawMessage `json:"proprieta,omitempty"`
	Allegati               json.RawMessage `json:"allegati,omitempty"`
}

// Voce is one item of a pendenza (GovPay's voci): its amount, and how it
// is collected (an entrata code, IBANs with an accounting code, or a
// digital stamp).
type Voce struct {
	AmountCents int64 `json:"importoCentesimi"`
	VoceFields
}

// VoceFields are a Voce but its amount, in the same JSON form on the wire
// and in the event.
type VoceFields struct {
	IDVocePendenza        string          `json:"idVocePendenza"`
	Descrizione           string          `json:"descrizione"`
	DescrizioneCausaleRPT string          `json:"descrizioneCausaleRPT,omitempty"`
	IDDominio             string          `json:"idDominio,omitempty"`
	CodEntrata            string          `json:"codEntrata,omitempty"`
	IBANAccredito         string          `json:"ibanAccredito,omitempty"`
	IBANAppoggio          string          `json:"ibanAppoggio,omitempty"`
	TipoContabilita       string          `json:"tipoContabilita,omitempty"`
	CodiceContabilita     string          `json:"codiceContabilita,omitempty"`
	TipoBollo             string          `json:"tipoBollo,omitempty"`
	HashDocumento         string          `json:"hashDocumento,omitempty"`
	ProvinciaResidenza    string          `json:"provinciaResidenza,omitempty"`
	DatiAllegati          json.RawMessage `json:"datiAllegati,omitempty"`
	Contabilita           json.RawMessage `json:"contabilita,omitempty"`
}

// PendenzaUpdated replaces a pendenza's data (its creator, notice number and
// UUID never change).
type PendenzaUpdated PendenzaCreated

// PendenzaStatusChanged records a pendenza cancelled (Stato ANNULLATA) or
// reopened (NON_ESEGUITA) by its creator on the Pendenze API or an
// operator on the Backoffice (GovPay's PATCH of /stato). A fact of its
// own, not a PendenzaUpdated: that one replaces the creator's data and
// would need all of it, while this changes the state alone, may come from
// another actor than the creator, and touches no notice claim. The place
// (IDDominio, IDTipoPendenza) is the pendenza's when it changed, so the
// event log is scoped without a lookup.
type PendenzaStatusChanged struct {
	IDA2A            string `json:"idA2A"`
	IDPendenza       string `json:"idPendenza"`
	IDDominio        string `json:"idDominio"`
	IDUnitaOperativa string `json:"idUnitaOperativa,omitempty"` // added later, absent before
	IDTipoPendenza   string `json:"idTipoPendenza"`
	Stato            string `json:"stato"`
	DescrizioneStato string `json:"descrizioneStato,omitempty"`
}

// PaymentItem is one pendenza a payment covers.
type PaymentItem struct {
	IDA2A          string `json:"idA2A,omitempty"`
	IDPendenza     string `json:"idPendenza,omitempty"`
	IDDominio      string `json:"idDominio"`
	IDTipoPendenza string `json:"idTipoPendenza"`
	NumeroAvviso   string `json:"numeroAvviso,omitempty"`
	AmountCents    int64  `json:"importoCentesimi"`
	Causale        string `json:"causale,omitempty"`
	PayerID        string `json:"identificativoPagatore,omitempty"`
	// IDUnitaOperativa is the pendenza's operational unit ("" for none;
	// added later, absent before).
	IDUnitaOperativa string `json:"idUnitaOperativa,omitempty"`
}

// PaymentStarted records a payment started by a caller. CallerKind is
// CallerApplication, CallerCitizen or CallerAnonymous; for an anonymous caller CallerID
// is empty and SessionHash is the SHA-256 of its session id.
type PaymentStarted struct {
	ID          string        `json:"id"`
	CallerKind  string        `json:"tipoChiamante"`
	CallerID    string        `json:"idChiamante,omitempty"`
	SessionHash string        `json:"hashSessione,omitempty"`
	Remitter    *Subject      `json:"soggettoVersante,omitempty"`
	Items       []PaymentItem `json:"pendenze"`
}

// ReceiptRecorded records a node receipt for a notice; with Esito
// EsitoEseguito the pendenza becomes ESEGUITA and a collection is recorded.
type ReceiptRecorded struct {
	IDRicevuta      string `json:"idRicevuta"`
	IDIntermediario string `json:"idIntermediario"`
	IDDominio       string `json:"idDominio"`
	NumeroAvviso    string `json:"numeroAvviso"`
	IDA2A           string `json:"idA2A,omitempty"`
	IDPendenza      string `json:"idPendenza,omitempty"`
	PaymentID       string `json:"idPagamento,omitempty"`
	AmountCents     int64  `json:"importoCentesimi"`
	Esito           string `json:"esito"`
	DataPagamento   string `json:"dataPagamento"`
	// IDUnitaOperativa is the unit of the pendenza the receipt pays ("" for
	// none; added later, absent before).
	IDUnitaOperativa string `json:"idUnitaOperativa,omitempty"`
}

// Collected reports whether the receipt records a collection (riscossione):
// its Esito is EsitoEseguito.
func (e *ReceiptRecorded) Collected() bool { return e.Esito == EsitoEseguito }

// SettlementItem is one line of a settlement report.
type SettlementItem struct {
	NumeroAvviso string `json:"numeroAvviso"`
	AmountCents  int64  `json:"importoCentesimi"`
	Esito        int    `json:"esito"`
}

// SettlementReportRecorded records a settlement report (flusso di
// rendicontazione) sent by the node.
type SettlementReportRecorded struct {
	IDFlusso        string           `json:"idFlusso"`
	IDDominio       string           `json:"idDominio"`
	IDIntermediario string           `json:"idIntermediario"`
	DataFlusso      string           `json:"dataFlusso"`
	TotalCents      int64            `json:"importoTotaleCentesimi"`
	Items           []SettlementItem `json:"rendicontazioni"`
}

// ReconciliationCreated records a reconciliation created by application
// IDA2A. What GovPay's NuovaRiconciliazione carries besides (the IUV it
// reconciles, the bank's SCT and account, the transfer's dates) is kept as
// sent; a log written before they were taken holds none of them.
type ReconciliationCreated struct {
	IDDominio      string `json:"idDominio"`
	ID             string `json:"id"`
	IDA2A          string `json:"idA2A"`
	AmountCents    int64  `json:"importoCentesimi"`
	Causale        string `json:"causale"`
	IDFlusso       string `json:"idFlusso,omitempty"`
	IUV            string `json:"iuv,omitempty"`
	SCT            string `json:"sct,omitempty"`
	ContoAccredito string `json:"contoAccredito,omitempty"`
	DataValuta     string `json:"dataValuta,omitempty"`
	DataContabile  string `json:"dataContabile,omitempty"`
}

// IncassoRecorded records money credited to an entity's account (GovPay's
// incasso: the transfer that settles collections, often one settlement
// report's total), recorded by an operator on the Backoffice. IDIncasso is
// assigned by the service; the dates and the bank's references are kept
// as sent.
type IncassoRecorded struct {
	IDDominio     string `json:"idDominio"`
	IDIncasso     string `json:"idIncasso"`
	Causale       string `json:"causale"`
	AmountCents   int64  `json:"importoCentesimi"`
	IDFlusso      string `json:"idFlusso,omitempty"`
	DataValuta    string `json:"dataValuta,omitempty"`
	DataContabile string `json:"dataContabile,omitempty"`
	IBANAccredito string `json:"ibanAccredito,omitempty"`
	SCT           string `json:"sct,omitempty"`
}

func (IdentifierClaimed) EventName() string  { return "IdentifierClaimed" }
func (IdentifierReleased) EventName() string { return "IdentifierReleased" }

func (CreditorEntityRegistered) EventName() string      { return "CreditorEntityRegistered" }
func (CreditorEntityUpdated) EventName() string         { return "CreditorEntityUpdated" }
func (UnitRegistered) EventName() string                { return "UnitRegistered" }
func (UnitUpdated) EventName() string                   { return "UnitUpdated" }
func (PendenzaTypeRegistered) EventName() string        { return "PendenzaTypeRegistered" }
func (PendenzaTypeUpdated) EventName() string           { return "PendenzaTypeUpdated" }
func (IntermediaryRegistered) EventName() string        { return "IntermediaryRegistered" }
func (IntermediaryUpdated) EventName() string           { return "IntermediaryUpdated" }
func (RoleDefined) EventName() string                   { return "RoleDefined" }
func (OperatorRegistered) EventName() string            { return "OperatorRegistered" }
func (OperatorUpdated) EventName() string               { return "OperatorUpdated" }
func (ApplicationRegistered) EventName() string         { return "ApplicationRegistered" }
func (ApplicationUpdated) EventName() string            { return "ApplicationUpdated" }
func (ApplicationAPIAuthorized) EventName() string      { return "ApplicationAPIAuthorized" }
func (ApplicationAPIRevoked) EventName() string         { return "ApplicationAPIRevoked" }
func (PublicAPIProtectionConfigured) EventName() string { return "PublicAPIProtectionConfigured" }
func (PendenzaCreated) EventName() string               { return "PendenzaCreated" }
func (PendenzaUpdated) EventName() string               { return "PendenzaUpdated" }
func (PendenzaStatusChanged) EventName() string         { return "PendenzaStatusChanged" }
func (PaymentStarted) EventName() string                { return "PaymentStarted" }
func (ReceiptRecorded) EventName() string               { return "ReceiptRecorded" }
func (SettlementReportRecorded) EventName() string      { return "SettlementReportRecorded" }
func (ReconciliationCreated) EventName() string         { return "ReconciliationCreated" }
func (IncassoRecorded) EventName() string               { return "IncassoRecorded" }

// catalogue is every event type of the log, once: registerCatalogue
// registers each with a codec, and redaction finds the secret fields
// (tagged `secret:"true"`) on these types.
var catalogue = []func(*Codec) reflect.Type{
	entry[IdentifierClaimed],
	entry[IdentifierReleased],
	entry[CreditorEntityRegistered],
	entry[CreditorEntityUpdated],
	entry[UnitRegistered],
	entry[UnitUpdated],
	entry[PendenzaTypeRegistered],
	entry[PendenzaTypeUpdated],
	entry[IntermediaryRegistered],
	entry[IntermediaryUpdated],
	entry[RoleDefined],
	entry[OperatorRegistered],
	entry[OperatorUpdated],
	entry[ApplicationRegistered],
	entry[ApplicationUpdated],
	entry[ApplicationAPIAuthorized],
	entry[ApplicationAPIRevoked],
	entry[PublicAPIProtectionConfigured],
	entry[PendenzaCreated],
	entry[PendenzaUpdated],
	entry[PendenzaStatusChanged],
	entry[PaymentStarted],
	entry[ReceiptRecorded],
	entry[SettlementReportRecorded],
	entry[ReconciliationCreated],
	entry[IncassoRecorded],
	entry[LogCheckpointSigned],
}

// entry registers T with c (when not nil) and returns T's type.
func entry[T Event](c *Codec) reflect.Type {
	if c != nil {
		Register[T](c)
	}
	return reflect.TypeFor[T]()
}

func registerCatalogue(c *Codec) {
	for _, e := range catalogue {
		e(c)
	}
}

// Stream names: one stream per aggregate. Backends may encode them (the
// JetStream store maps each to a subject-safe token).
const (
	StreamDominio = "dominio-"
	// StreamUnita + idDominio + "/" + idUnita is an operational unit.
	StreamUnita         = "unitaOperativa-"
	StreamTipoPendenza  = "tipoPendenza-"
	StreamIntermediario = "intermediario-"
	StreamRuolo         = "ruolo-"
	StreamOperatore     = "operatore-"
	StreamApplicazione  = "applicazione-"
	// StreamClaim + kind + "/" + id holds an identifier's claims.
	StreamClaim           = "claim-"
	StreamPendenza        = "pendenza-"
	StreamPagamento       = "pagamento-"
	StreamRicevuta        = "ricevuta-"
	StreamFlusso          = "flusso-"
	StreamRiconciliazione = "riconciliazione-"
	StreamIncasso         = "incasso-"
	StreamHardening       = "configurazione-hardening"
	// StreamCheckpoint + signer + "/" + tree size holds one signed
	// checkpoint of the log (projections/logtree).
	StreamCheckpoint = "checkpoint-"
)

// LogCheckpointSigned records a signed checkpoint of the log's Merkle tree
// (projections/logtree): the first Size events of the log, in log order,
// have the RFC 6962 root hash Root. Note is the checkpoint in the signed
// note format of golang.org/x/mod/sumdb/note, signed by Signer's Ed25519
// key; Size, Root and Time repeat its body for readers, and a verifier
// trusts only the note. The checkpoint event is itself a leaf of the tree,
// after the Size leaves it covers.
type LogCheckpointSigned struct {
	Signer string `json:"firmatario"`
	Size   uint64 `json:"dimensione"`
	Root   string `json:"radice"` // standard base64
	Time   string `json:"data"`   // RFC 3339, when it was signed
	Note   string `json:"nota"`
}

func (LogCheckpointSigned) EventName() string { return "LogCheckpointSigned" }
