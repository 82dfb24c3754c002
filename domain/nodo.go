package domain

// Node API rule (API.md section 9): only the exact principal of the named
// intermediary's node connector, for an entity that intermediary serves.

// NodeCaller is what a node API caller presented, already checked by the
// HTTP layer: for ssl the verified certificate's subject DN (any form
// ParseDN accepts), for basic the username and whether the password matched
// the hash stored for the intermediary's connector.
type NodeCaller struct {
	Auth       AuthType
	DN         string // ssl
	Username   string // basic
	PasswordOK bool   // basic
}

// CanActAsNode decides a node API call for the intermediary interm (nil
// when the path names an unknown one) about entity (nil when the call names
// no entity or an unknown one).
//
// The caller must be the connector of a registered intermediary
// (RuleNodeConnector): for ssl the subject DN equal to the connector
// principal by DNEqual (same RDNs in the same or exactly reversed order),
// for basic the username exactly equal (constant-time) and PasswordOK; any
// other auth type is RuleAuthNotAccepted. An unknown intermediary has no
// connector: it is denied by RuleNodeIntermediary in the same words as
// another intermediary's, so that no caller learns which intermediaries
// are registered. Only the connector then learns that its intermediary is
// disabled (RuleNodeIntermediary). The entity must be served by interm
// (RuleNodeEntity); a nil entity is denied when mustServe, and allowed
// otherwise (calls such as a settlement report whose entity HTTP resolves
// and checks separately, or one that answers 404/422 for an unknown entity
// only after the caller is known to be the connector).
//
// The basic path does not allocate; the ssl path parses the subject (and
// the connector principal when interm.ConnectorDN is zero).
func CanActAsNode(c NodeCaller, interm *IntermediaryView, entity *EntityView, mustServe bool) error {
	var notConnector, code string
	switch c.Auth {
	case AuthSSL:
		notConnector, code = "the certificate subject is not the principal of this intermediary's node connector", DenyNodeCertificate
	case AuthBasic:
		notConnector, code = "the credentials are not those of this intermediary's node connector", DenyNodeCredentials
	default:
		return deny(RuleAuthNotAccepted, DenyNodoAuth, "the NODO API accepts only ssl and basic authentication")
	}
	if interm == nil || interm.IDIntermediario == "" {
		return deny(RuleNodeIntermediary, code, notConnector)
	}
	if !isConnector(c, interm) {
		return deny(RuleNodeConnector, code, notConnector)
	}
	if !interm.Enabled {
		return deny(RuleNodeIntermediary, DenyIntermediaryDisabled, "the intermediary is disabled")
	}
	if entity == nil && !mustServe {
		return nil
	}
	if entity == nil || entity.IDIntermediario != interm.IDIntermediario {
		return deny(RuleNodeEntity, DenyEntityNotServed, "the entity is not served by this intermediary")
	}
	return nil
}

// isConnector reports whether the ssl or basic caller c is interm's node
// connector.
func isConnector(c NodeCaller, interm *IntermediaryView) bool {
	if c.Auth == AuthSSL {
		return sameDN(c.DN, interm)
	}
	return interm.ConnectorPrincipal != "" && ctEqual(c.Username, interm.ConnectorPrincipal) && c.PasswordOK
}

// sameDN reports whether the subject parses and is DNEqual to the
// connector's DN (pre-parsed, else parsed here).
func sameDN(subject string, interm *IntermediaryView) bool {
	da, err := ParseDN(subject)
	if err != nil {
		return false
	}
	db := interm.ConnectorDN
	if db.Len() == 0 {
		if db, err = ParseDN(interm.ConnectorPrincipal); err != nil {
			return false
		}
	}
	return DNEqual(da, db)
}
