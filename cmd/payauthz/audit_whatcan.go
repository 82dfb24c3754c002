package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/operations/whatcan"
)

func whatCanCmd(ac *auditConfig) *cobra.Command {
	var pf pointFlags
	var principal, resources, service, right string
	var after uint64
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "what-can --principal P [--at T | --position N] [--resources API/OPERATION]",
		Short: "What a principal could do, over which scope and through which role or grant; or the resources it could act on",
		Long: `Without --resources: for each API and operation of the catalogue, whether the principal could perform it,
over which entities × pendenza types ("*" for all) and through which role or API grant, and the resources it
created. With --resources API/OPERATION (e.g. PENDENZE/read, BACKOFFICE/servizio with --servizio Pendenze):
every stored resource of that operation it could act on, one per line as decided, --limit at a time from
--after on. Every answer is the live service's decision (the audit catalogue's operations).`,
		Args: cobra.NoArgs,
		RunE: withEnv(func(cmd *cobra.Command, _ []string) error {
			if principal == "" {
				return usageErrorf("--principal is required")
			}
			if limit < 0 {
				// 0 is every resource; a negative limit is none of
				// Resources' (the Backoffice refuses limite below 1).
				return usageErrorf("--limit %d: want 0 (all) or more", limit)
			}
			var api domain.API
			var opName string
			if resources != "" {
				apiName, name, ok := strings.Cut(resources, "/")
				a, err := domain.ParseAPI(strings.ToUpper(apiName))
				if !ok || err != nil {
					return usageErrorf("--resources %q: want API/OPERATION, e.g. PENDENZE/read", resources)
				}
				if _, err := audit.Lookup(a, name); err != nil {
					return usageErrorf("--resources: %w", err)
				}
				api, opName = a, name
			}
			u, err := pf.until()
			if err != nil {
				return err
			}
			m, err := ac.modelAt(cmd.Context(), u)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if resources != "" {
				enc := json.NewEncoder(out)
				n := 0
				page, err := whatcan.Resources(m, principal, api, opName, service, right, after, limit,
					func(r audit.Resource) error {
						n++
						return enc.Encode(r)
					})
				if errors.Is(err, whatcan.ErrNoResources) {
					return usageErrorf("--resources %q: %w", resources, err)
				}
				if err != nil {
					return queryError(err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "%d of %d resources decided allowed for %s at position %d", n, page.Decided, principal, page.Position)
				if page.Next != 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "; next page: --after %d", page.Next)
				}
				fmt.Fprintln(cmd.ErrOrStderr())
				return nil
			}
			res, err := whatcan.WhatCan(m, principal)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			fmt.Fprintf(out, "principal %s (%s) at position %d\n", res.Principal, strings.ToLower(res.Kind), res.Position)
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "API\tOPERATION\tALLOWED\tSCOPE (entities × types)\tTHROUGH")
			for _, c := range res.Capabilities {
				op := c.Operation
				if c.Service != "" {
					op += " " + c.Service + " " + c.Right
				}
				if !c.Allowed {
					fmt.Fprintf(tw, "%s\t%s\tno\t-\t%s\n", c.API, op, c.Rule)
					continue
				}
				allowed := "yes"
				if c.PerResource {
					allowed = "per resource"
				}
				for i, s := range c.Scope {
					if i > 0 {
						fmt.Fprintf(tw, "\t\t\t%s × %s\t%s\n", strings.Join(s.Domini, ","), strings.Join(s.Tipi, ","), s.Via)
						continue
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s × %s\t%s\n", c.API, op, allowed, strings.Join(s.Domini, ","), strings.Join(s.Tipi, ","), s.Via)
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(out, "owned: %d pendenze created, %d payments started, %d reconciliations created\n",
				res.Owned.Pendenze, res.Owned.Payments, res.Owned.Reconciliations)
			return nil
		}),
	}
	pf.bind(cmd.Flags(), "position")
	cmd.Flags().StringVar(&principal, "principal", "", "the principal (operator or application principal)")
	cmd.Flags().StringVar(&resources, "resources", "", "list the resources of API/OPERATION the principal could act on")
	cmd.Flags().StringVar(&service, "servizio", "", "Backoffice service for BACKOFFICE/servizio (default Pendenze)")
	cmd.Flags().StringVar(&right, "autorizzazione", "", "Backoffice right for BACKOFFICE/servizio: R (default) or W")
	cmd.Flags().Uint64Var(&after, "after", 0, "skip the first resources (the next page's value printed at the end)")
	cmd.Flags().IntVar(&limit, "limit", 0, "decide at most this many resources (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the answer as JSON")
	return cmd
}
