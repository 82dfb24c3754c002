package httpapi

import (
	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events"
)

// govpayPendenza holds the fields of GovPay's NuovaPendenza (Pendenze v2)
// that bear on no decision: they are validated by the command, kept in the
// event, and otherwise left alone. Embedded in pendenzaBody.
type govpayPendenza struct {
	Voci vociBody `json:"voci,omitempty"`
	events.PendenzaFields
}

// vociBody are a pendenza's voci, at most commands.MaxVoci.
type vociBody = boundedList[voceBody, vociBound]

type vociBound struct{}

func (vociBound) bound() (int, func(int) error) { return commands.MaxVoci, commands.CheckVoci }

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
