package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// adminContext is a saved connection to one deployment's Backoffice API.
// Secrets are never stored: a password comes from a file or an
// environment variable named here.
type adminContext struct {
	URL          string `yaml:"url"`                    // e.g. http://localhost:8080/backoffice/rs/basic/v1
	User         string `yaml:"user,omitempty"`         // basic
	PasswordFile string `yaml:"passwordFile,omitempty"` // basic: file holding the password
	PasswordEnv  string `yaml:"passwordEnv,omitempty"`  // basic: variable holding the password
	Cert         string `yaml:"cert,omitempty"`         // ssl: client certificate (PEM)
	Key          string `yaml:"key,omitempty"`          // ssl: its key (PEM)
	CA           string `yaml:"ca,omitempty"`           // server CA bundle (PEM)
	SPIDCode     string `yaml:"spidFiscalCode,omitempty"`
}

type adminConfigFile struct {
	Current  string                   `yaml:"current"`
	Contexts map[string]*adminContext `yaml:"contexts"`
}

type adminFlags struct {
	config, context, output string
}

func defaultAdminConfig() string {
	if v := os.Getenv("PAYAUTHZ_ADMIN_CONFIG"); v != "" {
		return v
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "payauthz-admin.yaml"
	}
	return filepath.Join(dir, "payauthz", "admin.yaml")
}

func (f *adminFlags) load() (*adminConfigFile, error) {
	cf := &adminConfigFile{Contexts: map[string]*adminContext{}}
	b, err := os.ReadFile(f.config)
	if errors.Is(err, os.ErrNotExist) {
		return cf, nil
	}
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(b, cf); err != nil {
		return nil, fmt.Errorf("%s: %w", f.config, err)
	}
	if cf.Contexts == nil {
		cf.Contexts = map[string]*adminContext{}
	}
	return cf, nil
}

func (f *adminFlags) save(cf *adminConfigFile) error {
	b, err := yaml.Marshal(cf)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.config), 0o700); err != nil {
		return err
	}
	// os.WriteFile keeps the mode of a file that is there: one made
	// before (by hand, or copied) is made the owner's first.
	if err := os.Chmod(f.config, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(f.config, b, 0o600)
}

