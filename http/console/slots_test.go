package console

import (
	"go/ast"
	"go/constant"
	"go/importer"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/internal/sourcetest"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/operations/audit"
)

// italian is how the Italian names what the English names before a
// string's verb.
var italian = map[string]string{"idDominio": "dominio ", "idUnitaOperativa": "unità operativa ", "idTipoPendenza": "tipo pendenza "}

// madeWith is how domain makes the denials of one code: the type of each
// of its Args and, for a string, what the English says it is (the word
// before its verb: idDominio, idUnitaOperativa, idTipoPendenza; "" when
// it says none).
type madeWith struct {
	types []string
	names []string
}

// denialsMade reads domain's source and returns, for each Deny* code, the
// Args its denials are made with: deny(rule, code, format, args...), the
// codes of denyRight's rightCodes (a Service and a Right), a
// ForbiddenError literal naming its Code and Args, and, with no Args, every
// other use of a code (a fixed message, a message{} value).
func denialsMade(t *testing.T) map[string]madeWith {
	t.Helper()
	fset, files := sourcetest.Parse(t, filepath.Join("..", "..", "domain"))
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("github.com/payauthz/payauthz/domain", fset, files, info); err != nil {
		t.Fatal(err)
	}
	codeOf := func(e ast.Expr) (string, bool) {
		tv, ok := info.Types[e]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
			return "", false
		}
		return constant.StringVal(tv.Value), true
	}
	typeName := func(e ast.Expr) string {
		return strings.TrimPrefix(info.Types[e].Type.String(), "github.com/payauthz/payauthz/domain.")
	}
	made := map[string]madeWith{}
	record := func(code string, m madeWith) {
		if prev, ok := made[code]; ok && strings.Join(prev.types, ",") != strings.Join(m.types, ",") {
			t.Errorf("%s is made with Args %v and with %v", code, prev.types, m.types)
		}
		made[code] = m
	}
	verb := regexp.MustCompile(`%[a-z]`)
	var rightCodes []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "rightCodes" {
				for _, e := range vs.Values[0].(*ast.CompositeLit).Elts {
					if c, ok := codeOf(e.(*ast.KeyValueExpr).Value); ok {
						rightCodes = append(rightCodes, c)
					}
				}
			}
			return true
		})
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); !ok || id.Name != "deny" || len(n.Args) < 3 {
					return true
				}
				var m madeWith
				for _, a := range n.Args[3:] {
					m.types = append(m.types, typeName(a))
				}
				if lit, ok := n.Args[2].(*ast.BasicLit); ok {
					format, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					locs := verb.FindAllStringIndex(format, -1)
					if len(locs) != len(m.types) {
						t.Errorf("%s: %d verbs in %s, %d args", fset.Position(n.Pos()), len(locs), format, len(m.types))
					}
					for _, l := range locs {
						before := strings.Fields(format[:l[0]])
						m.names = append(m.names, before[len(before)-1])
					}
				} else {
					m.names = make([]string, len(m.types))
				}
				if c, ok := codeOf(n.Args[1]); ok {
					record(c, m)
				} else if ix, ok := n.Args[1].(*ast.IndexExpr); ok && ix.X.(*ast.Ident).Name == "rightCodes" {
					for _, c := range rightCodes {
						record(c, m)
					}
				} else if len(m.types) > 0 {
					t.Errorf("%s: a denial with Args whose code is not a constant", fset.Position(n.Pos()))
				}
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); !ok || id.Name != "ForbiddenError" {
					return true
				}
				var code string
				var m madeWith
				for _, e := range n.Elts {
					kv := e.(*ast.KeyValueExpr)
					switch kv.Key.(*ast.Ident).Name {
					case "Code":
						code, _ = codeOf(kv.Value)
					case "Args":
						if args, ok := kv.Value.(*ast.CompositeLit); ok {
							for _, a := range args.Elts {
								m.types = append(m.types, typeName(a))
								m.names = append(m.names, "")
							}
						}
					}
				}
				if code != "" {
					record(code, m)
				}
			}
			return true
		})
	}
	for _, f := range files {
		if filepath.Base(fset.Position(f.Pos()).Filename) == "codes.go" { // declares and lists them
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && strings.HasPrefix(id.Name, "Deny") && info.Uses[id] != nil {
				if c, ok := codeOf(id); ok {
					if _, seen := made[c]; !seen {
						made[c] = madeWith{}
					}
				}
			}
			return true
		})
	}
	return made
}

