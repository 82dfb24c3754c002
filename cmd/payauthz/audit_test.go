package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/eventstoretest"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// auditLog is a stopped service's data dir holding a short scripted
// history, and the positions of its steps.
type auditLog struct {
	dir                      string
	granted, revoked, narrow events.Position
	last                     events.Position
}

func newAuditLog(t *testing.T) *auditLog {
	l := &auditLog{}
	l.dir = writeAuditLog(t, func(w *logWriter) {
		grant := func(domini ...string) commands.GrantInput {
			return commands.GrantInput{API: "PENDENZE", Domini: domini, TipiPendenza: []string{"*"}}
		}
		w.app("app1", "app1")
		l.granted = w.app("app1", "app1", grant("*"))
		l.revoked = w.app("app1", "app1")
		l.narrow = w.app("app1", "app1", grant("11111111111"))
		l.last = l.narrow
	})
	return l
}

// logWriter writes a scripted history through the command handlers, as the
// service would, each step applied to the read models before the next.
type logWriter struct {
	t     *testing.T
	ctx   context.Context
	h     *commands.Handler
	model *projections.ReadModel
	admin commands.Actor
}

// step runs one command and returns the position of its commit.
func (w *logWriter) step(f func() (commands.Result, error)) events.Position {
	w.t.Helper()
	res, err := f()
	if err != nil {
		w.t.Fatal(err)
	}
	if err := w.model.WaitFor(w.ctx, res.Position); err != nil {
		w.t.Fatal(err)
	}
	return res.Position
}

// app puts the application idA2A, named principal, with these grants (and
// revokes the others).
func (w *logWriter) app(idA2A, principal string, grants ...commands.GrantInput) events.Position {
	w.t.Helper()
	pw := idA2A + "-password"
	return w.step(func() (commands.Result, error) {
		return w.h.PutApplication(w.ctx, w.admin, commands.PutApplication{IDA2A: idA2A, Principal: principal,
			Credentials: commands.Credentials{Password: &pw, Enabled: true, Roles: []string{}}, Grants: grants})
	})
}

// regrant puts the application idA2A again with these grants and no
// password (its own is kept): only grant and revocation events, when
// nothing else changes.
func (w *logWriter) regrant(idA2A, principal string, grants ...commands.GrantInput) events.Position {
	w.t.Helper()
	return w.step(func() (commands.Result, error) {
		return w.h.PutApplication(w.ctx, w.admin, commands.PutApplication{IDA2A: idA2A, Principal: principal,
			Credentials: commands.Credentials{Enabled: true, Roles: []string{}}, Grants: grants})
	})
}

// writeAuditLog writes a stopped service's data dir: the administrator, the
// entities 11111111111 and 22222222222, the type TARI, then script's steps.
func writeAuditLog(t *testing.T, script func(w *logWriter)) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := filepath.Join(t.TempDir(), "data")
	store, err := jetstream.Open(ctx, jetstream.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	model := projections.New()
	done := make(chan struct{})
	go func() { defer close(done); _ = model.Run(ctx, store, logger) }()
	defer func() { cancel(); <-done }()
	w := &logWriter{t: t, ctx: ctx, h: commands.NewHandler(store, model, logger), model: model}
	w.step(func() (commands.Result, error) {
		_, err := w.h.Bootstrap(ctx, "admin", "admin-pass-1")
		last, _ := store.LastPosition(ctx)
		return commands.Result{Position: last}, err
	})
	rec, _ := model.Lookup("admin")
	w.admin = commands.Actor{Principal: rec.Principal}
	for _, d := range []string{"11111111111", "22222222222"} {
		w.step(func() (commands.Result, error) {
			return w.h.PutEntity(ctx, w.admin, commands.PutEntity{IDDominio: d, RagioneSociale: "Comune", Enabled: true})
		})
	}
	w.step(func() (commands.Result, error) {
		return w.h.PutPendenzaType(ctx, w.admin, commands.PutPendenzaType{IDTipoPendenza: "TARI", Descrizione: "Tari", Enabled: true})
	})
	script(w)
	return dir
}

