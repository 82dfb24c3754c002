package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// PATCH of GovPay's Backoffice registries (applicazioni, operatori, ruoli):
// a list of GovPay's patch operations on the resource as GET shows it. The
// patched resource is then written by the PUT handler itself, so a patch
// is decided by the same checks (the service's W, delegation) and becomes
// the same events as the equivalent PUT.

// patchOp is one operation of GovPay's JSON Patch body (PatchOp): op ADD,
// DELETE or REPLACE, a path, a value. On a registry entry ADD appends
// value to a list member (once), DELETE removes value from a list member,
// REPLACE sets a member.
type patchOp struct {
	Op    string         `json:"op" enum:"ADD,DELETE,REPLACE"`
	Path  string         `json:"path"`
	Value jsontext.Value `json:"value,omitempty"`
}

// patchOps are a PATCH body's operations, at most maxPatchOps. No command
// sees the list, so its bound is the HTTP layer's (tooManyPatchOps).
type patchOps = boundedList[patchOp, patchBound]

type patchBound struct{}

func (patchBound) bound() (int, func(int) error) { return maxPatchOps, tooManyPatchOps }

// maxPatchOps bounds the operations of a PATCH: as many as a registry's
// list holds entries.
const maxPatchOps = commands.MaxListEntries

func tooManyPatchOps(int) error {
	return syntaxError(fmt.Sprintf("the patch holds more than %d operations", maxPatchOps))
}

// patchable names the members a PATCH may change: lists take ADD and
// DELETE, every member REPLACE.
type patchable struct {
	lists   []string
	members []string
}

// apply applies ops to doc, the resource as GET shows it, and reports
// which members changed. A member outside p, an unknown op or a value of
// the wrong form is a 400: nothing is written. The list members ADD and
// DELETE change are kept aside with each entry's JSON while the
// operations run (patchedList), so that an operation costs what its list
// holds once, not a copy of it and an encoding of every entry.
func (p patchable) apply(doc map[string]any, ops []patchOp) (map[string]bool, error) {
	if len(ops) == 0 {
		return nil, syntaxError("the patch holds no operation")
	}
	touched := map[string]bool{}
	lists := map[string]*patchedList{}
	for _, op := range ops {
		name, ok := strings.CutPrefix(op.Path, "/")
		if !ok || !slices.Contains(p.members, name) {
			return nil, syntaxError("path " + op.Path + " cannot be patched")
		}
		if op.Op == "REPLACE" && (op.Value.Kind() == '[' || op.Value.Kind() == '{') {
			// A list or an object is kept as written: the PUT decodes it
			// with its own bounds (a 1 MiB list decoded here whole would
			// be some 350,000 values before any bound was checked).
			doc[name] = json.RawMessage(op.Value)
			delete(lists, name)
			touched[name] = true
			continue
		}
		var value any
		if len(op.Value) > 0 {
			if err := json.Unmarshal(op.Value, &value); err != nil {
				return nil, syntaxError("value of " + op.Path + " is not JSON")
			}
		}
		isList := slices.Contains(p.lists, name)
		switch {
		case op.Op == "REPLACE":
			doc[name] = value
			delete(lists, name)
		case (op.Op == "ADD" || op.Op == "DELETE") && isList && value != nil:
			l := lists[name]
			if l == nil {
				old, err := patchedEntries(doc[name])
				if err != nil {
					return nil, err
				}
				l = newPatchedList(old)
				lists[name] = l
			}
			if op.Op == "ADD" {
				l.add(value)
			} else {
				l.remove(value)
			}
			doc[name] = l.entries
		default:
			return nil, syntaxError("op " + op.Op + " on " + op.Path + ": ADD and DELETE take a list member and a value, REPLACE any member")
		}
		touched[name] = true
	}
	return touched, nil
}

