package httpapi

import (
	"encoding/json"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// Wire forms shared by several APIs.

// soggetto is GovPay's Soggetto, a payer or remitter: the event's
// subject, field for field, under its wire name.
type soggetto events.Subject

func (s soggetto) event() events.Subject { return events.Subject(s) }

func toSoggetto(s events.Subject) soggetto { return soggetto(s) }

// pendenzaView is a pendenza on every API: its fields as written, with
// GovPay's dominio object (which every GovPay schema of a pendenza
// requires) and unitaOperativa next to idDominio and idUnitaOperativa,
// GovPay's dataCaricamento: the date (in Europe/Rome) the log recorded
// its creation, and GovPay's tipo: spontaneo when its payer created it.
type pendenzaView struct {
	IDA2A            string             `json:"idA2A"`
	IDPendenza       string             `json:"idPendenza"`
	IDTipoPendenza   string             `json:"idTipoPendenza"`
	IDDominio        string             `json:"idDominio"`
	Dominio          dominioRef         `json:"dominio"`
	IDUnitaOperativa string             `json:"idUnitaOperativa,omitempty"`
	UnitaOperativa   *unitaOperativaRef `json:"unitaOperativa,omitempty"`
	Causale          string             `json:"causale"`
	Importo          Importo            `json:"importo"`
	SoggettoPagatore soggetto           `json:"soggettoPagatore"`
	NumeroAvviso     string             `json:"numeroAvviso"`
	Stato            string             `json:"stato"`
	DescrizioneStato string             `json:"descrizioneStato,omitempty"`
	UUID             string             `json:"UUID"`
	DataCaricamento  string             `json:"dataCaricamento,omitempty" format:"date"` // as GovPay's PendenzaBase has it
	Tipo             string             `json:"tipo" enum:"spontaneo,dovuto"`            // GovPay's required TipoPendenzaTipologia
}

// pendenza renders p, its entity and unit named as the registry holds them.
func (s *Server) pendenza(p projections.Pendenza) pendenzaView {
	v := pendenzaView{IDA2A: p.IDA2A, IDPendenza: p.IDPendenza, IDTipoPendenza: p.IDTipoPendenza, IDDominio: p.IDDominio,
		Dominio: s.dominioOf(p.IDDominio), IDUnitaOperativa: p.IDUnitaOperativa,
		Causale: p.Causale, Importo: Importo(p.AmountCents), SoggettoPagatore: toSoggetto(p.Payer),
		NumeroAvviso: p.NumeroAvviso, Stato: p.Stato, DescrizioneStato: p.DescrizioneStato, UUID: p.UUID,
		DataCaricamento: p.DataCaricamento(), Tipo: tipologia(p.Spontaneous())}
	if p.IDUnitaOperativa != "" {
		u := unitaOperativaRef{IDUnita: p.IDUnitaOperativa}
		if reg, ok := s.model.Unit(p.IDDominio, p.IDUnitaOperativa); ok {
			u.RagioneSociale = reg.RagioneSociale
		}
		v.UnitaOperativa = &u
	}
	return v
}

// pendenzaDetail is a pendenza as the reads of one pendenza on the
// Pagamento API answer it (GovPay's Pagamento v2 Pendenza), and the part
// of the other APIs' detail they share: pendenzaView, its voci and the
// members of GovPay's PendenzaBase written with it (pendenzaDati), as
// GovPay's detail has them and this service's lists do not (answering
// them there would unpack every listed pendenza's details). voci is []
// for a pendenza written without any.
type pendenzaDetail struct {
	pendenzaView
	pendenzaDati
	Voci []voceView `json:"voci" nullable:"false"`
}

// pendenzaDati are the members of GovPay's PendenzaBase of the three
// APIs a pendenza is written with and no decision reads, as written
// (events.PendenzaFields), absent when not written.
type pendenzaDati struct {
	DataValidita      string          `json:"dataValidita,omitempty" format:"date"`
	DataScadenza      string          `json:"dataScadenza,omitempty" format:"date"`
	AnnoRiferimento   int             `json:"annoRiferimento,omitempty"`
	CartellaPagamento string          `json:"cartellaPagamento,omitempty"`
	DatiAllegati      json.RawMessage `json:"datiAllegati,omitempty"`
	Tassonomia        string          `json:"tassonomia,omitempty"`
	TassonomiaAvviso  string          `json:"tassonomiaAvviso,omitempty"`
	Direzione         string          `json:"direzione,omitempty"`
	Divisione         string          `json:"divisione,omitempty"`
	Proprieta         json.RawMessage `json:"proprieta,omitempty"`
}

// pendenzaDetailPendenze is a pendenza as the reads of one pendenza on the
// Pendenze API answer it (GovPay's Pendenze v2 Pendenza): its documento
// too, which Pagamento v2's PendenzaBase has not.
type pendenzaDetailPendenze struct {
	pendenzaDetail
	Documento json.RawMessage `json:"documento,omitempty"`
}

// pendenzaDetailBackoffice is a pendenza as the Backoffice's read of one
// answers it (GovPay's Backoffice v1 pendenza): its reminder dates too,
// which only the Backoffice's pendenzaBase has.
type pendenzaDetailBackoffice struct {
	pendenzaDetailPendenze
	DataNotificaAvviso     string `json:"dataNotificaAvviso,omitempty" format:"date"`
	DataPromemoriaScadenza string `json:"dataPromemoriaScadenza,omitempty" format:"date"`
}

// voceView is GovPay's VocePendenza: the voce as it was written (its
// fields under the names of GovPay's NuovaVocePendenza, the importo in
// euro), its indice (1 up, in the order written), its stato and, when it
// names an entity of its own, GovPay's dominio object next to idDominio.
// stato is the pendenza's: pagoPA pays a notice whole, so each voce is
// Eseguito once its pendenza is paid (GovPay's ESEGUITO of every voce it
// pays), Non eseguito before.
type voceView struct {
	Indice  int         `json:"indice" minimum:"1"`
	Importo Importo     `json:"importo"`
	Stato   string      `json:"stato" enum:"Eseguito,Non eseguito"` // GovPay's StatoVocePendenza, but Anomalo: no anomaly is recorded here
	Dominio *dominioRef `json:"dominio,omitempty"`
	events.VoceFields
}

// GovPay's StatoVocePendenza of a voce whose pendenza is paid or not.
const (
	statoVoceEseguito    = "Eseguito"
	statoVoceNonEseguito = "Non eseguito"
)

// pendenzaDetail renders p as the Pagamento API's read of one pendenza.
func (s *Server) pendenzaDetail(p projections.Pendenza) pendenzaDetail {
	d, _ := s.detail(p)
	return d
}

// pendenzaDetailPendenze renders p as the Pendenze API's read of one
// pendenza.
func (s *Server) pendenzaDetailPendenze(p projections.Pendenza) pendenzaDetailPendenze {
	d, f := s.detail(p)
	return pendenzaDetailPendenze{pendenzaDetail: d, Documento: f.Documento}
}

// pendenzaDetailBackoffice renders p as the Backoffice's read of one
// pendenza.
func (s *Server) pendenzaDetailBackoffice(p projections.Pendenza) pendenzaDetailBackoffice {
	d, f := s.detail(p)
	return pendenzaDetailBackoffice{pendenzaDetailPendenze: pendenzaDetailPendenze{pendenzaDetail: d, Documento: f.Documento},
		DataNotificaAvviso: f.DataNotificaAvviso, DataPromemoriaScadenza: f.DataPromemoriaScadenza}
}

// detail renders p with its voci and the fields every API's detail
// answers, and returns its fields for the members only some APIs answer.
func (s *Server) detail(p projections.Pendenza) (pendenzaDetail, events.PendenzaFields) {
	det := p.Details()
	stato := statoVoceNonEseguito
	if p.Stato == domain.StatoEseguita.String() {
		stato = statoVoceEseguito
	}
	f := &det.PendenzaFields
	d := pendenzaDetail{pendenzaView: s.pendenza(p), Voci: make([]voceView, len(det.Voci)), pendenzaDati: pendenzaDati{
		DataValidita: f.DataValidita, DataScadenza: f.DataScadenza, AnnoRiferimento: f.AnnoRiferimento,
		CartellaPagamento: f.CartellaPagamento, DatiAllegati: f.DatiAllegati, Tassonomia: f.Tassonomia,
		TassonomiaAvviso: f.TassonomiaAvviso, Direzione: f.Direzione, Divisione: f.Divisione, Proprieta: f.Proprieta}}
	for i, v := range det.Voci {
		d.Voci[i] = voceView{Indice: i + 1, Importo: Importo(v.AmountCents), Stato: stato, VoceFields: v.VoceFields}
		if v.IDDominio != "" {
			ref := s.dominioOf(v.IDDominio)
			d.Voci[i].Dominio = &ref
		}
	}
	return d, det.PendenzaFields
}

// avvisoView is a notice as its payer or the node sees it: no UUID.
type avvisoView struct {
	IDDominio      string  `json:"idDominio"`
	NumeroAvviso   string  `json:"numeroAvviso"`
	IDTipoPendenza string  `json:"idTipoPendenza"`
	Causale        string  `json:"causale"`
	Importo        Importo `json:"importo"`
	Stato          string  `json:"stato"`
}

func toAvviso(p projections.Pendenza) avvisoView {
	return avvisoView{IDDominio: p.IDDominio, NumeroAvviso: p.NumeroAvviso, IDTipoPendenza: p.IDTipoPendenza,
		Causale: p.Causale, Importo: Importo(p.AmountCents), Stato: p.Stato}
}

// statoAvvisoDuplicata is GovPay's StatoAvviso (Pagamento v2) of a paid
// notice: a payment of it would pay it twice.
const statoAvvisoDuplicata = "DUPLICATA"

// toAvvisoPagamento is the notice as the Pagamento API answers it, its
// stato GovPay's StatoAvviso: a paid pendenza's notice is DUPLICATA, the
// other states a pendenza here holds (NON_ESEGUITA, ANNULLATA) are named
// alike, and a client generated from GovPay's spec reads each.
func toAvvisoPagamento(p projections.Pendenza) avvisoView {
	v := toAvviso(p)
	if v.Stato == domain.StatoEseguita.String() {
		v.Stato = statoAvvisoDuplicata
	}
	return v
}

// pagamentoItem is an item of a payment as recorded, with what GovPay's
// PendenzaIndex (Pagamento v2) requires and the item itself tells: its
// entity as an object (dominio) and its tipo (spontaneo for a spontaneous
// reference or a pendenza its payer created). GovPay's other required
// members, the pendenza's payer, state and load date, are not the item's
// to tell: a remitter paying another's notice by its number may not read
// them (docs/API.md section 6).
type pagamentoItem struct {
	IDA2A          string     `json:"idA2A,omitempty"`
	IDPendenza     string     `json:"idPendenza,omitempty"`
	IDDominio      string     `json:"idDominio"`
	Dominio        dominioRef `json:"dominio"`
	IDTipoPendenza string     `json:"idTipoPendenza"`
	Tipo           string     `json:"tipo" enum:"spontaneo,dovuto"` // GovPay's required TipoPendenzaTipologia
	NumeroAvviso   string     `json:"numeroAvviso,omitempty"`
	Importo        Importo    `json:"importo"`
	Causale        string     `json:"causale,omitempty"`
}

type pagamentoView struct {
	ID               string          `json:"id"`
	Stato            string          `json:"stato"`
	DataRichiesta    time.Time       `json:"dataRichiestaPagamento"`
	Importo          Importo         `json:"importo"`
	SoggettoVersante *soggetto       `json:"soggettoVersante,omitempty"`
	Pendenze         []pagamentoItem `json:"pendenze"`
}

func (s *Server) toPagamento(p *projections.Payment) pagamentoView {
	return s.toPagamentoShown(p, func(int) bool { return true }, true)
}

// toPagamentoItems is the payment with only the items whose place (entity
// and unit) keep admits (importo and stato are theirs): a reader scoped by
// entity or unit sees nothing of the other places a payment touches, but
// its remitter, who paid those entities.
func (s *Server) toPagamentoItems(p *projections.Payment, keep func(domain.Place) bool) pagamentoView {
	return s.toPagamentoShown(p, func(i int) bool {
		it := &p.Event.Items[i]
		return keep(domain.Place{IDDominio: it.IDDominio, IDUnita: it.IDUnitaOperativa})
	}, true)
}

// toPagamentoShown is the payment with only the items shown admits, by
// their index (importo and stato are theirs), and its soggettoVersante
// when remitter (else the field is omitted, as GovPay omits an absent
// optional one).
func (s *Server) toPagamentoShown(p *projections.Payment, shown func(i int) bool, remitter bool) pagamentoView {
	v := pagamentoView{ID: p.Event.ID, Stato: p.StatoOf(shown), DataRichiesta: p.Time, Pendenze: []pagamentoItem{}}
	if remitter && p.Event.Remitter != nil {
		s := toSoggetto(*p.Event.Remitter)
		v.SoggettoVersante = &s
	}
	for i, it := range p.Event.Items {
		if !shown(i) {
			continue
		}
		v.Importo += Importo(it.AmountCents)
		v.Pendenze = append(v.Pendenze, pagamentoItem{IDA2A: it.IDA2A, IDPendenza: it.IDPendenza, IDDominio: it.IDDominio,
			Dominio: s.dominioOf(it.IDDominio), IDTipoPendenza: it.IDTipoPendenza, Tipo: tipologia(p.ItemSpontaneous(i)),
			NumeroAvviso: it.NumeroAvviso, Importo: Importo(it.AmountCents), Causale: it.Causale})
	}
	return v
}

// riconciliazioneView is a reconciliation: its fields as written, with
// what GovPay's RiconciliazioneIndex requires besides (dominio, stato),
// and its report also under GovPay's name, idFlussoRendicontazione.
type riconciliazioneView struct {
	IDDominio string     `json:"idDominio"`
	Dominio   dominioRef `json:"dominio"`
	ID        string     `json:"id"`
	Stato     string     `json:"stato"`
	IDA2A     string     `json:"idA2A"`
	Importo   Importo    `json:"importo"`
	Causale   string     `json:"causale"`
	riconciliazioneRefs
	Data time.Time `json:"data"`
}

// A reconciliation and a settlement report are recorded whole when they
// are written: GovPay's states of one processed to the end.
const (
	statoRiconciliazioneAcquisita = "ACQUISITA"
	statoFlussoAcquisito          = "Acquisito"
)

func (s *Server) riconciliazione(r *projections.Reconciliation) riconciliazioneView {
	e := r.Event
	return riconciliazioneView{IDDominio: e.IDDominio, Dominio: s.dominioOf(e.IDDominio), ID: e.ID,
		Stato: statoRiconciliazioneAcquisita, IDA2A: e.IDA2A, Importo: Importo(e.AmountCents), Causale: e.Causale,
		riconciliazioneRefs: riconciliazioneRefs{IDFlusso: e.IDFlusso, IDFlussoRendicontazione: e.IDFlusso, IUV: e.IUV, SCT: e.SCT,
			ContoAccredito: e.ContoAccredito, DataValuta: e.DataValuta, DataContabile: e.DataContabile},
		Data: r.Time}
}

// rendicontazioneView is a report's line as written, with the iuv
// GovPay's rendicontazione requires (Backoffice v1, Ragioneria v3): the
// IUV its notice number carries.
type rendicontazioneView struct {
	NumeroAvviso string  `json:"numeroAvviso"`
	IUV          string  `json:"iuv"`
	Importo      Importo `json:"importo"`
	Esito        int     `json:"esito"`
}

// flussoView is a settlement report: its fields as written, but
// dataFlusso a date-time as GovPay's FlussoRendicontazioneIndex has it (a
// date recorded is its midnight in Rome, under which the report is
// found), with what that schema requires besides and a report here knows
// (dominio, stato, numeroPagamenti).
type flussoView struct {
	IDFlusso        string                `json:"idFlusso"`
	IDDominio       string                `json:"idDominio"`
	Dominio         dominioRef            `json:"dominio"`
	DataFlusso      string                `json:"dataFlusso" format:"date-time"`
	Stato           string                `json:"stato"`
	NumeroPagamenti int                   `json:"numeroPagamenti"`
	ImportoTotale   Importo               `json:"importoTotale"`
	Rendicontazioni []rendicontazioneView `json:"rendicontazioni"`
}

func (s *Server) flusso(r *projections.SettlementReport) flussoView {
	e := r.Event
	v := flussoView{IDFlusso: e.IDFlusso, IDDominio: e.IDDominio, Dominio: s.dominioOf(e.IDDominio), DataFlusso: domain.RecordedDateTime(e.DataFlusso),
		Stato: statoFlussoAcquisito, NumeroPagamenti: len(e.Items), ImportoTotale: Importo(e.TotalCents),
		Rendicontazioni: []rendicontazioneView{}}
	for _, it := range e.Items {
		v.Rendicontazioni = append(v.Rendicontazioni, rendicontazioneView{NumeroAvviso: it.NumeroAvviso, IUV: domain.IUVOfNotice(it.NumeroAvviso), Importo: Importo(it.AmountCents), Esito: it.Esito})
	}
	return v
}

// riscossioneView is GovPay's Riscossione (Ragioneria v3, and the
// Backoffice's riscossioneIndex) for the fields a collection here holds:
// the entity (as an object, and its idDominio), the iuv, iur and indice
// that name it in GET /riscossioni/{idDominio}/{iuv}/{iur}/{indice}, its
// state, kind, amount and date (a date-time on Ragioneria v3, a date on
// the Backoffice, as each API's schema has it: no format is documented);
// then what we add (the receipt, notice, pendenza and payment).
type riscossioneView struct {
	Dominio       dominioRef `json:"dominio"`
	IDDominio     string     `json:"idDominio"`
	IUV           string     `json:"iuv"`
	IUR           string     `json:"iur"`
	Indice        int        `json:"indice"`
	Stato         string     `json:"stato"`
	Tipo          string     `json:"tipo"`
	Importo       Importo    `json:"importo"`
	Data          string     `json:"data"`
	IDRicevuta    string     `json:"idRicevuta"`
	NumeroAvviso  string     `json:"numeroAvviso"`
	IDA2A         string     `json:"idA2A,omitempty"`
	IDPendenza    string     `json:"idPendenza,omitempty"`
	IDPagamento   string     `json:"idPagamento,omitempty"`
	DataPagamento string     `json:"dataPagamento"`
}

// A collection here is collected (GovPay's RISCOSSA: no incasso is
// matched to it) and an entry into the entity's treasury (ENTRATA: no
// stamp duty, no other intermediary).
const (
	statoRiscossa = "RISCOSSA"
	tipoEntrata   = "ENTRATA"
)

// riscossione renders the collection of receipt r as Ragioneria v3 has
// it: its iur is the receipt id and its data the payment's date as
// GovPay's Riscossione writes it, a date-time (a date recorded is its
// midnight in Rome); dataPagamento is that date as recorded.
func (s *Server) riscossione(r *projections.Receipt) riscossioneView {
	e := r.Event
	return riscossioneView{Dominio: s.dominioOf(e.IDDominio), IDDominio: e.IDDominio, IUV: domain.IUVOfNotice(e.NumeroAvviso),
		IUR: e.IDRicevuta, Indice: operations.CollectionIndice, Stato: statoRiscossa, Tipo: tipoEntrata,
		Importo: Importo(e.AmountCents), Data: domain.RecordedDateTime(e.DataPagamento), IDRicevuta: e.IDRicevuta,
		NumeroAvviso: e.NumeroAvviso, IDA2A: e.IDA2A, IDPendenza: e.IDPendenza, IDPagamento: e.PaymentID, DataPagamento: e.DataPagamento}
}

// riscossioneBackoffice renders the collection of receipt r as the
// Backoffice v1 has it: as riscossione, but data is the payment's date as
// the Backoffice's riscossione writes it, a date (the day in Rome of a
// date-time recorded).
func (s *Server) riscossioneBackoffice(r *projections.Receipt) riscossioneView {
	v := s.riscossione(r)
	v.Data = domain.RecordedDay(r.Event.DataPagamento)
	return v
}

// dominioOf is the entity idDominio as GovPay's Dominio object; its
// ragioneSociale is empty when the registry does not hold it.
func (s *Server) dominioOf(idDominio string) dominioRef {
	d := dominioRef{IDDominio: idDominio}
	if ent, ok := s.model.Entity(idDominio); ok {
		d.RagioneSociale = ent.RagioneSociale
	}
	return d
}