// run executes the CLI in process, as `payauthz args...`.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := rootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := run(t, args...)
	if err != nil {
		t.Fatalf("payauthz %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

func lastPosition(t *testing.T, dir string) (p events.Position) {
	t.Helper()
	withDataDir(t, dir, true, func(s *jetstream.Store) {
		var err error
		if p, err = s.LastPosition(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	return p
}

func TestAuditCLI(t *testing.T) {
	l := newAuditLog(t)
	dd := "--data-dir=" + l.dir
	pos := func(p events.Position) string { return strconv.FormatUint(uint64(p), 10) }
	createD2 := []string{"--api", "PENDENZE", "--operation", "create", "--dominio", "22222222222", "--tipo", "TARI"}

	t.Run("replay_whole_log", func(t *testing.T) {
		out, errOut, err := run(t, "audit", "replay", dd)
		if err != nil {
			t.Fatal(err, errOut)
		}
		for _, want := range []string{"events: ", "position: " + pos(l.last), "events/s: ", "events by type:", "ApplicationRegistered", "OperatorRegistered"} {
			if !strings.Contains(out, want) {
				t.Errorf("summary lacks %q:\n%s", want, out)
			}
		}
		if !strings.Contains(errOut, "replay: 100%") || !strings.Contains(errOut, " events/s\n") || strings.Contains(errOut, "\r") {
			t.Errorf("not a terminal: want plain progress lines, got:\n%q", errOut)
		}
	})
	t.Run("replay_alias_to_position", func(t *testing.T) {
		out := mustRun(t, "replay", dd, "--to", pos(l.granted))
		if !strings.Contains(out, "position: "+pos(l.granted)+" (log end "+pos(l.last)+")") {
			t.Fatalf("replay --to:\n%s", out)
		}
	})
	t.Run("who_can_at_each_point", func(t *testing.T) {
		for _, c := range []struct {
			at   events.Position
			want bool
		}{{l.granted, true}, {l.revoked, false}, {l.narrow, false}} {
			out := mustRun(t, append([]string{"audit", "who-can", dd, "--position", pos(c.at)}, createD2...)...)
			if got := strings.Contains(out, "app1"); got != c.want {
				t.Errorf("at %d: app1 listed = %v, want %v:\n%s", c.at, got, c.want, out)
			}
		}
		var r audit.WhoCanResult
		out := mustRun(t, "audit", "who-can", dd, "--api", "PENDENZE", "--operation", "create", "--dominio", "11111111111", "--tipo", "TARI", "--format", "json")
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Holders) != 1 || r.Holders[0].Principal != "app1" {
			t.Fatalf("who-can json: %v %s", err, out)
		}
	})
	t.Run("explain_names_receipts_flows_and_incassi", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--api", "RAGIONERIA", "--operation", "read-ricevuta", "--dominio", "11111111111", "--iuv", "01000000000012345", "--ricevuta", "RIC-1"},
				"iuv=01000000000012345 idRicevuta=RIC-1"},
			{[]string{"--api", "BACKOFFICE", "--operation", "read-flusso", "--dominio", "11111111111", "--flusso", "F1", "--data-flusso", "2026-01-03"},
				"idFlusso=F1 dataOraFlusso=2026-01-03"},
			{[]string{"--api", "BACKOFFICE", "--operation", "read-incasso", "--dominio", "11111111111", "--incasso", "INC1"}, "idIncasso=INC1"},
		} {
			out, errOut, _ := run(t, append([]string{"audit", "explain", dd, "--principal", "app1", "--auth", "basic"}, c.args...)...)
			if !strings.Contains(out, c.want) || strings.Contains(out, "bad query") || strings.Contains(errOut, "required") {
				t.Errorf("explain %v: want the resource %q:\n%s%s", c.args, c.want, out, errOut)
			}
		}
	})
	t.Run("explain_text_and_json", func(t *testing.T) {
		out, _, err := run(t, append([]string{"audit", "explain", dd, "--principal", "app1", "--auth", "basic", "--position", pos(l.narrow)}, createD2...)...)
		if exitCode(err) != exitDenied {
			t.Fatalf("a denial: exit code %d (%v), want 3", exitCode(err), err)
		}
		for _, want := range []string{"DENY (rule api-scope)", "rests on:  log position " + pos(l.narrow), "FAIL  PENDENZE/create", "autorizzazioneApi PENDENZE"} {
			if !strings.Contains(out, want) {
				t.Errorf("explain lacks %q:\n%s", want, out)
			}
		}
		var x audit.Explanation
		out = mustRun(t, append([]string{"audit", "explain", dd, "--principal", "app1", "--position", pos(l.granted), "--format", "json"}, createD2...)...)
		if err := json.Unmarshal([]byte(out), &x); err != nil || x.Outcome != "allow" || x.Position != uint64(l.granted) {
			t.Fatalf("explain json: %v %+v", err, x)
		}
	})
	t.Run("events_export", func(t *testing.T) {
		out := mustRun(t, "audit", "events", dd, "--type", "ApplicationUpdated")
		sc := bufio.NewScanner(strings.NewReader(out))
		n := 0
		for sc.Scan() {
			var e operations.EventEntry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Tipo != "ApplicationUpdated" || e.Posizione == 0 {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			n++
		}
		if n != 3 {
			t.Fatalf("%d ApplicationUpdated events, want 3:\n%s", n, out)
		}
		all := mustRun(t, "audit", "events", dd, "--from", "2")
		if strings.Contains(all, "passwordHash") || strings.Contains(all, "$argon2id$") || strings.Contains(all, `"posizione":1,`) {
			t.Fatalf("export leaks secrets or starts before --from:\n%s", all)
		}
		table := mustRun(t, "audit", "events", dd, "--principal", "app1", "--format", "table")
		if !strings.HasPrefix(table, "POSITION") || !strings.Contains(table, "ApplicationRegistered") || strings.Contains(table, "CreditorEntityRegistered") {
			t.Fatalf("table:\n%s", table)
		}
	})
	t.Run("operations_catalogue", func(t *testing.T) {
		out := mustRun(t, "audit", "operations")
		for _, want := range []string{"PENDENZE", "create", "servizio", "read-notice", "write-reconciliation"} {
			if !strings.Contains(out, want) {
				t.Errorf("catalogue lacks %s", want)
			}
		}
	})
	t.Run("bad_input", func(t *testing.T) {
		for name, args := range map[string][]string{
			"no_log":            {"audit", "replay", "--data-dir", t.TempDir()},
			"bad_at":            {"audit", "replay", dd, "--at", "yesterday"},
			"unknown_operation": {"audit", "who-can", dd, "--api", "PENDENZE", "--operation", "fly"},
			"missing_api":       {"audit", "who-can", dd, "--operation", "list"},
			"bad_auth":          {"audit", "explain", dd, "--principal", "app1", "--auth", "kerberos", "--api", "PENDENZE", "--operation", "list"},
			"bad_format":        {"audit", "events", dd, "--format", "xml"},
			"unknown_type":      {"audit", "events", dd, "--type", "Nope"},
		} {
			if _, _, err := run(t, args...); err == nil {
				t.Errorf("%s: accepted", name)
			}
		}
	})
	t.Run("never_writes", func(t *testing.T) {
		if got := lastPosition(t, l.dir); got != l.last {
			t.Fatalf("the log moved from %d to %d", l.last, got)
		}
		withDataDir(t, l.dir, true, func(s *jetstream.Store) {
			_, err := s.Append(context.Background(), "x", events.ExpectNoStream(), events.Record{Event: events.PendenzaTypeRegistered{IDTipoPendenza: "X"}})
			if !errors.Is(err, events.ErrReadOnly) {
				t.Fatalf("append on a read-only store: %v", err)
			}
		})
	})
}

// TestAuditStoreSelection: the log readers (audit, backup) check --store
// as serve does: an unknown backend, a connection string that does not
// parse or a --nats-url beside a KurrentDB --store is a usage error whose
// message never holds the password; an unreachable KurrentDB is a failure.
func TestAuditStoreSelection(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		args  []string
		store string
		code  int
		want  string
	}{
		{"unknown_backend_is_refused", []string{"audit", "events"}, "mysql://x", exitUsage, "want jetstream or a kurrentdb://"},
		{"unknown_backend_password_not_echoed", []string{"audit", "events"}, "http://admin:hunter22@db:2113", exitUsage, "want jetstream or a kurrentdb://"},
		{"backup_unknown_backend_password_not_echoed", []string{"backup", "--to", filepath.Join(t.TempDir(), "b")}, "esdbs://admin:hunter22@db:2113", exitUsage, "--store"},
		{"bad_kurrentdb_setting_is_usage", []string{"audit", "events"}, "kurrentdb://admin:hunter22@localhost:2113?tls=perhaps", exitUsage, "--store"},
		{"unreachable_kurrentdb_is_an_error", []string{"audit", "events"}, "kurrentdb://127.0.0.1:1?tls=false", exitFailure, "kurrentdb"},
		// --nats-url names a log a KurrentDB --store never opens: which
		// one the auditor meant to read is not the tool's to guess.
		{"nats_url_beside_kurrentdb_is_usage", []string{"audit", "events", "--nats-url", "nats://127.0.0.1:1"}, "kurrentdb://127.0.0.1:1?tls=false", exitUsage, "--nats-url needs --store jetstream"},
		{"backup_nats_url_beside_kurrentdb_is_usage", []string{"backup", "--to", filepath.Join(t.TempDir(), "c"), "--nats-url", "nats://127.0.0.1:1"}, "kurrentdb://127.0.0.1:1?tls=false", exitUsage, "--nats-url needs --store jetstream"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := run(t, append(tc.args, "--store", tc.store)...)
			if exitCode(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v --store %s: exit %d, error %v, want %d and one containing %q", tc.args, tc.store, exitCode(err), err, tc.code, tc.want)
			}
			if strings.Contains(err.Error()+out+errOut, "hunter22") {
				t.Fatalf("the password is echoed: %v\n%s%s", err, out, errOut)
			}
		})
	}
	if _, err := (readOnly{}).Append(context.Background(), "s", events.ExpectNoStream()); !errors.Is(err, events.ErrReadOnly) {
		t.Fatalf("readOnly.Append: %v, want ErrReadOnly", err)
	}
}

