package operations

import "github.com/payauthz/payauthz/domain"

// Configurazione e manutenzione (API.md sections 4 and 7): the public
// API's protection and GovPay's maintenance operations.

// ReadConfigurazione is Configurazione e manutenzione R: GET
// /configurazioni/hardening, the console's Impostazioni and Manutenzione
// pages.
func ReadConfigurazione(p domain.Principal, rec Recorder) error {
	return UseService(p, domain.ServiceConfigurazioneManutenzione, domain.RightRead, rec)
}

// WriteConfigurazione is Configurazione e manutenzione W: PUT
// /configurazioni/hardening and GovPay's GET
// /operazioni/resetCacheAnagrafica.
func WriteConfigurazione(p domain.Principal, rec Recorder) error {
	return UseService(p, domain.ServiceConfigurazioneManutenzione, domain.RightWrite, rec)
}
