package commands

import (
	"encoding/json"
	"regexp"
	"slices"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
)

// Validation of GovPay's pendenza fields that bear on no decision, with
// the limits of GovPay's Pendenze v2 schema.

var (
	reNazione   = regexp.MustCompile(`^[A-Z]{2}$`)
	reCellulare = regexp.MustCompile(`^\+[0-9]{2}\s[0-9]{3}-[0-9]{7}$`)
	reIBAN      = regexp.MustCompile(`^[a-zA-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,30}$`)
	reProvincia = regexp.MustCompile(`^[A-Z]{2}$`)
	// reEmail is the email of GovPay's Soggetto (Pendenze v2, Pagamento
	// v2), matched against the whole value: words of letters, digits and
	// _ joined by - + . ' before the @, by - . after it, with at least
	// one dot there.
	reEmail = regexp.MustCompile(`^[A-Za-z0-9_]+([-+.'][A-Za-z0-9_]+)*@[A-Za-z0-9_]+([-.][A-Za-z0-9_]+)*\.[A-Za-z0-9_]+([-.][A-Za-z0-9_]+)*$`)
)

// tassonomieAvviso are the values of GovPay's TassonomiaAvviso (Pendenze
// v2): AgID's categories of a notice, the only tassonomiaAvviso a
// pendenza takes, written exactly so.
var tassonomieAvviso = []string{"Cartelle esattoriali", "Diritti e concessioni", "Imposte e tasse",
	"IMU, TASI e altre tasse comunali", "Ingressi a mostre e musei", "Multe e sanzioni amministrative",
	"Previdenza e infortuni", "Servizi erogati dal comune", "Servizi erogati da altri enti", "Servizi scolastici",
	"Tassa automobilistica", "Ticket e prestazioni sanitarie", "Trasporti, mobilità e parcheggi"}

// checkAddress validates the address fields of a payer or remitter.
func checkAddress(field string, s *events.Subject) error {
	for _, f := range []struct {
		name, value string
		max         int
	}{{"indirizzo", s.Indirizzo, 70}, {"civico", s.Civico, 16}, {"cap", s.CAP, 16}, {"localita", s.Localita, 35},
		{"provincia", s.Provincia, 35}} {
		if longerThan(f.value, f.max) {
			return invalid(field+"."+f.name, "at most %d characters", f.max)
		}
	}
	if s.Nazione != "" && !reNazione.MatchString(s.Nazione) {
		return invalid(field+".nazione", "must be two upper-case letters")
	}
	if s.Cellulare != "" && !reCellulare.MatchString(s.Cellulare) {
		return invalid(field+".cellulare", `must read "+39 000-1234567"`)
	}
	return nil
}

// MaxVoci is the most voci one pendenza holds.
const MaxVoci = 5

// CheckVoci is the 400 of a pendenza of n voci, nil when n is at most
// MaxVoci; the HTTP layer answers it as soon as a body holds one voce too
// many.
func CheckVoci(n int) error {
	if n > MaxVoci {
		return invalid("voci", "at most %d voci", MaxVoci)
	}
	return nil
}

// validateDetails checks the syntax of GovPay's optional fields of a
// pendenza (400); checkAmounts decides their sum.
func validateDetails(d *events.PendenzaDetails) error {
	if err := CheckVoci(len(d.Voci)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := range d.Voci {
		if err := checkVoce(&d.Voci[i]); err != nil {
			return err
		}
		if seen[d.Voci[i].IDVocePendenza] {
			return invalid("voci.idVocePendenza", "%q listed twice", d.Voci[i].IDVocePendenza)
		}
		seen[d.Voci[i].IDVocePendenza] = true
	}
	if err := storedJSON(jsonField{"datiAllegati", &d.DatiAllegati}, jsonField{"documento", &d.Documento},
		jsonField{"proprieta", &d.Proprieta}, jsonField{"allegati", &d.Allegati}); err != nil {
		return err
	}
	if d.TassonomiaAvviso != "" && !slices.Contains(tassonomieAvviso, d.TassonomiaAvviso) {
		return invalid("tassonomiaAvviso", "must be one of GovPay's TassonomiaAvviso: %q", tassonomieAvviso)
	}
	if d.AnnoRiferimento != 0 && (d.AnnoRiferimento < 1000 || d.AnnoRiferimento > 9999) {
		return invalid("annoRiferimento", "must be a year of four digits")
	}
	for _, f := range []struct {
		name, value string
		max         int
	}{{"tassonomia", d.Tassonomia, 35}, {"direzione", d.Direzione, 35},
		{"divisione", d.Divisione, 35}, {"cartellaPagamento", d.CartellaPagamento, 35}} {
		if longerThan(f.value, f.max) {
			return invalid(f.name, "at most %d characters", f.max)
		}
	}
	for _, f := range []struct{ name, value string }{{"dataValidita", d.DataValidita}, {"dataScadenza", d.DataScadenza},
		{"dataNotificaAvviso", d.DataNotificaAvviso}, {"dataPromemoriaScadenza", d.DataPromemoriaScadenza}} {
		if f.value == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, f.value); err != nil {
			return invalid(f.name, "must be a date (YYYY-MM-DD)")
		}
	}
	return nil
}

