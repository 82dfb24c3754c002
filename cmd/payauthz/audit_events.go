package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

func eventsCmd(ac *auditConfig) *cobra.Command {
	var (
		from      uint64
		types     []string
		principal string
		format    string
		follow    bool
	)
	cmd := &cobra.Command{
		Use:   "events [--from P] [--type T] [--principal P] [--format jsonl|table] [--follow]",
		Short: "Export the event log (secrets removed), or tail it with --follow",
		Args:  cobra.NoArgs,
		RunE: withEnv(func(cmd *cobra.Command, _ []string) error {
			if format != "jsonl" && format != "table" {
				return fmt.Errorf("--format %q: want jsonl or table", format)
			}
			for _, t := range types {
				if _, err := events.DefaultCodec.Decode(t, []byte(`{}`)); errors.Is(err, events.ErrUnknownEvent) {
					return fmt.Errorf("--type %q: unknown event type", t)
				}
			}
			ctx := cmd.Context()
			store, err := ac.open(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			out := newEventWriter(cmd.OutOrStdout(), format)
			h := func(_ context.Context, env events.Envelope) error {
				if len(types) > 0 && !slices.Contains(types, env.Name) {
					return nil
				}
				if principal != "" && !concerns(env, principal) {
					return nil
				}
				return out.write(env)
			}
			start := events.Position(0)
			if from > 1 {
				start = events.Position(from - 1)
			}
			if follow {
				err = store.Subscribe(ctx, start, func(ctx context.Context, env events.Envelope) error {
					if err := h(ctx, env); err != nil {
						return err
					}
					return out.flush()
				})
				if errors.Is(err, context.Canceled) {
					err = nil
				}
			} else {
				err = store.Read(ctx, start, h)
			}
			if ferr := out.flush(); err == nil {
				err = ferr
			}
			return err
		}),
	}
	fs := cmd.Flags()
	fs.Uint64Var(&from, "from", 1, "first log position to export")
	fs.StringSliceVar(&types, "type", nil, "only events of these types (e.g. ApplicationUpdated; repeatable)")
	fs.StringVar(&principal, "principal", "", "only events acted by this principal or about it")
	fs.StringVar(&format, "format", "jsonl", "jsonl or table")
	fs.BoolVar(&follow, "follow", false, "keep tailing the log until interrupted")
	return cmd
}

// concerns reports whether the event was acted by principal or is about it
// (an operator's or application's registration and updates).
func concerns(env events.Envelope, principal string) bool {
	if env.Actor == principal || env.Stream == events.StreamOperatore+principal {
		return true
	}
	var about struct {
		Principal string `json:"principal"`
	}
	return json.Unmarshal(env.Data, &about) == nil && about.Principal == principal
}

type eventWriter struct {
	w   io.Writer
	enc *json.Encoder
	tw  *tabwriter.Writer
}

func newEventWriter(w io.Writer, format string) *eventWriter {
	if format == "table" {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "POSITION\tTIME\tTYPE\tSTREAM\tACTOR")
		return &eventWriter{w: w, tw: tw}
	}
	return &eventWriter{w: w, enc: json.NewEncoder(w)}
}

func (e *eventWriter) write(env events.Envelope) error {
	if e.tw != nil {
		_, err := fmt.Fprintf(e.tw, "%d\t%s\t%s\t%s\t%s\n", env.Position, env.Time.UTC().Format(time.RFC3339), env.Name,
			env.Stream, orDash(env.Actor))
		return err
	}
	return e.enc.Encode(operations.NewEventEntry(env)) // the /eventi wire form
}

func (e *eventWriter) flush() error {
	if e.tw != nil {
		return e.tw.Flush()
	}
	return nil
}
