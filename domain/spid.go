package domain

import "errors"

// ErrNotFiscalCode is a spid caller whose identity proxy sent something
// that is not a fiscal code: no one is that caller (not authenticated).
var ErrNotFiscalCode = errors.New("not a fiscal code")

// ErrNotRegistered is a spid caller whose fiscal code names no registered
// principal, on an API other than PAGAMENTO: not authenticated.
var ErrNotRegistered = errors.New("not a registered principal")

// SPIDCaller resolves the caller a trusted identity proxy vouches for on
// api (API.md section 2, spid) from the value it sent, presented: its
// fiscal code (ParseCitizen; anything else is ErrNotFiscalCode), then
// FiscalCodeCaller. The service's authentication and Explain both resolve
// spid callers here, so they cannot disagree on who a caller is.
func SPIDCaller(api API, presented string, registered func(code string) (Principal, bool)) (Principal, error) {
	code, ok := ParseCitizen(presented)
	if !ok {
		return Principal{}, ErrNotFiscalCode
	}
	return FiscalCodeCaller(api, code, registered)
}

// FiscalCodeCaller is the caller a spid fiscal code code is on api: the
// registered principal registered finds under that name; an unregistered
// caller is a citizen on PAGAMENTO and is not authenticated elsewhere
// (ErrNotRegistered).
func FiscalCodeCaller(api API, code string, registered func(code string) (Principal, bool)) (Principal, error) {
	if p, found := registered(code); found {
		return p, nil
	}
	if api == APIPagamento {
		return Citizen(code), nil
	}
	return Principal{}, ErrNotRegistered
}