// client returns a Backoffice API client for the selected context.
func (f *adminFlags) client() (*adminClient, error) {
	cf, err := f.load()
	if err != nil {
		return nil, err
	}
	name := f.context
	if name == "" {
		name = cf.Current
	}
	ctx, ok := cf.Contexts[name]
	if !ok {
		return nil, usageErrorf("no admin context %q (payauthz admin context set NAME --url …)", name)
	}
	c := &adminClient{base: strings.TrimRight(ctx.URL, "/"), user: ctx.User, spid: ctx.SPIDCode}
	// An empty password is never sent: each request would be a failed
	// login, answered 401 and counted by the service's throttle.
	switch {
	case ctx.PasswordFile != "":
		b, err := os.ReadFile(ctx.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("password file: %w", err)
		}
		if c.password = strings.TrimRight(string(b), "\r\n"); c.password == "" {
			return nil, fmt.Errorf("password file %s is empty", ctx.PasswordFile)
		}
	case ctx.PasswordEnv != "":
		if c.password = os.Getenv(ctx.PasswordEnv); c.password == "" {
			return nil, fmt.Errorf("variable %s (--password-env) is not set or empty", ctx.PasswordEnv)
		}
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if ctx.CA != "" {
		pem, err := os.ReadFile(ctx.CA)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = x509.NewCertPool()
		tc.RootCAs.AppendCertsFromPEM(pem)
	}
	if ctx.Cert != "" {
		cert, err := tls.LoadX509KeyPair(ctx.Cert, ctx.Key)
		if err != nil {
			return nil, fmt.Errorf("client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	c.http = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
	return c, nil
}

// adminClient speaks to one Backoffice API mount.
type adminClient struct {
	base, user, password, spid string
	http                       *http.Client
}

// apiError is a non-2xx answer: the status and the FaultBean.
type apiError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, strings.TrimSpace(e.Body))
}

// argumentsRefused makes the service's 400 to a request built from the
// command line alone (get's id, check's question, grant's scope) a usage
// error, exit 2, as audit explain's answer to the same question is: the
// service's check of those values is the one check, the CLI repeats none.
// apply's 400s stay failures (the file's resources, each counted).
func argumentsRefused(err error) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusBadRequest {
		return &exitError{code: exitUsage, err: err}
	}
	return err
}

func (c *adminClient) do(ctx context.Context, method, path string, body any, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.user != "" {
		req.SetBasicAuth(c.user, c.password)
	}
	if c.spid != "" {
		req.Header.Set("X-SPID-FISCALNUMBER", c.spid)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return res.StatusCode, err
	}
	if res.StatusCode/100 != 2 {
		return res.StatusCode, &apiError{Method: method, Path: path, Status: res.StatusCode, Body: string(b)}
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return res.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return res.StatusCode, nil
}

// list reads every page of a Backoffice list.
func (c *adminClient) list(ctx context.Context, kind string) ([]map[string]any, error) {
	var all []map[string]any
	for page := 1; ; page++ {
		var p struct {
			NumPagine int              `json:"numPagine"`
			Risultati []map[string]any `json:"risultati"`
		}
		if _, err := c.do(ctx, http.MethodGet, fmt.Sprintf("/%s?risultatiPerPagina=200&pagina=%d", kind, page), nil, &p); err != nil {
			return nil, err
		}
		all = append(all, p.Risultati...)
		if page >= p.NumPagine {
			return all, nil
		}
	}
}

// resourceKind is one kind of Backoffice resource the admin CLI manages, in
// dependency order (an entity names its intermediary, an operator its
// roles, …).
type resourceKind struct {
	name, idField string
	secrets       []secret // write-only fields
}

// secret is a write-only field of a resource: the service takes it and
// never returns it (a password, an API key, a connector's credentials),
// so export never holds it and apply can never compare it.
type secret struct {
	path string // the field; dotted for a nested one
	// owner is the field naming the principal the secret belongs to, if
	// any: the service drops the secret when that principal changes (a
	// password never follows its principal to a new name).
	owner string
}

var resourceKinds = []resourceKind{
	{name: "intermediari", idField: "idIntermediario",
		secrets: []secret{{path: "connettoreNodo.password", owner: "connettoreNodo.principal"}}},
	{name: "domini", idField: "idDominio",
		secrets: []secret{{path: "servizioMyPivot"}, {path: "servizioSecim"}, {path: "servizioGovPay"}}},
	{name: "tipiPendenza", idField: "idTipoPendenza"},
	{name: "ruoli", idField: "idRuolo"},
	{name: "operatori", idField: "principal", secrets: []secret{{path: "password"}, {path: "apiKey"}}},
	{name: "applicazioni", idField: "idA2A",
		secrets: []secret{{path: "password", owner: "principal"}, {path: "apiKey"}, {path: "servizioIntegrazione"}}},
}

func kindOf(name string) (resourceKind, error) {
	for _, k := range resourceKinds {
		if strings.EqualFold(k.name, name) {
			return k, nil
		}
	}
	return resourceKind{}, usageErrorf("unknown kind %q: want one of %s", name, kindNames())
}

// kindNames lists the kinds admin reads, for errors and help.
func kindNames() string {
	var names []string
	for _, k := range resourceKinds {
		names = append(names, k.name)
	}
	return strings.Join(names, ", ")
}

func adminCmd() *cobra.Command {
	f := &adminFlags{}
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "Administer a deployment through its Backoffice API: contexts, get/list, export/apply, grant/revoke, check",
	}
	cmd.PersistentFlags().StringVar(&f.config, "config", defaultAdminConfig(), "admin contexts file (or PAYAUTHZ_ADMIN_CONFIG)")
	cmd.PersistentFlags().StringVar(&f.context, "context", "", "context to use (default: the current one)")
	cmd.PersistentFlags().StringVarP(&f.output, "output", "o", "table", "table or json (export and apply: yaml)")
	cmd.AddCommand(adminContextCmd(f), adminGetCmd(f), adminListCmd(f), adminExportCmd(f), adminApplyCmd(f),
		adminGrantCmd(f, true), adminGrantCmd(f, false), adminCheckCmd(f))
	return cmd
}

func adminContextCmd(f *adminFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "context", Short: "Saved connections: set, use, list (secrets are read from files or variables, never stored)"}
	var c adminContext
	set := &cobra.Command{
		Use:   "set NAME --url URL [--user U (--password-file F | --password-env VAR)] [--cert C --key K] [--ca CA] [--spid-fiscal-code CF]",
		Short: "Save a connection as NAME (the first one saved becomes the current one)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			u, err := url.ParseRequestURI(c.URL)
			if err != nil || c.URL == "" {
				return usageErrorf("--url: want the Backoffice mount, e.g. http://localhost:8080/backoffice/rs/basic/v1")
			}
			if u.User != nil { // the URL itself is never echoed: it holds them
				return usageErrorf("--url holds credentials, which would be saved and listed: give --user with --password-file or --password-env")
			}
			cf, err := f.load()
			if err != nil {
				return err
			}
			v := c
			// A context is read from any directory: its files are saved
			// as absolute paths, never against the directory of a later
			// command.
			for _, path := range []*string{&v.PasswordFile, &v.Cert, &v.Key, &v.CA} {
				if *path == "" {
					continue
				}
				if *path, err = filepath.Abs(*path); err != nil {
					return err
				}
			}
			cf.Contexts[args[0]] = &v
			if cf.Current == "" {
				cf.Current = args[0]
			}
			return f.save(cf)
		},
	}
	set.Flags().StringVar(&c.URL, "url", "", "Backoffice API mount URL")
	set.Flags().StringVar(&c.User, "user", "", "basic: principal")
	set.Flags().StringVar(&c.PasswordFile, "password-file", "", "basic: file holding the password")
	set.Flags().StringVar(&c.PasswordEnv, "password-env", "", "basic: environment variable holding the password")
	set.Flags().StringVar(&c.Cert, "cert", "", "ssl: client certificate (PEM)")
	set.Flags().StringVar(&c.Key, "key", "", "ssl: client key (PEM)")
	set.Flags().StringVar(&c.CA, "ca", "", "CA bundle of the server certificate (PEM)")
	set.Flags().StringVar(&c.SPIDCode, "spid-fiscal-code", "", "spid: fiscal code sent as X-SPID-FISCALNUMBER (through a trusted proxy)")
	use := &cobra.Command{
		Use:   "use NAME",
		Short: "Make NAME the current context",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cf, err := f.load()
			if err != nil {
				return err
			}
			if _, ok := cf.Contexts[args[0]]; !ok {
				return usageErrorf("no admin context %q", args[0])
			}
			cf.Current = args[0]
			return f.save(cf)
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the saved contexts, the current one marked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cf, err := f.load()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "CURRENT\tNAME\tURL\tAUTH")
			names := make([]string, 0, len(cf.Contexts))
			for n := range cf.Contexts {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				c := cf.Contexts[n]
				auth := "basic " + c.User
				switch {
				case c.Cert != "":
					auth = "ssl " + c.Cert
				case c.SPIDCode != "":
					auth = "spid"
				}
				cur := ""
				if n == cf.Current {
					cur = "*"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cur, n, c.URL, auth)
			}
			return tw.Flush()
		},
	}
	cmd.AddCommand(set, use, list)
	return cmd
}

