package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/audit"
)

// dropDerived removes from a resource of kind the fields of a GET that
// restate others, so that export leaves them out and a PUT built from the
// GET does not send them twice: an intermediary's principalPagoPa
// (GovPay's name) restates connettoreNodo.principal; a role's GovPay id
// restates its idRuolo;
// an application's GovPay flags restate its autorizzazioniApi, and so do
// its domini and tipiPendenza, unless it has an acl: they are then its
// personal role's scope too, which nothing else carries. An operator's
// domini and tipiPendenza without an acl ([], GovPay's required members)
// are the scope of no personal role.
func dropDerived(kind string, item map[string]any) {
	switch kind {
	case "intermediari":
		delete(item, "principalPagoPa")
		return
	case "ruoli":
		delete(item, "id")
		return
	case "applicazioni":
		for _, f := range govpayFlags {
			delete(item, f)
		}
	case "operatori":
	default:
		return
	}
	if _, personal := item["acl"]; !personal {
		delete(item, "domini")
		delete(item, "tipiPendenza")
	}
}

// connectorNamed is want with, for an intermediary that gives its node
// principal under GovPay's name (principalPagoPa) and a connettoreNodo
// without one (its password only), that principal in connettoreNodo too,
// as the service reads such a body: so that connettoreNodo compares with
// the deployment's, and its password, the principal's, is sent again only
// when the principal changes. want itself is not changed.
func connectorNamed(k resourceKind, want map[string]any) map[string]any {
	p, given := want["principalPagoPa"].(string)
	conn, ok := want["connettoreNodo"].(map[string]any)
	if _, has := conn["principal"]; k.name != "intermediari" || !given || !ok || has {
		return want
	}
	named := maps.Clone(conn)
	named["principal"] = p
	out := maps.Clone(want)
	out["connettoreNodo"] = named
	return out
}

// govpayFlags are an application's GovPay grant fields: each true one
// grants its API on the scope domini × tipiPendenza, when the body has no
// autorizzazioniApi.
var govpayFlags = []string{"apiPagamenti", "apiPendenze", "apiRagioneria"}

// configuration is the declarative configuration of a deployment: for
// each kind, its resources as the Backoffice API reads and writes them.
type configuration map[string][]map[string]any

func adminExportCmd(f *adminFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "export",
		Short: "Print the deployment's configuration as YAML (secrets omitted), for admin apply",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			conf := configuration{}
			for _, k := range resourceKinds {
				items, err := c.list(cmd.Context(), k.name)
				if err != nil {
					return err
				}
				for i, it := range items {
					it = withoutSecrets(k, it)
					dropDerived(k.name, it)
					items[i] = it
				}
				sort.Slice(items, func(i, j int) bool { return fmt.Sprint(items[i][k.idField]) < fmt.Sprint(items[j][k.idField]) })
				conf[k.name] = items
			}
			doc := map[string]any{}
			for k, v := range conf {
				doc[k] = v
			}
			var prot map[string]any // GET never returns the captcha secret
			if _, err := c.do(cmd.Context(), http.MethodGet, protectionPath, nil, &prot); err != nil {
				return err
			}
			doc[protectionKey] = prot
			b, err := yaml.Marshal(doc)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
}

// normalise turns v into what encoding/json would decode it to, so values
// read from YAML and from JSON compare equal.
func normalise(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// setFields are the lists of a resource the service holds as sets: a
// scope (domini, tipiPendenza, an entity's unitaOperative), an acl and its
// rights, an application's grants. It answers them in its own order (ids
// sorted, an acl in its services', grants in its APIs') and with a grant's
// api upper-cased, so the order a file lists them in changes nothing and is
// no change to plan. A field's value says whether the service drops a
// duplicate (a scope's id, a right): an acl that names a servizio twice, or
// grants that name an api twice, it refuses (400), so their duplicates are
// kept, planned and sent, and the refusal reported. (An operator's or an
// application's ruoli are kept in the order given: a list.)
var setFields = map[string]bool{"domini": true, "tipiPendenza": true, "unitaOperative": true,
	"acl": false, "autorizzazioni": true, "autorizzazioniApi": false}

// canonical is the normalised value v of the field name as the service
// holds it: the lists of setFields sorted, at any depth, without the
// duplicates the service drops, and a grant's api upper-cased.
func canonical(name string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = canonical(k, e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = canonical("", e)
		}
		dedup, set := setFields[name]
		if !set {
			return out
		}
		key := func(e any) string { b, _ := json.Marshal(e); return string(b) }
		slices.SortFunc(out, func(a, b any) int { return strings.Compare(key(a), key(b)) })
		if !dedup {
			return out
		}
		return slices.CompactFunc(out, func(a, b any) bool { return key(a) == key(b) })
	case string:
		if name == "api" {
			return strings.ToUpper(x)
		}
	}
	return v
}