// TestEveryDenialFillsItsSlots: dinieghi words each domain denial with the
// Args domain makes it with, each in its slot: no verb without its value
// or value without its verb, a service and right together, an API and an
// authentication type named as such, and an entity, unit or type where
// the Italian names one (an arg in the wrong slot shows as "dominio" with
// a unit's value).
func TestEveryDenialFillsItsSlots(t *testing.T) {
	made := denialsMade(t)
	for _, code := range domain.DenyCodes() {
		m, ok := made[code]
		if !ok {
			t.Errorf("%s: no denial of domain is made with it", code)
			continue
		}
		t.Run(code, func(t *testing.T) {
			var args []any
			var want []string
			for i, typ := range m.types {
				switch typ {
				case "Service":
					args = append(args, domain.ServiceRendicontazioniIncassi)
				case "Right":
					args = append(args, domain.RightWrite)
					if i > 0 && m.types[i-1] == "Service" {
						want = append(want, "Rendicontazioni e Incassi W (scrittura)")
					}
				case "API":
					args = append(args, domain.APIRagioneria)
					want = append(want, "API RAGIONERIA")
				case "AuthType":
					args = append(args, domain.AuthAPIKey)
					want = append(want, "autenticazione apikey")
				case "string":
					v := "V" + string(rune('1'+i))
					args = append(args, v)
					want = append(want, italian[m.names[i]]+v)
				default:
					t.Fatalf("arg %d of type %s: the test has no value for it", i, typ)
				}
			}
			if code == domain.DenyGranterPlace {
				return // TestGranterPlaceIsWorded makes its Args as domain does
			}
			got := dinieghi[code](args)
			if strings.Contains(got, "%!") {
				t.Errorf("%q: a verb without its value, or a value without its verb", got)
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%q does not say %q", got, w)
				}
			}
		})
	}
}

// TestGranterPlaceIsWorded: dinieghi words a denial by delegation of a
// place (DenyGranterPlace), made by domain.CanGrantRole, with the right,
// the entity or unit and the type it names, each in its slot.
func TestGranterPlaceIsWorded(t *testing.T) {
	acl := func(service string) func(yield func(string, []string) bool) {
		return func(yield func(string, []string) bool) { yield(service, []string{"W"}) }
	}
	role := func(t *testing.T, id, service string, domini []string, units map[string][]string, tipi []string) domain.Role {
		t.Helper()
		r, err := domain.ParseRole(id, acl(service), domini, units, tipi)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	granter := func(roles ...domain.Role) domain.Principal {
		return domain.Principal{Kind: domain.KindOperator, Name: "op", Enabled: true, Roles: roles}
	}
	const d1, d2, u1, t1, t2 = "11111111111", "22222222222", "UO1", "TARI", "IMU"
	held := role(t, "held", "Pendenze", []string{d1}, nil, []string{t1})
	for _, c := range []struct {
		name  string
		grant domain.Role
		want  string
	}{
		{"entity", role(t, "g", "Pendenze", []string{d2}, nil, []string{t1}),
			"l'utenza non ha Pendenze W (scrittura) sul dominio " + d2 + "."},
		{"unit", role(t, "g", "Pendenze", nil, map[string][]string{d2: {u1}}, []string{t1}),
			"l'utenza non ha Pendenze W (scrittura) sull'unità operativa " + u1 + " del dominio " + d2 + "."},
		{"entity_and_type", role(t, "g", "Pendenze", []string{d1}, nil, []string{t2}),
			"l'utenza non ha Pendenze W (scrittura) sul dominio " + d1 + " e sul tipo pendenza " + t2 + "."},
		{"type", role(t, "g", "Pendenze", nil, nil, []string{t2}),
			"l'utenza non ha Pendenze W (scrittura) sul tipo pendenza " + t2 + "."},
		{"any_role", domain.Role{ID: "g", Domini: domain.Entities(domain.ScopeOf(d2))},
			"l'utenza non ha alcun ruolo sul dominio " + d2 + "."},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := domain.CanGrantRole(granter(held), c.grant)
			f, ok := err.(*domain.ForbiddenError)
			if !ok || f.Code != domain.DenyGranterPlace {
				t.Fatalf("err = %v, want a %s denial", err, domain.DenyGranterPlace)
			}
			if got := dinieghi[f.Code](f.Args); !strings.HasSuffix(got, c.want) {
				t.Fatalf("words = %q, want them to end %q", got, c.want)
			}
		})
	}
}

