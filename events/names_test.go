package events

import (
	"slices"
	"testing"
)

// logNames is every event name a log written by payauthz may hold. A name
// is written into the log with each event, so it is forever: renaming or
// removing one would leave events of existing logs that no build can decode
// (their read models stop). A new event adds its name here; nothing leaves.
var logNames = []string{
	"ApplicationAPIAuthorized",
	"ApplicationAPIRevoked",
	"ApplicationRegistered",
	"ApplicationUpdated",
	"CreditorEntityRegistered",
	"CreditorEntityUpdated",
	"IdentifierClaimed",
	"IdentifierReleased",
	"IncassoRecorded",
	"IntermediaryRegistered",
	"IntermediaryUpdated",
	"LogCheckpointSigned",
	"OperatorRegistered",
	"OperatorUpdated",
	"PaymentStarted",
	"PendenzaCreated",
	"PendenzaStatusChanged",
	"PendenzaTypeRegistered",
	"PendenzaTypeUpdated",
	"PendenzaUpdated",
	"PublicAPIProtectionConfigured",
	"ReceiptRecorded",
	"ReconciliationCreated",
	"RoleDefined",
	"SettlementReportRecorded",
	"UnitRegistered",
	"UnitUpdated",
}

func TestEventNamesAreForever(t *testing.T) {
	known := DefaultCodec.Names()
	for _, name := range logNames {
		if !slices.Contains(known, name) {
			t.Errorf("the codec no longer decodes %q, which existing logs hold", name)
		}
	}
	for _, name := range known {
		if !slices.Contains(logNames, name) {
			t.Errorf("event %q is new: add it to logNames, so that a later rename of it fails here", name)
		}
	}
}
