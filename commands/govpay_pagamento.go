package commands

import (
	"regexp"
	"slices"
	"time"
)

// PaymentRequest holds the members of GovPay's NuovoPagamento (Pagamento
// v2) besides its references and soggettoVersante, in their wire form: how
// GovPay opens the payer's session with pagoPA (where the payer returns,
// the account to debit, the day to pay, the PSP's credentials, how the
// payer was authenticated). They bear on no decision, and this service
// opens no session with pagoPA: StartPayment checks them against GovPay's
// schema and keeps none of them (credenzialiPagatore is a credential, which
// an append-only log must not hold).
type PaymentRequest struct {
	URLRitorno              string `json:"urlRitorno,omitempty"`
	ContoAddebito           *Conto `json:"contoAddebito,omitempty"`
	DataEsecuzionePagamento string `json:"dataEsecuzionePagamento,omitempty" format:"date"`
	CredenzialiPagatore     string `json:"credenzialiPagatore,omitempty"`
	AutenticazioneSoggetto  string `json:"autenticazioneSoggetto,omitempty"`
}

// Conto is GovPay's Conto: the account a payment debits.
type Conto struct {
	IBAN string `json:"iban"`
	BIC  string `json:"bic,omitempty"`
}

// reBIC is GovPay's Conto.bic.
var reBIC = regexp.MustCompile(`^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$`)

// autenticazioniSoggetto are the values of GovPay's
// TipoAutenticazioneSoggetto.
var autenticazioniSoggetto = []string{"CNS", "USR", "OTH", "N/A"}

// check validates r against GovPay's schema (400 naming the member).
func (r *PaymentRequest) check() error {
	if c := r.ContoAddebito; c != nil {
		if !reIBAN.MatchString(c.IBAN) {
			return invalid("contoAddebito.iban", "is not an IBAN")
		}
		if c.BIC != "" && !reBIC.MatchString(c.BIC) {
			return invalid("contoAddebito.bic", "is not a BIC")
		}
	}
	if r.DataEsecuzionePagamento != "" {
		if _, err := time.Parse(time.DateOnly, r.DataEsecuzionePagamento); err != nil {
			return invalid("dataEsecuzionePagamento", "must be a date (YYYY-MM-DD)")
		}
	}
	if r.AutenticazioneSoggetto != "" && !slices.Contains(autenticazioniSoggetto, r.AutenticazioneSoggetto) {
		return invalid("autenticazioneSoggetto", "must be one of GovPay's TipoAutenticazioneSoggetto: %q", autenticazioniSoggetto)
	}
	return nil
}