// notesMade reads operations/audit's source and returns, for each Note*
// code (by its constant's name), how many Args its texts are made with:
// noteOf(code, format, args...), a note{code, args} literal, or a code and
// its Args set together (a trail's check).
func notesMade(t *testing.T) map[string]int {
	t.Helper()
	// notes.go declares the codes, and noteOf.
	fset, files := sourcetest.Parse(t, filepath.Join("..", "..", "operations", "audit"), "notes.go")
	made := map[string]int{}
	record := func(pos token.Pos, code ast.Expr, n int) {
		id, ok := code.(*ast.Ident)
		if !ok || !strings.HasPrefix(id.Name, "Note") {
			t.Errorf("%s: a text whose code is not a Note* constant", fset.Position(pos))
			return
		}
		if prev, ok := made[id.Name]; ok && prev != n {
			t.Errorf("%s: %s is made with %d Args and with %d", fset.Position(pos), id.Name, prev, n)
		}
		made[id.Name] = n
	}
	verb := regexp.MustCompile(`%[a-z]`)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "noteOf" {
					lit := n.Args[1].(*ast.BasicLit)
					if v := len(verb.FindAllString(lit.Value, -1)); v != len(n.Args)-2 {
						t.Errorf("%s: %d verbs in %s, %d args", fset.Position(n.Pos()), v, lit.Value, len(n.Args)-2)
					}
					record(n.Pos(), n.Args[0], len(n.Args)-2)
				}
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); !ok || id.Name != "note" || len(n.Elts) == 0 {
					return true
				}
				var code ast.Expr
				args := 0
				for _, e := range n.Elts {
					kv := e.(*ast.KeyValueExpr)
					switch kv.Key.(*ast.Ident).Name {
					case "code":
						code = kv.Value
					case "args":
						args = len(kv.Value.(*ast.CompositeLit).Elts)
					}
				}
				record(n.Pos(), code, args)
			case *ast.AssignStmt:
				if len(n.Rhs) == 2 {
					id, ok := n.Rhs[0].(*ast.Ident)
					args, isList := n.Rhs[1].(*ast.CompositeLit)
					if ok && isList && strings.HasPrefix(id.Name, "Note") {
						record(n.Pos(), id, len(args.Elts))
					}
				}
			}
			return true
		})
	}
	return made
}

