package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// queryFlags are the flags of who-can and explain: the operation, the
// resource and the point of history.
type queryFlags struct {
	api, operation, format string
	res                    audit.Resource
	point                  pointFlags
}

func (q *queryFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&q.api, "api", "", "API: BACKOFFICE, PENDENZE, PAGAMENTO or RAGIONERIA (required)")
	fs.StringVar(&q.operation, "operation", "", "operation of the catalogue (see `payauthz audit operations`) (required)")
	bindResource(fs, &q.res)
	fs.StringVar(&q.format, "format", "text", "text or json")
	q.point.bind(fs, "position")
}

// bindResource binds the flags naming the resource of a question, one per
// field of audit.Resource: audit who-can's and explain's, admin check's.
func bindResource(fs *pflag.FlagSet, r *audit.Resource) {
	fs.StringVar(&r.Service, "servizio", "", "BACKOFFICE service, e.g. \"Pendenze\"")
	fs.StringVar(&r.Right, "autorizzazione", "", "BACKOFFICE right: R (default) or W")
	fs.StringVar(&r.IDDominio, "dominio", "", "idDominio")
	fs.StringVar(&r.IDTipoPendenza, "tipo", "", "idTipoPendenza")
	fs.StringVar(&r.IDUnitaOperativa, "unita", "", "idUnitaOperativa (an operational unit of the entity)")
	fs.StringVar(&r.IDA2A, "ida2a", "", "idA2A of a pendenza's creator")
	fs.StringVar(&r.IDPendenza, "pendenza", "", "idPendenza")
	fs.StringVar(&r.NumeroAvviso, "avviso", "", "numeroAvviso")
	fs.StringVar(&r.IDPagamento, "pagamento", "", "payment id")
	fs.StringVar(&r.IDRiconciliazione, "riconciliazione", "", "reconciliation id")
	fs.StringVar(&r.IUV, "iuv", "", "IUV of a receipt's or collection's notice")
	fs.StringVar(&r.IDRicevuta, "ricevuta", "", "receipt id (a collection's iur)")
	fs.StringVar(&r.IDFlusso, "flusso", "", "settlement report id")
	fs.StringVar(&r.DataOraFlusso, "data-flusso", "", "settlement report date (dataOraFlusso)")
	fs.StringVar(&r.IDIncasso, "incasso", "", "incasso id")
	fs.StringVar(&r.IDIntermediario, "intermediario", "", "idIntermediario")
	fs.StringVar(&r.IDRuolo, "ruolo", "", "idRuolo")
	fs.StringVar(&r.PrincipalOperatore, "operatore", "", "an operator's principal")
}

func (q *queryFlags) parse() (domain.API, error) {
	if q.format != "text" && q.format != "json" {
		return domain.API{}, usageErrorf("--format %q: want text or json", q.format)
	}
	if q.api == "" || q.operation == "" {
		return domain.API{}, usageErrorf("--api and --operation are required")
	}
	api, err := domain.ParseAPI(q.api)
	if err != nil || api == domain.APINodo {
		return domain.API{}, usageErrorf("--api %q: want BACKOFFICE, PENDENZE, PAGAMENTO or RAGIONERIA", q.api)
	}
	if _, err := audit.Lookup(api, q.operation); err != nil {
		return domain.API{}, &exitError{code: exitUsage, err: err}
	}
	return api, nil
}

// answerAt rebuilds the read models at q's point of history, asks them
// ask, and writes the answer as JSON (--format json) or as text.
func answerAt[T any](cmd *cobra.Command, ac *auditConfig, q *queryFlags, ask func(*projections.ReadModel) (T, error),
	print func(io.Writer, T) error) error {
	u, err := q.point.until()
	if err != nil {
		return err
	}
	m, err := ac.modelAt(cmd.Context(), u)
	if err != nil {
		return err
	}
	res, err := ask(m)
	if err != nil {
		return queryError(err)
	}
	if q.format == "json" {
		return writeJSON(cmd.OutOrStdout(), res)
	}
	return print(cmd.OutOrStdout(), res)
}

// queryError makes a question the catalogue cannot decide (a resource
// flag its operation needs left out, or a bad value) a usage error, as
// the Backoffice answers it 400.
func queryError(err error) error {
	if errors.Is(err, audit.ErrBadQuery) {
		return &exitError{code: exitUsage, err: err}
	}
	return err
}

// queryCmd is an audit question about an operation at a point of
// history: its flags (queryFlags) bound and the API parsed before run.
func queryCmd(use, short string, run func(cmd *cobra.Command, q *queryFlags, api domain.API) error) *cobra.Command {
	var q queryFlags
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: withEnv(func(cmd *cobra.Command, _ []string) error {
			api, err := q.parse()
			if err != nil {
				return err
			}
			return run(cmd, &q, api)
		}),
	}
	q.bind(cmd.Flags())
	return cmd
}

