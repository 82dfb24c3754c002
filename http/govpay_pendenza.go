package httpapi

import (
	"github.com/go-json-experiment/json/jsontext"

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

// vociBody are a pendenza's voci, decoded one at a time: a list longer
// than commands.MaxVoci is refused at the voce after the last one, with
// the command's own 400. 1 MiB of empty voci built whole would be some
// 350,000 of them (about 420 MiB of allocations) before the count is
// checked.
type vociBody []voceBody

// InlineJSONSchema keeps the list documented as the array it is, not as
// a schema of its own.
func (vociBody) InlineJSONSchema() {}

// UnmarshalJSONFrom reads the list with the decoder's (strict) options.
func (v *vociBody) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	voci, err := decodeAtMost[voceBody](d, commands.MaxVoci, commands.CheckVoci)
	*v = voci
	return err
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