// TestPrintExplanationMarksEvidence: the text form of explain says of each
// role whether it covers the resource, covers part of it (a payment whose
// items two roles cover between them) or does not.
func TestPrintExplanationMarksEvidence(t *testing.T) {
	x := &audit.Explanation{Principal: "op", Outcome: audit.OutcomeAllow, Rule: audit.RuleGranted, Evidence: []audit.Evidence{
		{Kind: "ruolo", ID: "all", Covers: true, Why: "gives Pagamenti R"},
		{Kind: "ruolo", ID: "d1", Partial: true, Why: "gives Pagamenti R with idDominio 1 in scope but idDominio 2 is not in its scope"},
		{Kind: "ruolo", ID: "none", Why: "does not give Pagamenti R"},
	}}
	var b bytes.Buffer
	if err := printExplanation(&b, x); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ruolo all domini=[] tipiPendenza=[]: covers — gives Pagamenti R\n",
		"ruolo d1 domini=[] tipiPendenza=[]: covers part — gives Pagamenti R with idDominio 1 in scope but idDominio 2 is not in its scope\n",
		"ruolo none domini=[] tipiPendenza=[]: does not cover — does not give Pagamenti R\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("explanation text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestQueryFlagsNameEveryResourceField: who-can and explain have a flag
// for every field of the resource a query names (a field added to
// audit.Resource without its flag could not be asked from the CLI).
func TestQueryFlagsNameEveryResourceField(t *testing.T) {
	var q queryFlags
	fs := pflag.NewFlagSet("q", pflag.ContinueOnError)
	q.bind(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() == "string" {
			if err := f.Value.Set("v-" + f.Name); err != nil {
				t.Fatal(err)
			}
		}
	})
	for _, f := range q.res.Fields() {
		if f.Value == "" {
			t.Errorf("no flag sets the resource field %s", f.Name)
		}
	}
}

