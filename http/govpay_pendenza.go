package httpapi

import (
	"encoding/json"

	"github.com/payauthz/payauthz/events"
)

// govpayPendenza holds the fields of GovPay's NuovaPendenza (Pendenze v2)
// that bear on no decision: they are validated by the command, kept in the
// event, and otherwise left alone. Embedded in pendenzaBody.
type govpayPendenza struct {
	Voci                   []voceBody      `json:"voci,omitempty"`
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

// voceBody is GovPay's NuovaVocePendenza.
type voceBody struct {
	IDVocePendenza        string          `json:"idVocePendenza"`
	Importo               *Importo        `json:"importo"`
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

// details converts the GovPay fields for the command; a voce without
// importo is a 400.
func (g govpayPendenza) details() (events.PendenzaDetails, error) {
	d := events.PendenzaDetails{AnnoRiferimento: g.AnnoRiferimento, Tassonomia: g.Tassonomia,
		TassonomiaAvviso: g.TassonomiaAvviso, Direzione: g.Direzione, Divisione: g.Divisione,
		CartellaPagamento: g.CartellaPagamento, DataValidita: g.DataValidita, DataScadenza: g.DataScadenza,
		DataNotificaAvviso: g.DataNotificaAvviso, DataPromemoriaScadenza: g.DataPromemoriaScadenza,
		DatiAllegati: g.DatiAllegati, Documento: g.Documento, Proprieta: g.Proprieta, Allegati: g.Allegati}
	for _, v := range g.Voci {
		if v.Importo == nil {
			return d, syntaxError("voci.importo is required")
		}
		d.Voci = append(d.Voci, events.Voce{IDVocePendenza: v.IDVocePendenza, AmountCents: int64(*v.Importo),
			Descrizione: v.Descrizione, DescrizioneCausaleRPT: v.DescrizioneCausaleRPT, IDDominio: v.IDDominio,
			CodEntrata: v.CodEntrata, IBANAccredito: v.IBANAccredito, IBANAppoggio: v.IBANAppoggio,
			TipoContabilita: v.TipoContabilita, CodiceContabilita: v.CodiceContabilita, TipoBollo: v.TipoBollo,
			HashDocumento: v.HashDocumento, ProvinciaResidenza: v.ProvinciaResidenza, DatiAllegati: v.DatiAllegati,
			Contabilita: v.Contabilita})
	}
	return d, nil
}
