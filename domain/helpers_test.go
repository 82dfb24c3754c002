package domain

import (
	"errors"
	"testing"
)

// Fixtures shared by the decision tests: two entities, two types.
const (
	d1, d2 = "11111111111", "22222222222"
	tA, tB = "TARI", "IMU"
)

var (
	rd = Rights(RightRead)
	wr = Rights(RightWrite)
	rw = Rights(RightRead) | Rights(RightWrite)
)

func role(id string, acl map[Service]Rights, domini, tipi Scope) Role {
	return NewRole(id, acl, domini, tipi)
}

func operator(roles ...Role) Principal {
	return Principal{Kind: KindOperator, Name: "op", Enabled: true, Roles: roles}
}

func app(id string, grants ...Grant) Principal {
	p := Principal{Kind: KindApplication, Name: "principal-" + id, IDA2A: id, Enabled: true}
	for _, g := range grants {
		p = p.WithGrant(g)
	}
	return p
}

func disabled(p Principal) Principal {
	p.Enabled = false
	return p
}

// decision is one case of a rule table: the decision's result and the rule
// expected to deny it ("" for allowed).
type decision struct {
	name string
	err  error
	rule string
}

func runDecisions(t *testing.T, tests []decision) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			expect(t, tt.err, tt.rule)
		})
	}
}

// expect asserts nil for allowed (rule ""), or a *ForbiddenError with rule
// and a detail.
func expect(t *testing.T, err error, rule string) {
	t.Helper()
	if rule == "" {
		if err != nil {
			t.Fatalf("denied (%v), want allowed", err)
		}
		return
	}
	var fe *ForbiddenError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want denial by %s", err, rule)
	}
	if fe.Rule != rule {
		t.Fatalf("denied by %s (%s), want %s", fe.Rule, fe.Detail, rule)
	}
	if fe.Detail == "" {
		t.Fatal("denial without detail")
	}
}

// NewRole builds a role from its ACL.
func NewRole(id string, acl map[Service]Rights, domini, tipi Scope) Role {
	r := Role{ID: id, Domini: Entities(domini), Tipi: tipi}
	for s, rights := range acl {
		r.ACL[s.i] = rights
	}
	return r
}