// TestAuditEventsPrincipalFollowsItsApplication: `audit events --principal
// P` keeps the events on the stream of the application P names at that
// point of the log — its grants and revocations carry only its idA2A — and
// only while P names it: a rename moves the later ones to the new name, and
// an application that takes the name P afterwards brings its own. --from
// only cuts the output: what P named before it still counts.
func TestAuditEventsPrincipalFollowsItsApplication(t *testing.T) {
	grant := func(api string) commands.GrantInput {
		return commands.GrantInput{API: api, Domini: []string{"*"}, TipiPendenza: []string{"*"}}
	}
	var registered, narrowed, renamed, revoked, taken events.Position
	dir := writeAuditLog(t, func(w *logWriter) {
		registered = w.app("gestionale", "p1", grant("PENDENZE"))
		narrow := commands.GrantInput{API: "PENDENZE", Domini: []string{"11111111111"}, TipiPendenza: []string{"*"}}
		narrowed = w.regrant("gestionale", "p1", narrow)
		renamed = w.app("gestionale", "p2", narrow)
		revoked = w.regrant("gestionale", "p2")
		taken = w.app("nuova", "p1", grant("RAGIONERIA"))
		w.app("altra", "p3", grant("PAGAMENTO"))
	})
	dd := "--data-dir=" + dir
	at := func(p events.Position, tipo, idA2A string) string {
		return fmt.Sprintf("%d %s %s", p, tipo, events.StreamApplicazione+idA2A)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"the_grants_of_the_application_it_names_until_renamed", []string{"--principal", "p1"}, []string{
			at(registered, "ApplicationRegistered", "gestionale"), at(registered, "ApplicationAPIAuthorized", "gestionale"),
			at(narrowed, "ApplicationAPIAuthorized", "gestionale"),
			at(renamed, "ApplicationUpdated", "gestionale"), // the rename takes the name away
			at(taken, "ApplicationRegistered", "nuova"), at(taken, "ApplicationAPIAuthorized", "nuova"),
		}},
		{"the_grants_of_the_application_from_its_rename_on", []string{"--principal", "p2"}, []string{
			at(renamed, "ApplicationUpdated", "gestionale"),
			at(revoked, "ApplicationAPIRevoked", "gestionale"),
		}},
		{"from_a_position_after_the_rename_still_follows_it", []string{"--principal", "p2", "--from", strconv.FormatUint(uint64(revoked), 10)}, []string{
			at(revoked, "ApplicationAPIRevoked", "gestionale"),
		}},
		{"with_a_type_only_those", []string{"--principal", "p1", "--type", "ApplicationAPIAuthorized"}, []string{
			at(registered, "ApplicationAPIAuthorized", "gestionale"), at(narrowed, "ApplicationAPIAuthorized", "gestionale"),
			at(taken, "ApplicationAPIAuthorized", "nuova"),
		}},
		{"a_principal_that_names_nothing_has_none", []string{"--principal", "nobody"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := mustRun(t, append([]string{"audit", "events", dd}, c.args...)...)
			var got []string
			sc := bufio.NewScanner(strings.NewReader(out))
			for sc.Scan() {
				var e operations.EventEntry
				if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
					t.Fatalf("line %q: %v", sc.Text(), err)
				}
				got = append(got, fmt.Sprintf("%d %s %s", e.Posizione, e.Tipo, e.Stream))
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("audit events %s lists\n  %s\nwant\n  %s", strings.Join(c.args, " "), strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// TestNATSURLPasswordNotEchoed: a --nats-url that does not parse, holding
// a password, is a usage error (exit 2) of serve and of the log readers
// alike, and its message names the flag and the URL with the password
// masked; a URL that parses, password and all, passes serve's check.
func TestNATSURLPasswordNotEchoed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		url  string
	}{
		{"serve_bad_port", []string{"serve", "--data-dir", t.TempDir()}, "nats://user:hunter22@db:badport"},
		{"serve_second_of_two", []string{"serve", "--data-dir", t.TempDir()}, "nats://a:4222, nats://user:hunter22@[::1"},
		{"audit_bad_port", []string{"audit", "events"}, "nats://user:hunter22@db:badport"},
		{"backup_bad_host", []string{"backup", "--to", filepath.Join(t.TempDir(), "b")}, "user:hunter22@[::1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := run(t, append(tc.args, "--nats-url", tc.url)...)
			if exitCode(err) != exitUsage || err == nil || !strings.Contains(err.Error(), "--nats-url") {
				t.Fatalf("%v --nats-url %s: exit %d, error %v, want %d and one naming --nats-url", tc.args, tc.url, exitCode(err), err, exitUsage)
			}
			if strings.Contains(err.Error()+out+errOut, "hunter22") {
				t.Fatalf("the password is echoed: %v\n%s%s", err, out, errOut)
			}
		})
	}
	cfg := defaultConfig()
	cfg.NATSURL = "nats://user:hunter22@db:4222,tls://db2"
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate with a --nats-url that parses: %v", err)
	}
}