// changedFields are the fields of want that cur does not hold with the
// same value (secrets are write-only and never compared; sets are compared
// as sets, see setFields).
func changedFields(k resourceKind, want, cur map[string]any) []string {
	var out []string
	for field, v := range withoutSecrets(k, want) {
		if !reflect.DeepEqual(canonical(field, normalise(v)), canonical(field, normalise(cur[field]))) {
			out = append(out, field)
		}
	}
	sort.Strings(out)
	return out
}

func adminApplyCmd(f *adminFlags) *cobra.Command {
	var file string
	var dryRun, prune bool
	cmd := &cobra.Command{
		Use:   "apply -f payauthz.yaml [--dry-run] [--prune]",
		Short: "Make the deployment hold the configuration in a file: show the changes, then write them in dependency order",
		Long: `apply reads a configuration (the YAML admin export prints), compares each resource with the
deployment's, prints the plan (+ create, ~ update with the fields that change) and, unless
--dry-run, writes the changes in dependency order: intermediari, domini, tipiPendenza, ruoli,
operatori, applicazioni, then the public API protection (protezione: {abilitato, captcha}; its
captcha.secretKey is sent with the settings when they change, and never exported). A resource that already matches is not written, so applying the same
file twice writes no event (a scope, an acl or the grants are compared as sets, in any
order). A field the file does not name keeps its value (an update sends it as the
deployment holds it), so what is written is what the plan shows; an intermediary's principalPagoPa
(GovPay's name of connettoreNodo.principal, which export leaves out) replaces its connettoreNodo
(a connettoreNodo next to it that gives only a password is that principal's). Nothing is deleted or disabled unless --prune: then every
intermediary, entity, type, operator and application of a kind the file lists but that the
file does not name is disabled (abilitato: false; the Backoffice API deletes nothing), never the
principal apply runs as (it would lock itself out), and a role the file does not name is reported
(roles cannot be disabled). Secrets are write-only
(passwords, API keys, the node connector's password, the entities' and applications' connectors
to their services): the service never shows them, so apply never compares them. Given in the file,
they are sent when the resource is created, and again only when the principal they belong to is
renamed (the service drops them then). Every failure is reported with its resource and the service's answer;
the others are still applied; the exit code is then 1. A 401 (the credentials refused)
or no answer at all (the URL, TLS, a timeout) stops apply at the resource it came for: nothing after it is sent. A file that is not such a configuration
(one YAML document: a second one, after ---, is refused, never skipped), names an unknown kind
(a kind's name may be spelt in any case), or holds a resource without its id, with
an id YAML reads as a number (quote "01234567890": unquoted, its leading zero is lost) or with the
id of another resource of its kind is refused before anything is sent (exit 2).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return usageErrorf("-f is required")
			}
			b, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			conf, prot, err := parseConfiguration(b)
			if err != nil {
				return usageErrorf("%s: %w", file, err)
			}
			if conf, err = byKind(conf); err != nil {
				return usageErrorf("%s: %w", file, err)
			}
			if err := checkIDs(conf); err != nil {
				return usageErrorf("%s: %w", file, err)
			}
			c, err := f.client()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			// Every failure is one of the changes: one that fails before
			// it is planned (no answer to its read) counts as one.
			var failures []string
			changes, same := 0, 0
			// stopped is the resource at which the service stopped
			// answering the caller (see stopsApply): nothing after it is
			// sent, prune and the protection included.
			stopped := ""
			baseChecked := false
		resources:
			for _, k := range resourceKinds {
				for i, want := range conf[k.name] {
					id := want[k.idField].(string) // checkIDs
					want = connectorNamed(k, want)
					where := fmt.Sprintf("%s[%d]", k.name, i)
					path := "/" + k.name + "/" + url.PathEscape(id)
					var cur map[string]any
					_, err := c.do(cmd.Context(), http.MethodGet, path, nil, &cur)
					var ae *apiError
					switch {
					case errors.As(err, &ae) && ae.Status == http.StatusNotFound:
						if !baseChecked {
							baseChecked = true
							if err := checkBackofficeBase(cmd.Context(), c); err != nil {
								failures = append(failures, fmt.Sprintf("%s %s/%s: %v", where, k.name, id, err))
								changes++
								stopped = fmt.Sprintf("%s %s/%s", where, k.name, id)
								break resources
							}
						}
						fmt.Fprintf(out, "+ %s/%s\n", k.name, id)
					case err != nil:
						failures = append(failures, fmt.Sprintf("%s %s/%s: %v", where, k.name, id, err))
						changes++
						if stopsApply(err) {
							stopped = fmt.Sprintf("%s %s/%s", where, k.name, id)
							break resources
						}
						continue
					default:
						diff := changedFields(k, want, cur)
						if len(diff) == 0 {
							same++
							continue
						}
						fmt.Fprintf(out, "~ %s/%s: %s\n", k.name, id, strings.Join(diff, ", "))
						want = updateBody(k, want, cur)
					}
					changes++
					if dryRun {
						continue
					}
					if _, err := c.do(cmd.Context(), http.MethodPut, path, want, nil); err != nil {
						failures = append(failures, fmt.Sprintf("%s %s/%s: %v", where, k.name, id, err))
						if stopsApply(err) {
							stopped = fmt.Sprintf("%s %s/%s", where, k.name, id)
							break resources
						}
					}
				}
			}
			if prune && stopped == "" {
				n, failed, at := pruneMissing(cmd, c, conf, dryRun)
				changes += n
				failures = append(failures, failed...)
				stopped = at
			}
			if prot != nil && stopped == "" {
				changed, err := applyProtection(cmd, c, prot, dryRun)
				switch {
				case err != nil:
					failures = append(failures, fmt.Sprintf("%s: %v", protectionKey, err))
					changes++
					if stopsApply(err) {
						stopped = protectionKey
					}
				case changed:
					changes++
				default:
					same++
				}
			}
			verb := "applied"
			if dryRun {
				verb = "would apply"
			}
			fmt.Fprintf(out, "%s %d changes, %d unchanged, %d failed\n", verb, changes-len(failures), same, len(failures))
			if len(failures) > 0 {
				for _, f := range failures {
					fmt.Fprintln(cmd.ErrOrStderr(), "failed:", f)
				}
				if stopped != "" {
					return fmt.Errorf("%d of %d changes failed; apply stopped at %s: the service refused the credentials, did not answer or is not at the context's URL, and nothing after it was sent",
						len(failures), changes, stopped)
				}
				return fmt.Errorf("%d of %d changes failed", len(failures), changes)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "configuration file (YAML, as admin export prints)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan, write nothing")
	cmd.Flags().BoolVar(&prune, "prune", false, "disable the resources of the kinds the file lists that it does not name")
	return cmd
}

// checkBackofficeBase tells a context whose URL is no Backoffice base (a
// wrong version or auth segment) from a resource that is not there yet:
// both are 404 with the same FaultBean, so a wrong base planned every
// resource as a create, and a dry run promised changes the first write
// would fail. Every Backoffice answers GET /profilo to its caller; a 404
// there means the base is wrong.
func checkBackofficeBase(ctx context.Context, c *adminClient) error {
	var ae *apiError
	if _, err := c.do(ctx, http.MethodGet, "/profilo", nil, nil); errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return fmt.Errorf("%s is not a Backoffice API base (GET /profilo answered 404); want .../backoffice/rs/{basic,ssl,spid}/v1", c.base)
	}
	return nil
}

// stopsApply reports whether err is no resource's failure but the
// service's refusal of the caller (401) or no answer at all (the URL, TLS,
// a timeout): every later request would fail the same way, each 401 one
// more failed login for the service's throttle (which then locks the
// principal out from this address) and each timeout 30 s more, so apply
// stops at the resource that met it.
func stopsApply(err error) bool {
	var ae *apiError
	var ue *url.Error
	return errors.As(err, &ae) && ae.Status == http.StatusUnauthorized || errors.As(err, &ue)
}

// pruneMissing disables (abilitato: false), in reverse dependency order,
// every resource of a kind conf lists that conf does not name and that is
// still enabled; it returns how many it (would) change and the failures,
// each failure counted among the changes, and where it stopped, if it did
// (stopsApply).
// Roles have no abilitato: one the file does not name is only reported.
// The principal apply runs as is never disabled (it would lock itself out).
func pruneMissing(cmd *cobra.Command, c *adminClient, conf configuration, dryRun bool) (int, []string, string) {
	out := cmd.OutOrStdout()
	changes := 0
	var failures []string
	var self struct {
		Principal string `json:"principal"`
	}
	if _, err := c.do(cmd.Context(), http.MethodGet, "/profilo", nil, &self); err != nil {
		at := ""
		if stopsApply(err) {
			at = "prune"
		}
		return 1, []string{fmt.Sprintf("prune: who am I: %v", err)}, at
	}
	for i := len(resourceKinds) - 1; i >= 0; i-- {
		k := resourceKinds[i]
		wanted, listed := conf[k.name]
		if !listed {
			continue
		}
		named := map[string]bool{}
		for _, w := range wanted {
			if id, ok := w[k.idField].(string); ok {
				named[id] = true
			}
		}
		current, err := c.list(cmd.Context(), k.name)
		if err != nil {
			failures = append(failures, fmt.Sprintf("prune %s: %v", k.name, err))
			changes++
			if stopsApply(err) {
				return changes, failures, "prune " + k.name
			}
			continue
		}
		for _, cur := range current {
			id, _ := cur[k.idField].(string)
			if id == "" || named[id] {
				continue
			}
			if p, _ := cur["principal"].(string); p != "" && p == self.Principal {
				fmt.Fprintf(out, "! %s/%s is not in the file; it is the principal apply runs as, so it stays enabled\n", k.name, id)
				continue
			}
			enabled, has := cur["abilitato"].(bool)
			if !has {
				fmt.Fprintf(out, "! %s/%s is not in the file; it cannot be disabled (the API deletes nothing)\n", k.name, id)
				continue
			}
			if !enabled {
				continue
			}
			fmt.Fprintf(out, "- %s/%s (abilitato: false)\n", k.name, id)
			changes++
			if dryRun {
				continue
			}
			body := withoutSecrets(k, cur)
			dropDerived(k.name, body)
			body["abilitato"] = false
			if _, err := c.do(cmd.Context(), http.MethodPut, "/"+k.name+"/"+url.PathEscape(id), body, nil); err != nil {
				failures = append(failures, fmt.Sprintf("prune %s/%s: %v", k.name, id, err))
				if stopsApply(err) {
					return changes, failures, fmt.Sprintf("prune %s/%s", k.name, id)
				}
			}
		}
	}
	return changes, failures, ""
}

// The public API protection (PUT/GET /configurazioni/hardening) is one
// object of the configuration, under protectionKey, not a list of
// resources. Its captcha.secretKey is write-only: export never holds it;
// apply sends the file's secretKey with the settings when they change.
const (
	protectionKey  = "protezione"
	protectionPath = "/configurazioni/hardening"
)

// parseConfiguration reads a configuration file: the resource kinds and,
// when present, the protection object. A file is one YAML document: a
// second one (after ---) is an error, never skipped.
func parseConfiguration(b []byte) (configuration, map[string]any, error) {
	var raw map[string]any
	d := yaml.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&raw); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	for {
		var doc yaml.Node
		err := d.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if len(doc.Content) > 0 && doc.Content[0].Tag != "!!null" { // a --- with nothing after it is no document
			return nil, nil, fmt.Errorf("holds more than one YAML document (the second at line %d): apply takes one configuration; merge them", doc.Content[0].Line)
		}
	}
	var prot map[string]any
	if v, ok := raw[protectionKey]; ok {
		if prot, ok = v.(map[string]any); !ok {
			return nil, nil, fmt.Errorf("%s must be an object {abilitato, captcha: {...}}", protectionKey)
		}
		// apply compares a captcha field by field: one that is not an
		// object has none, and would pass as unchanged.
		if c, named := prot["captcha"]; named {
			if _, ok := c.(map[string]any); !ok {
				return nil, nil, fmt.Errorf("%s.captcha must be an object {serverURL, secretKey, soglia, parametro, denyOnFail, timeoutMs}", protectionKey)
			}
		}
		delete(raw, protectionKey)
	}
	rest, err := yaml.Marshal(raw)
	if err != nil {
		return nil, nil, err
	}
	var conf configuration
	if err := yaml.Unmarshal(rest, &conf); err != nil {
		return nil, nil, err
	}
	return conf, prot, nil
}

// byKind files the resources of conf under their kinds' names, which a
// file may spell in any case (as get and list take them), so that apply,
// which reads conf by those names, skips none; an unknown kind is an
// error.
func byKind(conf configuration) (configuration, error) {
	out := configuration{}
	for _, name := range slices.Sorted(maps.Keys(conf)) {
		k, err := kindOf(name)
		if err != nil {
			return nil, err
		}
		out[k.name] = append(out[k.name], conf[name]...) // listed even when empty: --prune
	}
	return out, nil
}

// checkIDs refuses a file in which a resource has no id, an id that is
// not a string (an unquoted 01234567890 is a YAML number, its leading
// zero lost), or the id of another resource of its kind (which of the two
// would the deployment hold?). It runs before anything is applied, so a
// bad file changes nothing.
func checkIDs(conf configuration) error {
	var bad []string
	for _, k := range resourceKinds {
		first := map[string]int{}
		for i, want := range conf[k.name] {
			switch v := want[k.idField].(type) {
			case string:
				if v == "" {
					bad = append(bad, fmt.Sprintf("%s[%d]: %s is empty", k.name, i, k.idField))
				} else if j, seen := first[v]; seen {
					bad = append(bad, fmt.Sprintf("%s[%d]: %s %s is also %s[%d]'s", k.name, i, k.idField, v, k.name, j))
				} else {
					first[v] = i
				}
			case nil:
				bad = append(bad, fmt.Sprintf("%s[%d]: %s is missing", k.name, i, k.idField))
			default:
				bad = append(bad, fmt.Sprintf("%s[%d]: %s must be a string: quote it (%v is read as a YAML %T)", k.name, i, k.idField, v, v))
			}
		}
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// protectionChanges are the fields of the wanted protection that the
// deployment does not hold with the same value (the secret is never
// compared: GET does not return it).
func protectionChanges(want, cur map[string]any) []string {
	var out []string
	for field, v := range want {
		if field != "captcha" {
			if !reflect.DeepEqual(normalise(v), normalise(cur[field])) {
				out = append(out, field)
			}
			continue
		}
		wc, _ := normalise(v).(map[string]any)
		cc, _ := normalise(cur[field]).(map[string]any)
		for cf, cv := range wc {
			if cf != "secretKey" && !reflect.DeepEqual(cv, cc[cf]) {
				out = append(out, "captcha."+cf)
			}
		}
	}
	sort.Strings(out)
	return out
}

// applyProtection plans and, unless dryRun, writes the protection setting;
// it reports whether it differed.
func applyProtection(cmd *cobra.Command, c *adminClient, want map[string]any, dryRun bool) (bool, error) {
	var cur map[string]any
	if _, err := c.do(cmd.Context(), http.MethodGet, protectionPath, nil, &cur); err != nil {
		return false, err
	}
	diff := protectionChanges(want, cur)
	if len(diff) == 0 {
		return false, nil
	}
	fmt.Fprintf(cmd.OutOrStdout(), "~ %s: %s\n", protectionKey, strings.Join(diff, ", "))
	if dryRun {
		return true, nil
	}
	_, err := c.do(cmd.Context(), http.MethodPut, protectionPath, protectionBody(want, cur), nil)
	return true, err
}

// protectionBody is the body that sets the protection cur to want: a
// captcha setting want does not name goes with its current value (the
// service resets an absent one to its default: a soglia to 0, which
// passes every score), so apply writes the settings its plan shows and no
// other. Without captcha in want, the service keeps its own.
func protectionBody(want, cur map[string]any) map[string]any {
	wc, named := normalise(want["captcha"]).(map[string]any)
	cc, _ := cur["captcha"].(map[string]any)
	if !named || cc == nil {
		return want
	}
	captcha := maps.Clone(cc)
	maps.Copy(captcha, wc)
	body := maps.Clone(want)
	body["captcha"] = captcha
	return body
}

// withoutSecrets returns m less every secret of k, in a new map (m and
// the maps it holds are not changed).
func withoutSecrets(k resourceKind, m map[string]any) map[string]any {
	return dropSecrets(k, m, func(secret) bool { return true })
}

// updateBody is the body that updates the resource cur to want. A PUT
// replaces a resource whole, so a field want does not name goes with its
// current value (less what GET derives, see dropDerived), and apply writes
// the fields its plan shows and no other: a file that leaves out an
// operator's ruoli does not take them away. An application's grants in
// GovPay's shape (an api* flag) replace its current autorizzazioniApi, and
// an intermediary's principal under GovPay's name (principalPagoPa) its
// current connettoreNodo. A secret is sent when its resource is created, and again only when the
// principal it belongs to changes (the service drops it then); otherwise
// it is left out, and the service keeps the one it holds. So applying a
// file twice writes nothing, and a renamed principal keeps its password.
func updateBody(k resourceKind, want, cur map[string]any) map[string]any {
	body := withoutSecrets(k, cur)
	dropDerived(k.name, body)
	if k.name == "applicazioni" && slices.ContainsFunc(govpayFlags, func(f string) bool { _, ok := want[f]; return ok }) {
		delete(body, "autorizzazioniApi")
	}
	if _, ok := want["principalPagoPa"]; ok && k.name == "intermediari" {
		delete(body, "connettoreNodo") // the file's principal, under GovPay's name, is the one sent
	}
	maps.Copy(body, dropSecrets(k, want, func(s secret) bool {
		return s.owner == "" || reflect.DeepEqual(normalise(field(want, s.owner)), normalise(field(cur, s.owner)))
	}))
	return body
}

// dropSecrets returns m less the secrets of k that drop reports, in a new
// map (m and the maps it holds are not changed).
func dropSecrets(k resourceKind, m map[string]any, drop func(secret) bool) map[string]any {
	out := maps.Clone(m)
	for _, s := range k.secrets {
		if drop(s) {
			out = withoutField(out, strings.Split(s.path, "."))
		}
	}
	return out
}

// field is the value at the dotted path in m (nil when absent).
func field(m map[string]any, path string) any {
	var v any = m
	for _, name := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[name]
	}
	return v
}

// withoutField returns m less the field at path, copying the maps on the
// way to it; m itself when it has no such field.
func withoutField(m map[string]any, path []string) map[string]any {
	v, ok := m[path[0]]
	if !ok {
		return m
	}
	out := maps.Clone(m)
	if len(path) == 1 {
		delete(out, path[0])
		return out
	}
	if inner, ok := v.(map[string]any); ok {
		out[path[0]] = withoutField(inner, path[1:])
	}
	return out
}

// adminGrantCmd is admin grant (set an application's scope on one API) or
// admin revoke (remove it).
func adminGrantCmd(f *adminFlags, grant bool) *cobra.Command {
	var api string
	var domini, tipi []string
	use, short := "grant IDA2A --api API --domini D1,D2|* --tipi T1|*", "Set an application's scope on one API"
	if !grant {
		use, short = "revoke IDA2A --api API", "Remove an application's authorization on one API"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			api = strings.ToUpper(api)
			if a, err := domain.ParseAPI(api); err != nil || !a.Grantable() {
				return usageErrorf("--api %q: want PENDENZE, PAGAMENTO or RAGIONERIA", api)
			}
			if grant && (len(domini) == 0 || len(tipi) == 0) {
				return usageErrorf("--domini and --tipi are required (use * for all)")
			}
			c, err := f.client()
			if err != nil {
				return err
			}
			path := "/applicazioni/" + url.PathEscape(args[0])
			var app map[string]any
			if _, err := c.do(cmd.Context(), http.MethodGet, path, nil, &app); err != nil {
				return argumentsRefused(err)
			}
			dropDerived("applicazioni", app)
			var grants []any
			if l, ok := app["autorizzazioniApi"].([]any); ok {
				for _, g := range l {
					if m, ok := g.(map[string]any); ok && m["api"] != api {
						grants = append(grants, g)
					}
				}
			}
			if grant {
				grants = append(grants, map[string]any{"api": api, "domini": domini, "tipiPendenza": tipi})
			}
			if grants == nil {
				grants = []any{}
			}
			app["autorizzazioniApi"] = grants
			if _, err := c.do(cmd.Context(), http.MethodPut, path, app, nil); err != nil {
				return argumentsRefused(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s on %s\n", map[bool]string{true: "granted", false: "revoked"}[grant], args[0], api)
			return nil
		},
	}
	cmd.Flags().StringVar(&api, "api", "", "PENDENZE, PAGAMENTO or RAGIONERIA")
	if grant {
		cmd.Flags().StringSliceVar(&domini, "domini", nil, "idDominio list, or *")
		cmd.Flags().StringSliceVar(&tipi, "tipi", nil, "idTipoPendenza list, or *")
	}
	return cmd
}

// verifica is the body of POST /autorizzazioni/verifica: the question
// with its resource, whose fields are the body's own.
type verifica struct {
	Principal  string `json:"principal,omitempty"`
	Auth       string `json:"auth,omitempty"`
	API        string `json:"api"`
	Operazione string `json:"operazione"`
	audit.Resource
}

func adminCheckCmd(f *adminFlags) *cobra.Command {
	var q verifica
	cmd := &cobra.Command{
		Use:   "check --principal P --api A --operation O [resource flags]",
		Short: "Explain the decision the live service would give: exit 0 allowed, 3 denied, 2 a question it refuses",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if q.API == "" || q.Operazione == "" {
				return usageErrorf("--api and --operation are required")
			}
			c, err := f.client()
			if err != nil {
				return err
			}
			var x map[string]any
			if _, err := c.do(cmd.Context(), http.MethodPost, "/autorizzazioni/verifica", q, &x); err != nil {
				return argumentsRefused(err)
			}
			if f.output == "json" {
				if err := writeJSON(cmd.OutOrStdout(), x); err != nil {
					return err
				}
			} else {
				line := fmt.Sprintf("%s (rule %v)", strings.ToUpper(fmt.Sprint(x["esito"])), x["regola"])
				if d, _ := x["dettaglio"].(string); d != "" {
					line += " " + d
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s\nrests on log position %v\n", line, x["posizione"])
			}
			if x["esito"] != audit.OutcomeAllow {
				return errDenied
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&q.Principal, "principal", "", "principal to check")
	fs.StringVar(&q.Auth, "auth", "", domain.AuthTypeList())
	fs.StringVar(&q.API, "api", "", "BACKOFFICE, PENDENZE, PAGAMENTO or RAGIONERIA")
	fs.StringVar(&q.Operazione, "operation", "", "operation (payauthz audit operations)")
	bindResource(fs, &q.Resource)
	return cmd
}
