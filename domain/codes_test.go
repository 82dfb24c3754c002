package domain

import (
	"errors"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/internal/sourcetest"
)

// TestDenyCodesListsEveryCode: DenyCodes, the list a client wording
// denials iterates (the console's dinieghi test), holds every Deny* code
// this package declares, each once.
func TestDenyCodesListsEveryCode(t *testing.T) {
	_, files := sourcetest.Parse(t, ".")
	var declared []string
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Deny") {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s is not a string literal", name.Name)
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					declared = append(declared, v)
				}
			}
		}
	}
	listed := DenyCodes()
	for _, c := range declared {
		if !slices.Contains(listed, c) {
			t.Errorf("code %q is declared but not in DenyCodes", c)
		}
	}
	seen := map[string]bool{}
	for _, c := range listed {
		if seen[c] {
			t.Errorf("code %q is listed twice, or two codes share it", c)
		}
		seen[c] = true
		if !slices.Contains(declared, c) {
			t.Errorf("DenyCodes lists %q, which no Deny* constant declares", c)
		}
	}
	if len(declared) != len(listed) {
		t.Errorf("%d codes declared, %d listed", len(declared), len(listed))
	}
}

// TestEveryDenialHasACode: this package makes its denials only with a
// code: through deny, whose code is an argument, or as a ForbiddenError
// literal naming its Code.
func TestEveryDenialHasACode(t *testing.T) {
	fset, files := sourcetest.Parse(t, ".")
	found := 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "ForbiddenError" {
				return true
			}
			found++
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Code" {
						return true
					}
				}
			}
			t.Errorf("%s: a ForbiddenError without a Code", fset.Position(lit.Pos()))
			return true
		})
	}
	if found == 0 {
		t.Fatal("no ForbiddenError literal found: the test reads nothing")
	}
}

// TestDenialsCarryTheirCode: denials of each kind of message (fixed, with
// arguments, about a service right, of delegation) carry the code their
// message is and the Args it names; the Detail is unchanged.
func TestDenialsCarryTheirCode(t *testing.T) {
	a := app("A", Grant{API: APIPendenze, Domini: Entities(ScopeOf(d1)), Tipi: ScopeAll()})
	op := operator(role("r", map[Service]Rights{ServicePendenze: rd}, ScopeOf(d1), ScopeAll()))
	for _, c := range []struct {
		name   string
		err    error
		code   string
		args   []any
		detail string
	}{
		{"disabled", CanEnterAPI(disabled(a), APIPendenze), DenyDisabled, nil, "the principal is disabled"},
		{"outside_scope", CanCreatePendenza(a, "A", Place{IDDominio: d2, IDTipoPendenza: tA}), DenyGrantDominio,
			[]any{d2, APIPendenze}, "idDominio " + d2 + " is not in the application's PENDENZE scope"},
		{"auth_refused", AcceptsAuth(APINodo, AuthAPIKey), DenyAuthRefused, []any{APINodo, AuthAPIKey},
			"the NODO API does not accept apikey authentication"},
		{"not_creator", CanReadOwnPendenza(a, PendenzaView{IDA2A: "B"}), DenyNotCreator, nil,
			"an application reads only the pendenze it created"},
		{"citizen_not_payer", CanPayPendenza(Citizen("RSSMRA80A01H501U"), PendenzaView{PayerID: "X"}), DenyCitizenPays, nil,
			"a citizen pays by id only the pendenze it is payer of"},
		{"no_role", HasServiceRight(op, ServicePagamenti, RightRead), DenyNoRole, []any{ServicePagamenti, RightRead},
			"no role gives Pagamenti R"},
		{"node_credentials", CanActAsNode(NodeCaller{Auth: AuthBasic, Username: "x"}, &IntermediaryView{IDIntermediario: "I1",
			ConnectorPrincipal: "y"}, nil, true), DenyNodeCredentials, nil, "the credentials are not those of this intermediary's node connector"},
		{"starting_payments", DenyStartingPayments(), DenyStartPayment, nil, "the caller cannot start payments"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f *ForbiddenError
			if !errors.As(c.err, &f) {
				t.Fatalf("err = %v, want a denial", c.err)
			}
			if f.Code != c.code || !slices.Equal(f.Args, c.args) || f.Detail != c.detail {
				t.Fatalf("denial = %q %v %q, want %q %v %q", f.Code, f.Args, f.Detail, c.code, c.args, c.detail)
			}
		})
	}
}