// patchedEntries are the entries of a list member as the patch holds it:
// decoded, or a list an earlier REPLACE wrote (decoded now, at most
// commands.MaxDominiEntries entries, the longest list a PUT takes, else
// 400). Anything else is no list, as before.
func patchedEntries(v any) ([]any, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		old, _ := v.([]any)
		return old, nil
	}
	d := jsontext.NewDecoder(bytes.NewReader(raw))
	if d.PeekKind() != '[' {
		return nil, nil
	}
	return decodeAtMost[any](d, commands.MaxDominiEntries, func(int) error {
		return syntaxError(fmt.Sprintf("a patched list holds more than %d entries", commands.MaxDominiEntries))
	})
}

// patchedList is a list member under ADD and DELETE: its entries, each
// one's JSON, and how many entries hold each JSON (an entry is compared
// by its JSON, as the list is written).
type patchedList struct {
	entries []any
	keys    []string
	held    map[string]int
}

func newPatchedList(old []any) *patchedList {
	l := &patchedList{entries: make([]any, 0, len(old)), keys: make([]string, 0, len(old)), held: make(map[string]int, len(old))}
	for _, v := range old {
		l.entries, l.keys = append(l.entries, v), append(l.keys, jsonKey(v))
		l.held[l.keys[len(l.keys)-1]]++
	}
	return l
}

// add appends v unless an entry has its JSON.
func (l *patchedList) add(v any) {
	k := jsonKey(v)
	if l.held[k] > 0 {
		return
	}
	l.entries, l.keys = append(l.entries, v), append(l.keys, k)
	l.held[k] = 1
}

// remove deletes every entry with v's JSON.
func (l *patchedList) remove(v any) {
	k := jsonKey(v)
	if l.held[k] == 0 {
		return
	}
	delete(l.held, k)
	n := 0
	for i, key := range l.keys {
		if key != k {
			l.entries[n], l.keys[n] = l.entries[i], key
			n++
		}
	}
	clear(l.entries[n:])
	l.entries, l.keys = l.entries[:n], l.keys[:n]
}

// jsonKey is v's JSON, what a list's entries are compared by.
func jsonKey(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// patchRegistry answers PATCH of an entry of the Backoffice registry reg:
// operations.PatchRegistry decides (reg's service's W, then the body, then
// the entry as GET renders it: view, 404 when missing), then the patch is
// applied and the PUT handler put on the patched entry. adjust, when not nil, reconciles members a patch made
// disagree. The PUT is written only over the entry's state the patch was
// applied to (its base, see commands.StaleError): when the entry's stream
// holds a later commit this replica had not applied (another replica's
// write, a concurrent request's), the replica waits for it (at most
// --consistency-wait, then 503) and patches the entry again, a few times
// before a 409; a patch never writes back what that commit changed.
func (s *Server) patchRegistry(reg domain.Registry, readID func(*echo.Context) (string, error), view func(string) (patchedEntry, bool),
	p patchable, adjust func(doc map[string]any, touched map[string]bool) error, put echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id, err := readID(c)
		if err != nil {
			return err
		}
		var ops patchOps
		decoded := false
		readBody := func() error {
			if decoded {
				return nil
			}
			decoded = true
			return s.decodeJSON(c, &ops)
		}
		for attempt := 1; ; attempt++ {
			e, err := operations.PatchRegistry(view, callerOf(c).principal, reg, id, readBody, nil)
			if err != nil {
				return err
			}
			c.Set(patchBaseKey, e.base)
			err = patchOnce(c, e.view, ops, p, adjust, put)
			var stale *commands.StaleError
			if !errors.As(err, &stale) || attempt == patchAttempts {
				return err
			}
			if s.waitApplied(c, stale.At) != nil {
				return errConsistencyTimeout
			}
		}
	}
}

// patchAttempts is how many times patchRegistry patches an entry that
// other writers keep changing before it answers 409.
const patchAttempts = 3

// patchBaseKey holds, for the PUT handler a PATCH calls, the position of
// the entry's state the patch was applied to (patchBase).
const patchBaseKey = "payauthz.patchBase"

