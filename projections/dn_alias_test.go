package projections

import (
	"testing"

	"github.com/payauthz/payauthz/events"
)

// TestDNSharedByTwoPrincipalsNamesNeither: two principals registered
// before the canonical DN aliased their spellings (2.5.4.3 and CN: one
// type since 1308db5) hold one DN key. A certificate with that subject
// authenticates as neither, not as whichever the log folded last; once
// one of them is renamed away, the DN names the other again, and a rename
// of the one never takes the other's entry with it.
func TestDNSharedByTwoPrincipalsNamesNeither(t *testing.T) {
	const oidSpelling, nameSpelling, subject = "2.5.4.3=nodo,O=Ente", "CN=nodo,O=Ente", "CN=nodo, O=Ente"
	m := New()
	if err := m.ApplyCommit(1,
		events.ApplicationRegistered{IDA2A: "first", Principal: nameSpelling, Enabled: true, Roles: []string{}},
	); err != nil {
		t.Fatal(err)
	}
	if rec, ok := m.LookupDN(subject); !ok || rec.Principal.Name != nameSpelling {
		t.Fatalf("one principal: LookupDN = %v, %v; want %s", rec, ok, nameSpelling)
	}
	if err := m.ApplyCommit(2,
		events.ApplicationRegistered{IDA2A: "second", Principal: oidSpelling, Enabled: true, Roles: []string{}},
	); err != nil {
		t.Fatal(err)
	}
	if rec, ok := m.LookupDN(subject); ok {
		t.Fatalf("two principals share the DN: LookupDN = %s, want none", rec.Principal.Name)
	}
	if err := m.ApplyCommit(3,
		events.ApplicationUpdated{IDA2A: "second", Principal: "CN=altro,O=Ente", Enabled: true, Roles: []string{}},
	); err != nil {
		t.Fatal(err)
	}
	if rec, ok := m.LookupDN(subject); !ok || rec.Principal.Name != nameSpelling {
		t.Fatalf("the other renamed away: LookupDN = %v, %v; want %s", rec, ok, nameSpelling)
	}
	if rec, ok := m.LookupDN("CN=altro, O=Ente"); !ok || rec.Principal.Name != "CN=altro,O=Ente" {
		t.Fatalf("the renamed one: LookupDN = %v, %v", rec, ok)
	}
	// Renaming the first away leaves the DN to nobody, and the renamed
	// one keeps its own.
	if err := m.ApplyCommit(4,
		events.ApplicationUpdated{IDA2A: "first", Principal: "CN=terzo,O=Ente", Enabled: true, Roles: []string{}},
	); err != nil {
		t.Fatal(err)
	}
	if rec, ok := m.LookupDN(subject); ok {
		t.Fatalf("both renamed away: LookupDN = %s, want none", rec.Principal.Name)
	}
	for _, dn := range []string{"CN=altro, O=Ente", "CN=terzo, O=Ente"} {
		if _, ok := m.LookupDN(dn); !ok {
			t.Fatalf("LookupDN(%s) lost", dn)
		}
	}
}