func printItems(cmd *cobra.Command, f *adminFlags, k resourceKind, items []map[string]any) error {
	if f.output == "json" {
		return writeJSON(cmd.OutOrStdout(), items)
	}
	if f.output != "table" {
		return usageErrorf("-o %q: want table or json", f.output)
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
	// The columns are every row's members: the service omits empty ones
	// (an operator's acl of its own), so the first row may lack some.
	seen := map[string]bool{k.idField: true}
	var cols []string
	for _, it := range items {
		for col := range it {
			if !seen[col] {
				seen[col] = true
				cols = append(cols, col)
			}
		}
	}
	sort.Strings(cols)
	cols = append([]string{k.idField}, cols...)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(cols, "\t")))
	for _, it := range items {
		vals := make([]string, len(cols))
		for i, c := range cols {
			v, ok := it[c]
			if !ok {
				continue // absent: an empty cell
			}
			b, _ := json.Marshal(v)
			vals[i] = strings.Trim(string(b), `"`)
		}
		fmt.Fprintln(tw, strings.Join(vals, "\t"))
	}
	return tw.Flush()
}

// adminReadCmd reads resources of the kind named by the first argument
// through the selected context and prints them (-o table or json).
func adminReadCmd(f *adminFlags, use, short string, nargs int,
	read func(ctx context.Context, c *adminClient, k resourceKind, args []string) ([]map[string]any, error)) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(nargs),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, c, err := f.kindClient(args[0])
			if err != nil {
				return err
			}
			items, err := read(cmd.Context(), c, k, args[1:])
			if err != nil {
				return argumentsRefused(err)
			}
			return printItems(cmd, f, k, items)
		},
	}
}

func adminGetCmd(f *adminFlags) *cobra.Command {
	return adminReadCmd(f, "get KIND ID", "Print one resource (KIND: "+kindNames()+")", 2, func(ctx context.Context, c *adminClient, k resourceKind, args []string) ([]map[string]any, error) {
		var it map[string]any
		_, err := c.do(ctx, http.MethodGet, "/"+k.name+"/"+url.PathEscape(args[0]), nil, &it)
		return []map[string]any{it}, err
	})
}

func adminListCmd(f *adminFlags) *cobra.Command {
	return adminReadCmd(f, "list KIND", "Print every resource of a kind the context's principal may read", 1, func(ctx context.Context, c *adminClient, k resourceKind, _ []string) ([]map[string]any, error) {
		return c.list(ctx, k.name)
	})
}

// kindClient parses a resource kind and returns it with the client of the
// selected context.
func (f *adminFlags) kindClient(kind string) (resourceKind, *adminClient, error) {
	k, err := kindOf(kind)
	if err != nil {
		return k, nil, err
	}
	c, err := f.client()
	return k, c, err
}