// patchBase is the base of the PATCH a PUT handler runs for (0 for a PUT
// of its own): the commands write it only over that state.
func patchBase(c *echo.Context) events.Position {
	pos, _ := c.Get(patchBaseKey).(events.Position)
	return pos
}

// patchedEntry is a registry entry as GET renders it, and the position of
// its latest commit.
type patchedEntry struct {
	view any
	base events.Position
}

// patchOnce applies ops to v, the entry as GET renders it, and runs put on
// the patched entry.
func patchOnce(c *echo.Context, v any, ops []patchOp, p patchable, adjust func(doc map[string]any, touched map[string]bool) error, put echo.HandlerFunc) error {
	var doc map[string]any
	b, _ := json.Marshal(v)
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	touched, err := p.apply(doc, ops)
	if err != nil {
		return err
	}
	if adjust != nil {
		if err := adjust(doc, touched); err != nil {
			return err
		}
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	r := c.Request()
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	r.Header.Set("Content-Type", "application/json")
	return put(c)
}

// registryView adapts a registry lookup to patchRegistry's view: the
// entry rendered, and base, its latest commit.
func registryView[T, V any](find func(string) (T, bool), render func(T) V, base func(T) events.Position) func(string) (patchedEntry, bool) {
	return func(id string) (patchedEntry, bool) {
		v, ok := find(id)
		if !ok {
			return patchedEntry{}, false
		}
		return patchedEntry{view: render(v), base: base(v)}, true
	}
}

// applicationScope keeps GovPay's one scope per application: a patch of
// domini or tipiPendenza re-grants every API the application holds with
// the patched scope (GovPay's shape), which only an application whose
// APIs share one scope has.
func applicationScope(doc map[string]any, touched map[string]bool) error {
	if !touched["domini"] && !touched["tipiPendenza"] {
		return nil
	}
	if doc["domini"] == nil && !touched["domini"] || doc["tipiPendenza"] == nil && !touched["tipiPendenza"] {
		return syntaxError("the application holds a different scope per API: patch autorizzazioniApi instead")
	}
	delete(doc, "autorizzazioniApi")
	return nil
}

var (
	patchApplicazione = patchable{lists: []string{"ruoli", "acl", "domini", "tipiPendenza"},
		members: []string{"ruoli", "acl", "domini", "tipiPendenza", "abilitato", "principal", "apiPagamenti", "apiPendenze",
			"apiRagioneria", "autorizzazioniApi", "codificaAvvisi", "servizioIntegrazione", "password", "apiKey"}}
	patchOperatore = patchable{lists: []string{"ruoli", "acl", "domini", "tipiPendenza"},
		members: []string{"ruoli", "acl", "domini", "tipiPendenza", "abilitato", "ragioneSociale", "password", "apiKey"}}
	patchRuolo = patchable{lists: []string{"acl", "domini", "tipiPendenza"}, members: []string{"acl", "domini", "tipiPendenza"}}
)

func (s *Server) patchApplicazione(c *echo.Context) error {
	return s.patchRegistry(domain.RegistryApplicazioni, idParam("idA2A", commands.ValidID),
		registryView(s.model.Application, toApplicazione,
			func(a *projections.Application) events.Position { return a.Position }), patchApplicazione, applicationScope, s.putApplicazione)(c)
}

func (s *Server) patchOperatore(c *echo.Context) error {
	return s.patchRegistry(domain.RegistryOperatori, principalParam,
		registryView(s.model.Operator, toOperatore,
			func(o *projections.Operator) events.Position { return o.Position }), patchOperatore, nil, s.putOperatore)(c)
}

func (s *Server) patchRuolo(c *echo.Context) error {
	return s.patchRegistry(domain.RegistryRuoli, idParam("idRuolo", commands.ValidID),
		registryView(s.model.Role, toRuolo,
			func(r *projections.RoleRecord) events.Position { return r.Position }), patchRuolo, nil, s.putRuolo)(c)
}