func whoCanCmd(ac *auditConfig) *cobra.Command {
	return queryCmd("who-can --api A --operation O [resource flags] [--at T | --position P]",
		"Every principal allowed to do an operation at a point of history, with the roles or grants that allow it",
		func(cmd *cobra.Command, q *queryFlags, api domain.API) error {
			return answerAt(cmd, ac, q, func(m *projections.ReadModel) (*audit.WhoCanResult, error) {
				return audit.WhoCan(m, api, q.operation, q.res)
			}, printWhoCan)
		})
}

func explainCmd(ac *auditConfig) *cobra.Command {
	var principal, auth string
	cmd := queryCmd("explain --principal P --auth TYPE --api A --operation O [resource flags] [--at T | --position P]",
		"The decision a request would have received at a point of history, with its rule trail and evidence",
		func(cmd *cobra.Command, q *queryFlags, api domain.API) error {
			at, err := domain.ParseAuthType(auth)
			if err != nil {
				return usageErrorf("--auth: %w", err)
			}
			if principal == "" && at != domain.AuthPublic {
				return usageErrorf("--principal is required (except with --auth public)")
			}
			var denied bool
			err = answerAt(cmd, ac, q, func(m *projections.ReadModel) (*audit.Explanation, error) {
				x, err := audit.Explain(m, audit.Query{Principal: principal, Auth: at, API: api, Operation: q.operation, Resource: q.res})
				denied = err == nil && !x.Allowed()
				return x, err
			}, printExplanation)
			if err == nil && denied {
				return errDenied // printed; exit code 3
			}
			return err
		})
	cmd.Flags().StringVar(&principal, "principal", "", "principal: username, certificate subject DN or fiscal code")
	cmd.Flags().StringVar(&auth, "auth", "basic", "authentication type: "+domain.AuthTypeList())
	return cmd
}

func operationsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "operations",
		Short: "The catalogue of operations who-can and explain know, with the HTTP routes each stands for",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "API\tOPERATION\tROUTES\tSUMMARY")
			for _, o := range audit.Catalogue() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.API, o.Name, strings.Join(o.Routes, "; "), o.Summary)
			}
			return tw.Flush()
		},
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func describeResource(r audit.Resource) string {
	var parts []string
	for _, f := range r.Fields() {
		if f.Value != "" {
			parts = append(parts, f.Name+"="+f.Value)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func describeEvidence(e audit.Evidence) string {
	s := e.Kind + " " + e.ID
	if e.Service != "" {
		s += fmt.Sprintf(" (%s %s)", e.Service, strings.Join(e.Rights, ""))
	}
	return s + fmt.Sprintf(" domini=%v tipiPendenza=%v", e.Domini, e.Tipi)
}

func printExplanation(w io.Writer, x *audit.Explanation) error {
	who := x.Principal
	if who == "" {
		who = "(anonymous)"
	}
	fmt.Fprintf(w, "decision:  %s (rule %s)", strings.ToUpper(x.Outcome), x.Rule)
	if x.Detail != "" {
		fmt.Fprintf(w, ": %s", x.Detail)
	}
	fmt.Fprintf(w, "\nrequest:   %s via %s on %s/%s %s\n", who, x.Auth, x.API, x.Operation, describeResource(x.Resource))
	fmt.Fprintf(w, "principal: %s", orDash(x.Kind))
	if x.PrincipalPosition != 0 {
		fmt.Fprintf(w, ", last shaped at log position %d", x.PrincipalPosition)
	}
	fmt.Fprintf(w, "\nrests on:  log position %d\ntrail:\n", x.Position)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range x.Trail {
		mark := "pass"
		if !s.Passed {
			mark = "FAIL"
		}
		rule := ""
		if s.Rule != "" {
			rule = "[" + s.Rule + "]"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", mark, s.Check, rule, s.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(x.Evidence) > 0 {
		fmt.Fprintln(w, "evidence:")
		for _, e := range x.Evidence {
			mark := "does not cover"
			if e.Covers {
				mark = "covers"
			} else if e.Partial {
				mark = "covers part"
			}
			fmt.Fprintf(w, "  %s: %s — %s\n", describeEvidence(e), mark, e.Why)
		}
	}
	return nil
}

func printWhoCan(w io.Writer, r *audit.WhoCanResult) error {
	fmt.Fprintf(w, "who can %s/%s %s at log position %d: %d principal(s)\n", r.API, r.Operation, describeResource(r.Resource),
		r.Position, len(r.Holders))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PRINCIPAL\tKIND\tAUTH\tSHAPED AT\tALLOWED BY")
	for _, h := range r.Holders {
		name := h.Principal
		switch {
		case h.Kind == domain.KindAnonymous.String():
			name = "(anonymous)"
		case h.Kind == domain.KindCitizen.String() && name == "*":
			name = "(any citizen)"
		}
		var by []string
		for _, e := range h.Evidence {
			by = append(by, describeEvidence(e))
		}
		shaped := "-"
		if h.PrincipalPosition != 0 {
			shaped = fmt.Sprint(h.PrincipalPosition)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, h.Kind, h.Auth, shaped, orDash(strings.Join(by, "; ")))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
