package domain

import "testing"

func TestCanActAsNode(t *testing.T) {
	t.Parallel()
	sslIn := &IntermediaryView{IDIntermediario: "I1", Enabled: true, ConnectorPrincipal: "CN=node, O=PagoPA, C=IT"}
	basicIn := &IntermediaryView{IDIntermediario: "I1", Enabled: true, ConnectorPrincipal: "node-user"}
	off := &IntermediaryView{IDIntermediario: "I1", Enabled: false, ConnectorPrincipal: "node-user"}
	noConnector := &IntermediaryView{IDIntermediario: "I1", Enabled: true}
	served := &EntityView{IDDominio: d1, IDIntermediario: "I1", Enabled: true}
	foreign := &EntityView{IDDominio: d2, IDIntermediario: "I2", Enabled: true}
	ssl := func(dn string) NodeCaller { return NodeCaller{Auth: AuthSSL, DN: dn} }
	parsed := *sslIn
	parsed.ConnectorDN, _ = ParseDN(parsed.ConnectorPrincipal)
	basic := NodeCaller{Auth: AuthBasic, Username: "node-user", PasswordOK: true}
	runDecisions(t, []decision{
		{"ssl_same_dn", CanActAsNode(ssl("CN=node,O=PagoPA,C=IT"), sslIn, served, true), ""},
		{"ssl_same_dn_reversed", CanActAsNode(ssl("C=IT,O=PagoPA,CN=node"), sslIn, served, true), ""},
		{"ssl_openssl_form", CanActAsNode(ssl("/C=IT/O=PagoPA/CN=node"), sslIn, served, true), ""},
		{"ssl_preparsed_connector", CanActAsNode(ssl("/C=IT/O=PagoPA/CN=node"), &parsed, served, true), ""},
		{"ssl_preparsed_connector_other_subject", CanActAsNode(ssl("CN=node2,O=PagoPA,C=IT"), &parsed, served, true), RuleNodeConnector},
		{"ssl_superset", CanActAsNode(ssl("CN=node, OU=x, O=PagoPA, C=IT"), sslIn, served, true), RuleNodeConnector},
		{"ssl_subset", CanActAsNode(ssl("CN=node, C=IT"), sslIn, served, true), RuleNodeConnector},
		{"ssl_different_value", CanActAsNode(ssl("CN=node2, O=PagoPA, C=IT"), sslIn, served, true), RuleNodeConnector},
		{"ssl_unparsable_subject", CanActAsNode(ssl("not a dn"), sslIn, served, true), RuleNodeConnector},
		{"ssl_empty_subject", CanActAsNode(ssl(""), sslIn, served, true), RuleNodeConnector},
		{"ssl_connector_not_a_dn", CanActAsNode(ssl("CN=node-user"), basicIn, served, true), RuleNodeConnector},
		{"ssl_ignores_basic_fields", CanActAsNode(NodeCaller{Auth: AuthSSL, Username: "CN=node,O=PagoPA,C=IT", PasswordOK: true}, sslIn, served, true), RuleNodeConnector},
		{"basic_right", CanActAsNode(basic, basicIn, served, true), ""},
		{"basic_wrong_password", CanActAsNode(NodeCaller{Auth: AuthBasic, Username: "node-user"}, basicIn, served, true), RuleNodeConnector},
		{"basic_other_user", CanActAsNode(NodeCaller{Auth: AuthBasic, Username: "other", PasswordOK: true}, basicIn, served, true), RuleNodeConnector},
		{"basic_user_case_differs", CanActAsNode(NodeCaller{Auth: AuthBasic, Username: "Node-user", PasswordOK: true}, basicIn, served, true), RuleNodeConnector},
		{"basic_empty_connector", CanActAsNode(NodeCaller{Auth: AuthBasic, PasswordOK: true}, noConnector, served, true), RuleNodeConnector},
		{"basic_dn_not_normalized", CanActAsNode(NodeCaller{Auth: AuthBasic, Username: "C=IT,O=PagoPA,CN=node", PasswordOK: true}, sslIn, served, true), RuleNodeConnector},
		{"spid_not_accepted", CanActAsNode(NodeCaller{Auth: AuthSPID, Username: "node-user", PasswordOK: true}, basicIn, served, true), RuleAuthNotAccepted},
		{"public_not_accepted", CanActAsNode(NodeCaller{Auth: AuthPublic}, basicIn, served, true), RuleAuthNotAccepted},
		{"unknown_intermediary", CanActAsNode(basic, nil, served, true), RuleNodeIntermediary},
		{"intermediary_without_id", CanActAsNode(basic, &IntermediaryView{Enabled: true, ConnectorPrincipal: "node-user"}, served, true), RuleNodeIntermediary},
		{"disabled_intermediary", CanActAsNode(basic, off, served, true), RuleNodeIntermediary},
		{"disabled_intermediary_other_user", CanActAsNode(NodeCaller{Auth: AuthBasic, Username: "other", PasswordOK: true}, off, served, true), RuleNodeConnector},
		{"disabled_intermediary_other_subject", CanActAsNode(ssl("CN=node2,O=PagoPA,C=IT"), &IntermediaryView{IDIntermediario: "I1", ConnectorPrincipal: "CN=node, O=PagoPA, C=IT"}, served, true), RuleNodeConnector},
		{"entity_of_other_intermediary", CanActAsNode(basic, basicIn, foreign, true), RuleNodeEntity},
		{"entity_of_other_intermediary_not_required", CanActAsNode(basic, basicIn, foreign, false), RuleNodeEntity},
		{"unknown_entity_required", CanActAsNode(basic, basicIn, nil, true), RuleNodeEntity},
		{"no_entity_not_required", CanActAsNode(basic, basicIn, nil, false), ""},
	})
}