// TestEveryNoteFillsItsSlots: risposte words each text of an audit answer
// with Args as many as audit makes it with and of the types its code
// documents, each value in its slot.
func TestEveryNoteFillsItsSlots(t *testing.T) {
	s, r := domain.ServiceRendicontazioniIncassi, domain.RightWrite
	const right = "Rendicontazioni e Incassi W (scrittura)"
	unknownType := operations.UnprocessableAs(operations.UnprocessableTypeUnknown, "idTipoPendenza %s is not registered", "T9")
	denial := domain.CanOnDominio(domain.Principal{Kind: domain.KindOperator, Name: "op", Enabled: true,
		Roles: []domain.Role{{ID: "r"}}}, s, r, "D9")
	made := notesMade(t)
	type noteCase struct {
		code, name string // the constant and its name
		args       []any
		want       []string
	}
	cases := []noteCase{
		{audit.NoteCheck, "NoteCheck", []any{denial}, []string{"Nessun ruolo dell'utenza dà " + right}},
		{audit.NoteAskedMissing, "NoteAskedMissing", nil, nil},
		{audit.NoteMissing, "NoteMissing", nil, nil},
		{audit.NoteUnprocessable, "NoteUnprocessable", []any{unknownType}, []string{"(422): Il tipo pendenza T9 non è registrato"}},
		{audit.NotePublic, "NotePublic", nil, nil},
		{audit.NoteSPIDRefused, "NoteSPIDRefused", nil, nil},
		{audit.NoteNotFiscalCode, "NoteNotFiscalCode", nil, nil},
		{audit.NoteSPIDCitizen, "NoteSPIDCitizen", nil, nil},
		{audit.NoteNoSuchName, "NoteNoSuchName", nil, nil},
		{audit.NoteNotRegistered, "NoteNotRegistered", nil, nil},
		{audit.NoteNoPassword, "NoteNoPassword", nil, nil},
		{audit.NoteNoAPIKey, "NoteNoAPIKey", nil, nil},
		{audit.NoteRegistered, "NoteRegistered", []any{domain.KindApplication, false, uint64(42)},
			[]string{"applicazione registrata (disabilitata), definita dall'evento alla posizione 42"}},
		{audit.NoteNotReached, "NoteNotReached", []any{domain.APIRagioneria}, []string{"API RAGIONERIA"}},
		{audit.NoteNoRightAsked, "NoteNoRightAsked", nil, nil},
		{audit.NoteNoRightOther, "NoteNoRightOther", nil, nil},
		{audit.NoteGrantCovers, "NoteGrantCovers", []any{domain.APIRagioneria}, []string{"API RAGIONERIA"}},
		{audit.NoteGrantNotScope, "NoteGrantNotScope", []any{domain.APIRagioneria}, []string{"API RAGIONERIA"}},
		{audit.NoteGrantMissing, "NoteGrantMissing", []any{domain.APIRagioneria}, []string{"API RAGIONERIA"}},
		{audit.NoteGrantUndecided, "NoteGrantUndecided", []any{unknownType}, []string{"(Il tipo pendenza T9 non è registrato)"}},
		{audit.NoteRoleLacks, "NoteRoleLacks", []any{s, r}, []string{"non dà " + right}},
		{audit.NoteRoleUnreached, "NoteRoleUnreached", []any{s, r, "D9"}, []string{"dà " + right + " ma il dominio D9 "}},
		{audit.NoteRoleCovers, "NoteRoleCovers", []any{s, r, []domain.Place{{IDDominio: "D9", IDTipoPendenza: "T9"}}},
			[]string{"dà " + right + " con il dominio D9 e il tipo pendenza T9 nel suo ambito"}},
		{audit.NoteRoleOutside, "NoteRoleOutside", []any{s, r, []domain.Place{{IDDominio: "D9", IDTipoPendenza: "T9"}},
			domain.Place{IDDominio: "D8", IDUnita: "U8"}},
			[]string{"dà " + right + " con il dominio D9 e il tipo pendenza T9 nel suo ambito ma l'unità operativa U8 del dominio D8 non è nel suo ambito"}},
	}
	for name := range made {
		if !slices.ContainsFunc(cases, func(c noteCase) bool { return c.name == name }) {
			t.Errorf("%s: audit makes texts with it, the test has no case for it", name)
		}
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			if n, ok := made[c.name]; !ok || n != len(c.args) {
				t.Fatalf("%s is made with %d Args (made: %v), the test gives %d", c.name, n, ok, len(c.args))
			}
			w, ok := risposte[c.code]
			if !ok {
				t.Fatalf("risposte has no words for %s", c.code)
			}
			got := w(c.args)
			if got == "" || strings.Contains(got, "%!") {
				t.Fatalf("words = %q", got)
			}
			for _, want := range c.want {
				if !strings.Contains(got, want) {
					t.Errorf("%q does not say %q", got, want)
				}
			}
		})
	}
}
