package httpapi

import (
	"github.com/payauthz/payauthz/events"
)

// govpayPendenza holds the fields of GovPay's NuovaPendenza (Pendenze v2)
// that bear on no decision: they are validated by the command, kept in the
// event, and otherwise left alone. Embedded in pendenzaBody.
type govpayPendenza struct {
	Voci []voceBody `json:"voci,omitempty"`
	events.PendenzaFields
}

// voceBody is GovPay's NuovaVocePendenza: the importo in euro.
type voceBody struct {
	Importo *Importo `json:"importo"`
	events.VoceFields
}

// details converts the GovPay fields for the command; a voce without
// importo is a 400.
func (g govpayPendenza) details() (events.PendenzaDetails, error) {
	d := events.PendenzaDetails{PendenzaFields: g.PendenzaFields}
	for _, v := range g.Voci {
		if v.Importo == nil {
			return d, syntaxError("voci.importo is required")
		}
		d.Voci = append(d.Voci, events.Voce{AmountCents: int64(*v.Importo), VoceFields: v.VoceFields})
	}
	return d, nil
}
