// Command payauthz is the authorization layer of a GovPay-style payment
// service: an event-sourced CQRS service whose HTTP handlers authorize
// every request against read models folded from the event log.
//
//	payauthz serve    run the service (embedded NATS JetStream by default)
//	payauthz audit    auditors: replay, who-can, explain, what-can, events, verify, prove
//	payauthz replay   alias of audit replay
//	payauthz admin    operators: contexts, get/list, export/apply, grant/revoke, check
//	payauthz backup   copy the event log to a file; restore writes one into an empty data dir
//	payauthz version  module version, commit and Go version (also --version)
//	payauthz healthcheck  probe /readyz (exit 0 ready, 1 not)
//
// Exit codes: 0 success, 1 failure, 2 usage error, 3 a decision that does
// not allow (audit explain, admin check).
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// The first signal starts the ordered shutdown; stop lets a second one
	// end the process at once (the default action), should that stall.
	context.AfterFunc(ctx, stop)
	if err := rootCmd().ExecuteContext(ctx); err != nil {
		if !errors.Is(err, errDenied) {
			fmt.Fprintln(os.Stderr, "payauthz:", err)
		}
		os.Exit(exitCode(err))
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "payauthz",
		Short:         "Event-sourced authorization layer for a GovPay-style payment service",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Version = readBuildInfo().String()
	root.SetVersionTemplate("payauthz {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%w", err) })
	root.AddCommand(serveCmd(), replayCmd(), auditCmd(), versionCmd(), healthcheckCmd(), backupCmd(), restoreCmd(), adminCmd())
	argsAreUsage(root)
	return root
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l, ReplaceAttr: durationsInSeconds}))
}

// durationsInSeconds writes a time.Duration attribute "took" as
// "took_seconds": 1.25, never as a raw count of nanoseconds.
func durationsInSeconds(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.Float64(a.Key+"_seconds", a.Value.Duration().Seconds())
	}
	return a
}
