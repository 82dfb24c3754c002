package httpapi

import (
	"slices"
	"testing"
	"time"

	"github.com/payauthz/payauthz/commands"
)

// TestPatchKeepsWritesItsReplicaHadNotApplied: a PATCH of a Backoffice
// registry entry (operatori, applicazioni, ruoli) changes the members it
// names and nothing else. It is written as the PUT of the entry as this
// replica's read model shows it, patched: on a replica that has not yet
// applied another replica's write of the same entry (or while a
// concurrent PATCH's commit is not yet applied here), the PUT wrote back
// the state before that write, and a revocation made there (a role
// taken away, an API grant removed) was undone by an unrelated patch
// (a ragioneSociale), answered 200. The patch now rests on the entry's
// latest commit: the replica catches up with it and patches that.
func TestPatchKeepsWritesItsReplicaHadNotApplied(t *testing.T) {
	t.Parallel() // each test runs its own service
	gate := newProjectionGate()
	h := newHarness(t, withProjectionGate(gate))
	h.putEntity(t, d1)
	h.putType(t, t1, false)
	h.putRole(t, "rKeep", acl{aclOf("Pendenze", "R")}, []string{"*"}, []string{"*"})
	h.putRole(t, "rRevoked", acl{aclOf("Anagrafica Ruoli", "R", "W")}, []string{"*"}, []string{"*"})
	h.putOperator(t, "opPatched", pw, true, "rKeep", "rRevoked")
	h.putApp(t, "appPatched", "appPatched", pw, true, apiGrant("PENDENZE", []string{d1}, []string{"*"}),
		apiGrant("PAGAMENTO", []string{d1}, []string{"*"}))
	admin, _ := h.model.Lookup(adminUser)
	actor := commands.Actor{Principal: admin.Principal, CorrelationID: "other-replica"}

	// otherReplica makes write on the log while this replica's projections
	// are held behind it; they are let through while the PATCH waits.
	otherReplica := func(t *testing.T, write func() error) {
		t.Helper()
		gate.shut()
		if err := write(); err != nil {
			gate.reopen()
			t.Fatal(err)
		}
		time.AfterFunc(300*time.Millisecond, gate.reopen)
	}

	t.Run("operator_role_revoked_elsewhere", func(t *testing.T) {
		otherReplica(t, func() error {
			_, err := h.cmds.PutOperator(t.Context(), actor, commands.PutOperator{Principal: "opPatched",
				RagioneSociale: "Operatore opPatched", Credentials: commands.Credentials{Enabled: true, Roles: []string{"rKeep"}}})
			return err
		})
		var v operatoreView
		h.must(t, "PATCH", bo+"/operatori/opPatched",
			[]map[string]any{{"op": "REPLACE", "path": "/ragioneSociale", "value": "Nuovo nome"}}).decode(t, &v)
		if !slices.Equal(v.Ruoli, []string{"rKeep"}) || v.RagioneSociale != "Nuovo nome" {
			t.Fatalf("PATCH answered %+v, want ruoli [rKeep] (the revocation kept) and the new ragioneSociale", v)
		}
		h.must(t, "GET", bo+"/operatori/opPatched", nil).decode(t, &v)
		if !slices.Equal(v.Ruoli, []string{"rKeep"}) {
			t.Fatalf("after the PATCH the operator holds %v: the revocation of rRevoked was undone", v.Ruoli)
		}
	})

	t.Run("application_grant_revoked_elsewhere", func(t *testing.T) {
		otherReplica(t, func() error {
			_, err := h.cmds.PutApplication(t.Context(), actor, commands.PutApplication{IDA2A: "appPatched", Principal: "appPatched",
				Credentials: commands.Credentials{Enabled: true, Roles: []string{}},
				Grants:      []commands.GrantInput{{API: "PENDENZE", Domini: []string{d1}, TipiPendenza: []string{"*"}}}})
			return err
		})
		var v applicazioneView
		h.must(t, "PATCH", bo+"/applicazioni/appPatched",
			[]map[string]any{{"op": "REPLACE", "path": "/abilitato", "value": true}}).decode(t, &v)
		if v.APIPagamenti {
			t.Fatalf("PATCH answered %+v: the PAGAMENTO grant revoked elsewhere is back", v)
		}
	})

	t.Run("role_narrowed_elsewhere", func(t *testing.T) {
		otherReplica(t, func() error {
			_, err := h.cmds.DefineRole(t.Context(), actor, commands.DefineRole{IDRuolo: "rRevoked", Domini: []string{"*"},
				TipiPendenza: []string{"*"}, ACL: aclEvents([]aclEntry{{Servizio: "Anagrafica Ruoli", Autorizzazioni: []string{"R"}}})})
			return err
		})
		var v ruoloView
		h.must(t, "PATCH", bo+"/ruoli/rRevoked",
			[]map[string]any{{"op": "REPLACE", "path": "/domini", "value": []string{d1}}}).decode(t, &v)
		for _, e := range v.ACL {
			if slices.Contains(e.Autorizzazioni, "W") {
				t.Fatalf("PATCH answered %+v: the W taken away elsewhere is back", v)
			}
		}
	})
}