// checkVoce validates one voce: its id, description and amount, and one
// way to collect it (an entrata, IBANs with an accounting code, a stamp).
func checkVoce(v *events.Voce) error {
	if v.IDVocePendenza == "" || longerThan(v.IDVocePendenza, 35) {
		return invalid("voci.idVocePendenza", "is required (at most 35 characters)")
	}
	if v.Descrizione == "" || longerThan(v.Descrizione, 140) {
		return invalid("voci.descrizione", "is required (at most 140 characters)")
	}
	if longerThan(v.DescrizioneCausaleRPT, 140) {
		return invalid("voci.descrizioneCausaleRPT", "at most 140 characters")
	}
	if v.AmountCents < 0 {
		return invalid("voci.importo", "must not be negative")
	}
	if v.IDDominio != "" && !ValidDominio(v.IDDominio) {
		return invalid("voci.idDominio", "must be 11 digits")
	}
	kinds := 0
	if v.CodEntrata != "" {
		kinds++
		if !ValidToken(v.CodEntrata, 35) {
			return invalid("voci.codEntrata", "is not an entrata code")
		}
	}
	if v.IBANAccredito != "" || v.IBANAppoggio != "" || v.TipoContabilita != "" || v.CodiceContabilita != "" {
		kinds++
		if !reIBAN.MatchString(v.IBANAccredito) || (v.IBANAppoggio != "" && !reIBAN.MatchString(v.IBANAppoggio)) {
			return invalid("voci.ibanAccredito", "is not an IBAN")
		}
		switch v.TipoContabilita {
		case "CAPITOLO", "SPECIALE", "SIOPE", "ALTRO":
		default:
			return invalid("voci.tipoContabilita", "must be CAPITOLO, SPECIALE, SIOPE or ALTRO")
		}
		if v.CodiceContabilita == "" || longerThan(v.CodiceContabilita, 135) {
			return invalid("voci.codiceContabilita", "is required (at most 135 characters)")
		}
	}
	if v.TipoBollo != "" || v.HashDocumento != "" || v.ProvinciaResidenza != "" {
		kinds++
		if v.TipoBollo != "01" || v.HashDocumento == "" || longerThan(v.HashDocumento, 70) || !reProvincia.MatchString(v.ProvinciaResidenza) {
			return invalid("voci.tipoBollo", "a stamp needs tipoBollo 01, hashDocumento and provinciaResidenza")
		}
	}
	if kinds != 1 {
		return invalid("voci", "each voce names exactly one of codEntrata, ibanAccredito (with tipoContabilita and codiceContabilita) or tipoBollo")
	}
	return storedJSON(jsonField{"voci.datiAllegati", &v.DatiAllegati}, jsonField{"voci.contabilita", &v.Contabilita})
}

var reCodificaIUV = regexp.MustCompile(`^[0-9]{1,3}$`)

// checkTypeFields validates GovPay's fields of a pendenza type; a JSON
// null setting is the same as an absent one.
func checkTypeFields(f *events.TypeFields) error {
	if f.CodificaIUV != nil && !reCodificaIUV.MatchString(*f.CodificaIUV) {
		return invalid("codificaIUV", "must be one to three digits")
	}
	fields := []jsonField{{"portaleBackoffice", &f.PortaleBackoffice}, {"portalePagamento", &f.PortalePagamento},
		{"avvisaturaMail", &f.AvvisaturaMail}, {"avvisaturaAppIO", &f.AvvisaturaAppIO}, {"visualizzazione", &f.Visualizzazione},
		{"tracciatoCsv", &f.TracciatoCsv}}
	return storedJSON(fields...)
}

// storedJSON replaces GovPay's free JSON values, as the request wrote
// them, with the bytes the log keeps of them: encoding/json writes a
// json.RawMessage compacted, with <, > and & escaped, and the stream a
// command loads holds that. Compared as the client spaced it, an identical
// repeat would differ from the stored value and append again. A JSON null
// is an absent value (jsonField.absent).
func storedJSON(fields ...jsonField) error {
	for _, f := range fields {
		if f.absent() {
			continue
		}
		b, err := json.Marshal(*f.raw)
		if err != nil {
			return invalid(f.name, "is not JSON")
		}
		*f.raw = b
	}
	return nil
}

// checkAmounts decides a pendenza's amounts once the caller was found
// allowed to write it (403 before 422): the importo is greater than zero
// and, with voci, their sum (422 otherwise, as GovPay answers).
func checkAmounts(importo int64, d *events.PendenzaDetails) error {
	if importo <= 0 {
		return unprocessable("importo must be greater than zero")
	}
	amounts := make([]int64, 0, len(d.Voci))
	for i := range d.Voci {
		amounts = append(amounts, d.Voci[i].AmountCents)
	}
	if !domain.VociMatchImporto(importo, amounts) {
		return unprocessable("importo differs from the sum of the voci")
	}
	return nil
}
