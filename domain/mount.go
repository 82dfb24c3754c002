package domain

// Mount rules (API.md section 1): which {auth} each API accepts and which
// kinds of caller may enter it at all.

// AcceptsAuth decides whether api accepts the auth type: backoffice,
// pendenze and ragioneria take basic, ssl, spid and apikey; pagamento also
// public; nodo only ssl and basic (its callers are intermediaries'
// connectors, never an application's key). The zero API or AuthType is never accepted.
// A denial carries RuleAuthNotAccepted, which HTTP answers with codice "403".
func AcceptsAuth(api API, auth AuthType) error {
	ok := false
	switch api {
	case APIBackoffice, APIPendenze, APIRagioneria:
		ok = auth == AuthBasic || auth == AuthSSL || auth == AuthSPID || auth == AuthAPIKey
	case APIPagamento:
		ok = auth == AuthBasic || auth == AuthSSL || auth == AuthSPID || auth == AuthPublic || auth == AuthAPIKey
	case APINodo:
		ok = auth == AuthSSL || auth == AuthBasic
	}
	switch {
	case ok:
	case auth == AuthType{}:
		return deny(RuleAuthNotAccepted, DenyAuthUnknown, "the %s API has no such authentication type", api)
	default:
		return deny(RuleAuthNotAccepted, DenyAuthRefused, "the %s API does not accept %s authentication", api, auth)
	}
	return nil
}

// CanEnterAPI decides whether p may call api at all (API.md section 1,
// callers column): backoffice needs an operator or application holding at
// least one role; pendenze and ragioneria an application with a grant on
// that API; pagamento an application with a PAGAMENTO grant, a citizen or an
// anonymous caller. The node API is not entered through a principal
// (CanActAsNode decides it), so it is always denied here.
func CanEnterAPI(p Principal, api API) error {
	if err := active(&p); err != nil {
		return err
	}
	switch api {
	case APIBackoffice:
		if (p.Kind == KindOperator || p.Kind == KindApplication) && len(p.Roles) > 0 {
			return nil
		}
		return deny(RuleAPIEntry, DenyBackofficeEntry, "the BACKOFFICE API needs an operator or application holding at least one role")
	case APIPendenze, APIRagioneria:
		if p.Kind == KindApplication && p.grants[api.i] != nil {
			return nil
		}
		return deny(RuleAPIEntry, DenyAppEntry, "the %s API needs an application authorized on it", api)
	case APIPagamento:
		switch p.Kind {
		case KindCitizen, KindAnonymous:
			return nil
		case KindApplication:
			if p.grants[api.i] != nil {
				return nil
			}
		}
		return deny(RuleAPIEntry, DenyPagamentoEntry, "the PAGAMENTO API needs an application authorized on it, a citizen or an anonymous caller")
	}
	return deny(RuleAPIEntry, DenyNotEntered, "the %s API is not entered by a principal", api)
}

// CanReadAPIProfile decides GET /profilo on the Pendenze and Ragioneria
// APIs (GovPay's profile of the caller): whoever may enter api reads its
// own profile there.
func CanReadAPIProfile(p Principal, api API) error {
	if api != APIPendenze && api != APIRagioneria {
		return deny(RuleAPIEntry, DenyNoAPIProfile, "the %s API has no application profile", api)
	}
	return CanEnterAPI(p, api)
}