// TestAuditEventsFromIsInclusive: `audit events --from N` starts at the
// commit at N, read from N as the store reads a client's position
// (ReadFrom), not after N-1: on a log whose positions are sparse
// (KurrentDB's), no commit is at N-1 to read after. N is 1, a position the
// log gave or one past it (where the next commit starts); on such a log
// any other N is a usage error naming --from, not a store failure. Here
// the embedded NATS log, read as such a log (eventstoretest.SparseLog)
// and as itself.
func TestAuditEventsFromIsInclusive(t *testing.T) {
	l := newAuditLog(t)
	positions := func(t *testing.T, out string) []events.Position {
		t.Helper()
		var got []events.Position
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var e operations.EventEntry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			if len(got) == 0 || got[len(got)-1] != events.Position(e.Posizione) {
				got = append(got, events.Position(e.Posizione))
			}
		}
		return got
	}
	t.Run("embedded_log", func(t *testing.T) {
		out := mustRun(t, "audit", "events", "--data-dir", l.dir, "--from", strconv.FormatUint(uint64(l.granted), 10))
		if got := positions(t, out); len(got) == 0 || got[0] != l.granted || got[len(got)-1] != l.last {
			t.Fatalf("--from %d lists the commits %v, want %d to %d", l.granted, got, l.granted, l.last)
		}
	})
	withDataDir(t, l.dir, true, func(s *jetstream.Store) {
		sparse := eventstoretest.SparseLog{Store: s}
		step := events.Position(eventstoretest.SparseStep)
		granted, last := l.granted*step, l.last*step
		for _, c := range []struct {
			name   string
			from   events.Position
			follow bool
			first  events.Position // 0: a usage error naming --from
		}{
			{"from_1", 1, false, step},
			{"from_a_commit", granted, false, granted},
			{"from_one_past_a_commit", granted + 1, false, granted + step},
			{"from_the_last_commit", last, false, last},
			{"from_no_commit", granted - 3, false, 0},
			{"follow_from_a_commit", granted, true, granted},
			{"follow_from_no_commit", granted - 3, true, 0},
		} {
			t.Run(c.name, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				var buf syncBuffer
				done := make(chan error, 1)
				go func() {
					done <- exportEvents(ctx, sparse, eventsQuery{from: c.from, follow: c.follow}, newEventWriter(&buf, "jsonl"))
				}()
				if c.follow && c.first != 0 {
					for deadline := time.Now().Add(10 * time.Second); !strings.Contains(buf.String(), fmt.Sprintf(`"posizione":%d,`, last)); {
						select {
						case err := <-done:
							t.Fatalf("--follow --from %d ended before the log's last commit: %v\n%s", c.from, err, buf.String())
						case <-time.After(10 * time.Millisecond):
						}
						if time.Now().After(deadline) {
							t.Fatalf("--follow --from %d: the log's last commit never came:\n%s", c.from, buf.String())
						}
					}
					cancel()
				}
				err := <-done
				if c.first == 0 {
					if exitCode(err) != exitUsage || !strings.Contains(fmt.Sprint(err), fmt.Sprintf("--from %d", c.from)) {
						t.Fatalf("--from %d, no commit there: exit %d (%v), want %d naming --from", c.from, exitCode(err), err, exitUsage)
					}
					return
				}
				if err != nil {
					t.Fatalf("--from %d: %v", c.from, err)
				}
				got := positions(t, buf.String())
				want := []events.Position{}
				for p := c.first; p <= last; p += step {
					want = append(want, p)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("--from %d lists the commits %v, want %v", c.from, got, want)
				}
			})
		}
	})
}
