package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
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
		Long: `Export the event log (secrets removed), or tail it with --follow.

--principal P keeps the events that concern P, decided in the log's order:
  - the events P acted (their actor is P);
  - the events on the stream of the operator P is (operatore-P), and on the stream
    of the application P names at that point of the log (applicazione-<idA2A>): its
    registration and updates, the rename that gives it the name P or takes it away,
    and its API grants and revocations (ApplicationAPIAuthorized, ApplicationAPIRevoked),
    which carry only the idA2A;
  - the events whose payload names P as its principal.
Role definitions are not followed (a role is everyone's who holds it: use --type RoleDefined).
With --from, what P named before that position still counts: the log is read from its start.`,
		Args: cobra.NoArgs,
		RunE: withEnv(func(cmd *cobra.Command, _ []string) error {
			if format != "jsonl" && format != "table" {
				return usageErrorf("--format %q: want jsonl or table", format)
			}
			for _, t := range types {
				if !events.DefaultCodec.Known(t) {
					return usageErrorf("--type %q: unknown event type", t)
				}
			}
			ctx := cmd.Context()
			store, err := ac.open(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			return exportEvents(ctx, store, eventsQuery{from: events.Position(from), types: types, principal: principal, follow: follow},
				newEventWriter(cmd.OutOrStdout(), format))
		}),
	}
	fs := cmd.Flags()
	fs.Uint64Var(&from, "from", 1, "first log position to export")
	fs.StringSliceVar(&types, "type", nil, "only events of these types (e.g. ApplicationUpdated; repeatable)")
	fs.StringVar(&principal, "principal", "", "only events that concern this principal: acted by it, or on its operator's or application's stream while it names it (see above)")
	fs.StringVar(&format, "format", "jsonl", "jsonl or table")
	fs.BoolVar(&follow, "follow", false, "keep tailing the log until interrupted")
	return cmd
}

// eventsQuery is what `audit events` exports: the events from position
// from on (inclusive), of the given types (none: all), that concern
// principal ("": all), and with follow those appended afterwards.
type eventsQuery struct {
	from      events.Position
	types     []string
	principal string
	follow    bool
}

// exportEvents writes the events of store that q asks for to out; with
// q.follow it tails the log until ctx is cancelled (then returns nil).
// The log is read from q.from as the store reads a client's position
// (ReadFrom), never after q.from-1: a store whose positions are sparse
// (KurrentDB) has no place there to read after. A q.from such a store
// cannot start from (events.ErrInvalidPosition) is a usage error.
func exportEvents(ctx context.Context, store events.Store, q eventsQuery, out *eventWriter) error {
	var about *principalFilter
	if q.principal != "" {
		// What concerns a principal depends on the application it
		// named before --from too: its filter reads from the start.
		about = &principalFilter{principal: q.principal, apps: map[string]bool{}}
	}
	h := func(_ context.Context, env events.Envelope) error {
		if about != nil && !about.concerns(env) {
			return nil
		}
		if env.Position < q.from {
			return nil
		}
		if len(q.types) > 0 && !slices.Contains(q.types, env.Name) {
			return nil
		}
		return out.write(env)
	}
	var last, seen events.Position // the log's end before the read, the last commit it read
	if q.follow {
		var err error
		if last, err = store.LastPosition(ctx); err != nil {
			return err
		}
	}
	read := func(ctx context.Context, env events.Envelope) error {
		seen = env.Position
		return h(ctx, env)
	}
	var err error
	if about != nil {
		err = store.Read(ctx, 0, read)
	} else {
		err = store.ReadFrom(ctx, q.from, read)
	}
	if errors.Is(err, events.ErrInvalidPosition) {
		return usageErrorf("--from %d is not a position of the log: on a log whose positions are sparse (KurrentDB) it is 1, an event's posizione or one past it", uint64(q.from))
	}
	if ferr := out.flush(); err == nil {
		err = ferr
	}
	if err != nil || !q.follow {
		return err
	}
	// The tail starts after the last commit read, or, when the read found
	// none at or after q.from, after the log's end before it (what came
	// between is before q.from, and h drops it).
	err = store.Subscribe(ctx, max(seen, last), func(ctx context.Context, env events.Envelope) error {
		if err := h(ctx, env); err != nil {
			return err
		}
		return out.flush()
	})
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// principalFilter keeps the events of the log that concern one principal,
// read in the log's order from its start: what they concern depends on what
// the principal named at that point. An event concerns the principal when
// it acted it, when it is on the stream of the operator it is
// (operatore-P), or on the stream of an application it names at that point
// (applicazione-<idA2A>: its registration, its updates, the renames that
// give it the name or take it away, its API grants and revocations, which
// carry only the idA2A), or when its payload names it as "principal". Role
// definitions are not followed: a role is everyone's who holds it (filter
// on --type RoleDefined). Not safe for concurrent use.
type principalFilter struct {
	principal string
	// apps holds the idA2A of the applications whose principal is P, as of
	// the last event read (renames move a principal between applications).
	apps map[string]bool
}

// concerns reports whether env concerns the principal, and follows the
// applications it names. It must see every event of the log in order.
func (f *principalFilter) concerns(env events.Envelope) bool {
	keep := env.Actor == f.principal || env.Stream == events.StreamOperatore+f.principal || f.namesStream(env.Stream)
	switch e := env.Event.(type) {
	case events.ApplicationRegistered:
		f.follow(e.IDA2A, e.Principal)
	case events.ApplicationUpdated:
		f.follow(e.IDA2A, e.Principal)
	}
	if keep {
		return true
	}
	var about struct {
		Principal string `json:"principal"`
	}
	return json.Unmarshal(env.Data, &about) == nil && about.Principal == f.principal
}

// follow records that application idA2A is now named principal.
func (f *principalFilter) follow(idA2A, principal string) {
	if principal == f.principal {
		f.apps[idA2A] = true
	} else {
		delete(f.apps, idA2A)
	}
}

// namesStream reports whether stream is an application's that the
// principal names.
func (f *principalFilter) namesStream(stream string) bool {
	id, ok := strings.CutPrefix(stream, events.StreamApplicazione)
	return ok && f.apps[id]
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
